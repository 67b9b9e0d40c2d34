// Streaming stores of large elementwise results (LoopKernel::streamingBytes,
// LoopEmitter.cpp), checked in the IR of a dispatch on every level of every
// target: where the level streams, every !nontemporal store is an aligned
// full-width vector store reachable only through the branch taken when the
// call's result bytes are at least the level's streamingStoreBytes (the
// other branch has none), and the level's fence is called only on that
// side; where it does not, no store is non-temporal. After the slice
// pipeline the stores are still aligned and non-temporal, and x86_64's
// backend emits movntps and sfence.
#include "codegen/EmitForTest.h"
#include "codegen/OptPipeline.h"

#include <gtest/gtest.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>

namespace graft {
namespace {

const char *kGraph = R"(
func @chain(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %z = constant 0.0 : f32
  %r = map %x, %y : tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %0 = mul %a, %b : f32
    %1 = max %0, %z : f32
    yield %1
  }
  return %r
}
)";

// The map dispatch of kGraph at |level|.
Dispatch mapAt(const FeatureLevel &level) {
  ProgramSet out = formForTest(level, kGraph);
  for (const Dispatch &d : out.dispatches)
    if (!d.isCall)
      return d;
  ADD_FAILURE() << "no loop dispatch";
  return Dispatch{};
}

std::vector<llvm::StoreInst *> nontemporalStores(llvm::Function &f) {
  std::vector<llvm::StoreInst *> out;
  for (llvm::BasicBlock &bb : f)
    for (llvm::Instruction &i : bb)
      if (auto *st = llvm::dyn_cast<llvm::StoreInst>(&i))
        if (st->getMetadata(llvm::LLVMContext::MD_nontemporal))
          out.push_back(st);
  return out;
}

// Whether |v| is, or is an `and` of values that include, |cmp|.
bool includes(llvm::Value *v, llvm::Value *cmp) {
  if (v == cmp)
    return true;
  auto *op = llvm::dyn_cast<llvm::BinaryOperator>(v);
  return op && op->getOpcode() == llvm::Instruction::And &&
         (includes(op->getOperand(0), cmp) || includes(op->getOperand(1), cmp));
}

// The blocks entered only when |cmp| holds: true successors of branches on
// it (or on an `and` that includes it) with that branch as their one
// predecessor.
std::vector<llvm::BasicBlock *> whenTrue(llvm::Function &f, llvm::Value *cmp) {
  std::vector<llvm::BasicBlock *> out;
  for (llvm::BasicBlock &bb : f)
    if (auto *br = llvm::dyn_cast<llvm::BranchInst>(bb.getTerminator()))
      if (br->isConditional() && includes(br->getCondition(), cmp) &&
          br->getSuccessor(0)->getSinglePredecessor() == &bb)
        out.push_back(br->getSuccessor(0));
  return out;
}

bool dominatedByAny(llvm::DominatorTree &dt, const std::vector<llvm::BasicBlock *> &roots,
                    llvm::BasicBlock *bb) {
  for (llvm::BasicBlock *r : roots)
    if (dt.dominates(r, bb))
      return true;
  return false;
}

std::string assembly(EmittedDispatch &e) {
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager pm;
  EXPECT_FALSE(e.tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile));
  pm.run(*e.module);
  return std::string(text.str());
}

TEST(StreamingStores, OnlyAboveTheLevelsThreshold) {
  unsigned streaming = 0;
  for (const TargetInfo *t : allTargets())
    for (const FeatureLevel &level : t->levels) {
      SCOPED_TRACE(std::string(t->name) + " " + level.name);
      Dispatch d = mapAt(level);
      EXPECT_EQ(d.loop.streamingBytes, level.streamingStoreBytes);
      EmittedDispatch e;
      emitDispatchForTest(*t, level, kGraph, "chain", e);
      if (!e.fn)
        continue;
      std::vector<llvm::StoreInst *> nt = nontemporalStores(*e.fn);
      if (!level.streamingStoreBytes) {
        EXPECT_TRUE(nt.empty());
        continue;
      }
      ++streaming;
      ASSERT_FALSE(nt.empty());
      // The choice: result bytes >= the level's threshold.
      llvm::ICmpInst *choice = nullptr;
      for (llvm::BasicBlock &bb : *e.fn)
        for (llvm::Instruction &i : bb)
          if (auto *c = llvm::dyn_cast<llvm::ICmpInst>(&i))
            if (c->getName().starts_with("streaming"))
              choice = c;
      ASSERT_TRUE(choice);
      EXPECT_EQ(choice->getPredicate(), llvm::CmpInst::ICMP_UGE);
      auto *limit = llvm::dyn_cast<llvm::ConstantInt>(choice->getOperand(1));
      ASSERT_TRUE(limit);
      EXPECT_EQ(limit->getZExtValue(), level.streamingStoreBytes);
      llvm::DominatorTree dt(*e.fn);
      std::vector<llvm::BasicBlock *> above = whenTrue(*e.fn, choice);
      ASSERT_FALSE(above.empty());
      unsigned bytes = level.vectorBits / 8;
      for (llvm::StoreInst *st : nt) {
        EXPECT_TRUE(dominatedByAny(dt, above, st->getParent()));
        auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(st->getValueOperand()->getType());
        ASSERT_TRUE(vt);
        EXPECT_EQ(vt->getNumElements() * 4, bytes);
        EXPECT_EQ(st->getAlign().value(), bytes);
      }
      // The fence, where the level names one, only after streaming.
      unsigned fences = 0;
      for (llvm::BasicBlock &bb : *e.fn)
        for (llvm::Instruction &i : bb)
          if (auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&i)) {
            if (call->getCalledFunction()->getName() != level.streamingStoreFence)
              continue;
            ++fences;
            EXPECT_TRUE(dominatedByAny(dt, above, &bb));
          }
      EXPECT_EQ(fences, *level.streamingStoreFence ? 1u : 0u);
      // The optimizer keeps them, and the backend emits streaming stores.
      optimizeSliceModule(*e.module, *e.tm);
      for (llvm::StoreInst *st : nontemporalStores(*e.fn))
        EXPECT_EQ(st->getAlign().value(), bytes);
      EXPECT_FALSE(nontemporalStores(*e.fn).empty());
      if (std::string(t->name) == "x86_64") {
        std::string s = assembly(e);
        EXPECT_NE(s.find("movntps"), std::string::npos) << s;
        EXPECT_NE(s.find("sfence"), std::string::npos) << s;
      }
    }
  EXPECT_GE(streaming, 3u) << "every x86_64 level streams large results";
}

} // namespace
} // namespace graft
