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

TEST(Tiling, PackedMatmulFromEveryLevel) {
  for (const TargetInfo *t : allTargets())
    for (const FeatureLevel &level : t->levels) {
      SCOPED_TRACE(std::string(t->name) + " " + level.name);
      ProgramSet ps = form(level);
      ASSERT_EQ(ps.dispatches.size(), 3u);
      for (unsigned i = 0; i < 2; ++i) {
        const Dispatch &d = ps.dispatches[i];
        const PackedMatmul &p = d.loop.packed;
        ASSERT_GT(p.mr, 0u) << d.name;
        EXPECT_EQ(p.lanes, level.vectorBits ? level.vectorBits / 32 : 1u);
        // Accumulators, the rhs vectors and a broadcast fit the registers.
        EXPECT_LE(p.mr * p.nv + p.nv + 1, level.vectorRegisters);
        EXPECT_GE(p.mr * p.nv * 2, level.vectorRegisters) << "tile leaves registers unused";
        EXPECT_LE(uint64_t(p.kc) * p.nr() * 4, 32u * 1024);
        EXPECT_EQ(p.mc % p.mr, 0u);
        EXPECT_EQ(p.mw % p.mc, 0u);
        EXPECT_EQ(p.nc % p.nr(), 0u);
        EXPECT_EQ(d.loop.tileX, p.nc);
        EXPECT_EQ(d.loop.tileY, p.mw);
        EXPECT_EQ(d.scratchBytes, p.scratchBytes());
      }
      EXPECT_EQ(ps.dispatches[2].loop.packed.mr, 0u) << "i32 matmul is not packed";
      EXPECT_EQ(ps.dispatches[2].scratchBytes, 0u);
    }
}

TEST(Tiling, WiderLevelsGetWiderTiles) {
  const TargetInfo *x86 = lookupTarget("x86_64");
  ASSERT_TRUE(x86);
  const PackedMatmul v2 = form(*lookupLevel(*x86, "x86-64-v2")).dispatches[0].loop.packed;
  const PackedMatmul v4 = form(*lookupLevel(*x86, "x86-64-v4")).dispatches[0].loop.packed;
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
  ASSERT_EQ(ps.dispatches.size(), 3u);
  ASSERT_EQ(ps.functions.size(), 1u);
  const ExprTable &ex = ps.functions[0].shapes.exprs;
  const unsigned want[3] = {1, 4, 2};
  for (unsigned i = 0; i < 3; ++i) {
    const Dispatch &d = ps.dispatches[i];
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

} // namespace
} // namespace graft
