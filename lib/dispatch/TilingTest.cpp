// Tiling tests: a packed matmul's tiles and blocks come from the feature
// level (vector width and register count) on every level of every target,
// fit the register file and the L1 budget, and only f32 matmuls (and i8
// ones summed in i32, as pairs) get one.
#include "dispatch/FormForTest.h"

#include <gtest/gtest.h>

#include <string>

namespace graft {
namespace {

const std::string kGraph = std::string(kFilledMatmulGraph) + R"(
func @bmm(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %c: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %r = batch_matmul %a, %b, %c : tensor<?x?x?xf32>
  return %r
}
func @imm(%a: tensor<?x?xi32>, %b: tensor<?x?xi32>, %c: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %r = matmul %a, %b, %c : tensor<?x?xi32>
  return %r
}
)";

ProgramSet form(const FeatureLevel &level, const char *graph = kGraph.c_str()) {
  return formForTest(level, graph);
}

// |pack| packs the operands of the packed matmul |mm| (PackOperands.cpp):
// it writes one buffer, which |mm| reads as its packedInput input, over the
// same z as the matmul, with the matmul's params.
void expectPacksOperandsOf(const Dispatch &pack, const Dispatch &mm) {
  const PackedMatmul &p = mm.loop.packed;
  EXPECT_TRUE(pack.loop.packed.packOnly) << pack.name;
  EXPECT_EQ(pack.name, mm.name + "_pack");
  ASSERT_EQ(pack.loop.outputs.size(), 1u);
  ASSERT_LT(p.packedInput, mm.loop.inputs.size());
  EXPECT_EQ(pack.loop.outputs[0].buffer, mm.loop.inputs[p.packedInput].buffer);
  EXPECT_EQ(pack.bindings.back(), pack.loop.outputs[0].buffer);
  EXPECT_EQ(pack.scratchBytes, 0u);
  EXPECT_EQ(pack.params, mm.params);
  EXPECT_EQ(pack.grid[2], mm.grid[2]);
}

// The value of |mm|'s param |index|, where it is a constant.
std::optional<int64_t> paramValue(const ProgramSet &ps, const Dispatch &mm, unsigned index) {
  return ps.functions[0].shapes.exprs.constValue(mm.params[index]);
}

// The flag saying whether |mm|'s rhs is packed before the call.
std::optional<int64_t> prepacked(const ProgramSet &ps, const Dispatch &mm) {
  return paramValue(ps, mm, mm.loop.packed.prepackedParam);
}

TEST(Tiling, PackedMatmulFromEveryLevel) {
  for (const TargetInfo *t : allTargets())
    for (const FeatureLevel &level : t->levels) {
      SCOPED_TRACE(std::string(t->name) + " " + level.name);
      ProgramSet ps = form(level);
      // Each f32 matmul: the dispatch that packs its operands, then the matmul.
      ASSERT_EQ(ps.dispatches.size(), 5u);
      for (unsigned i = 1; i < 4; i += 2) {
        const Dispatch &d = ps.dispatches[i];
        const PackedMatmul &p = d.loop.packed;
        ASSERT_GT(p.mr, 0u) << d.name;
        EXPECT_FALSE(p.packOnly);
        expectPacksOperandsOf(ps.dispatches[i - 1], d);
        EXPECT_EQ(p.lanes, level.vectorBits ? level.vectorBits / 32 : 1u);
        // Accumulators, the rhs vectors and a broadcast fit the registers.
        EXPECT_LE(p.mr * p.nv + p.nv + 1, level.vectorRegisters);
        EXPECT_GE(p.mr * p.nv * 2, level.vectorRegisters) << "tile leaves registers unused";
        // The rhs and lhs panels fit the L1d, the lhs and rhs blocks the L2.
        EXPECT_LE(uint64_t(p.kc) * (p.mr + p.nr()) * 4, level.l1dBytes);
        EXPECT_LE(uint64_t(p.mc) * p.kc * 4, level.l2Bytes / 2);
        // Where the rhs is packed before the call and the tiles store
        // outputs, a longer K block, its lhs block still in the L2.
        EXPECT_GE(p.kcPrepacked, p.kc);
        EXPECT_LE(uint64_t(p.mc) * p.kcPrepacked * 4, level.l2Bytes / 2);
        if (!p.tilesStoreOutputs()) {
          EXPECT_EQ(p.kcPrepacked, p.kc);
        }
        EXPECT_LE(uint64_t(p.kc) * p.nc * 4, level.l2Bytes / 2);
        EXPECT_EQ(p.mc % p.mr, 0u);
        EXPECT_EQ(p.mw % p.mc, 0u);
        EXPECT_EQ(p.nc % p.nr(), 0u);
        EXPECT_EQ(d.loop.tileX, p.nc);
        EXPECT_EQ(d.loop.tileY, p.mw);
        EXPECT_EQ(d.scratchBytes, p.scratchBytes());
      }
      EXPECT_EQ(ps.dispatches[4].loop.packed.mr, 0u) << "i32 matmul is not packed";
      EXPECT_EQ(ps.dispatches[4].scratchBytes, 0u);
    }
}

// An i8 matmul summed in i32 is a packed matmul of i8 pairs on every level
// (PackedMatmul::pairs), its blocks from the pairs' 2 bytes a row of K:
// twice the f32 K block in the same L1 bytes; without the level's pairwise
// instruction, each vector of sums takes two registers; the scratch holds
// panels of pairs. On a level with a dot product of i8 quads (and only
// there), quads: 1 byte a row of K, four rows a panel row.
TEST(Tiling, I8MatmulPacksPairs) {
  const char *graph = R"(
func @q(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>, %c: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %r = matmul %a, %b, %c : tensor<?x?xi32>
  return %r
}
)";
  for (const TargetInfo *t : allTargets())
    for (const FeatureLevel &level : t->levels) {
      SCOPED_TRACE(std::string(t->name) + " " + level.name);
      ProgramSet ps = form(level, graph);
      ASSERT_EQ(ps.dispatches.size(), 2u);
      expectPacksOperandsOf(ps.dispatches[0], ps.dispatches[1]);
      const PackedMatmul &p = ps.dispatches[1].loop.packed;
      const PackedMatmul f = form(level).dispatches[1].loop.packed;
      ASSERT_GT(p.mr, 0u);
      EXPECT_TRUE(p.pairs());
      EXPECT_EQ(p.lhsElem, DType::I8);
      EXPECT_EQ(p.rhsElem, DType::I8);
      if (!p.amx()) {
        EXPECT_EQ(p.nr(), f.nr());
      }
      EXPECT_EQ(p.quads(), *level.quadDotProduct != 0);
      const unsigned group = p.quads() ? 4 : 2, bytesPerK = 4 / group;
      const unsigned sumRegisters = *level.pairMultiplyAdd || p.quads() ? 1 : 2;
      EXPECT_EQ(p.amx(), level.matrixTiles);
      if (p.amx()) {
        // AMX: 2 x 2 tiles of 16 x 16 sums; K blocks of whole 64-row
        // tiles, twice the L1 rule; a block's panels padded to them.
        EXPECT_EQ(p.mr, 32u);
        EXPECT_EQ(p.nr(), 32u);
        EXPECT_EQ(p.kc % 64, 0u);
        EXPECT_EQ(p.kcPrepacked % 64, 0u);
        EXPECT_GE(p.kcPrepacked, p.kc);
        EXPECT_LE(uint64_t(p.kc) * (p.mr + p.nr()) * bytesPerK, 2 * level.l1dBytes);
        EXPECT_EQ(p.kRows(p.kc), p.kc / group);
        EXPECT_EQ(p.kRows(p.kc + 1), p.kc / group + PackedMatmul::kAmxDepth);
        EXPECT_EQ(p.kRows(1), PackedMatmul::kAmxDepth);
        EXPECT_EQ(p.kGroups(p.kc + 1), p.kc / group + 1);
        EXPECT_FALSE(p.rhsPackedUnsigned()) << "tdpbssd takes s8 x s8";
      } else {
        if (level.vectorBits)
          EXPECT_EQ(p.mr, std::max(1u, level.vectorRegisters * 3 / 4 / (sumRegisters * p.nv)));
        else
          EXPECT_EQ(p.mr, 2u) << "scalar sums live in the integer registers";
        EXPECT_LE(uint64_t(p.kc) * (p.mr + p.nr()) * bytesPerK, level.l1dBytes);
        EXPECT_GT(uint64_t(p.kc + 8) * (p.mr + p.nr()) * bytesPerK, level.l1dBytes);
        EXPECT_EQ(p.kRows(p.kc), p.kc / group);
        EXPECT_EQ(p.kRows(p.kc + 1), p.kc / group + 1);
        EXPECT_EQ(p.rhsPackedUnsigned(), p.quads() && level.quadDotUnsigned);
      }
      EXPECT_EQ(p.kc % group, 0u) << "K blocks start at whole groups of rows";
      EXPECT_EQ(p.kcPrepacked % group, 0u);
      EXPECT_EQ(ps.dispatches[1].scratchBytes,
                (uint64_t(p.mw) * p.nc + uint64_t(p.kc / group) * p.nc +
                 uint64_t(p.mc) * (p.kcPrepacked / group)) * 4);
    }
}

