// Tiling tests: a packed matmul's tiles and blocks come from the feature
// level (vector width and register count) on every level of every target,
// fit the register file and the L1 budget, and only f32 matmuls get one.
#include "dispatch/Dispatch.h"
#include "graph/Parser.h"
#include "graph/Verifier.h"

#include <gtest/gtest.h>

namespace graft {
namespace {

const char *kGraph = R"(
func @mm(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  return %r
}
func @bmm(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %c: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %r = batch_matmul %a, %b, %c : tensor<?x?x?xf32>
  return %r
}
func @imm(%a: tensor<?x?xi32>, %b: tensor<?x?xi32>, %c: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %r = matmul %a, %b, %c : tensor<?x?xi32>
  return %r
}
)";

ProgramSet form(const FeatureLevel &level, const char *graph = kGraph) {
  SourceManager sm;
  uint32_t file = sm.add("t.graph", graph);
  DiagEngine diag(sm);
  diag.setEcho(false);
  std::unique_ptr<Module> m = parseModule(sm, file, diag);
  EXPECT_TRUE(m && verifyModule(*m, diag));
  ProgramSet out;
  for (auto &fn : m->functions) {
    ShapeInfo shapes;
    analyzeShapes(*fn, diag, shapes);
    formDispatches(*fn, std::move(shapes), diag, level, out);
  }
  return out;
}

// |pack| packs the rhs of the packed matmul |mm| (PackRhs.cpp): it writes
// one buffer, which |mm| reads as its packedRhs input, over a grid of nc
// column blocks by kc row blocks, with the matmul's params.
void expectPacksRhsOf(const Dispatch &pack, const Dispatch &mm) {
  const PackedMatmul &p = mm.loop.packed;
  EXPECT_TRUE(pack.loop.packed.packRhsOnly) << pack.name;
  EXPECT_EQ(pack.name, mm.name + "_pack_rhs");
  ASSERT_EQ(pack.loop.outputs.size(), 1u);
  ASSERT_LT(p.packedRhs, mm.loop.inputs.size());
  EXPECT_EQ(pack.loop.outputs[0].buffer, mm.loop.inputs[p.packedRhs].buffer);
  EXPECT_EQ(pack.bindings.back(), pack.loop.outputs[0].buffer);
  EXPECT_EQ(pack.scratchBytes, 0u);
  EXPECT_EQ(pack.params, mm.params);
  EXPECT_EQ(pack.grid[2], mm.grid[2]);
}

// The flag saying whether |mm|'s rhs is packed before the call, where it is
// a constant.
std::optional<int64_t> prepacked(const ProgramSet &ps, const Dispatch &mm) {
  return ps.functions[0].shapes.exprs.constValue(mm.params[mm.loop.packed.prepackedParam]);
}

TEST(Tiling, PackedMatmulFromEveryLevel) {
  for (const TargetInfo *t : allTargets())
    for (const FeatureLevel &level : t->levels) {
      SCOPED_TRACE(std::string(t->name) + " " + level.name);
      ProgramSet ps = form(level);
      // Each f32 matmul: the dispatch that packs its rhs, then the matmul.
      ASSERT_EQ(ps.dispatches.size(), 5u);
      for (unsigned i = 1; i < 4; i += 2) {
        const Dispatch &d = ps.dispatches[i];
        const PackedMatmul &p = d.loop.packed;
        ASSERT_GT(p.mr, 0u) << d.name;
        EXPECT_FALSE(p.packRhsOnly);
        expectPacksRhsOf(ps.dispatches[i - 1], d);
        EXPECT_EQ(p.lanes, level.vectorBits ? level.vectorBits / 32 : 1u);
        // Accumulators, the rhs vectors and a broadcast fit the registers.
        EXPECT_LE(p.mr * p.nv + p.nv + 1, level.vectorRegisters);
        EXPECT_GE(p.mr * p.nv * 2, level.vectorRegisters) << "tile leaves registers unused";
        // The rhs and lhs panels fit the L1d, the lhs and rhs blocks the L2.
        EXPECT_LE(uint64_t(p.kc) * (p.mr + p.nr()) * 4, level.l1dBytes);
        EXPECT_LE(uint64_t(p.mc) * p.kc * 4, level.l2Bytes / 2);
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
}

// A workgroup covers several lhs blocks only while the matmul keeps enough
// workgroups for many threads: one block at 1024 x 1024 (44 workgroups on
// x86-64-v4), the most (4) at 2048 x 2048, 2 at 1024 x 2048.
TEST(Tiling, WorkgroupRowsGrowWithTheMatmul) {
  const char *graph = R"(
func @mm(%a: tensor<1024x64xf32>, %b: tensor<64x1024xf32>, %c: tensor<2048x64xf32>, %d: tensor<64x2048xf32>) -> (tensor<1024x1024xf32>, tensor<2048x2048xf32>, tensor<1024x2048xf32>) {
  %z = constant 0.0 : f32
  %e1 = empty : tensor<1024x1024xf32>
  %f1 = fill %z, %e1 : tensor<1024x1024xf32>
  %r1 = matmul %a, %b, %f1 : tensor<1024x1024xf32>
  %e2 = empty : tensor<2048x2048xf32>
  %f2 = fill %z, %e2 : tensor<2048x2048xf32>
  %r2 = matmul %c, %d, %f2 : tensor<2048x2048xf32>
  %e3 = empty : tensor<1024x2048xf32>
  %f3 = fill %z, %e3 : tensor<1024x2048xf32>
  %r3 = matmul %a, %d, %f3 : tensor<1024x2048xf32>
  return %r1, %r2, %r3
}
)";
  const TargetInfo *x86 = lookupTarget("x86_64");
  ASSERT_TRUE(x86);
  ProgramSet ps = form(*lookupLevel(*x86, "x86-64-v4"), graph);
  ASSERT_EQ(ps.dispatches.size(), 6u);
  ASSERT_EQ(ps.functions.size(), 1u);
  const ExprTable &ex = ps.functions[0].shapes.exprs;
  const unsigned want[3] = {1, 4, 2};
  for (unsigned i = 0; i < 3; ++i) {
    const Dispatch &d = ps.dispatches[2 * i + 1];
    expectPacksRhsOf(ps.dispatches[2 * i], d);
    // Several rows of workgroups share each rhs block: packed before.
    EXPECT_EQ(prepacked(ps, d), 1);
    const PackedMatmul &p = d.loop.packed;
    ASSERT_GT(p.mr, 0u);
    EXPECT_EQ(p.mw, 4 * p.mc);
    std::optional<int64_t> rows = ex.constValue(d.params[p.mwParam]);
    ASSERT_TRUE(rows) << d.name;
    EXPECT_EQ(*rows, int64_t(want[i] * p.mc)) << d.name;
    std::optional<int64_t> grid = ex.constValue(d.grid[1]);
    ASSERT_TRUE(grid) << d.name;
    EXPECT_EQ(*grid, (int64_t(i == 1 ? 2048 : 1024) + *rows - 1) / *rows) << d.name;
  }
}

// One row of workgroups (64 rows): each workgroup packs its own rhs block,
// and the pack dispatch has no workgroups.
TEST(Tiling, OneRowOfWorkgroupsPacksItsOwnRhs) {
  const char *graph = R"(
func @mm(%a: tensor<64x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<64x1024xf32> {
  %z = constant 0.0 : f32
  %e = empty : tensor<64x1024xf32>
  %f = fill %z, %e : tensor<64x1024xf32>
  %r = matmul %a, %b, %f : tensor<64x1024xf32>
  return %r
}
)";
  const TargetInfo *x86 = lookupTarget("x86_64");
  ASSERT_TRUE(x86);
  ProgramSet ps = form(*lookupLevel(*x86, "x86-64-v4"), graph);
  ASSERT_EQ(ps.dispatches.size(), 2u);
  const Dispatch &pack = ps.dispatches[0], &mm = ps.dispatches[1];
  expectPacksRhsOf(pack, mm);
  EXPECT_EQ(prepacked(ps, mm), 0);
  const ExprTable &ex = ps.functions[0].shapes.exprs;
  EXPECT_EQ(ex.constValue(pack.grid[1]), 0);
  EXPECT_EQ(ex.constValue(mm.grid[1]), 1);
}

} // namespace
} // namespace graft
