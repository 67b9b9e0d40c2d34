// The slice pipeline really skips the passes it lists (an LLVM that renamed
// one would silently run it again): a loop whose store feeds the next
// iteration's load is rewritten by LoopLoadElimination under plain O3 and
// left alone by graft's pipeline; and the pipeline still vectorises loops
// as O3 does. The passes idle on graft's code are idle: the IR graft emits
// for a packed matmul and a softmax, on every level of every target,
// optimises to the same code without them; so do its hand-vectorized
// routines with every pass run on them.
#include "codegen/OptPipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "codegen/Codegen.h"
#include "dispatch/FormForTest.h"

#include "link/TargetMachine.h"
#include "targets/Target.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LegacyPassManager.h"
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

// A matmul (packed on the levels that pack), one with a transposed rhs
// (packed by rows), one with the MLP's -relu epilogue (on x86-64-v3 and
// v4 its own microkernels, TileEpilogue.h, of the same kinds), a softmax
// (reductions, broadcasts, exp) and a 1D elementwise chain: the loops
// graft emits.
const std::string kGraftGraph = std::string(kFilledMatmulGraph) + R"(
func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %n = dim %x {axis = 1} : index
  %mx = reduce %x {dims = [1], kind = max} : tensor<?xf32>
  %mxb = broadcast %mx, %n {dims = [0]} : tensor<?x?xf32>
  %e = map %x, %mxb : tensor<?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %0 = sub %a, %b : f32
    %1 = exp %0 : f32
    yield %1
  }
  %s = reduce %e {dims = [1], kind = sum} : tensor<?xf32>
  %sb = broadcast %s, %n {dims = [0]} : tensor<?x?xf32>
  %r = map %e, %sb : tensor<?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %0 = div %a, %b : f32
    yield %0
  }
  return %r
}
func @mmt(%a: tensor<?x?xf32>, %bt: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %bt {axis = 0} : index
  %b = transpose %bt {perm = [1, 0]} : tensor<?x?xf32>
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  return %r
}
func @mmr(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  %y = map %r : tensor<?x?xf32> {
  ^bb0(%v: f32):
    %0 = max %v, %z : f32
    yield %0
  }
  %ny = map %y : tensor<?x?xf32> {
  ^bb0(%v: f32):
    %0 = neg %v : f32
    yield %0
  }
  return %ny
}
func @chain(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %zero = constant 0.0 : f32
  %p = map %x, %y : tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %0 = mul %a, %b : f32
    %1 = add %0, %a : f32
    %2 = max %1, %zero : f32
    yield %2
  }
  return %p
}
)";

// The assembly of kGraftGraph's dispatches at |level|, optimised with
// |skipped|. (Their IR may differ in the attributes the function-attribute
// passes infer: the code is what must not.)
// Without |handVectorizedMark|, kHandVectorizedAttr is taken off first
// (the routines then run every pass); |marked| counts the routines that
// had it, by kind, and |epilogues| those of them made for an epilogue.
std::string optimizedDispatches(const TargetInfo &target, const FeatureLevel &level,
                                const std::vector<std::string> &skipped,
                                bool handVectorizedMark = true,
                                std::map<std::string, unsigned> *marked = nullptr,
                                std::map<std::string, unsigned> *epilogues = nullptr) {
  std::string error;
  std::unique_ptr<llvm::TargetMachine> tm = createTargetMachine(target, error, &level);
  EXPECT_TRUE(tm) << error;
  if (!tm)
    return "";
  ProgramSet programs = formForTest(level, kGraftGraph.c_str());
  EXPECT_FALSE(programs.dispatches.empty());
  llvm::LLVMContext context;
  llvm::Module m("graft", context);
  m.setTargetTriple(target.triple);
  m.setDataLayout(tm->createDataLayout());
  for (const Dispatch &d : programs.dispatches)
    codegen::emitLoopDispatch(m, d);
  // Kept: nothing in the module calls the dispatches. What they call stays
  // internal, as in a slice module: there DeadArgElim replaces a routine
  // whose argument is dead at every call, and its pass runs count from 0
  // again (x86-64-v4's epilogue tilepack; external, it kept its runs and
  // this test missed a listed run that was not idle on it).
  for (llvm::Function &f : m) {
    if (!f.isDeclaration() && f.hasLocalLinkage() && f.use_empty())
      f.setLinkage(llvm::GlobalValue::ExternalLinkage);
    if (marked && f.hasFnAttribute(kHandVectorizedAttr)) {
      std::string kind = f.getFnAttribute(kHandVectorizedAttr).getValueAsString().str();
      ++(*marked)[kind];
      // graft_matmul_<kind>[width]_<rows>x..., or with an epilogue
      // graft_matmul_<kind>_<epilogue key>_<rows>x...
      llvm::StringRef rest = f.getName().drop_front(std::strlen("graft_matmul_") + kind.size());
      if (epilogues && rest.size() > 1 && rest[0] == '_' && !llvm::isDigit(rest[1]))
        ++(*epilogues)[kind];
    }
    if (!handVectorizedMark)
      f.removeFnAttr(kHandVectorizedAttr);
  }
  optimizeSliceModule(m, *tm, skipped);
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager pm;
  EXPECT_FALSE(tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile));
  pm.run(m);
  return std::string(text.str());
}