TEST(Tiling, WiderLevelsGetWiderTiles) {
  const TargetInfo *x86 = lookupTarget("x86_64");
  ASSERT_TRUE(x86);
  const PackedMatmul v2 = form(*lookupLevel(*x86, "x86-64-v2")).dispatches[1].loop.packed;
  const PackedMatmul v4 = form(*lookupLevel(*x86, "x86-64-v4")).dispatches[1].loop.packed;
  EXPECT_EQ(v2.mr, 6u);
  EXPECT_EQ(v2.nr(), 8u);
  EXPECT_EQ(v4.mr, 12u);
  EXPECT_EQ(v4.nr(), 32u);
  EXPECT_LT(v4.kc, v2.kc);
  // x86-64-v3's and v4's tiles store their outputs (a tile row of a
  // 64-byte line or more): a K block of 680 (1360) where the rhs is packed
  // before the call (mc x kc lhs block in half the L2).
  const PackedMatmul v3 = form(*lookupLevel(*x86, "x86-64-v3")).dispatches[1].loop.packed;
  EXPECT_FALSE(v2.tilesStoreOutputs());
  EXPECT_TRUE(v3.tilesStoreOutputs());
  EXPECT_TRUE(v4.tilesStoreOutputs());
  EXPECT_EQ(v2.kcPrepacked, v2.kc);
  EXPECT_EQ(v3.kcPrepacked, 680u);
  EXPECT_EQ(v4.kcPrepacked, 1360u);
}

