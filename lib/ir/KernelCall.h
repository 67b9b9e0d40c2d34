// The call plan of a kernel_call op: everything that is needed to call a
// user kernel in place of the subgraph a spec rule matched, for one target.
// The spec rewriter builds one plan per rule and target (lib/spec/CallPlan)
// and every kernel_call it creates points to it; shape analysis, dispatch
// formation, kernel compilation and both emitters read only the plan, never
// the spec that produced it.
//
// Sizes are a small expression program in the host program's own form
// (graft_expr_v1_t, evaluated with graft/expr.h's rules) over the call's
// operands: ARG_DIM a k is dim k of operand a, ARG_SCALAR a the integer
// scalar operand a; binary entries refer to earlier entries. Shape analysis
// instantiates the program once per call in the function's host program.
//
// A call may carry graft's own code for the same values (its fallback: the
// matched ops stay in the function, Op::fallbackFor, and the values the call
// replaces become its trailing operands): for an optional import, run when
// no plugin provides the symbol; for a rule whose `where` constraints need
// dynamic sizes, run when |guard| is zero in an invocation.
#pragma once

#include "graft/abi.h"
#include "ir/IR.h"

#include <string>
#include <vector>

namespace graft {

// Where the kernel for one target comes from.
struct KernelSource {
  enum class Kind : uint8_t { CSource, Object, Bitcode } kind = Kind::CSource;
  std::string path;               // resolved relative to the spec file
  std::vector<std::string> flags; // extra clang flags for CSource
  SourceLoc loc;
};

enum class KernelForm : uint8_t {
  Call,     // graft generates the dispatch; it calls |symbol| with |args|
  Dispatch, // |symbol| is a whole dispatch function in graft's dispatch ABI
};

// How the kernel's symbol is resolved.
enum class KernelLink : uint8_t {
  Static, // linked into the slice (the kernel's bitcode or object: |source|)
  Import, // an entry of the library's import table, resolved from plugins
          // when the bundle is loaded (docs/plugins.md); no |source|
  Optional, // an import that may stay unresolved: the matched ops stay in
            // the function as the call's fallback (Op::fallbackFor) and
            // run instead of it; their outputs are the call's trailing
            // operands, and the call writes the same buffers
  Host,     // an import called as a host command: its dispatch runs on the
            // invoking thread between the other steps (GRAFT_STEP_HOST_CALL),
            // served by a system plugin only
};

// One step of an integer argument the dispatch computes per workgroup
// (`workgroup_id(0) * 64`): workgroup values, and entries of the size
// program for the parts that are the same for every workgroup.
struct KernelCallArgNode {
  enum class Kind : uint8_t { Entry, WorkgroupId, WorkgroupCount, ProcessorId, Binary };
  Kind kind = Kind::Entry;
  uint32_t index = 0;                  // Entry: program entry; Workgroup*: axis
  graft_expr_op_t op = GRAFT_EXPR_ADD; // Binary, over two earlier nodes
  unsigned lhs = 0, rhs = 0;
};

// One argument of a Call-form kernel, in parameter order.
struct KernelCallArg {
  enum class Kind : uint8_t {
    Buffer,       // base pointer of an operand (const T*) or result (T*)
    Memref,       // base, aligned base, offset, sizes[rank], strides[rank]
    Scalar,       // a scalar operand, by value
    Size,         // entry |expr| of the program, as |type|
    PerWorkgroup, // node |expr| of |argNodes|, as |type|
    ProcessorData, // the dispatch state's processor_data (const uint64_t*)
  };
  Kind kind = Kind::Buffer;
  int operand = -1;          // Buffer/Memref/Scalar: operand index, or
  int result = -1;           //   Buffer/Memref: result index
  unsigned rank = 0;         // Memref: rank of the tensor
  uint32_t expr = 0;         // Size, PerWorkgroup
  // Size/PerWorkgroup: I1, I8, I16, I32, I64 or Index (the target's size_t);
  // Buffer/Memref/Scalar: the element type.
  DType type = DType::Index;
  std::string name;          // Buffer/Memref/Scalar: the pattern's name
  std::string text;          // as written in the spec, for messages
  SourceLoc loc;

  // C parameters this argument expands to (a memref is 3 + 2 * rank).
  unsigned paramCount() const { return kind == Kind::Memref ? 3 + 2 * rank : 1; }
};

// Two entries of the program that must be equal at run time.
struct KernelCallCheck {
  uint32_t lhs, rhs;
  std::string message; // "mlp.yaml:12:9: matmul: inner dimensions (K) ..."
  SourceLoc loc;       // where the rule requires it (the pattern op)
  std::string what;    // |message| without the location
};

struct KernelCall {
  std::string name; // the rule's: `kernel_call @name`, dispatch names
  SourceLoc loc;    // the rule, for messages
  std::string symbol;
  KernelForm form = KernelForm::Call;
  KernelLink link = KernelLink::Static;
  bool returnsStatus = false; // returns int; nonzero fails the dispatch
                              // (always for imports)
  KernelSource source;        // Static: the kernel for this plan's target

  std::vector<graft_expr_v1_t> exprs;            // the size program
  std::vector<std::vector<uint32_t>> resultDims; // per result: entries
  std::vector<KernelCallCheck> checks;           // what the pattern requires
  std::vector<KernelCallArg> args;               // Call form
  std::vector<KernelCallArgNode> argNodes;       // of PerWorkgroup args
  // Per result: the operand whose value it starts as (an in-place output:
  // formation gives it the operand's storage when nothing else uses the
  // operand, else a copy), or -1.
  std::vector<int> resultInit;
  std::vector<uint32_t> constants;               // Dispatch form: entries
  uint32_t grid[3] = {0, 0, 0};                  // workgroup counts: entries
  // The entry that is 1 when the rule's size constraints (`where`) hold on
  // the call's operands and 0 otherwise, or kNoGuard when the rule has none.
  // Only a call with a fallback that is not an optional import's tests it at
  // run time; elsewhere the constraints held when matching.
  static constexpr uint32_t kNoGuard = ~0u;
  uint32_t guard = kNoGuard;
  unsigned inputCount = 0; // operands that are the pattern's inputs (an
                           // optional call's fallback outputs follow)

  bool imported() const { return link != KernelLink::Static; }
  // The name in the library's import table ('?' marks an optional one).
  std::string importName() const {
    return link == KernelLink::Optional ? GRAFT_IMPORT_OPTIONAL_PREFIX + symbol : symbol;
  }

  // Parameters of a static kernel function: the expanded |args| for the
  // Call form, the two state pointers for the Dispatch form. (An imported
  // Call-form function takes them as the fields of one struct.)
  unsigned paramCount() const {
    if (form == KernelForm::Dispatch)
      return 2;
    unsigned n = 0;
    for (const KernelCallArg &a : args)
      n += a.paramCount();
    return n;
  }
};

} // namespace graft
