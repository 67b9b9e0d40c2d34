// Match/replace specs (docs/spec-format.md): rules that replace a subgraph
// matched by a DAG pattern with a call to a user kernel.
//
// Internal to lib/spec: the rewriter turns a matched rule into a kernel_call
// op whose plan (ir/KernelCall.h) is all the later passes see.
#pragma once

#include "ir/IR.h"
#include "ir/KernelCall.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace graft {

// An integer expression over the matched values, used for kernel arguments
// and workgroup counts: 42, dim(lhs, 0), n (an integer scalar argument),
// a + b, a - b, a * b, a / b, a % b, ceildiv(a, b), min(a, b), max(a, b), and
// in kernel arguments only the per-workgroup values workgroup_id(i),
// workgroup_count(i) and processor_id(). The operators are the host
// program's (graft_expr_op_t), with its checked floor arithmetic
// (graft/expr.h).
struct SpecExpr {
  enum class Kind : uint8_t {
    Const,          // |value|
    Dim,            // dim |axis| of |input| or |output|
    Scalar,         // the integer scalar pattern argument |input|
    WorkgroupId,    // per workgroup: its id along |axis|
    WorkgroupCount, // per workgroup: the grid size along |axis|
    ProcessorId,    // per workgroup: the worker running it
    Binary,         // |op| of |operands|
  };
  Kind kind = Kind::Const;
  graft_expr_op_t op = GRAFT_EXPR_ADD; // Binary
  int64_t value = 0;   // Const
  // Dim: which value and axis. |input| indexes the pattern's arguments,
  // |output| the pattern's results; exactly one is >= 0.
  int input = -1;
  int output = -1;
  int axis = 0;
  std::vector<SpecExpr> operands; // binary ops: 2
  SourceLoc loc;

  // True when the value differs between the workgroups of one dispatch
  // (the expression uses workgroup_id, workgroup_count or processor_id):
  // the dispatch computes it, not the host program.
  bool perWorkgroup() const {
    if (kind == Kind::WorkgroupId || kind == Kind::WorkgroupCount ||
        kind == Kind::ProcessorId)
      return true;
    for (const SpecExpr &o : operands)
      if (o.perWorkgroup())
        return true;
    return false;
  }
};

// One argument passed to a kernel function, in order.
struct KernelArg {
  enum class Kind : uint8_t {
    Tensor,         // base pointer of an input (const T*) or output (T*)
    Memref,         // base, aligned base, offset, sizes[rank], strides[rank]
                    // (pointers, then size_t values) as MLIR memrefs expand
    Scalar,         // a scalar pattern argument, passed by value
    Expr,           // an integer expression, of type |type|
    ProcessorData,  // processor_data(): the CPU's feature words, as
                    // const uint64_t* (graft_dispatch_state_v1_t)
  };
  Kind kind = Kind::Tensor;
  int input = -1;  // Tensor/Memref/Scalar: pattern argument index, or
  int output = -1; //   pattern result index
  SpecExpr expr;   // Expr
  // Expr: I1, I8, I16, I32, I64 or Index (the target's intptr_t). A value
  // that does not fit fails the invocation; it is never truncated.
  DType type = DType::Index;
  std::string text;          // as written, for messages
  SourceLoc loc;
};

struct Constraint {
  enum class Kind : uint8_t { DivisibleBy, DimRange, ElementTypes } kind;
  SpecExpr value;             // DivisibleBy/DimRange: the quantity
  int64_t divisor = 1;        // DivisibleBy
  int64_t min = 0, max = INT64_MAX; // DimRange (inclusive)
  int input = -1;             // ElementTypes: pattern argument
  std::vector<DType> types;   // ElementTypes
  std::string text;
  SourceLoc loc;
};

struct Rule {
  std::string name;
  SourceLoc loc;
  // A direct rule (`kernel: NAME`) provides the kernel the graph declares
  // as `kernel @NAME` and calls with kernel_call; it matches nothing.
  std::string kernel;
  SourceLoc kernelLoc;
  // The pattern, parsed with the graph parser: arguments are the pattern
  // inputs, results the values the match replaces (outputs). A direct
  // rule's is made from the kernel's declaration (DirectCalls.h): its
  // arguments are the call's operands, its result an `empty` of the
  // declared type, so names, shapes and plans work as for any rule.
  std::unique_ptr<Module> patternModule;
  Function *pattern = nullptr;
  bool direct() const { return !kernel.empty(); }
  std::vector<Constraint> constraints;

  // Replacement (what the rewriter turns into a KernelCall plan).
  KernelForm form = KernelForm::Call;
  KernelLink link = KernelLink::Static;
  std::string symbol;
  bool returnsStatus = false;  // kernel returns int; nonzero fails the call
  std::vector<KernelArg> args; // KernelForm::Call
  // KernelForm::Dispatch: constants passed to the dispatch (bindings are the
  // inputs then the outputs, in pattern order).
  std::vector<SpecExpr> constants;
  SpecExpr grid[3];            // workgroup counts; default 1,1,1
  // `workgroup_size`: elements per workgroup along grid axes x, y, z (empty:
  // not given). Axis x covers the innermost dim of the first output.
  std::vector<int64_t> workgroupSize;
  // Target name, or feature level name ("x86-64-v4": a kernel for CPUs of
  // that level and up), -> kernel.
  std::map<std::string, KernelSource> kernels;
  std::vector<std::string> outputNames;        // one per pattern result
  // Per pattern result: the pattern argument whose value the output starts
  // with (`outputs: [{name: result, init: rhs}]`: the kernel reads and
  // writes it in place), or -1. Dispatch formation gives the output the
  // input's storage when nothing else uses the input, else a copy of it.
  std::vector<int> outputInit;

  // The kernel for |target| at feature level |level| ("" = the target's
  // baseline): the entry of the highest level of the target at or below
  // |level|, else the target's own entry; null when there is none.
  const KernelSource *kernelFor(const std::string &target, const std::string &level = "") const;
  bool hasKernelFor(const std::string &target, const std::string &level = "") const {
    return kernelFor(target, level) != nullptr;
  }
  // Static kernels replace the match on the targets they have a kernel
  // for; an import is resolved at load time, so it applies everywhere.
  bool appliesTo(const std::string &target, const std::string &level = "") const {
    return link != KernelLink::Static || hasKernelFor(target, level);
  }
};

struct SpecSet {
  std::vector<std::unique_ptr<Rule>> rules; // in file order, files in CLI order
};

} // namespace graft
