// For codegen unit tests: the LLVM IR of one loop dispatch of a graph's
// text at one feature level of a target (FormForTest.h forms it), in a
// module of its own with the target's layout, kept by the optimizer
// (nothing in the module calls it). A dispatch that is not there, or a
// target machine that cannot be made, is reported as a test failure and
// leaves |fn| null.
#ifndef GRAFT_CODEGEN_EMITFORTEST_H_
#define GRAFT_CODEGEN_EMITFORTEST_H_

#include "codegen/Codegen.h"
#include "codegen/OptPipeline.h"
#include "dispatch/FormForTest.h"
#include "link/TargetMachine.h"
#include "targets/Target.h"

#include <gtest/gtest.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <string>

namespace graft {

struct EmittedDispatch {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module;
  std::unique_ptr<llvm::TargetMachine> tm;
  llvm::Function *fn = nullptr;
};

// The loop dispatch of function |fn| of |graph| (the first whose name
// starts with "fn_").
inline void emitDispatchForTest(const TargetInfo &t, const FeatureLevel &level,
                                const char *graph, const std::string &fn,
                                EmittedDispatch &e) {
  ProgramSet set = formForTest(level, graph);
  const Dispatch *d = nullptr;
  for (const Dispatch &x : set.dispatches)
    if (!x.isCall && x.name.rfind(fn + "_", 0) == 0) {
      d = &x;
      break;
    }
  ASSERT_TRUE(d) << "no loop dispatch of " << fn;
  std::string error;
  e.tm = createTargetMachine(t, error, &level);
  ASSERT_TRUE(e.tm) << error;
  e.module = std::make_unique<llvm::Module>(fn, e.context);
  e.module->setTargetTriple(t.triple);
  e.module->setDataLayout(e.tm->createDataLayout());
  codegen::emitLoopDispatch(*e.module, *d);
  e.fn = e.module->getFunction(d->name);
  ASSERT_TRUE(e.fn);
  e.fn->setLinkage(llvm::GlobalValue::ExternalLinkage);
}

// Each instruction of that dispatch after the slice pipeline
// (optimizeSliceModule), passed to |visit|; none where it could not be
// emitted (already a test failure).
template <class Visit>
void visitOptimizedDispatch(const TargetInfo &t, const FeatureLevel &level, const char *graph,
                            const std::string &fn, Visit visit) {
  EmittedDispatch e;
  emitDispatchForTest(t, level, graph, fn, e);
  if (!e.fn)
    return;
  optimizeSliceModule(*e.module, *e.tm);
  for (llvm::BasicBlock &bb : *e.fn)
    for (llvm::Instruction &i : bb)
      visit(i);
}

} // namespace graft

#endif // GRAFT_CODEGEN_EMITFORTEST_H_
