// Dispatch formation output: a function's host program (buffers, steps,
// checks) and the dispatches it runs, in a form codegen lowers directly.
//
// Every generated dispatch is one "loop-nest kernel": an iteration domain of
// parallel dims (the output's dims) followed by reduction dims, inputs read
// through per-dim maps onto the domain, and a scalar DAG that computes the
// outputs. matmul, reduce, transpose, broadcast, fill and map chains are all
// instances of it, which is what makes fusion and vectorization uniform.
#pragma once

#include <algorithm>

#include "ir/IR.h"
#include "ir/KernelCall.h"
#include "shape/Shapes.h"
#include "targets/Target.h"

#include <string>
#include <vector>

namespace graft {

// One node of a kernel's scalar DAG.
struct ScalarNode {
  enum class Kind : uint8_t {
    // Element of input |input| at the current point, through the input's
    // map; or, with |operands| (one `index` node per input dim), at those
    // coordinates (gather, slice). A |checked| load's coordinates may be out
    // of range: the dispatch then stops with
    // GRAFT_DISPATCH_STATUS_INDEX_OUT_OF_RANGE instead of reading. A
    // |guarded| load has one more operand, an `i1`: it reads only when that
    // is true and is 0 otherwise (an input that may be empty).
    Load,
    Index, // the current index along domain dim |i| (an `index` value)
    Acc,   // the reduction accumulator
    Const, // literal |f| / |i| of |type|
    Param, // dispatch constant word |param| reinterpreted as |type|
    Op,    // |op| applied to |operands|
    // A row statistic: |op| (Add, Mul, Max, Min) folded over the innermost
    // domain dim of node |operands[0]| (evaluated at every point of the
    // current row, in index order), starting from |operands[1]|. Computed
    // once per row before the row's points; operands[0] may use earlier
    // RowReduce nodes. Only in kernels without reduction dims.
    RowReduce,
  };
  ScalarNode(Kind k, DType t) : kind(k), type(t) {}
  Kind kind;
  DType type;
  unsigned input = 0;
  unsigned param = 0;
  double f = 0;
  int64_t i = 0;
  OpKind op = OpKind::Add;
  std::string pred; // Cmp
  bool checked = false; // Load at coordinates
  bool guarded = false; // Load at coordinates
  std::vector<int> operands;
};

struct KernelInput {
  uint32_t buffer;        // host-program buffer index
  DType elem;
  std::vector<int> map;   // per input dim: the domain dim that indexes it;
                          // empty: read at coordinates only (ScalarNode Load)
  std::vector<unsigned> dimParams; // param index holding each input dim size
  // A rows view (a stride-1 conv's rhs, Windows.cpp rowsConv): the input is
  // read as [.., K, N] though stored as [.., C, L], row k a run of L
  // starting at (k / W) * L + the value of param rowStarts[k % W] (W its
  // size; empty for any other input).
  std::vector<unsigned> rowStarts;
};

struct KernelOutput {
  uint32_t buffer;
  int node;               // value stored at the parallel point
  DType elem;
};

// A matmul lowered the way fast CPU GEMMs are (lib/codegen/PackedMatmul.cpp):
// each workgroup owns a block of the output of mw x nw (both expressions of
// the sizes, PackedGrid.cpp); per K block of kc (kcPrepacked where the rhs
// was packed before the call), it takes the rhs block as
// nr-column panels and, per mc rows, the lhs block as mr-row panels, and
// runs a microkernel that keeps an mr x nr register tile of accumulators
// (nr = nv vectors of |lanes|) over the block. Partial sums wait in scratch
// between K blocks, so every output element still adds its products in k
// order: results do not depend on the thread count or on the grid. Sizes
// come from the feature level (Tiling.cpp).
//
// An operand that several workgroups read is packed once per call by a
// dispatch of its own that runs just before the matmul (PackOperands.cpp):
// the rhs where there is more than one row of workgroups, the lhs where
// there is more than one column. Both go into one buffer of
// [.., K, width] floats (kc below: the call's K block, kcParam): K block
// pc takes rows [pc, pc + kc), the rhs
// panel of columns [j, j + nr) at pc * width + j * kc, the lhs panel of rows
// [i, i + mr) at pc * width + (lhsAt + i) * kc, each a kc x nr (kc x mr)
// panel. (i8 pairs, PackedMatmul::pairs: [.., ceil(K / 2), width] of
// 4-byte pairs, every kc and pc above halved, kRows; quads quartered.) An operand read by one workgroup only is packed by that
// workgroup into its scratch, where it stays in cache for the microkernel.
struct PackedMatmul {
  unsigned lhs = 0, rhs = 0; // kernel inputs read as [.., M, K] and [.., K, N]
                             // (a batch matmul's lhs may be one [M, K] that
                             // every batch reads: a broadcast view, Views.cpp)
  bool rhsTransposed = false; // rhs stored as [.., N, K] (a transpose view)
  bool rhsRows = false;       // rhs rows at offsets (KernelInput::rowStarts):
                              // every routine that reads it in place takes
                              // a table of its K block's row offsets
  // How the lhs and rhs are stored: f32, or f16/bf16 (mixed precision),
  // which the packing routines widen exactly to f32 as they pack: the
  // packed panels, the microkernels and the sums are f32 whatever these
  // are. Or both i8 with an i32 accumulator (pairs()).
  DType lhsElem = DType::F32, rhsElem = DType::F32;
  bool halfConversion = false; // the level's FeatureLevel::halfConversion
  const char *pairMultiplyAdd = ""; // the level's FeatureLevel::pairMultiplyAdd
  const char *quadDotProduct = "";  // the level's FeatureLevel::quadDotProduct
  bool quadDotUnsigned = false;     // and its FeatureLevel::quadDotUnsigned
  bool matrixTiles = false;         // the level's FeatureLevel::matrixTiles
  unsigned lanes = 1;        // f32 elements per vector register
  unsigned mr = 0, nv = 0;   // register tile: mr rows x nv vectors (mr = 0: off)
  unsigned kc = 0;           // K block: a kc x nr rhs panel stays in L1
  unsigned kcPrepacked = 0;  // K block where the rhs was packed before the
                             // call (Tiling.cpp), kc or longer
  unsigned kcParam = 0;      // param index of this call's K block: one of
                             // the two (PackOperands.cpp)
  unsigned mc = 0;           // lhs block: a multiple of mr, mc x kc stays in L2
  unsigned mw = 0, nc = 0;   // workgroup block at most: mw rows (a multiple of
                             // mc), nc columns (a multiple of nr)
  unsigned mwParam = 0;      // param index of the workgroup's rows, a multiple
                             // of mr up to mw (chosen from the sizes)
  unsigned nwParam = 0;      // param index of its columns, a multiple of nr
                             // up to nc
  // The packed operands: the kernel input that reads their buffer (in the
  // matmul), the param index of its row width and of lhsAt, and those of
  // the flags (0 or 1) saying whether the rhs and the lhs were packed
  // before the call. In the dispatch that packs them (packOnly), the buffer
  // is output 0 instead: workgroup (x, y, z) packs, in K block x of batch
  // z, rhs columns [y*packCols(), +packCols()) while y < the rhs's column
  // groups, then lhs rows [y'*packRows(), +packRows()) (y' the rest of y).
  unsigned packedInput = 0, widthParam = 0, lhsAtParam = 0;
  unsigned prepackedParam = 0, prepackedLhsParam = 0;
  bool packOnly = false;
  // The rhs (lhs) is a constant packed when building (PackConstants.cpp):
  // input |rhs| (|lhs|) is then [.., kRows(K), width] already in
  // nr-column (mr-row) panels of 4-byte elements (f32, or i8 pairs), laid
  // out as in the packed buffer above (width: N rounded up to nr, M to
  // mr); neither the pack dispatch nor the workgroups pack it, and
  // prepackedParam (prepackedLhsParam) is 0.
  bool rhsConstant = false, lhsConstant = false;
  unsigned nr() const { return nv * lanes; }
  // i8 operands summed in i32 (ONNX MatMulInteger): packed as pairs along
  // K, a 4-byte element holding rows k and k + 1 (k even) widened to two
  // i16, so that x86's pmaddwd sums both products into an i32 lane at once
  // (elsewhere widening multiply-adds, AArch64's smlal), exactly. A K block of kc rows packs
  // into panels of ceil(kc / 2) rows (the K blocks start at even rows), a
  // buffer of [.., K, width] into [.., ceil(K / 2), width]. An odd block's
  // last lhs pair has a zero second half (an rhs pair's may hold anything:
  // the routines that read the rhs in place read row k again); the sums, the
  // fill and the scratch are i32 where the f32 ones are f32. Integer sums are exact in any order, so the
  // grid and the blocks change no result. The routines that read the rhs
  // in place (a block of fewer than mr rows, the packing tile, the sweep)
  // pair its rows as they read them; no transposing tail, no rows view,
  // and the tiles store the i32 sums as they are (no epilogue on them).
  // Where the level has a dot product of i8 quads (quads():
  // FeatureLevel::quadDotProduct, AArch64's sdot), the groups are of four
  // rows instead, kept as i8: a 4-byte element holds rows k .. k + 3 (k a
  // multiple of 4, the K blocks starting at multiples of 4), a K block of
  // kc rows packs into ceil(kc / 4) panel rows, the lhs's past the block's
  // end zero. All the above holds with "pair" read as "group of kGroup()
  // rows". Where the dot product takes u8 x s8 (quadDotUnsigned, x86's
  // vpdpbusd), the rhs's quads are packed with each byte's sign bit
  // flipped (b + 128 as u8; codegen/PackedMatmul.cpp, PackConstants.cpp).
  bool pairs() const { return lhsElem == DType::I8; }
  bool quads() const { return pairs() && *quadDotProduct; }
  // Quads multiplied in x86's AMX tiles (FeatureLevel::matrixTiles,
  // codegen/AmxTiles.cpp): mr = nr = 32, every tile of rows (the tails
  // too) reads both operands packed; an lhs panel holds, per kAmxDepth
  // quads of K, its rows' kAmxDepth quads in turn (an AMX tile's rows, 1
  // KiB in a row: element (r, k) at (k / 16 * mr + r) * 16 + k % 16); a K
  // block's panels have kRows(kc) rows, padded with zeros to a multiple of
  // kAmxDepth quads (a tile's 64 bytes of K), and the K blocks start at
  // multiples of 64. The rhs quads are packed as they are (tdpbssd takes s8
  // x s8); only the one-row sweep, which reads the rhs in place, offsets
  // them as it reads.
  bool amx() const { return quads() && matrixTiles; }
  static constexpr unsigned kAmxDepth = 16;
  // Where quad k of row r of an lhs panel lies in AMX's layout, in 4-byte
  // elements from the panel's start (|rows|: the panel's, mr).
  static uint64_t amxLhsElement(uint64_t r, uint64_t k, uint64_t rows) {
    return (k / kAmxDepth * rows + r) * kAmxDepth + k % kAmxDepth;
  }
  // The most rows of a block that read the rhs in place on an AMX level
  // (codegen's LoopEmitter: taller blocks pack it for the tiles).
  static constexpr unsigned kAmxInPlaceRows = 16;
  // Whether the packed rhs quads are offset by 128 (quadDotUnsigned, not
  // amx()): packed with their sign bits flipped.
  bool rhsPackedUnsigned() const { return quads() && quadDotUnsigned && !matrixTiles; }
  // The rows of K a panel row holds: 1 (f32), 2 (i8 pairs) or 4 (quads),
  // and its log2 (row k of K is in panel row k >> kGroupShift()).
  unsigned kGroupShift() const { return quads() ? 2 : pairs() ? 1 : 0; }
  unsigned kGroup() const { return 1u << kGroupShift(); }
  // Whether the microkernels store outputs (and take the three arguments
  // for it, lib/codegen/PackedMatmul.cpp): the last K block's whole tiles
  // store their finished sums straight into the output and apply an
  // epilogue with a vector form there (lib/codegen/TileEpilogue.h). Where a tile row is at
  // least a 64-byte line (x86-64-v3 and v4), the kinds of level measured
  // to gain (AVX-512 Xeon 1-3% at 1 thread; Zen 3 at x86-64-v3, 1 thread,
  // two runs: 256-cube 3-13%, 1024-cube and the MLPs 1-3%, none slower
  // by its median; tests/bench/README.md);
  // on narrower tiles it cost x86-64-v2's and AArch64's builds 5-10% more
  // instructions, for no measured gain. It also allows the longer K
  // block, kcPrepacked (Tiling.cpp).
  bool tilesStoreOutputs() const { return nr() * 4 >= 64; }
  // Whether a block of one row sweeps its rhs in place
  // (packedMatmulRowSweep): a plain rhs that was not packed when building
  // (nor, at run time, before the call: one row of workgroups never is).
  bool rhsSwept() const { return !rhsTransposed && !rhsConstant && !rhsRows; }
  // What one workgroup of the pack dispatch packs per K block: rhs columns
  // (whole panels, at least 128 bytes of each source row: two cache lines)
  // or lhs rows (one panel). Small, so that the dispatch has enough
  // workgroups for many threads however long the K block is (kcPrepacked:
  // one K block at K = 1024).
  unsigned packCols() const { return nr() * std::max(1u, 32 / nr()); }
  // The panels a one-row block sweeps at a time (packedMatmulRowSweep):
  // their accumulators are independent chains of multiply-adds, so a
  // one-row matmul of at most this many panels is one workgroup
  // (PackedGrid.cpp).
  static constexpr unsigned kSweepPanels = 4;
  unsigned packRows() const { return mr; }
  // The fewest rows of workgroups for which the pack dispatch packs the
  // rhs (PackOperands.cpp): below, each workgroup packs its own, as its
  // panels' first tiles multiply (two rows of them cost less than the
  // dispatch's write of the whole rhs and its reads back); a transposed
  // rhs, which a workgroup packs before its tiles instead, from two rows.
  unsigned rhsPackedRows() const { return rhsTransposed ? 2 : 3; }
  // The rows a packed panel of |k| rows of K takes: k, or ceil(k / 2)
  // pairs, ceil(k / 4) quads (AMX: rounded up to a multiple of kAmxDepth).
  uint64_t kGroups(uint64_t k) const { return (k + kGroup() - 1) / kGroup(); }
  uint64_t kRows(uint64_t k) const {
    return amx() ? (kGroups(k) + kAmxDepth - 1) / kAmxDepth * kAmxDepth : kGroups(k);
  }
  // The K block where the rhs is packed before the call: kcPrepacked, but
  // kc where an operand is a constant packed when building (with kc)
  // (what PackOperands.cpp's K block comes to, a constant rhs leaving
  // nothing packed before; --explain says it).
  unsigned kcWithRhsPackedBefore() const { return lhsConstant || rhsConstant ? kc : kcPrepacked; }
  // Per-worker scratch: partial sums (mw x nc), the rhs block (kc x nc) when
  // the workgroup packs it, then the packed lhs (mc x the K block: up to
  // kcPrepacked where the rhs was packed before the call); 4-byte elements
  // (f32, i32 sums or i8 pairs).
  uint64_t scratchBytes() const {
    return (uint64_t(mw) * nc + uint64_t(kRows(kc)) * nc + uint64_t(mc) * kRows(kcPrepacked)) * 4;
  }
};

struct LoopKernel {
  std::vector<unsigned> domainParams; // param index of each domain dim size
  unsigned numParallel = 0;
  std::vector<KernelInput> inputs;
  std::vector<ScalarNode> nodes;
  int accInit = -1;       // reduction only: initial value (parallel point)
  int accUpdate = -1;     // reduction only: new acc from Acc and loads
  DType accType = DType::Invalid;
  std::vector<KernelOutput> outputs;
  unsigned tileX = 64, tileY = 1; // elements per workgroup in the two inner
                                  // parallel dims
  // A plain transpose (Tiling.cpp): the one output is a load of one input
  // whose last two dims are the output's last two swapped, of 2-, 4- or
  // 8-byte elements (not f16 or bf16). LoopEmitter moves it in squares of kTransposeSquare
  // x kTransposeSquare elements through registers.
  bool transposeBlocks = false;
  static constexpr unsigned kTransposeSquare = 8;
  // Param index of the rows per workgroup when that depends on the sizes
  // (row kernels: short rows share a workgroup), else -1 (tileY rows).
  int tileYParam = -1;
  // Param index of the outputs per workgroup along the innermost dim when
  // that depends on the sizes (reductions to one dim: enough workgroups
  // for many threads), else -1 (tileX, which it never exceeds).
  int tileXParam = -1;
  // Vector width in bits of the explicit vector loops (row statistics,
  // streaming stores), from the feature level; 0: no vector unit
  // (codegen/RowVector.h).
  unsigned rowVectorBits = 0;
  // Elementwise kernels: results of at least this many bytes in all are
  // written with streaming stores, then |streamingFence| is called (the
  // level's streamingStoreBytes and streamingStoreFence); 0: never.
  uint64_t streamingBytes = 0;
  const char *streamingFence = "";
  // Reduction loops innermost (one output point at a time) instead of a row
  // of accumulators: chosen when the reduced dims, not the innermost output
  // dim, are contiguous in the inputs (row sums, full reductions).
  bool innerReduction = false;
  // Register tile of the row-of-accumulators form (regRows > 1 enables it):
  // regRows x regCols outputs accumulate in registers (matmul microkernel).
  unsigned regRows = 1, regCols = 1;
  // Packed f32 matmul with a microkernel (packed.mr > 0); replaces the
  // register tile above.
  PackedMatmul packed;
};

// One step of computing an integer kernel argument inside the dispatch: the
// plan's node form (ir/KernelCall.h), where an Entry's |index| is the
// dispatch constant word holding it. Arguments that are the same for every
// workgroup are one Entry.
using ArgExprNode = KernelCallArgNode;

// A call of a user kernel: a kernel_call op and its plan.
struct CallKernel {
  const KernelCall *plan = nullptr; // owned by the op (shared by its rule's calls)
  std::vector<uint32_t> inputBuffers;  // per pattern arg (tensors), else ~0u
  std::vector<uint32_t> outputBuffers; // per pattern result
  std::vector<DType> inputTypes, outputTypes;
  std::vector<unsigned> inputRanks, outputRanks;
  // Param index of each dim of each input/output (for memref/dim args).
  std::vector<std::vector<unsigned>> inputDimParams, outputDimParams;
  std::vector<int> inputScalarParam; // scalar pattern args: param index, or -1
  // Size and PerWorkgroup args: the nodes computing them, and per such argument
  // (in arg order) its node.
  std::vector<ArgExprNode> argNodes;
  std::vector<unsigned> exprRoots;
  // KernelLink::Import: the entry of ProgramSet::imports the dispatch calls.
  unsigned importIndex = 0;
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
  uint64_t scratchBytes = 0;       // per-worker scratch the dispatch needs
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
  uint32_t guard = 0;  // GRAFT_STEP_GUARD_* | import or expression index, or 0
  uint32_t import = 0; // GRAFT_STEP_HOST_CALL: the import it calls
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
  // The library's import table (graft_library_v1_t.imports): the symbols of
  // imported kernels, each once, in the order first called.
  std::vector<std::string> imports;
};

// Forms dispatches for |fn| (after spec rewriting, with its shapes) and
// appends them to |out|. |level| (the target's feature level: vector width
// and registers) sizes the tiles. Sizes that overflow int64 where they are
// known (products of static dims) are reported to |diag|.
// Rewrites every splat tensor constant of more than one element into a
// scalar constant filled into an empty tensor (Splats.cpp), so the slice
// holds one element, not the whole tensor; run before shape analysis.
void expandSplatConstants(Function &fn);
// Rewrites every `split` into one `slice` per result (Splits.cpp); run
// before shape analysis.
void lowerSplits(Function &fn);
// Rewrites every `conv` and `pool` into the ops graft compiles (Windows.cpp):
// padding concats, window slices, an im2col matmul or a map over the
// slices; run before shape analysis.
void lowerWindowOps(Function &fn);
// Rewrites argmax / argmin and reduce's mean and keepdims into plain
// reduce, map, broadcast, iota and reshape ops (ReduceForms.cpp); run
// before shape analysis.
void lowerReduceForms(Function &fn);
// Rewrites every map operand that broadcasts into a reshape + broadcast of
// it (MapOperands.cpp), views the map reads through; run before shape
// analysis.
void expandMapBroadcasts(Function &fn);

void formDispatches(const Function &fn, ShapeInfo shapes, DiagEngine &diag, const FeatureLevel &level, ProgramSet &out);

} // namespace graft