// The workgroup grids of issue 8's matmuls on x86-64-v4 (mr 12, nr 32,
// mc 96, nc 256; PackedGrid.cpp): enough workgroups for 16 threads where
// the work allows, each still a few MFLOP, and an operand packed once per
// call where several workgroups read it. 64 x 1024 x 1024: 32 columns of
// one panel (4 workgroups of 256 columns before); 1024-square: 160
// columns (44 workgroups before); 2048-square: two lhs blocks (4 and 48
// before); 2 x 2: one workgroup, nothing packed before; 1024 x 64 x 1024:
// columns of 192, the fewest that give each workgroup 1M multiply-adds;
// 128 x 768 x 768: two rows of workgroups, each packing its own rhs (the
// pack dispatch packed it before); 200 x 1024 x 1024 and 256 x 256 x 4096:
// one row of workgroups covering all of M (32 panels or more), 64 columns
// where that keeps the target (3 rows of 96 before); 256 x 768 x 768: one
// row too (3 lhs blocks, 24 panels), but 256 x 768 x 512 (16 panels) three
// rows of 96 with the rhs packed before. A matmul of one row over at most
// the 4 panels its sweep takes at a time is one workgroup: decode's
// p @ V, 1 x 4096 x 64, both panels (two workgroups of one panel before,
// each as slow as its chain of multiply-adds); 1 x 1024 x 1024 keeps 32
// workgroups of one panel, which read the lhs row in place (not packed).
TEST(Tiling, PackedMatmulGrids) {
  const char *graph = R"(
func @mm(%a: tensor<64x1024xf32>, %b: tensor<1024x1024xf32>, %c: tensor<2048x2048xf32>, %d: tensor<2x2xf32>, %e: tensor<1024x64xf32>, %f: tensor<64x1024xf32>, %g: tensor<128x768xf32>, %h: tensor<768x768xf32>, %i: tensor<200x1024xf32>, %j: tensor<256x256xf32>, %k: tensor<256x4096xf32>, %l: tensor<256x768xf32>, %o: tensor<768x512xf32>, %p: tensor<1x4096xf32>, %v: tensor<4096x64xf32>, %q: tensor<1x1024xf32>) -> (tensor<64x1024xf32>, tensor<1024x1024xf32>, tensor<2048x2048xf32>, tensor<2x2xf32>, tensor<1024x1024xf32>, tensor<128x768xf32>, tensor<200x1024xf32>, tensor<256x4096xf32>, tensor<256x768xf32>, tensor<256x512xf32>, tensor<1x64xf32>, tensor<1x1024xf32>) {
  %z = constant 0.0 : f32
  %e1 = empty : tensor<64x1024xf32>
  %f1 = fill %z, %e1 : tensor<64x1024xf32>
  %r1 = matmul %a, %b, %f1 : tensor<64x1024xf32>
  %e2 = empty : tensor<1024x1024xf32>
  %f2 = fill %z, %e2 : tensor<1024x1024xf32>
  %r2 = matmul %b, %b, %f2 : tensor<1024x1024xf32>
  %e3 = empty : tensor<2048x2048xf32>
  %f3 = fill %z, %e3 : tensor<2048x2048xf32>
  %r3 = matmul %c, %c, %f3 : tensor<2048x2048xf32>
  %e4 = empty : tensor<2x2xf32>
  %f4 = fill %z, %e4 : tensor<2x2xf32>
  %r4 = matmul %d, %d, %f4 : tensor<2x2xf32>
  %e5 = empty : tensor<1024x1024xf32>
  %f5 = fill %z, %e5 : tensor<1024x1024xf32>
  %r5 = matmul %e, %f, %f5 : tensor<1024x1024xf32>
  %e6 = empty : tensor<128x768xf32>
  %f6 = fill %z, %e6 : tensor<128x768xf32>
  %r6 = matmul %g, %h, %f6 : tensor<128x768xf32>
  %e7 = empty : tensor<200x1024xf32>
  %f7 = fill %z, %e7 : tensor<200x1024xf32>
  %r7 = matmul %i, %b, %f7 : tensor<200x1024xf32>
  %e8 = empty : tensor<256x4096xf32>
  %f8 = fill %z, %e8 : tensor<256x4096xf32>
  %r8 = matmul %j, %k, %f8 : tensor<256x4096xf32>
  %e9 = empty : tensor<256x768xf32>
  %f9 = fill %z, %e9 : tensor<256x768xf32>
  %r9 = matmul %l, %h, %f9 : tensor<256x768xf32>
  %e10 = empty : tensor<256x512xf32>
  %f10 = fill %z, %e10 : tensor<256x512xf32>
  %r10 = matmul %l, %o, %f10 : tensor<256x512xf32>
  %e11 = empty : tensor<1x64xf32>
  %f11 = fill %z, %e11 : tensor<1x64xf32>
  %r11 = matmul %p, %v, %f11 : tensor<1x64xf32>
  %e12 = empty : tensor<1x1024xf32>
  %f12 = fill %z, %e12 : tensor<1x1024xf32>
  %r12 = matmul %q, %b, %f12 : tensor<1x1024xf32>
  return %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12
}
)";
  struct Want {
    int64_t M, N, K, rows, cols, gridX, gridY, packRhs, packLhs;
  } want[] = {{64, 1024, 1024, 96, 32, 32, 1, 0, 1},
              {1024, 1024, 1024, 96, 160, 7, 11, 1, 1},
              {2048, 2048, 2048, 192, 256, 8, 11, 1, 1},
              {2, 2, 2, 96, 256, 1, 1, 0, 0},
              {1024, 1024, 64, 96, 160, 7, 11, 1, 1},
              {128, 768, 768, 96, 32, 24, 2, 0, 1},
              {200, 1024, 1024, 288, 32, 32, 1, 0, 1},
              {256, 4096, 256, 288, 64, 64, 1, 0, 1},
              {256, 768, 768, 288, 32, 24, 1, 0, 1},
              {256, 512, 768, 96, 32, 16, 3, 1, 1},
              {1, 64, 4096, 96, 128, 1, 1, 0, 0},
              {1, 1024, 1024, 96, 32, 32, 1, 0, 0}};
  const TargetInfo *x86 = lookupTarget("x86_64");
  ASSERT_TRUE(x86);
  ProgramSet ps = form(*lookupLevel(*x86, "x86-64-v4"), graph);
  const unsigned cases = sizeof want / sizeof want[0];
  ASSERT_EQ(ps.dispatches.size(), 2 * cases);
  ASSERT_EQ(ps.functions.size(), 1u);
  const ExprTable &ex = ps.functions[0].shapes.exprs;
  for (unsigned i = 0; i < cases; ++i) {
    const Want &w = want[i];
    const Dispatch &pack = ps.dispatches[2 * i], &d = ps.dispatches[2 * i + 1];
    SCOPED_TRACE(std::to_string(w.M) + "x" + std::to_string(w.K) + "x" + std::to_string(w.N));
    expectPacksOperandsOf(pack, d);
    const PackedMatmul &p = d.loop.packed;
    ASSERT_EQ(p.mr, 12u);
    EXPECT_EQ(paramValue(ps, d, p.mwParam), w.rows);
    EXPECT_EQ(paramValue(ps, d, p.nwParam), w.cols);
    EXPECT_EQ(ex.constValue(d.grid[0]), w.gridX);
    EXPECT_EQ(ex.constValue(d.grid[1]), w.gridY);
    EXPECT_EQ(prepacked(ps, d), w.packRhs);
    EXPECT_EQ(paramValue(ps, d, p.prepackedLhsParam), w.packLhs);
    // Blocks of whole register tiles, within the scratch.
    EXPECT_EQ(w.rows % p.mr, 0);
    EXPECT_EQ(w.cols % p.nr(), 0);
    EXPECT_LE(w.rows, int64_t(p.mw));
    EXPECT_LE(w.cols, int64_t(p.nc));
    // The call's K block: the longer one where the rhs is packed before.
    int64_t kc = w.packRhs ? p.kcPrepacked : p.kc;
    EXPECT_EQ(paramValue(ps, d, p.kcParam), kc);
    // The pack dispatch: the K blocks (x), over the rhs's column groups
    // (one panel), then the lhs's row groups (one panel) (y); no
    // workgroups where nothing is packed.
    EXPECT_EQ(p.packCols(), 32u);
    EXPECT_EQ(p.packRows(), 12u);
    int64_t kBlocks = (w.K + kc - 1) / kc;
    int64_t x = w.packRhs * ((w.N + 31) / 32) + w.packLhs * ((w.M + 11) / 12);
    EXPECT_EQ(ex.constValue(pack.grid[0]), (w.packRhs || w.packLhs) ? kBlocks : 0);
    EXPECT_EQ(ex.constValue(pack.grid[1]), x);
  }
}