// Nothing, where the assembly |a| and |b| are the same, else their first
// differing line and the function it is in (the whole text is too long for
// a failure message).
std::string firstDifference(const std::string &a, const std::string &b) {
  if (a == b)
    return "";
  size_t at = 0;
  while (at < a.size() && at < b.size() && a[at] == b[at])
    ++at;
  size_t begin = a.rfind('\n', at == 0 ? 0 : at - 1);
  begin = begin == std::string::npos ? 0 : begin + 1;
  auto line = [](const std::string &s, size_t from) {
    return s.substr(from, s.find('\n', from) - from);
  };
  // A function's label starts its line (local labels start with '.').
  std::string function = "?";
  for (size_t l = begin; l > 0;) {
    const size_t newline = l >= 2 ? a.rfind('\n', l - 2) : std::string::npos;
    l = newline == std::string::npos ? 0 : newline + 1;
    std::string text = line(a, l);
    if (!text.empty() && text[0] != '.' && text[0] != '\t' && text.back() == ':') {
      function = text;
      break;
    }
  }
  return "in " + function + " line " +
         std::to_string(std::count(a.begin(), a.begin() + begin, '\n') + 1) + ": \"" +
         line(a, begin) + "\" vs \"" + line(b, begin) + "\"";
}

TEST(OptPipeline, IdlePassesChangeNothingInGraftCode) {
  std::vector<std::string> withIdle = skippedOptPasses(/*linksKernelBitcode=*/true);
  std::vector<std::string> withoutIdle = skippedOptPasses(/*linksKernelBitcode=*/false);
  ASSERT_EQ(withIdle, skippedOptPasses());
  ASSERT_EQ(withoutIdle.size(), withIdle.size() + idleOnGraftCodePasses().size());
  unsigned levels = 0;
  for (const TargetInfo *t : allTargets())
    for (const FeatureLevel &level : t->levels) {
      SCOPED_TRACE(std::string(t->name) + " " + level.name);
      std::string o3 = optimizedDispatches(*t, level, withIdle);
      EXPECT_NE(o3.find("mm_dispatch_0"), std::string::npos);
      EXPECT_EQ(firstDifference(o3, optimizedDispatches(*t, level, withoutIdle)), "");
      ++levels;
    }
  EXPECT_GE(levels, 5u);
}

// Also the runs of handVectorizedIdleRuns(): every kind of routine is
// there (the rhs packed by rows too), each one whose runs are listed, and
// on x86-64-v3 and v4 the microkernels of an epilogue. A change to a routine's IR
// that makes a listed run do something fails here: take that run off its
// kind's list.
TEST(OptPipeline, HandVectorizedSkipsChangeNothing) {
  unsigned levels = 0, epilogueLevels = 0;
  for (const TargetInfo *t : allTargets())
    for (const FeatureLevel &level : t->levels) {
      SCOPED_TRACE(std::string(t->name) + " " + level.name);
      std::map<std::string, unsigned> marked, epilogues;
      std::string skipping =
          optimizedDispatches(*t, level, skippedOptPasses(false), true, &marked, &epilogues);
      if (marked.empty())
        continue; // the level does not pack its matmul
      ++levels;
      for (const char *kind : {"pack", "packrows", "tile", "tilepack", "tail"}) {
        EXPECT_GE(marked[kind], 1u) << kind;
        EXPECT_FALSE(handVectorizedIdleRuns(kind).empty()) << kind;
      }
      // The transposed rhs's panels: packrows up to 12 rows, packwide
      // (no idle runs: every pass runs on it) above; and on the levels that
      // transpose it in lanes, the tails that read it in place (tailt, no
      // idle runs either).
      EXPECT_GE(marked["packrows"] + marked["packwide"], 2u) << "the lhs and the transposed rhs";
      EXPECT_TRUE(handVectorizedIdleRuns("packwide").empty());
      EXPECT_TRUE(handVectorizedIdleRuns("tailt").empty());
      // The one-row sweep over a plain rhs read in place (no idle runs).
      EXPECT_GE(marked["sweep"], 1u);
      EXPECT_TRUE(handVectorizedIdleRuns("sweep").empty());
      EXPECT_EQ(marked.size(), 6u + marked.count("packwide") + marked.count("tailt"));
      if (!epilogues.empty()) {
        ++epilogueLevels;
        EXPECT_EQ(epilogues["tile"], 1u) << "the -relu matmul's mr-row tile";
        EXPECT_EQ(epilogues["tilepack"], 1u) << "the -relu matmul's packing tile";
        EXPECT_EQ(epilogues.size(), 2u);
      }
      EXPECT_EQ(firstDifference(skipping, optimizedDispatches(*t, level, skippedOptPasses(false),
                                                              false)),
                "");
    }
  EXPECT_GE(levels, 5u) << "x86_64 and aarch64 levels pack their matmuls";
  EXPECT_GE(epilogueLevels, 2u) << "x86-64-v3's and v4's tiles apply the -relu in place";
}

} // namespace
} // namespace graft
