// Loop shape of a LoopKernel, decided after fusion: elementwise flattening,
// where the reduction loops go, register tiles, workgroup tile sizes from the
// target's feature level (vector width and register count), and the
// workgroup grid.
#include "dispatch/Former.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

namespace graft {

// Row length one workgroup of a kernel with row statistics covers; longer
// rows are split into tiles that each compute the statistics again.
constexpr unsigned kRowStatTile = 16 * 1024;
// Row statistics over few rows spread over up to kRowStatWorkgroups
// workgroups of at least kRowStatLeast elements (Former::finishLoop).
constexpr int64_t kRowStatWorkgroups = 16, kRowStatLeast = 1024;

// An operand of the product a packed matmul takes: for an f32 sum a load
// of an f32 input, or of an f16 or bf16 one widened to f32 (mixed
// precision: the widening is exact, and the packing routines do it); for
// an i32 sum an i8 input widened to i32 (PackedMatmul::pairs). The load,
// or null.
static const ScalarNode *packedOperand(const LoopKernel &L, const ScalarNode &n) {
  if (n.kind == ScalarNode::Kind::Load)
    return n.type == DType::F32 && L.inputs[n.input].elem == DType::F32 ? &n : nullptr;
  if (n.kind != ScalarNode::Kind::Op || n.op != OpKind::Cast || n.operands.size() != 1 ||
      n.type != L.accType)
    return nullptr;
  const ScalarNode &load = L.nodes[n.operands[0]];
  DType elem = load.kind == ScalarNode::Kind::Load ? L.inputs[load.input].elem : DType::Invalid;
  if (load.type != elem)
    return nullptr;
  if (n.type == DType::I32)
    return elem == DType::I8 ? &load : nullptr;
  return elem == DType::F16 || elem == DType::BF16 ? &load : nullptr;
}

// The kernel's update is acc + lhs * rhs over f32 (or over i32 of i8
// operands) with lhs read as [.., M, K] and rhs as [.., K, N] or, through
// a transpose view, [.., N, K] (matmul, batch_matmul), each stored as f32
// or widened from f16 or bf16: the inputs PackedMatmul reads, or false.
static bool matmulOperands(const LoopKernel &L, unsigned &lhs, unsigned &rhs,
                           bool &rhsTransposed) {
  unsigned P = L.numParallel;
  // (One reduced dim, K: a reduction of a product of broadcasts, whose map
  // the reduction computes, may have the update's shape over more.)
  if ((L.accType != DType::F32 && L.accType != DType::I32) || (P != 2 && P != 3) ||
      L.accUpdate < 0 || L.domainParams.size() != P + 1)
    return false;
  const ScalarNode &add = L.nodes[L.accUpdate];
  if (add.kind != ScalarNode::Kind::Op || add.op != OpKind::Add || add.operands.size() != 2 ||
      L.nodes[add.operands[0]].kind != ScalarNode::Kind::Acc)
    return false;
  const ScalarNode &mul = L.nodes[add.operands[1]];
  if (mul.kind != ScalarNode::Kind::Op || mul.op != OpKind::Mul || mul.operands.size() != 2)
    return false;
  const ScalarNode *ap = packedOperand(L, L.nodes[mul.operands[0]]);
  const ScalarNode *bp = packedOperand(L, L.nodes[mul.operands[1]]);
  if (!ap || !bp)
    return false;
  const ScalarNode &a = *ap, &b = *bp;
  const KernelInput &ia = L.inputs[a.input], &ib = L.inputs[b.input];
  // (The routines of i8 pairs take no row table. Rows views are f32 only
  // today, Windows.cpp; an i8 one would run on the generic loops.)
  if (L.accType == DType::I32 && !ib.rowStarts.empty())
    return false;
  int m = int(P) - 2, n = int(P) - 1, k = int(P);
  std::vector<int> am = {m, k}, bm = {k, n}, btm = {n, k};
  if (P == 3) {
    am.insert(am.begin(), 0);
    bm.insert(bm.begin(), 0);
    btm.insert(btm.begin(), 0);
  }
  // (A batch matmul's lhs may be one matrix for every batch: a broadcast
  // view of it, read as [M, K].)
  bool sharedLhs = P == 3 && ia.map == std::vector<int>{m, k};
  if ((ia.map != am && !sharedLhs) || (ib.map != bm && ib.map != btm))
    return false;
  lhs = a.input;
  rhs = b.input;
  rhsTransposed = ib.map == btm;
  return true;
}

// Register tile and blocks of a packed matmul from the feature level: a
// quarter of the vector registers stay free for the rhs vectors and the
// broadcast lhs value, the rest hold an mr x 2-vector accumulator tile
// (x86-64-v2/v3: 6 x 2, x86-64-v4 and AArch64: 12 x 2, RISC-V's scalar FP
// registers: 12 x 2 scalars). The blocks come from the level's caches:
//  - kc: a kc x nr rhs panel and a kc x mr lhs panel fill the L1d: the
//    microkernel streams over the rhs panel once per mr rows (x86-64-v4:
//    184);
//  - mc: 8 tile rows, at most half of the L2 for the mc x kc lhs block
//    the microkernel sweeps once per rhs panel (x86-64-v4: 96 rows);
//  - nc: 8 panels, at most half of the L2 for the kc x nc rhs block a
//    workgroup packs into its scratch (x86-64-v4: 256 columns);
//  - kcPrepacked: the K block where the rhs was packed before the call
//    (several rows of workgroups read it) and the tiles store their
//    outputs (tilesStoreOutputs: x86-64-v3 and v4): as long as keeps the
//    mc x kc lhs block in half the L2 (x86-64-v3: 680, v4: 1360). Up to
//    that K, one K block
//    keeps each tile's sums in registers from the first product to the
//    last, and the tile stores them once, finished, where each further K
//    block stores and reloads them through the scratch; the panels then
//    stream from the L2 instead of the rhs panel sitting in L1 (the
//    microkernel prefetches them). On an AVX-512 Xeon (2 MiB L2) at 1
//    thread: 1024-square 3%, 2048-square 5% faster. Where a workgroup
//    packs its own rhs (one row of workgroups), the L1's kc stays: a panel
//    read again by the tiles below its first from L2 instead of L1 made 16
//    x 1024 x 1024 15% slower, a transposed rhs of 1-8 rows, packed
//    before the tiles, 2x (tests/bench/README.md, "One K block").
// A workgroup's block (PackedGrid.cpp): up to 4 lhs blocks by nc, fewer
// rows or columns where the matmul needs more workgroups.
// i8 pairs (PackedMatmul::pairs) take 2 bytes a row of K where f32 takes
// 4: twice the K block in the same bytes; i8 quads 1 byte, four times.
static PackedMatmul packedMatmulTiles(const FeatureLevel &level, const LoopKernel &L,
                                      unsigned lhs, unsigned rhs, bool rhsTransposed) {
  PackedMatmul p;
  p.lhs = lhs;
  p.rhs = rhs;
  p.rhsTransposed = rhsTransposed;
  p.lhsElem = L.inputs[lhs].elem;
  p.rhsElem = L.inputs[rhs].elem;
  p.rhsRows = !L.inputs[rhs].rowStarts.empty();
  p.halfConversion = level.halfConversion;
  p.pairMultiplyAdd = level.pairMultiplyAdd;
  p.quadDotProduct = level.quadDotProduct;
  p.quadDotUnsigned = level.quadDotUnsigned;
  p.matrixTiles = level.matrixTiles;
  p.lanes = std::max(1u, level.vectorBits / 32);
  p.nv = 2;
  p.mr = std::max(1u, level.vectorRegisters * 3 / 4 / p.nv);
  // AMX: 2 x 2 tiles of 16 x 16 sums, their operands in the other four
  // tile registers (codegen/AmxTiles.cpp).
  if (p.amx()) {
    p.mr = 2 * 16;
    p.nv = 2 * 16 / p.lanes;
  }
  // i8 pairs without the level's pairwise instruction keep each vector of
  // sums in two registers (codegen's PairSums); without vectors, in the
  // integer registers, not the FP ones vectorRegisters counts: 2 x 2
  // tiles (6 x 2 ones spilled: 48 and 18 of the loop's 105 and 94
  // instructions stack loads and stores on armv7-a and rv64gc; now none on
  // rv64gc, 11 of 37 in armv7-a's 13 registers).
  // (Quads sum into one register a vector with the level's dot product.)
  if (p.pairs() && !p.quads() && !*level.pairMultiplyAdd)
    p.mr = level.vectorBits ? std::max(1u, level.vectorRegisters * 3 / 4 / (2 * p.nv)) : 2;
  const unsigned nr = p.nr(), bytesPerK = p.quads() ? 1 : p.pairs() ? 2 : 4;
  p.kc = std::max(8u, level.l1dBytes / ((p.mr + nr) * bytesPerK) / 8 * 8);
  const unsigned kcBytes = p.kc * bytesPerK;
  p.mc = std::max(p.mr, std::min(8 * p.mr, level.l2Bytes / 2 / kcBytes / p.mr * p.mr));
  p.nc = std::max(nr, std::min(8 * nr, level.l2Bytes / 2 / kcBytes / nr * nr));
  p.kcPrepacked = p.tilesStoreOutputs()
                      ? std::max(p.kc, level.l2Bytes / 2 / (p.mc * bytesPerK) / 8 * 8)
                      : p.kc;
  // (AMX's K blocks are whole tiles of 64 rows of K, and twice as long:
  // each tile call loads its tile configuration and drains the tiles at
  // its end, which a longer K amortizes. Measured on a Sapphire Rapids
  // Xeon at 1 thread, both K blocks 256, 512, 1024 and 2048: the
  // 1024-cube 2.39, 2.03, 1.81 and 1.83 ms, 128 x 768 x 3072 0.88, 0.73,
  // 0.65 and 0.65.)
  if (p.amx()) {
    const unsigned depth = p.kGroup() * p.kAmxDepth;
    p.kc = std::max(depth, 2 * p.kc / depth * depth);
    p.kcPrepacked = std::max(p.kc, p.kcPrepacked / depth * depth);
  }
  // The tiles of an lhs block start at multiples of mr from the
  // workgroup's first row: LoopEmitter's out pass counts on it to know
  // which outputs the whole tiles stored.
  assert(p.mc % p.mr == 0 && "an lhs block is whole register tiles");
  return p;
}

// A reduction to one output dim whose reduction runs innermost (row sums)
// covers tileX outputs per workgroup at most, as few as give the grid
// kReduceWorkgroups workgroups, but never fewer than read kReduceElements
// input points. tileX outputs a workgroup gave the sums over the rows of
// 2048 x 2048 8 workgroups at x86-64-v4 (256 rows each), half of 16
// threads idle. Each output's sum is the same whatever the split: one
// workgroup adds all of it, in the same order. (Column sums keep tileX
// columns, their accumulators: narrower strips were slower, each row of a
// strip a short run.)
constexpr int64_t kReduceWorkgroups = 32;
constexpr int64_t kReduceElements = 16 * 1024;

void Former::reductionRows(KernelDraft &draft, const std::vector<uint32_t> &domain) {
  LoopKernel &L = draft.d.loop;
  ExprTable &ex = shapes.exprs;
  auto c = [&](int64_t v) { return ex.constant(v); };
  auto op = [&](graft_expr_op_t o, uint32_t a, uint32_t b) { return ex.binary(o, a, b); };
  // The reduced points, counted up to kReduceElements + 1 only (each step
  // clamped: dims of an empty input may multiply past 64 bits).
  uint32_t reduced = c(1);
  for (size_t i = 1; i < domain.size(); ++i)
    reduced = op(GRAFT_EXPR_MIN,
                 op(GRAFT_EXPR_MUL, reduced, op(GRAFT_EXPR_MIN, domain[i], c(kReduceElements + 1))),
                 c(kReduceElements + 1));
  uint32_t byWork = op(GRAFT_EXPR_CEILDIV, c(kReduceElements), op(GRAFT_EXPR_MAX, reduced, c(1)));
  uint32_t bySpread = op(GRAFT_EXPR_CEILDIV, domain[0], c(kReduceWorkgroups));
  uint32_t n = op(GRAFT_EXPR_MIN, op(GRAFT_EXPR_MAX, byWork, bySpread), c(L.tileX));
  L.tileXParam = static_cast<int>(param(draft, n));
  draft.d.grid[0] = op(GRAFT_EXPR_CEILDIV, domain[0], n);
}

// Whether |L| is a plain transpose (LoopKernel::transposeBlocks).
static bool isFloat16(DType t) { return t == DType::F16 || t == DType::BF16; }
static bool plainTranspose(const LoopKernel &L) {
  const unsigned P = L.numParallel;
  if (P < 2 || L.outputs.size() != 1 || L.outputs[0].node < 0)
    return false;
  const ScalarNode &n = L.nodes[L.outputs[0].node];
  if (n.kind != ScalarNode::Kind::Load || !n.operands.empty())
    return false;
  const KernelInput &in = L.inputs[n.input];
  const size_t r = in.map.size();
  const unsigned size = dtypeSize(in.elem);
  // (Not f16 and bf16: point by point, they pass through f32 registers,
  // which quiets a signaling NaN; the squares would copy it as it is.)
  return r >= 2 && in.rowStarts.empty() && in.elem == L.outputs[0].elem && !isFloat16(in.elem) &&
         (size == 2 || size == 4 || size == 8) && in.map[r - 1] == int(P - 2) &&
         in.map[r - 2] == int(P - 1);
}

// After fusion: flattens pure elementwise kernels, picks tile sizes from
// the target's feature level and computes the grid.
void Former::finishLoop(KernelDraft &draft) {
  LoopKernel &L = draft.d.loop;
  ExprTable &ex = shapes.exprs;
  std::vector<uint32_t> domain = draft.domain;
  bool reduction = domain.size() > L.numParallel;
  // An elementwise kernel whose inputs are all read at the output point
  // walks one contiguous index space: one loop, whatever the rank.
  bool rowStats = std::any_of(L.nodes.begin(), L.nodes.end(), [](const ScalarNode &n) {
    return n.kind == ScalarNode::Kind::RowReduce;
  });
  // Index nodes name a domain dim, which flattening would remove.
  bool indexed = std::any_of(L.nodes.begin(), L.nodes.end(),
                             [](const ScalarNode &n) { return n.kind == ScalarNode::Kind::Index; });
  bool flat = !reduction && !rowStats && !indexed && L.numParallel >= 2;
  for (const KernelInput &in : L.inputs)
    flat &= in.map == identity(L.numParallel);
  if (flat) {
    uint32_t total = ex.constant(1);
    for (uint32_t e : domain)
      total = ex.binary(GRAFT_EXPR_MUL, total, e);
    domain = {total};
    L.numParallel = 1;
    for (KernelInput &in : L.inputs) {
      in.map = {0};
      in.dimParams = {param(draft, total)};
    }
  }
  for (uint32_t e : domain)
    L.domainParams.push_back(param(draft, e));
  if (reduction) {
    // Which loop order reads memory contiguously: the innermost output dim
    // (a row of accumulators, matmul's i-k-j) or a reduced dim (one point
    // at a time, reduction innermost).
    bool rowContiguous = false, reducedContiguous = false;
    for (const KernelInput &in : L.inputs) {
      if (in.map.empty())
        continue;
      int last = in.map.back();
      rowContiguous |= L.numParallel > 0 && last == static_cast<int>(L.numParallel) - 1;
      reducedContiguous |= last >= static_cast<int>(L.numParallel);
    }
    L.innerReduction = L.numParallel == 0 || (reducedContiguous && !rowContiguous);
  }
  // Lanes of the widest element type the kernel touches (1 without a
  // vector unit).
  unsigned maxBytes = static_cast<unsigned>(dtypeSize(reduction ? L.accType : DType::I8));
  for (const KernelInput &in : L.inputs)
    maxBytes = std::max(maxBytes, dtypeSize(in.elem));
  for (const KernelOutput &o : L.outputs)
    maxBytes = std::max(maxBytes, dtypeSize(o.elem));
  unsigned lanes = std::max(1u, level.vectorBits / 8 / std::max(1u, maxBytes));
  // Reductions keep one row of accumulators (tileX) in registers/stack;
  // elementwise tiles are large enough to amortise scheduling.
  L.tileX = reduction ? std::max(16u, lanes * 16) : std::max(256u, lanes * 256);
  L.tileY = reduction ? 8 : 1;
  if (reduction && !L.innerReduction && L.numParallel >= 2) {
    // Half of the level's vector registers hold accumulators, in 4 rows;
    // the other half holds the operands (a broadcast lhs value per row and
    // the rhs vectors). 16 registers (SSE, NEON on ARMv7) give 4 x 2
    // vectors, 32 (AArch64 NEON, RISC-V's scalar FP registers) 4 x 4.
    const unsigned rows = 4;
    L.regRows = rows;
    L.regCols = std::min(16u, std::max(1u, level.vectorRegisters / 2 / rows) * lanes);
  }
  // (A matmul whose rhs is transposed reads both inputs along K, which
  // chose innerReduction above; packed, it reads neither directly.)
  unsigned lhs = 0, rhs = 0;
  bool rhsTransposed = false;
  if (reduction && matmulOperands(L, lhs, rhs, rhsTransposed)) {
    L.innerReduction = false;
    L.packed = packedMatmulTiles(level, L, lhs, rhs, rhsTransposed);
    L.regRows = L.regCols = 1;
  }
  // An input read across its rows (transpose, some broadcasts) gets tall,
  // narrow tiles: each of the tile's 8 input rows is read along 128
  // contiguous elements, and the output rows stay short. Measured on
  // tests/bench transpose: 2048x2048 in 4.3 ms instead of 39 ms.
  // (An input that varies along the innermost output dim through one of
  // its outer dims; a broadcast that does not vary along it is fine.)
  bool strided = false;
  int inner = static_cast<int>(L.numParallel) - 1;
  for (const KernelInput &in : L.inputs)
    for (size_t k = 0; k + 1 < in.map.size(); ++k)
      strided |= L.numParallel >= 2 && in.map[k] == inner;
  if (!reduction && strided && !rowStats) {
    L.tileX = 8;
    L.tileY = 128;
  }
  // A plain transpose (LoopKernel::transposeBlocks) goes in squares
  // through registers (codegen/LoopEmitter.cpp), which read the input
  // along its rows too: wide tiles, each workgroup's input rows read
  // 64 elements (4 lines of f32) at a time. On an AVX-512 Xeon, 2048 x
  // 2048 f32 at 1 thread: 7.4-13 ms point by point (8 x 128 tiles), 5.2 ms
  // in squares over 8 x 128 tiles, 2.7 ms over 64 x 128 (32 x 128 3.2,
  // 128 x 128 and 64 x 256 within noise of it); 2 threads 1.9-2.1 ms ->
  // 1.5 ms.
  if (!reduction && strided && !rowStats && plainTranspose(L)) {
    L.transposeBlocks = true;
    L.tileX = 64;
    L.tileY = 128;
  }
  // Row statistics are computed per row by each workgroup that covers part
  // of it: a workgroup covers about kRowStatTile elements (64 KiB of f32
  // that stay in L2 between the passes): part of a longer row, one row, or
  // as many shorter rows (below), rows spread over threads. Fewer, larger
  // workgroups for short rows: each dispatch of several workgroups wakes
  // the pool's workers, which costs more than a few short rows.
  if (rowStats) {
    L.tileX = kRowStatTile;
    L.tileY = 1;
    L.rowVectorBits = level.vectorBits;
  }
  // Large elementwise results may be written with streaming stores
  // (codegen/LoopEmitter.cpp decides per call from the sizes).
  if (!reduction && !rowStats && level.streamingStoreBytes) {
    L.rowVectorBits = level.vectorBits;
    L.streamingBytes = level.streamingStoreBytes;
    L.streamingFence = level.streamingStoreFence;
  }
  // Grid: x over the innermost parallel dim, y over the next, z over the
  // product of the rest (a packed matmul's x and y: PackedGrid.cpp).
  unsigned P = L.numParallel;
  uint32_t z = ex.constant(1);
  for (unsigned i = 0; i + 2 < P; ++i)
    z = ex.binary(GRAFT_EXPR_MUL, z, domain[i]);
  draft.d.grid[2] = z;
  if (L.packed.mr) {
    // (Constant operands are packed when building: PackConstants.cpp. The
    // grid reads whether the rhs is one.)
    packConstantOperands(draft);
    packedMatmulGrid(draft);
    L.tileX = L.packed.nc;
    L.tileY = L.packed.mw;
    draft.d.scratchBytes = L.packed.scratchBytes();
    packOperandsOncePerCall(draft);
    return;
  }
  draft.d.grid[0] = P >= 1 ? ex.binary(GRAFT_EXPR_CEILDIV, domain[P - 1], ex.constant(L.tileX))
                        : ex.constant(1);
  if (reduction && P == 1 && L.innerReduction)
    reductionRows(draft, domain);
  uint32_t rows = ex.constant(L.tileY);
  // Rows shorter than a tile share a workgroup: row statistics
  // (kRowStatTile elements, above), and elementwise kernels that read
  // along their rows (tileX elements): a slice or pad of 56-element rows
  // took 1.3-1.6x as long with one row per workgroup, the workgroup's
  // fixed cost per row.
  if (P >= 2 && (rowStats || (!reduction && L.tileY == 1))) {
    // max(1, tile / max(1, row length)) rows.
    uint32_t length = ex.binary(GRAFT_EXPR_MAX, ex.constant(1), domain[P - 1]);
    uint32_t perTile = ex.binary(GRAFT_EXPR_DIV, ex.constant(L.tileX), length);
    if (rowStats) {
      // Row statistics over a few short rows spread over up to
      // kRowStatWorkgroups workgroups in all (over the batch dims too) of
      // at least kRowStatLeast elements: attention's softmax over 128 x
      // 128 was one workgroup, LayerNorm's 128 x 768 seven. On the
      // 16-core Xeon (x86-64-v4): attention 0.94x the time at 4 and 16
      // threads, LayerNorm 0.63x at 16, both the same at 1 thread.
      uint32_t perBatch = ex.binary(GRAFT_EXPR_CEILDIV, ex.constant(kRowStatWorkgroups),
                                    ex.binary(GRAFT_EXPR_MAX, z, ex.constant(1)));
      uint32_t spread = ex.binary(
          GRAFT_EXPR_MAX, ex.binary(GRAFT_EXPR_CEILDIV, domain[P - 2], perBatch),
          ex.binary(GRAFT_EXPR_CEILDIV, ex.constant(kRowStatLeast), length));
      perTile = ex.binary(GRAFT_EXPR_MIN, perTile, spread);
    }
    rows = ex.binary(GRAFT_EXPR_MAX, ex.constant(1), perTile);
    L.tileYParam = static_cast<int>(param(draft, rows));
  }
  draft.d.grid[1] = P >= 2 ? ex.binary(GRAFT_EXPR_CEILDIV, domain[P - 2], rows) : ex.constant(1);
}

} // namespace graft