// A one-row matmul of at most 4 panels is one workgroup, and reads its
// f32 lhs row in place (no lhs packed before the call), only where its rhs
// is read in place by the sweep: 1 x 4096 x 128 on x86-64-v4 (4 panels) is
// one workgroup packing nothing; with the rhs a transpose (q @ k^T, packed
// by rows, not swept) it keeps 4 workgroups of a panel and its lhs packed
// once for them.
TEST(Tiling, OneRowGridsWhereTheSweepRuns) {
  const char *graph = R"(
func @mm(%q: tensor<1x4096xf32>, %b: tensor<4096x128xf32>, %k: tensor<128x4096xf32>) -> (tensor<1x128xf32>, tensor<1x128xf32>) {
  %z = constant 0.0 : f32
  %e1 = empty : tensor<1x128xf32>
  %f1 = fill %z, %e1 : tensor<1x128xf32>
  %r1 = matmul %q, %b, %f1 : tensor<1x128xf32>
  %kt = transpose %k {perm = [1, 0]} : tensor<4096x128xf32>
  %e2 = empty : tensor<1x128xf32>
  %f2 = fill %z, %e2 : tensor<1x128xf32>
  %r2 = matmul %q, %kt, %f2 : tensor<1x128xf32>
  return %r1, %r2
}
)";
  const TargetInfo *x86 = lookupTarget("x86_64");
  ASSERT_TRUE(x86);
  ProgramSet ps = form(*lookupLevel(*x86, "x86-64-v4"), graph);
  ASSERT_EQ(ps.dispatches.size(), 4u);
  const ExprTable &ex = ps.functions[0].shapes.exprs;
  const Dispatch &plain = ps.dispatches[1], &transposed = ps.dispatches[3];
  ASSERT_FALSE(plain.loop.packed.rhsTransposed);
  ASSERT_TRUE(transposed.loop.packed.rhsTransposed);
  EXPECT_EQ(ex.constValue(plain.grid[0]), 1);
  EXPECT_EQ(paramValue(ps, plain, plain.loop.packed.nwParam), 128);
  EXPECT_EQ(paramValue(ps, plain, plain.loop.packed.prepackedLhsParam), 0);
  EXPECT_EQ(ex.constValue(transposed.grid[0]), 4);
  EXPECT_EQ(paramValue(ps, transposed, transposed.loop.packed.nwParam), 32);
  EXPECT_EQ(paramValue(ps, transposed, transposed.loop.packed.prepackedLhsParam), 1);
}

