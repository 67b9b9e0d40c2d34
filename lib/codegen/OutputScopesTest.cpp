// A dispatch's outputs overlap none of its inputs (docs/abi.md), which the
// loop emitter tells LLVM with alias scopes (LoopEmitter::scopeOutputs):
// the loop vectorizer then needs no run-time overlap checks, of which it
// takes at most 128 per loop. A map over 150 views of one input (a grouped
// conv's terms: the window's slices of each channel) is checked after the
// slice pipeline on every level of every target that has vectors (in
// i32: ARMv7 NEON vectorizes no f32 arithmetic, its vectors flush
// subnormals): its row
// loop reads vectors (without the scopes it stayed scalar everywhere), and
// its loads from the input and stores to the output carry the scopes.
#include "codegen/EmitForTest.h"

#include <gtest/gtest.h>
#include <llvm/IR/Instructions.h>

#include <cstdint>
#include <string>

namespace graft {
namespace {

constexpr int kTerms = 150;

// @many: out[i, j] = sum over k of x[i, j + k] (j < cols - kTerms + 1).
std::string manyViews() {
  std::string g = "func @many(%x: tensor<?x?xi32>) -> tensor<?x?xi32> {\n";
  std::string operands, args, types;
  for (int k = 0; k < kTerms; ++k) {
    int back = kTerms - 1 - k;
    g += "  %s" + std::to_string(k) + " = slice %x {starts = [0, " + std::to_string(k) +
         "], ends = [" + std::to_string(INT64_MAX) + ", " +
         (back ? "-" + std::to_string(back) : std::to_string(INT64_MAX)) +
         "], steps = [1, 1]} : tensor<?x?xi32>\n";
    operands += (k ? ", %s" : "%s") + std::to_string(k);
    args += (k ? ", %a" : "%a") + std::to_string(k) + ": i32";
  }
  g += "  %r = map " + operands + " : tensor<?x?xi32> {\n  ^bb0(" + args + "):\n";
  std::string acc = "%a0";
  for (int k = 1; k < kTerms; ++k) {
    std::string next = "%t" + std::to_string(k);
    g += "    " + next + " = add " + acc + ", %a" + std::to_string(k) + " : i32\n";
    acc = next;
  }
  g += "    yield " + acc + "\n  }\n  return %r\n}\n";
  return g;
}

TEST(OutputScopes, ManyViewsVectorize) {
  const std::string graph = manyViews();
  unsigned checked = 0;
  for (const TargetInfo *t : allTargets())
    for (const FeatureLevel &level : t->levels) {
      if (level.vectorBits < 128)
        continue;
      SCOPED_TRACE(std::string(t->name) + " " + level.name);
      ++checked;
      unsigned vectorLoads = 0, scopedLoads = 0, scopedStores = 0;
      visitOptimizedDispatch(*t, level, graph.c_str(), "many", [&](llvm::Instruction &i) {
        if (auto *load = llvm::dyn_cast<llvm::LoadInst>(&i)) {
          vectorLoads += load->getType()->isVectorTy();
          scopedLoads += load->getMetadata(llvm::LLVMContext::MD_noalias) != nullptr;
        }
        if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&i))
          scopedStores += store->getMetadata(llvm::LLVMContext::MD_alias_scope) != nullptr;
      });
      EXPECT_GE(vectorLoads, unsigned(kTerms));
      EXPECT_GE(scopedLoads, unsigned(kTerms));
      EXPECT_GE(scopedStores, 1u);
    }
  EXPECT_GE(checked, 4u);
}

} // namespace
} // namespace graft
