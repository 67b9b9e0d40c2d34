// The workgroup grid of a packed matmul (PackedMatmul in Dispatch.h): how
// many rows and columns one workgroup covers, as expressions of the sizes
// (shapes are dynamic), so that a matmul with enough work has enough
// workgroups to keep many threads busy and a small one stays in a few.
//
// The grid never depends on the thread count: a bundle serves any. Neither
// does the result: every split is along M or N, and each output element
// still adds its products in k order.
//
// Where M is at most kMaxLhsBlocks lhs blocks (mc rows each) and N has
// kWholeRowsPanels nr-column panels or more, one workgroup covers all of
// M: the grid is one row of workgroups, so each packs its own rhs panels
// in cache (PackOperands.cpp) and each packed panel serves all of M's
// tiles (on an AVX-512 Xeon, 1 thread: 100 x 1000 x 1000 12% faster,
// 192 x 1024 x 1024 8%, 256 rows 6%, 384 rows 1%, than rows of one lhs
// block with the rhs packed before the call), and the columns alone give
// the threads their workgroups (32 or more). So does M of 3 or 4 blocks
// where N has kWholeRowsMinPanels or more, whose rows of one block would
// have the rhs packed before the call (PackedMatmul::rhsPackedRows): on
// the 16-core Xeon, 256 x 768 x 768 (24 workgroups instead of 72) 5-7%
// faster at 1 thread, 5-30% at 4 to 12 (medians), the same at 16; 384
// rows the same at 1 and 16. (24 panels is the fewest measured at 16
// threads there; 16 panels made 256 x 768 x 512 4% faster at 1 and 2
// threads on the VM, but gives 16 threads one workgroup each.) M of 2
// blocks keeps its two rows, which pack their own rhs: one row of 24
// there was 3-5% faster at 1 thread but 10-20% slower at 8 to 12
// (128 x 768 x 768, 128 x 3072 x 768), and the grid does not know the
// thread count. Otherwise, from rows of one
// lhs block, the columns narrow from nc down to one nr-column panel until
// the grid has about kTargetWorkgroups workgroups,
// but never below kMinWorkgroupMacs multiply-adds per workgroup (with mc
// rows: 2^17, a few microseconds of one core; 2^20 before gave
// attention's 128 x 128 x 64 products two workgroups, and on the 16-core
// Xeon 2^17 took attention 0.65x the time at 16 threads, 1.05x at 1;
// 256-square 0.91x at 16; larger matmuls the same); but a matmul of one
// row over at most the panels its sweep takes at a time
// (PackedMatmul::kSweepPanels) is one workgroup: one panel is
// one chain of dependent multiply-adds down all of K, as slow as its
// latency where K is long (decode's p @ V, 1 x 4096 x 64: two workgroups
// of one panel before; on the 16-core Xeon 0.50-0.93x the time at 16
// threads, 0.81-0.84x at 1; on Zen 3 0.52x at 1 thread but 1.18x at 2,
// where four workgroups read V from two cores' L2, until the sweep read
// the lhs row in place: 0.43x and 0.69x). More panels keep their
// workgroups of one:
// four panels a workgroup made 1 x 3072 x 768 and 1 x 4096 x 256
// 1.5-1.9x slower at 16 threads (fewer streams from memory) for at most
// 10-20% at 1. Narrow columns are cheap because an operand that several
// workgroups read is packed once per call (PackOperands.cpp). Where the
// columns stay whole and there are many more workgroups than the target,
// a workgroup covers up to kMaxLhsBlocks lhs blocks, which amortises the
// trips of the rhs panels from L3 over more rows. The rows never split
// below one lhs block: that would send the rhs of a one-row matmul, packed
// in cache by each workgroup, through a buffer.
//
// Every expression here is evaluated on every call (the 2x2 MLP pays for
// each): divisions by constants and clamps, no search.
//
// On x86-64-v4 (mr 12, nr 32, mc 96, nc 256): 64 x 1024 x 1024 is 32
// workgroups of 64 x 32 (4 of 64 x 256 before); 1024-square 77 of
// 96 x 160 (44 of 96 x 256); 2048-square 88 of 192 x 256 (48 of 384 x 256);
// 200 x 1024 x 1024 32 of 200 x 32 (96 of 96 x 32 before).
#include "dispatch/Former.h"

