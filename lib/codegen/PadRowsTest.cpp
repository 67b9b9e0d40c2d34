// A constant-mode pad along its innermost dim (PadTile.cpp): the source is
// read at the row's own coordinate where it is inside, guarded, rather
// than at a clamped one, so that the loop vectorizer reads each row with
// contiguous vector loads, masked at its padded ends. Checked after the
// slice pipeline: on x86_64's AVX levels (masked loads: x86-64-v3, v4) the
// pad's dispatch has a masked vector load and no gather; an edge-mode pad
// (clamped, no guard) still has none of either.
#include "codegen/EmitForTest.h"

#include <gtest/gtest.h>
#include <llvm/IR/IntrinsicInst.h>

namespace graft {
namespace {

const char *kGraph = R"(
func @zeros(%x: tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32> {
  %z = constant 0.0 : f32
  %y = pad %x, %z {low = [0, 0, 1, 1], high = [0, 0, 1, 1]} : tensor<?x8x?x?xf32>
  return %y
}
func @edge(%x: tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32> {
  %y = pad %x {low = [0, 0, 1, 1], high = [0, 0, 1, 1], mode = edge} : tensor<?x8x?x?xf32>
  return %y
}
)";

struct Loads {
  unsigned masked = 0, gathers = 0;
};

Loads optimizedLoads(const TargetInfo &t, const FeatureLevel &level, const std::string &fn) {
  Loads out;
  visitOptimizedDispatch(t, level, kGraph, fn, [&](llvm::Instruction &i) {
    if (auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&i)) {
      out.masked += call->getIntrinsicID() == llvm::Intrinsic::masked_load;
      out.gathers += call->getIntrinsicID() == llvm::Intrinsic::masked_gather;
    }
  });
  return out;
}

TEST(PadRows, MaskedVectorLoadsWhereTheLevelHasThem) {
  unsigned checked = 0;
  for (const TargetInfo *t : allTargets()) {
    if (std::string(t->name) != "x86_64")
      continue;
    for (const FeatureLevel &level : t->levels) {
      if (level.vectorBits < 256)
        continue; // SSE has no masked loads
      SCOPED_TRACE(level.name);
      ++checked;
      Loads zeros = optimizedLoads(*t, level, "zeros");
      EXPECT_GE(zeros.masked, 1u);
      EXPECT_EQ(zeros.gathers, 0u);
      Loads edge = optimizedLoads(*t, level, "edge");
      EXPECT_EQ(edge.masked, 0u);
    }
  }
  EXPECT_EQ(checked, 5u) << "x86-64-v3, v3+avxvnni, v4, v4+vnni and v4+amx";
}

} // namespace
} // namespace graft
