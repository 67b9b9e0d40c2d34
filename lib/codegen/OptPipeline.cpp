#include "codegen/OptPipeline.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/Passes/PassBuilder.h>

#include <algorithm>
#include <map>
#include <utility>

namespace graft {

// Each entry was measured on the MLP bundle (x86_64 + aarch64, every
// feature level; issue 8's build-time bar) and checked to leave every
// bundle of tests/e2e/inputs and tests/bench/graphs byte-identical:
//
// LoopLoadEliminationPass forwards a store of one loop iteration to a load
//   of a later one. graft's loops carry values in registers (reductions,
//   packed-matmul accumulators), never through memory, so it finds nothing,
//   yet its loop-access analysis of the packing loops' unrolled tails cost
//   a quarter of O3 on x86_64 (0.044 of 0.187 s CPU).
const std::vector<std::string> &skippedOptPasses() {
  static const std::vector<std::string> passes = {"LoopLoadEliminationPass"};
  return passes;
}

// These change nothing in the IR graft generates: it stores each value once
// (no dead stores, no memcpy, no redundant conditions, no tail calls, no
// function pointers), and its functions' attributes are written by the
// emitters. Checked per pass (the IR's structural hash before and after
// every run) over tests/e2e/inputs and tests/bench/graphs for x86_64,
// aarch64, riscv64 and arm, and by building every bundle of those (and of
// the specs/ and tests/e2e kernels) with and without them: byte-identical.
// Together about 9% of the MLP bundle's O3 CPU time, DSE the largest part
// (a memory-SSA walk over every store of the packing routines). InferAlignment
// is not one of them: it raises the alignment of the packed panels' accesses.
// A C kernel linked as bitcode may well have dead stores or memcpys once
// inlined, so slices that link one keep them.
const std::vector<std::string> &idleOnGraftCodePasses() {
  static const std::vector<std::string> passes = {
      "DSEPass",
      "MemCpyOptPass",
      "ConstraintEliminationPass",
      "BDCEPass",
      "TailCallElimPass",
      "CalledValuePropagationPass",
      "PostOrderFunctionAttrsPass",
      "ReversePostOrderFunctionAttrsPass",
  };
  return passes;
}

// Measured and checked as idleOnGraftCodePasses(), on the functions marked
// kHandVectorizedAttr alone: their loops are written vectorized, with no
// fill or copy for LoopIdiomRecognize to turn into a call, no aggregate for
// SROA and nothing left for the vectorizers (the loop vectorizer only reads
// their loops' "leave as written" metadata). LoopIdiomRecognize on them was
// 1% of the MLP bundle's build instructions.
const std::vector<std::string> &handVectorizedSkippedPasses() {
  static const std::vector<std::string> passes = {
      "LoopIdiomRecognizePass",
      "VectorCombinePass",
      "SROAPass",
      "LoopVectorizePass",
  };
  return passes;
}

// Measured per run (the IR's structural hash before and after every run
// of every pass on every routine of the packed matmuls that the graphs of
// tests/e2e/inputs and tests/bench/graphs build for x86_64, aarch64,
// riscv64 and arm): these runs never changed a routine of their kind. The
// list keeps the runs that cost 2% or more of a kind's idle time (about
// 4% of the MLP bundle's build instructions together), less
// InferAlignment, whose changes the hash does not see, and
// SimpleLoopUnswitch, whose unswitched loops it did not. Checked as
// handVectorizedSkippedPasses(): the assembly of every level's routines is
// the same with and without them (OptPipelineTest), and so is every
// bundle of those graphs. A pass that finds nothing to do on a routine
// after the first simplification (InstCombine's later runs, LoopDeletion,
// SCCP) or on code vectorized by hand (SLP on the microkernels). The
// microkernels with a fused epilogue (TileEpilogue.h, x86-64-v4) are of
// the same kinds and are checked as the others. LoopSimplify's first run
// is not idle on the epilogue tilepack (DeadArgElim replaces it, its runs
// count from 0 again, and that "first" run gives its rotated k loop a
// dedicated exit), so it is off the tilepack list (it cost 0.05% of the
// MLP bundle's build instructions). The shorter microkernels ("tail"),
// which read their rhs at a row stride as tilepack does, run on its list:
// "tile"'s changed their registers on arm.
const std::vector<PassRun> &handVectorizedIdleRuns(llvm::StringRef kind) {
  static const std::vector<PassRun> pack = {
      {"InstCombinePass", 1}, {"InstCombinePass", 4}, {"InstCombinePass", 5},
      {"InstCombinePass", 7}, {"LoopDeletionPass", kEveryRun}, {"ADCEPass", 0},
      {"EarlyCSEPass", 1},    {"WarnMissedTransformationsPass", 0}, {"SimplifyCFGPass", 0},
  };
  static const std::vector<PassRun> packrows = {
      {"InstCombinePass", 5},  {"InstCombinePass", 7},
      {"LoopDeletionPass", kEveryRun}, {"CorrelatedValuePropagationPass", 0},
      {"SimplifyCFGPass", 3},  {"InstSimplifyPass", 0}, {"Float2IntPass", 0},
      {"IndVarSimplifyPass", 0}, {"IndVarSimplifyPass", 1}, {"IndVarSimplifyPass", 3},
  };
  static const std::vector<PassRun> tile = {
      {"SLPVectorizerPass", kEveryRun},    {"InstCombinePass", 4},
      {"InstCombinePass", 6},              {"SCCPPass", 0},
      {"LICMPass", kEveryRun},             {"MoveAutoInitPass", 0},
      {"LoopInstSimplifyPass", kEveryRun}, {"CorrelatedValuePropagationPass", 1},
      {"LoopDeletionPass", kEveryRun},     {"SimplifyCFGPass", 2},
  };
  static const std::vector<PassRun> tilepack = {
      {"SLPVectorizerPass", kEveryRun},    {"SCCPPass", 0},
      {"ADCEPass", 0},                     {"InstCombinePass", 4},
      {"InstCombinePass", 6},              {"LoopDeletionPass", kEveryRun},
      {"ReassociatePass", 0},              {"CallSiteSplittingPass", 0},
      {"CorrelatedValuePropagationPass", 1}, {"MoveAutoInitPass", 0},
      {"LoopInstSimplifyPass", kEveryRun}, {"LoopSimplifyCFGPass", kEveryRun},
  };
  static const std::vector<PassRun> none;
  if (kind == "pack")
    return pack;
  if (kind == "packrows")
    return packrows;
  if (kind == "tile")
    return tile;
  if (kind == "tilepack" || kind == "tail")
    return tilepack;
  return none;
}

namespace {

bool listed(const std::vector<std::string> &passes, llvm::StringRef pass) {
  return std::find(passes.begin(), passes.end(), pass) != passes.end();
}

// The function a function or loop pass is about to run on, or null.
const llvm::Function *functionOf(const llvm::Any &ir) {
  if (const auto *f = llvm::any_cast<const llvm::Function *>(&ir))
    return *f;
  if (const auto *l = llvm::any_cast<const llvm::Loop *>(&ir))
    return (*l)->getHeader()->getParent();
  return nullptr;
}

// Counts the runs of each pass on each hand-vectorized routine (every time
// the pipeline comes to an optional pass, skipped or not) and says which
// are in handVectorizedIdleRuns().
class HandVectorizedRuns {
public:
  bool idle(const llvm::Function &f, llvm::StringRef pass) {
    const int run = static_cast<int>(counts_[{&f, pass.str()}]++);
    llvm::StringRef kind = f.getFnAttribute(kHandVectorizedAttr).getValueAsString();
    for (const PassRun &r : handVectorizedIdleRuns(kind))
      if (pass == r.pass && (r.run == kEveryRun || r.run == run))
        return true;
    return false;
  }

private:
  std::map<std::pair<const llvm::Function *, std::string>, unsigned> counts_;
};

} // namespace

std::vector<std::string> skippedOptPasses(bool linksKernelBitcode) {
  std::vector<std::string> passes = skippedOptPasses();
  if (!linksKernelBitcode)
    passes.insert(passes.end(), idleOnGraftCodePasses().begin(), idleOnGraftCodePasses().end());
  return passes;
}

void optimizeSliceModule(llvm::Module &m, llvm::TargetMachine &tm,
                         const std::vector<std::string> &skipped) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // Skipping an optional pass is what LLVM does for optnone functions and
  // -opt-bisect-limit: the pipeline is O3's, less the listed passes.
  llvm::PassInstrumentationCallbacks callbacks;
  HandVectorizedRuns runs;
  callbacks.registerShouldRunOptionalPassCallback([&skipped, &runs](llvm::StringRef pass,
                                                                    llvm::Any ir) {
    if (listed(skipped, pass))
      return false;
    const llvm::Function *f = functionOf(ir);
    if (!f || !f->hasFnAttribute(kHandVectorizedAttr))
      return true;
    return !runs.idle(*f, pass) && !listed(handVectorizedSkippedPasses(), pass);
  });
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = true;
  pto.SLPVectorization = true;
  llvm::PassBuilder pb(&tm, pto, std::nullopt, &callbacks);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(m, mam);
}

} // namespace graft
