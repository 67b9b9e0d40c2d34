// The workgroup grid of a packed matmul (PackedMatmul in Dispatch.h): how
// many rows and columns one workgroup covers, as expressions of the sizes
// (shapes are dynamic), so that a matmul with enough work has enough
// workgroups to keep many threads busy and a small one stays in a few.
//
// The grid never depends on the thread count: a bundle serves any. Neither
// does the result: every split is along M or N, and each output element
// still adds its products in k order.
//
// From the tile of one lhs block by one rhs block (mc x nc), the grid aims
// at kTargetWorkgroups workgroups, fewer where the matmul has less than
// kMinWorkgroupMacs multiply-adds per workgroup:
//  - too few: the columns narrow, down to one nr-column panel, then (rows
//    of one lhs block or less, still under half the target) the rows, down
//    to one mr-row tile. Narrow columns are cheap because an operand that
//    several workgroups read is packed once per call (PackOperands.cpp);
//    splitting the rows of a single lhs block is the last resort because
//    it makes the rhs, packed in cache by each workgroup before, go through
//    a buffer.
//  - many more: a workgroup covers up to kMaxLhsBlocks lhs blocks, which
//    amortises the trips of the rhs panels from L3 over more rows.
// On x86-64-v4 (mr 12, nr 32, mc 96, nc 256): 64 x 1024 x 1024 is 32
// workgroups of 64 x 32 (4 before: 64 x 256); 1024-square 77 of 96 x 160
// (44 of 96 x 256); 2048-square 88 of 192 x 256 (48 of 384 x 256).
#include "dispatch/Former.h"

namespace graft {

constexpr int64_t kTargetWorkgroups = 64;
constexpr int64_t kMinWorkgroupMacs = int64_t(1) << 20;
constexpr int64_t kMaxLhsBlocks = 4;

void Former::packedMatmulGrid(KernelDraft &draft) {
  Dispatch &d = draft.d;
  PackedMatmul &p = d.loop.packed;
  p.mw = unsigned(kMaxLhsBlocks) * p.mc;
  ExprTable &ex = shapes.exprs;
  auto c = [&](int64_t v) { return ex.constant(v); };
  auto op = [&](graft_expr_op_t o, uint32_t a, uint32_t b) { return ex.binary(o, a, b); };
  auto clamp = [&](uint32_t v, int64_t lo, int64_t hi) {
    return op(GRAFT_EXPR_MAX, c(lo), op(GRAFT_EXPR_MIN, v, c(hi)));
  };
  const std::vector<uint32_t> &domain = draft.domain;
  const unsigned P = d.loop.numParallel;
  const uint32_t M = domain[P - 2], N = domain[P - 1], K = domain[P];
  uint32_t batch = c(1);
  for (unsigned i = 0; i + 2 < P; ++i)
    batch = op(GRAFT_EXPR_MUL, batch, domain[i]);
  // The target: kTargetWorkgroups, or one per kMinWorkgroupMacs of work
  // (each factor capped so that the product stays far inside int64).
  const int64_t cap = kTargetWorkgroups * kMinWorkgroupMacs;
  uint32_t outputs = op(GRAFT_EXPR_MUL, batch, op(GRAFT_EXPR_MUL, M, N));
  uint32_t macs = op(GRAFT_EXPR_MUL, op(GRAFT_EXPR_MIN, outputs, c(cap)), op(GRAFT_EXPR_MIN, K, c(cap)));
  uint32_t target = clamp(op(GRAFT_EXPR_DIV, macs, c(kMinWorkgroupMacs)), 1, kTargetWorkgroups);
  // Columns: nr-column panels per workgroup, as many as keep the target
  // with rows of one lhs block, at most nc / nr.
  const int64_t nr = p.nr();
  uint32_t blockRows = op(GRAFT_EXPR_MUL, batch, op(GRAFT_EXPR_CEILDIV, M, c(p.mc)));
  uint32_t panels = op(GRAFT_EXPR_CEILDIV, N, c(nr));
  uint32_t perWorkgroup =
      clamp(op(GRAFT_EXPR_DIV, op(GRAFT_EXPR_MUL, blockRows, panels), target), 1, p.nc / nr);
  uint32_t cols = op(GRAFT_EXPR_MUL, perWorkgroup, c(nr));
  d.grid[0] = op(GRAFT_EXPR_CEILDIV, N, cols);
  // Rows: up to kMaxLhsBlocks lhs blocks while the target is kept (0 when
  // it is not), else the rows of one block (or fewer) split into as many
  // parts as bring the workgroups to half the target.
  uint32_t workgroups = op(GRAFT_EXPR_MUL, blockRows, d.grid[0]);
  uint32_t blocks = op(GRAFT_EXPR_MIN, c(kMaxLhsBlocks), op(GRAFT_EXPR_DIV, workgroups, target));
  uint32_t parts = op(GRAFT_EXPR_CEILDIV, target,
                      op(GRAFT_EXPR_ADD, op(GRAFT_EXPR_MUL, c(2), workgroups), c(1)));
  uint32_t tiles = op(GRAFT_EXPR_MIN, op(GRAFT_EXPR_CEILDIV, M, c(p.mr)), c(p.mc / p.mr));
  uint32_t split = op(GRAFT_EXPR_MUL, c(p.mr), op(GRAFT_EXPR_CEILDIV, tiles, parts));
  uint32_t rows = op(GRAFT_EXPR_MAX, c(p.mr),
                     op(GRAFT_EXPR_MAX, split, op(GRAFT_EXPR_MUL, blocks, c(p.mc))));
  d.grid[1] = op(GRAFT_EXPR_CEILDIV, M, rows);
  p.mwParam = param(draft, rows);
  p.nwParam = param(draft, cols);
}

} // namespace graft
