// The slice pipeline really skips the passes it lists (an LLVM that renamed
// one would silently run it again): a loop whose store feeds the next
// iteration's load is rewritten by LoopLoadElimination under plain O3 and
// left alone by graft's pipeline; and the pipeline still vectorises loops
// as O3 does.
#include "codegen/OptPipeline.h"

#include <gtest/gtest.h>

#include "link/TargetMachine.h"
#include "targets/Target.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace graft {
namespace {

// a[i + 1] = b[i] + 2; c[i] = a[i] * 2 (c may alias a): LoopLoadElimination
// versions the loop and forwards the stored value to the next iteration
// instead of loading a[i] again ("store_forwarded"); nothing else in O3 does.
const char kRecurrence[] = R"IR(
define void @recurrence(ptr %a, ptr %b, ptr %c, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %i.next = add nuw nsw i64 %i, 1
  %pb = getelementptr inbounds float, ptr %b, i64 %i
  %vb = load float, ptr %pb, align 4
  %v = fadd float %vb, 2.0
  %pn = getelementptr inbounds float, ptr %a, i64 %i.next
  store float %v, ptr %pn, align 4
  %pa = getelementptr inbounds float, ptr %a, i64 %i
  %va = load float, ptr %pa, align 4
  %m = fmul float %va, 2.0
  %pc = getelementptr inbounds float, ptr %c, i64 %i
  store float %m, ptr %pc, align 4
  %more = icmp ult i64 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

define void @scale(ptr noalias %a, ptr noalias %b, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %pb = getelementptr inbounds float, ptr %b, i64 %i
  %y = load float, ptr %pb, align 4
  %s = fmul float %y, 3.0
  %pa = getelementptr inbounds float, ptr %a, i64 %i
  store float %s, ptr %pa, align 4
  %i.next = add nuw nsw i64 %i, 1
  %more = icmp ult i64 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}
)IR";

// The optimised text of the function |name| after |skipped| is applied.
std::string optimized(const std::vector<std::string> &skipped, const std::string &name) {
  const TargetInfo &target = *lookupTarget("x86_64");
  std::string error;
  std::unique_ptr<llvm::TargetMachine> tm = createTargetMachine(target, error);
  EXPECT_TRUE(tm) << error;
  if (!tm)
    return "";
  llvm::LLVMContext context;
  llvm::SMDiagnostic parseError;
  std::unique_ptr<llvm::Module> m = llvm::parseAssemblyString(kRecurrence, parseError, context);
  EXPECT_TRUE(m) << parseError.getMessage().str();
  if (!m)
    return "";
  m->setTargetTriple(target.triple);
  m->setDataLayout(tm->createDataLayout());
  optimizeSliceModule(*m, *tm, skipped);
  std::string text;
  llvm::raw_string_ostream os(text);
  m->getFunction(name)->print(os);
  return os.str();
}

TEST(OptPipeline, SkipsLoopLoadElimination) {
  ASSERT_EQ(skippedOptPasses(), std::vector<std::string>{"LoopLoadEliminationPass"});
  std::string o3 = optimized({}, "recurrence");
  std::string graft = optimized(skippedOptPasses(), "recurrence");
  EXPECT_NE(o3.find("store_forwarded"), std::string::npos) << o3;
  EXPECT_EQ(graft.find("store_forwarded"), std::string::npos) << graft;
}

TEST(OptPipeline, StillVectorises) {
  std::string graft = optimized(skippedOptPasses(), "scale");
  EXPECT_NE(graft.find("<4 x float>"), std::string::npos) << graft;
  EXPECT_EQ(graft, optimized({}, "scale"));
}

} // namespace
} // namespace graft
