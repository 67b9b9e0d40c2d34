// A concat along an outer dim (LoopEmitter's rowCases): which operand
// holds a row is the same along the whole row, so the dispatch tests it
// once per row and gives each operand a row loop of its own that reads
// only that operand; before, every point read every operand and a chain
// of selects kept one. Checked after the slice pipeline on every level of
// every target: the concat's dispatch keeps no select of its element type,
// and on levels with vectors, its loops read vectors. A select whose
// condition changes along the row keeps its select.
#include "codegen/EmitForTest.h"

#include <gtest/gtest.h>
#include <llvm/IR/Instructions.h>

namespace graft {
namespace {

const char *kGraph = R"(
func @cat(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %c: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %r = concat %a, %b, %c {axis = 1} : tensor<?x?x?xf32>
  return %r
}
func @pick(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = map %a, %b : tensor<?x?xf32> {
  ^bb0(%x: f32, %y: f32):
    %c = cmp %x, %y {pred = gt} : i1
    %0 = select %c, %x, %y : f32
    yield %0
  }
  return %r
}
)";

struct Shape {
  unsigned floatSelects = 0, vectorLoads = 0;
};

Shape optimizedShape(const TargetInfo &t, const FeatureLevel &level, const std::string &fn) {
  Shape out;
  visitOptimizedDispatch(t, level, kGraph, fn, [&](llvm::Instruction &i) {
    if (auto *sel = llvm::dyn_cast<llvm::SelectInst>(&i))
      out.floatSelects += sel->getType()->getScalarType()->isFloatTy();
    if (auto *load = llvm::dyn_cast<llvm::LoadInst>(&i))
      out.vectorLoads += load->getType()->isVectorTy();
  });
  return out;
}

TEST(ConcatRows, OneOperandReadPerRow) {
  unsigned checked = 0;
  for (const TargetInfo *t : allTargets())
    for (const FeatureLevel &level : t->levels) {
      SCOPED_TRACE(std::string(t->name) + " " + level.name);
      ++checked;
      Shape cat = optimizedShape(*t, level, "cat");
      EXPECT_EQ(cat.floatSelects, 0u);
      if (level.vectorBits >= 128) {
        EXPECT_GE(cat.vectorLoads, 1u);
      }
      Shape pick = optimizedShape(*t, level, "pick");
      EXPECT_GE(pick.floatSelects, 1u);
    }
  EXPECT_GE(checked, 4u);
}

} // namespace
} // namespace graft