// Small work spreads over enough workgroups for many threads (x86-64-v4,
// tileX 256 for f32 reductions): row sums of 2048 x 2048, 64 rows a
// workgroup (32 workgroups; 8 of 256 rows before), of 4 x 8 one
// workgroup (16K elements a workgroup at least); column sums keep strips
// of 256 columns (narrower strips were 1.2-1.6x slower at 1 thread);
// softmax over 128 x 128 in 16 workgroups of 8 rows (one before), over
// 2048 x 1024 16 rows a workgroup as before (kRowStatTile elements), over
// 12 x 128 x 128 2 workgroups a batch.
TEST(Tiling, SmallWorkSpreads) {
  const char *graph = R"(
func @f(%x: tensor<2048x2048xf32>, %y: tensor<4x8xf32>, %s: tensor<128x128xf32>, %t: tensor<2048x1024xf32>, %u: tensor<12x128x128xf32>) -> (tensor<2048xf32>, tensor<4xf32>, tensor<2048xf32>, tensor<128x128xf32>, tensor<2048x1024xf32>, tensor<12x128x128xf32>) {
  %r1 = reduce %x {dims = [1], kind = sum} : tensor<2048xf32>
  %r2 = reduce %y {dims = [1], kind = sum} : tensor<4xf32>
  %r3 = reduce %x {dims = [0], kind = sum} : tensor<2048xf32>
  %m1 = reduce %s {dims = [1], kind = max} : tensor<128xf32>
  %b1 = broadcast %m1 {dims = [0]} : tensor<128x128xf32>
  %p1 = map %s, %b1 : tensor<128x128xf32> {
  ^bb0(%a: f32, %b: f32):
    %0 = sub %a, %b : f32
    yield %0
  }
  %m2 = reduce %t {dims = [1], kind = max} : tensor<2048xf32>
  %b2 = broadcast %m2 {dims = [0]} : tensor<2048x1024xf32>
  %p2 = map %t, %b2 : tensor<2048x1024xf32> {
  ^bb0(%a: f32, %b: f32):
    %0 = sub %a, %b : f32
    yield %0
  }
  %m3 = reduce %u {dims = [2], kind = max} : tensor<12x128xf32>
  %b3 = broadcast %m3 {dims = [0, 1]} : tensor<12x128x128xf32>
  %p3 = map %u, %b3 : tensor<12x128x128xf32> {
  ^bb0(%a: f32, %b: f32):
    %0 = sub %a, %b : f32
    yield %0
  }
  return %r1, %r2, %r3, %p1, %p2, %p3
}
)";
  const TargetInfo *x86 = lookupTarget("x86_64");
  ASSERT_TRUE(x86);
  ProgramSet ps = form(*lookupLevel(*x86, "x86-64-v4"), graph);
  ASSERT_EQ(ps.dispatches.size(), 6u);
  const ExprTable &ex = ps.functions[0].shapes.exprs;
  const Dispatch &rows = ps.dispatches[0], &tiny = ps.dispatches[1], &cols = ps.dispatches[2];
  const Dispatch &shortRows = ps.dispatches[3], &longRows = ps.dispatches[4];
  ASSERT_TRUE(rows.loop.innerReduction);
  ASSERT_GE(rows.loop.tileXParam, 0);
  ASSERT_GE(tiny.loop.tileXParam, 0);
  ASSERT_GE(shortRows.loop.tileYParam, 0);
  ASSERT_GE(longRows.loop.tileYParam, 0);
  EXPECT_EQ(paramValue(ps, rows, rows.loop.tileXParam), 64);
  EXPECT_EQ(ex.constValue(rows.grid[0]), 32);
  EXPECT_EQ(paramValue(ps, tiny, tiny.loop.tileXParam), 256);
  EXPECT_EQ(ex.constValue(tiny.grid[0]), 1);
  ASSERT_FALSE(cols.loop.innerReduction);
  EXPECT_EQ(cols.loop.tileXParam, -1);
  EXPECT_EQ(cols.loop.tileX, 256u);
  EXPECT_EQ(ex.constValue(cols.grid[0]), 8);
  EXPECT_EQ(paramValue(ps, shortRows, shortRows.loop.tileYParam), 8);
  EXPECT_EQ(ex.constValue(shortRows.grid[1]), 16);
  EXPECT_EQ(paramValue(ps, longRows, longRows.loop.tileYParam), 16);
  EXPECT_EQ(ex.constValue(longRows.grid[1]), 128);
  // Over 12 batches of 128 x 128: 2 workgroups a batch (16 in all at
  // most), 64 rows each.
  const Dispatch &batched = ps.dispatches[5];
  ASSERT_GE(batched.loop.tileYParam, 0);
  EXPECT_EQ(paramValue(ps, batched, batched.loop.tileYParam), 64);
  EXPECT_EQ(ex.constValue(batched.grid[1]), 2);
  EXPECT_EQ(ex.constValue(batched.grid[2]), 12);
}

} // namespace
} // namespace graft