namespace graft {

constexpr int64_t kTargetWorkgroups = 64;
constexpr int64_t kMinWorkgroupMacs = int64_t(1) << 17;
constexpr int64_t kMaxLhsBlocks = 4;
// The panels of N from which one workgroup covers all of M: any M of at
// most kMaxLhsBlocks blocks from kWholeRowsPanels, one of more than
// kTwoRowBlocks blocks from kWholeRowsMinPanels.
constexpr int64_t kWholeRowsPanels = 32, kWholeRowsMinPanels = 24, kTwoRowBlocks = 2;

void Former::packedMatmulGrid(KernelDraft &draft) {
  Dispatch &d = draft.d;
  PackedMatmul &p = d.loop.packed;
  p.mw = unsigned(kMaxLhsBlocks) * p.mc;
  ExprTable &ex = shapes.exprs;
  auto c = [&](int64_t v) { return ex.constant(v); };
  auto op = [&](graft_expr_op_t o, uint32_t a, uint32_t b) { return ex.binary(o, a, b); };
  // (The upper bound wins over the lower.)
  auto clamp = [&](uint32_t v, uint32_t lo, int64_t hi) {
    return op(GRAFT_EXPR_MIN, op(GRAFT_EXPR_MAX, v, lo), c(hi));
  };
  const std::vector<uint32_t> &domain = draft.domain;
  const unsigned P = d.loop.numParallel;
  const uint32_t M = domain[P - 2], N = domain[P - 1], K = domain[P];
  const int64_t nr = p.nr();
  uint32_t batches = c(1);
  for (unsigned i = 0; i + 2 < P; ++i)
    batches = op(GRAFT_EXPR_MUL, batches, domain[i]);
  const uint32_t mBlocks = op(GRAFT_EXPR_CEILDIV, M, c(p.mc));
  const uint32_t blockRows = op(GRAFT_EXPR_MUL, mBlocks, batches);
  // 1 where one workgroup covers all of M: M is at most kMaxLhsBlocks lhs
  // blocks and N has kWholeRowsPanels panels or more, or kWholeRowsMinPanels
  // and M more than kTwoRowBlocks blocks.
  const uint32_t panels = op(GRAFT_EXPR_CEILDIV, N, c(nr));
  const uint32_t always = op(GRAFT_EXPR_LT, c(kWholeRowsPanels - 1), panels);
  const uint32_t tallEnough =
      op(GRAFT_EXPR_MUL, op(GRAFT_EXPR_LT, c(kWholeRowsMinPanels - 1), panels),
         op(GRAFT_EXPR_LT, c(kTwoRowBlocks), mBlocks));
  const uint32_t whole =
      op(GRAFT_EXPR_MUL, op(GRAFT_EXPR_LT, mBlocks, c(kMaxLhsBlocks + 1)),
         op(GRAFT_EXPR_MAX, always, tallEnough));
  // Rows of workgroups: one per batch where whole, else one per lhs block
  // (before the rows are merged below).
  const uint32_t wgRows =
      op(GRAFT_EXPR_SUB, blockRows, op(GRAFT_EXPR_MUL, whole, op(GRAFT_EXPR_SUB, blockRows, batches)));
  // Columns: nr-column panels per workgroup, as many as give the target
  // over those rows, at least as many as give a workgroup of mc rows
  // kMinWorkgroupMacs, at most nc / nr.
  uint32_t share = op(GRAFT_EXPR_DIV, op(GRAFT_EXPR_MUL, wgRows, N), c(kTargetWorkgroups * nr));
  uint32_t least = op(GRAFT_EXPR_CEILDIV, c((kMinWorkgroupMacs + p.mc * nr - 1) / (p.mc * nr)),
                      op(GRAFT_EXPR_MAX, K, c(1)));
  // A matmul of one row over at most the panels its sweep takes at a
  // time: one workgroup of all of them (where it sweeps: an rhs read in
  // place, not a transposed or a constant one).
  // i8 pairs: a one-row workgroup sweeps that many panels at least,
  // whatever N (one panel at a time is a loop of 10 vector operations a
  // step, pairing included, for 32 products).
  const uint32_t fewPanels =
      p.rhsSwept() ? op(GRAFT_EXPR_MUL, op(GRAFT_EXPR_LT, M, c(2)),
                        p.pairs() ? c(1)
                                  : op(GRAFT_EXPR_LT, panels, c(PackedMatmul::kSweepPanels + 1)))
                   : c(0);
  least = op(GRAFT_EXPR_MAX, least, op(GRAFT_EXPR_MUL, fewPanels, c(PackedMatmul::kSweepPanels)));
  uint32_t cols = op(GRAFT_EXPR_MUL, clamp(share, least, p.nc / nr), c(nr));
  d.grid[0] = op(GRAFT_EXPR_CEILDIV, N, cols);
  // Rows: all of M where whole, else up to kMaxLhsBlocks lhs blocks while
  // the target is kept.
  uint32_t workgroups = op(GRAFT_EXPR_MUL, blockRows, d.grid[0]);
  uint32_t merged = clamp(op(GRAFT_EXPR_DIV, workgroups, c(kTargetWorkgroups)), c(1), kMaxLhsBlocks);
  // (An empty M is one block, as merged is at least one.)
  uint32_t blocks = op(GRAFT_EXPR_ADD, op(GRAFT_EXPR_MUL, whole, op(GRAFT_EXPR_MAX, mBlocks, c(1))),
                       op(GRAFT_EXPR_MUL, op(GRAFT_EXPR_SUB, c(1), whole), merged));
  uint32_t rows = op(GRAFT_EXPR_MUL, blocks, c(p.mc));
  d.grid[1] = op(GRAFT_EXPR_CEILDIV, M, rows);
  p.mwParam = param(draft, rows);
  p.nwParam = param(draft, cols);
}

} // namespace graft
