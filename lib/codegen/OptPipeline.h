// The LLVM optimisation pipeline graft runs on a slice module: LLVM's O3
// with loop and SLP vectorisation, less the passes that cost build time and
// do nothing on the code graft generates (OptPipeline.cpp lists them, with
// the measurements that justify each).
#pragma once

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <string>
#include <vector>

namespace graft {

// The O3 passes the pipeline skips, by LLVM pass name.
const std::vector<std::string> &skippedOptPasses();

// The O3 passes that change nothing in the IR graft generates (but may in
// a C kernel inlined into it).
const std::vector<std::string> &idleOnGraftCodePasses();

// The function attribute that marks a routine graft vectorizes by hand
// (the packed matmul's packing routines and microkernels, PackedMatmul.cpp):
// the pipeline skips handVectorizedSkippedPasses() on it, and the runs of
// handVectorizedIdleRuns() of its value, the routine's kind ("pack",
// "packrows", "packwide", "tile", "tilepack", "tail"; f16/bf16 ones add
// their mark).
inline constexpr const char kHandVectorizedAttr[] = "graft-hand-vectorized";

// The O3 passes that change nothing in a hand-vectorized routine (but do
// elsewhere: LoopIdiomRecognize turns a fill into a memset).
const std::vector<std::string> &handVectorizedSkippedPasses();

// One run of an O3 pass on a routine: the |run|-th time (from 0) the
// pipeline comes to |pass| on it, or every time (kEveryRun). A loop pass
// comes once per loop of the routine, so its runs count loops too; and a
// routine that DeadArgElim replaces (one of its arguments is dead at every
// call) counts from 0 again. The numbers hold for the routines as emitted
// today, which OptPipelineTest's asm-identity check guards.
struct PassRun {
  const char *pass;
  int run;
};
inline constexpr int kEveryRun = -1;

// The runs of O3 passes that change nothing in a hand-vectorized routine
// of |kind| (a kHandVectorizedAttr value; none for an unknown kind): a
// pass that reshapes the routine early in the pipeline may find nothing
// left to do when O3 comes back to it.
const std::vector<PassRun> &handVectorizedIdleRuns(llvm::StringRef kind);

// What a slice module skips: skippedOptPasses(), and idleOnGraftCodePasses()
// unless the slice links a kernel as bitcode.
std::vector<std::string> skippedOptPasses(bool linksKernelBitcode);

// Optimizes |m| (whose data layout and triple are |tm|'s) in place with
// O3 less the passes named in |skipped|.
void optimizeSliceModule(llvm::Module &m, llvm::TargetMachine &tm,
                         const std::vector<std::string> &skipped = skippedOptPasses());

} // namespace graft
