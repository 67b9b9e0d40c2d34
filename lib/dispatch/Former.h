// Internal to dispatch formation: the state of forming one function's
// dispatches, shared by the files of this folder:
//   Formation.cpp   grouping (formGroups), the driver, scalar results
//   Buffers.cpp     host-program buffers of values
//   LoopKernels.cpp building LoopKernels (scalar DAGs) from op groups
//   Tiling.cpp      flattening, loop order, tile sizes and the grid
//   PackedGrid.cpp  a packed matmul's workgroup grid
//   PackOperands.cpp  the dispatch that packs a matmul's operands per call
//   PackConstants.cpp its constant operands, packed when building
//   CallKernels.cpp kernel-call dispatches (from the ops' call plans)
//   Arena.cpp       intermediate buffers planned into one arena
#pragma once

#include "dispatch/Dispatch.h"

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace graft {

constexpr uint32_t kNoBuffer = ~0u;

// The most scalar ops fusion puts into one dispatch's body. The body is one
// basic block per tile, and LLVM's instruction scheduling and register
// allocation grow faster than linearly in block size: past this, a chain of
// maps continues in a new dispatch (one round trip through memory per this
// many ops), which keeps building a long chain linear in its length.
constexpr size_t kMaxFusedScalarOps = 256;

struct Former {
  const Function &fn;
  ShapeInfo &shapes;
  DiagEngine &diag;
  const SourceManager &sm;
  ProgramSet &out;
  FunctionProgram &prog;
  const FeatureLevel &level; // what the target's baseline gives tiling
  UseIndex uses; // the function does not change while it is formed

  // Grouping results (formGroups).
  // The group of each op that is in one: not views, row statistics,
  // absorbed fills and ops that compute nothing (inGroup).
  std::map<const Op *, int> groupOf;
  // Fills a matmul's accumulator absorbs: the kernel starts from the value.
  std::set<const Op *> absorbedFills;
  std::vector<std::vector<const Op *>> groups;
  std::vector<size_t> groupBodySize; // per group: scalar ops fused into it
  std::map<const Value *, int> readyAfter; // group that must run first (-1: none)
  std::map<const Value *, uint32_t> bufferOf;
  std::set<const Value *> returned;
  // The guard of the steps the group being formed adds (a call with a
  // fallback, or one of its fallback's ops).
  uint32_t stepGuard = 0;
  // Values never materialised (formGroups): broadcasts their consumers read
  // through a composed index map, and row reductions whose consumers
  // compute them per row (RowReduce). Their readiness is their inputs'.
  std::set<const Value *> views;
  std::set<const Op *> rowStats;

  Former(const Function &f, ShapeInfo &s, DiagEngine &d, ProgramSet &o, FunctionProgram &p,
         const FeatureLevel &l)
      : fn(f), shapes(s), diag(d), sm(d.sources()), out(o), prog(p), level(l),
        uses(f) {}

  void run();
  // Reports sizes built for the dispatch at |loc| that overflowed when folded.
  void reportFoldErrors(SourceLoc loc);

  // ---- Grouping (Formation.cpp) ----
  int ready(const Value *v);
  // Views and row statistics (Views.cpp).
  bool isView(const Op *op);
  bool concatOperand(const Op *op, const Op *concat);
  // A concat the packed matmul reads as rows of its rhs (Views.cpp), or null.
  const Op *rowsOf(const Op *op);
  bool broadcastOperand(const Op *op, const Op *broadcast);
  bool isRowStat(const Op *op);
  // A map whose one user is a reduction (not a row statistic): the
  // reduction computes it where it reads it (Views.cpp).
  bool isReducedMap(const Op *op);
  // Whether |v| is consumed only by ops of group |g| (through views and row
  // statistics, which their consumers compute).
  bool consumedOnlyIn(const Value *v, int g);
  // Whether group |g| computes every value at any point of its domain (no
  // reduction dims): a row statistic over its values can be fused into it.
  bool pointwiseGroup(int g);
  bool absorbedFill(const Op *op);
  int tryFuseMap(const Op *op);
  bool availableIn(const Value *v, int g);
  void formGroups();
  // Whether |op| is in group |g|.
  bool inGroup(const Op *op, int g) const;
  unsigned dispatchNumber() const;
  std::string dispatchName(const Op *root);
  void addDispatchStep(Dispatch d);
  void scalarResult(const Value *v);

  // ---- Buffers (Buffers.cpp) ----
  uint32_t addBuffer(uint32_t kind, uint32_t index, DType t, std::vector<uint32_t> dims);
  // Buffer of a value that is not produced by a dispatch, or was assigned.
  uint32_t buffer(const Value *v);
  // Output buffer of a value a dispatch produces.
  uint32_t outputBuffer(const Value *v);
  bool usedOutside(const Value *v, int g);
  // After every step exists: constants no step, alias or result uses (one
  // a packed copy replaced) become empty, so the slice does not carry them.
  void emptyUnusedConstants();

  // ---- Loop kernels (LoopKernels.cpp, Tiling.cpp) ----
  // A kernel under construction.
  struct KernelDraft {
    Dispatch &d;
    std::map<uint32_t, unsigned> paramIndex;
    std::map<const Value *, int> nodeOf;
    std::map<std::pair<uint32_t, std::vector<int>>, unsigned> inputIndex;
    std::vector<uint32_t> domain;
  };
  unsigned param(KernelDraft &draft, uint32_t expr);
  int node(KernelDraft &draft, ScalarNode n);
  int constNode(KernelDraft &draft, DType t, double f, int64_t i);
  int loadNode(KernelDraft &draft, const Value *v, std::vector<int> map);
  // The kernel input reading buffer |v| through |map| (once per pair).
  unsigned input(KernelDraft &draft, const Value *v, const std::vector<int> &map);
  // A matmul's |rhs| read through a rows view (rowsOf) with |map|: a Load
  // of an input with rowStarts; -1 where |rhs| is no such view.
  int rowsNode(KernelDraft &draft, const Value *rhs, const std::vector<int> &map);
  // Data movement as index arithmetic in the scalar DAG: |v| at the
  // coordinates |at| (one `index` node per dim of |v|). readAt reads
  // through loadNode when every coordinate is a domain index; viewAt is the
  // result of gather, slice, iota or concat |op| at |at|, read from its
  // operands.
  int indexNode(KernelDraft &draft, int dim);
  // |guard| (an i1 node, or -1): read only where it is true, else 0.
  int readAt(KernelDraft &draft, const Value *v, const std::vector<int> &at, bool checked = false,
             int guard = -1);
  int viewAt(KernelDraft &draft, const Op *op, const std::vector<int> &at);
  // `pad` and `tile` |op| at |at| (PadTile.cpp).
  int padOrTileAt(KernelDraft &draft, const Op *op, const std::vector<int> &at);
  // Index arithmetic node |k| over |operands| (an i1 for Cmp with |pred|).
  int indexOp(KernelDraft &draft, OpKind k, std::vector<int> operands,
              const std::string &pred = "");
  // Host expression |e| as an index node: a constant, or a kernel param.
  int sizeNode(KernelDraft &draft, uint32_t e);
  // A row statistic |op| (isRowStat) in the current kernel.
  int rowStatNode(KernelDraft &draft, const Op *op);
  // A tensor value at the current parallel point.
  int atPoint(KernelDraft &draft, const Value *v);
  // A scalar defined outside any body (constant, dim, scalar argument).
  int outerScalar(KernelDraft &draft, const Value *v);
  void emitMap(KernelDraft &draft, const Op *op);
  // Map |op|'s body over |args| (one node per operand): its yield's node.
  int mapBody(KernelDraft &draft, const Op *op, const std::vector<int> &args);
  std::vector<int> identity(unsigned n);
  int reduceIdentity(KernelDraft &draft, const std::string &kind, DType t);
  void rootKernel(KernelDraft &draft, const Op *op);
  void loopGroup(int g);
  // After fusion: flattens pure elementwise kernels, picks tile sizes from
  // the target's vector width and computes the grid.
  void finishLoop(KernelDraft &draft);
  // A packed matmul (finishLoop): its workgroup grid, rows and columns per
  // workgroup as expressions of the sizes (PackedGrid.cpp).
  void packedMatmulGrid(KernelDraft &draft);
  // A reduction to one dim with the reduction innermost (finishLoop): the
  // outputs per workgroup, from the sizes, and the grid over them.
  void reductionRows(KernelDraft &draft, const std::vector<uint32_t> &domain);
  // Then the step that packs its operands read by several workgroups once
  // per call into a buffer, and that buffer as an input of the matmul
  // (PackOperands.cpp).
  void packOperandsOncePerCall(KernelDraft &draft);
  // Before that: the matmul's operands that are constants become constants
  // packed when building (PackConstants.cpp), into panels of |w| along M
  // or N (|xMajor|: that dim is the outer one of the two); sets
  // rhsConstant and lhsConstant.
  void packConstantOperands(KernelDraft &draft);
  bool packConstantOperand(KernelDraft &draft, unsigned input, bool xMajor,
                           unsigned w);
  // The packed copy of each (constant buffer, xMajor, w, kc, rows of K a
  // panel row holds, sign bits flipped, AMX's lhs layout) in the function.
  std::map<std::tuple<uint32_t, bool, unsigned, unsigned, unsigned, bool, bool>, uint32_t> packedConstants;

  // ---- Buffer planning (Arena.cpp) ----
  // After every step exists: TEMP buffers written whole by their first step
  // become ARENA buffers at planned offsets.
  void planArena();

  // ---- Kernel calls (CallKernels.cpp) ----
  // Appends the nodes computing Size or PerWorkgroup argument |a| of
  // |plan| to |c| and returns its root; program entries become Params.
  unsigned argNode(KernelDraft &draft, CallKernel &c, const KernelCall &plan, unsigned node,
                   const std::vector<uint32_t> &sizes);
  uint32_t inPlaceOutput(const Value *out, const Value *in, const Op *call);
  void callGroup(int g);
  // The entry of |plan|'s import in the library's import table.
  unsigned importIndex(const KernelCall &plan);
  // The guard of the steps of the group |root| starts: an optional import's
  // call runs when the import resolved, its fallback's ops when it did not;
  // a guarded call when its guard expression is nonzero, its fallback's ops
  // when it is zero.
  uint32_t guardOf(const Op *root);
};

} // namespace graft
