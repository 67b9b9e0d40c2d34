// The packed matmul's packing routines are vectorized by hand
// (PackedMatmul.cpp): every loop of the rhs pack and of the lhs and
// transposed-rhs packs tells LLVM's vectorizer and unroller to leave it as
// written, and after the slice pipeline (OptPipeline.cpp) none of them was
// vectorized or runtime-unrolled, on every level of every target that
// packs (loop unswitching may still version a loop on an invariant test).
// Left to them, LLVM vectorized and runtime-unrolled the ragged panels'
// scalar loops into kilobytes per level, which cost build time (issue 8's
// bar) and bundle size.
#include "codegen/Codegen.h"
#include "codegen/OptPipeline.h"
#include "dispatch/FormForTest.h"
#include "link/TargetMachine.h"
#include "targets/Target.h"

#include <functional>
#include <gtest/gtest.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/LoopUtils.h>

namespace graft {
namespace {

const char *kGraph = kFilledMatmulGraph;

// The tiles of the matmul of kGraph at |level| (mr = 0 where it is not packed).
PackedMatmul packedAt(const FeatureLevel &level) {
  ProgramSet out = formForTest(level, kGraph);
  for (const Dispatch &d : out.dispatches)
    if (!d.isCall && d.loop.packed.mr && !d.loop.packed.packOnly)
      return d.loop.packed;
  return PackedMatmul{};
}

struct Loops {
  unsigned count = 0, keptAsWritten = 0, vectorized = 0;
  // Blocks the vectorizer ("vector.body") or a runtime unroll (".epil",
  // ".prol" remainders) made.
  unsigned madeByLLVM = 0;
};

Loops loopsOf(llvm::Function &f) {
  llvm::DominatorTree dt(f);
  llvm::LoopInfo li(dt);
  Loops out;
  for (llvm::BasicBlock &bb : f) {
    llvm::StringRef name = bb.getName();
    if (name.contains("vector.") || name.contains(".epil") || name.contains(".prol"))
      ++out.madeByLLVM;
  }
  for (llvm::Loop *l : li.getLoopsInPreorder()) {
    ++out.count;
    if (llvm::getOptionalBoolLoopAttribute(l, "llvm.loop.vectorize.enable") == false &&
        llvm::getBooleanLoopAttribute(l, "llvm.loop.unroll.disable"))
      ++out.keptAsWritten;
    if (llvm::getBooleanLoopAttribute(l, "llvm.loop.isvectorized"))
      ++out.vectorized;
  }
  return out;
}

// Runs |body| on a fresh module for every level of every target that packs
// the matmul of kGraph, with that level's tiles and target machine; returns
// how many levels it ran on.
unsigned forEachPackingLevel(
    const std::function<void(const PackedMatmul &, llvm::TargetMachine &, llvm::Module &)> &body) {
  unsigned levels = 0;
  for (const TargetInfo *t : allTargets())
    for (const FeatureLevel &level : t->levels) {
      SCOPED_TRACE(std::string(t->name) + " " + level.name);
      PackedMatmul p = packedAt(level);
      if (!p.mr)
        continue;
      ++levels;
      std::string error;
      std::unique_ptr<llvm::TargetMachine> tm = createTargetMachine(*t, error, &level);
      EXPECT_TRUE(tm) << error;
      if (!tm)
        continue;
      llvm::LLVMContext c;
      llvm::Module m("packed", c);
      m.setTargetTriple(t->triple);
      m.setDataLayout(tm->createDataLayout());
      body(p, *tm, m);
    }
  return levels;
}

TEST(PackedMatmul, PackingLoopsAreKeptAsWritten) {
  unsigned levels = forEachPackingLevel([](const PackedMatmul &p, llvm::TargetMachine &tm,
                                           llvm::Module &m) {
    std::vector<llvm::Function *> packs = {codegen::packedMatmulPackRhs(m, p),
                                           codegen::packedMatmulPackRows(m, p, p.mr, DType::F32),
                                           codegen::packedMatmulPackRows(m, p, p.nr(), DType::F32, true)};
    for (llvm::Function *f : packs) {
      // Kept: nothing in the module calls them.
      f->setLinkage(llvm::GlobalValue::ExternalLinkage);
      Loops before = loopsOf(*f);
      EXPECT_GE(before.count, 3u) << f->getName().str();
      EXPECT_EQ(before.keptAsWritten, before.count) << f->getName().str();
    }
    optimizeSliceModule(m, tm);
    for (size_t i = 0; i < packs.size(); ++i) {
      Loops after = loopsOf(*packs[i]);
      EXPECT_GT(after.count, 0u) << packs[i]->getName().str();
      EXPECT_EQ(after.vectorized, 0u) << packs[i]->getName().str();
      EXPECT_EQ(after.madeByLLVM, 0u) << packs[i]->getName().str();
    }
  });
  EXPECT_GE(levels, 5u) << "x86_64 and aarch64 levels pack their matmuls";
}

// The microkernels' k loops prefetch, per step, one line of the lhs panel
// and every line of an rhs row ahead of their reads; the packing
// microkernel's also stores the nv rhs vectors it reads. On every level of
// every target that packs they survive the slice pipeline, and every
// microkernel (the tails too) keeps one k step per iteration: LLVM
// unrolled the short ones for no gain (build time and bundle size).
TEST(PackedMatmul, MicrokernelsPrefetchAndKeepTheirLoops) {
  unsigned levels = forEachPackingLevel([](const PackedMatmul &p, llvm::TargetMachine &tm,
                                           llvm::Module &m) {
    struct Kernel {
      llvm::Function *f;
      unsigned rows;
      bool packing;
    };
    std::vector<Kernel> kernels = {{codegen::packedMatmulTile(m, p, p.mr), p.mr, false},
                                   {codegen::packedMatmulTilePacking(m, p), p.mr, true}};
    for (unsigned rows : codegen::packedMatmulTailRows(p))
      kernels.push_back({codegen::packedMatmulTile(m, p, rows), rows, false});
    for (Kernel &k : kernels)
      k.f->setLinkage(llvm::GlobalValue::ExternalLinkage);
    optimizeSliceModule(m, tm);
    for (Kernel &k : kernels) {
      SCOPED_TRACE(k.f->getName().str());
      llvm::DominatorTree dt(*k.f);
      llvm::LoopInfo li(dt);
      ASSERT_EQ(li.getLoopsInPreorder().size(), 1u);
      unsigned prefetches = 0, fmas = 0, stores = 0;
      for (llvm::BasicBlock *bb : li.getLoopsInPreorder()[0]->blocks())
        for (llvm::Instruction &inst : *bb) {
          stores += llvm::isa<llvm::StoreInst>(inst);
          if (auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst)) {
            prefetches += call->getIntrinsicID() == llvm::Intrinsic::prefetch;
            fmas += call->getIntrinsicID() == llvm::Intrinsic::fmuladd ||
                    call->getIntrinsicID() == llvm::Intrinsic::fma;
          }
        }
      const unsigned rhsLines = (p.nr() * 4 + 63) / 64;
      EXPECT_EQ(fmas, k.rows * p.nv);
      EXPECT_EQ(prefetches, 1 + rhsLines);
      EXPECT_EQ(stores, k.packing ? p.nv : 0u);
    }
  });
  EXPECT_GE(levels, 5u);
}

} // namespace
} // namespace graft
