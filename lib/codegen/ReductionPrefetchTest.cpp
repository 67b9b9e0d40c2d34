// Prefetches of a column reduction (LoopEmitter.cpp prefetchRowsAhead),
// checked in the IR of its dispatch on every level of every target: a sum
// of [R, C] over R prefetches, in the loop over R, the strip of columns
// kReductionPrefetchRows (4) rows ahead of the row it reads, one prefetch
// per 64-byte line of the strip; a sum over C (the reduced dim contiguous)
// and an elementwise map prefetch nothing. After the slice pipeline the
// prefetches are still there.
#include "codegen/EmitForTest.h"
#include "codegen/OptPipeline.h"

#include <gtest/gtest.h>
#include <llvm/IR/IntrinsicInst.h>

namespace graft {
namespace {

const char *kGraph = R"(
func @cols(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %r = reduce %x {dims = [0], kind = sum} : tensor<?xf32>
  return %r
}
func @rows(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %r = reduce %x {dims = [1], kind = sum} : tensor<?xf32>
  return %r
}
func @twice(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = map %x : tensor<?x?xf32> {
  ^bb0(%a: f32):
    %0 = add %a, %a : f32
    yield %0
  }
  return %r
}
)";

struct Counted {
  unsigned prefetches = 0;   // llvm.prefetch calls
  bool fourRowsAhead = false; // one of them at a row index + 4
};

// The prefetches in the dispatch of |fn| at |level|, before and after the
// slice pipeline.
void countPrefetches(const TargetInfo &t, const FeatureLevel &level, const std::string &fn,
                     Counted &before, Counted &after) {
  EmittedDispatch e;
  emitDispatchForTest(t, level, kGraph, fn, e);
  if (!e.fn)
    return;
  auto count = [&](Counted &c) {
    for (llvm::BasicBlock &bb : *e.fn)
      for (llvm::Instruction &i : bb)
        if (auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&i))
          if (call->getIntrinsicID() == llvm::Intrinsic::prefetch) {
            ++c.prefetches;
            // The line's address: the strip's start (a GEP whose index is
            // (r + 4) * ld + j) plus the line's offset.
            auto *line = llvm::dyn_cast<llvm::GetElementPtrInst>(call->getArgOperand(0));
            auto *start = line ? llvm::dyn_cast<llvm::GetElementPtrInst>(line->getPointerOperand())
                               : nullptr;
            auto *sum = start ? llvm::dyn_cast<llvm::BinaryOperator>(start->getOperand(1)) : nullptr;
            auto *mul = sum ? llvm::dyn_cast<llvm::BinaryOperator>(sum->getOperand(0)) : nullptr;
            auto *row = mul ? llvm::dyn_cast<llvm::BinaryOperator>(mul->getOperand(0)) : nullptr;
            auto *ahead = row ? llvm::dyn_cast<llvm::ConstantInt>(row->getOperand(1)) : nullptr;
            c.fourRowsAhead |= row && row->getOpcode() == llvm::Instruction::Add && ahead &&
                               ahead->getZExtValue() == 4;
          }
  };
  count(before);
  optimizeSliceModule(*e.module, *e.tm);
  count(after);
}

TEST(ReductionPrefetch, ColumnReductionsOnly) {
  for (const TargetInfo *t : allTargets())
    for (const FeatureLevel &level : t->levels) {
      SCOPED_TRACE(std::string(t->name) + " " + level.name);
      Counted before, after;
      countPrefetches(*t, level, "cols", before, after);
      EXPECT_EQ(before.prefetches, 1u);
      EXPECT_TRUE(before.fourRowsAhead);
      EXPECT_GE(after.prefetches, 1u);
      for (const char *fn : {"rows", "twice"}) {
        SCOPED_TRACE(fn);
        Counted b, a;
        countPrefetches(*t, level, fn, b, a);
        EXPECT_EQ(b.prefetches, 0u);
        EXPECT_EQ(a.prefetches, 0u);
      }
    }
}

} // namespace
} // namespace graft
