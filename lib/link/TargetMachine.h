// Creating an llvm::TargetMachine for a graft target.
//
// Shared by everything that emits machine code in-process (codegen of
// dispatches, the builtins object): one place knows how a TargetInfo maps to
// LLVM's triple/cpu/features and which options every slice needs (PIC, small
// code model, no frame-pointer games).
#pragma once

#include <memory>
#include <string>

#include "targets/Target.h"
#include "llvm/Target/TargetMachine.h"

namespace graft {

// Initializes the LLVM backends graft supports (x86, AArch64, RISC-V) once
// per process. Safe to call from several places; createTargetMachine calls it.
void initializeLLVMTargets();

// A TargetMachine for |target|: target.triple/cpu/features, position
// independent (RelocModel::PIC_), small code model, -O2 codegen. On failure
// returns null and sets |error| ("no LLVM target for triple '...': ...").
std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const TargetInfo &target, std::string &error);

} // namespace graft
