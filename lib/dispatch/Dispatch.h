// Dispatch formation output: a function's host program (buffers, steps,
// checks) and the dispatches it runs, in a form codegen lowers directly.
//
// Every generated dispatch is one "loop-nest kernel": an iteration domain of
// parallel dims (the output's dims) followed by reduction dims, inputs read
// through per-dim maps onto the domain, and a scalar DAG that computes the
// outputs. matmul, reduce, transpose, broadcast, fill and map chains are all
// instances of it, which is what makes fusion and vectorization uniform.
#pragma once

#include "ir/IR.h"
#include "shape/Shapes.h"
#include "spec/Spec.h"
#include "targets/Target.h"

#include <string>
#include <vector>

namespace graft {

// One node of a kernel's scalar DAG.
struct SNode {
  enum class Kind : uint8_t {
    Load,  // element of input |input| at the current point
    Acc,   // the reduction accumulator
    Const, // literal |f| / |i| of |type|
    Param, // dispatch constant word |param| reinterpreted as |type|
    Op,    // |op| applied to |operands|
  };
  SNode(Kind k, DType t) : kind(k), type(t) {}
  Kind kind;
  DType type;
  unsigned input = 0;
  unsigned param = 0;
  double f = 0;
  int64_t i = 0;
  OpKind op = OpKind::Add;
  std::string pred; // Cmp
  std::vector<int> operands;
};

struct KernelInput {
  uint32_t buffer;        // host-program buffer index
  DType elem;
  std::vector<int> map;   // per input dim: the domain dim that indexes it
  std::vector<unsigned> dimParams; // param index holding each input dim size
};

struct KernelOutput {
  uint32_t buffer;
  int node;               // value stored at the parallel point
  DType elem;
};

struct LoopKernel {
  std::vector<unsigned> domainParams; // param index of each domain dim size
  unsigned numParallel = 0;
  std::vector<KernelInput> inputs;
  std::vector<SNode> nodes;
  int accInit = -1;       // reduction only: initial value (parallel point)
  int accUpdate = -1;     // reduction only: new acc from Acc and loads
  DType accType = DType::Invalid;
  std::vector<KernelOutput> outputs;
  unsigned tileX = 64, tileY = 1; // elements per workgroup in the two inner
                                  // parallel dims
  // Reduction loops innermost (one output point at a time) instead of a row
  // of accumulators: chosen when the reduced dims, not the innermost output
  // dim, are contiguous in the inputs (row sums, full reductions).
  bool innerReduction = false;
  // Register tile of the row-of-accumulators form (regRows > 1 enables it):
  // regRows x regCols outputs accumulate in registers (matmul microkernel).
  unsigned regRows = 1, regCols = 1;
};

// A call of a user kernel (spec rule, Form::Call or Form::Dispatch).
struct CallKernel {
  const Rule *rule = nullptr;
  std::vector<uint32_t> inputBuffers;  // per pattern arg (tensors), else ~0u
  std::vector<uint32_t> outputBuffers; // per pattern result
  std::vector<DType> inputTypes, outputTypes;
  std::vector<unsigned> inputRanks, outputRanks;
  // Param index of each dim of each input/output (for memref/dim args).
  std::vector<std::vector<unsigned>> inputDimParams, outputDimParams;
  std::vector<int> inputScalarParam; // scalar pattern args: param index, or -1
  std::vector<unsigned> exprParams;  // KernelArg::Expr args, in arg order
};

struct Dispatch {
  std::string name;        // "mlp_dispatch_0_matmul"
  SourceLoc loc;           // root op
  std::string source;      // "file:line:col" of the root op
  bool isCall = false;
  LoopKernel loop;
  CallKernel call;
  std::vector<uint32_t> bindings;  // host buffers bound, in binding order
  std::vector<uint32_t> params;    // host expr id of each constant word
  uint32_t grid[3];                // host expr ids of workgroup counts
};

struct BufferDesc {
  uint32_t kind;  // graft_buffer_kind_t
  uint32_t index = 0;
  DType dtype;
  std::vector<uint32_t> dims; // expr ids
  std::vector<uint8_t> data;  // CONST
};

struct StepDesc {
  uint32_t kind;       // graft_step_kind_t
  uint32_t dispatch = 0;
  std::vector<uint32_t> bindings;
};

struct FunctionProgram {
  const Function *fn = nullptr;
  ShapeInfo shapes;                  // exprs + checks
  std::vector<BufferDesc> buffers;
  std::vector<StepDesc> steps;
  std::vector<uint32_t> resultBuffers;
};

struct ProgramSet {
  std::vector<FunctionProgram> functions;
  std::vector<Dispatch> dispatches; // over all functions
};

// Forms dispatches for |fn| (after spec rewriting, with its shapes) and
// appends them to |out|. |level| (the target's feature level: vector width
// and registers) sizes the tiles. Sizes that overflow int64 where they are
// known (products of static dims) are reported to |diag|.
void formDispatches(const Function &fn, ShapeInfo shapes, const SpecSet *specs,
                    DiagEngine &diag, const FeatureLevel &level, ProgramSet &out);

} // namespace graft
