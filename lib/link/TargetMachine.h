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

// Initializes the LLVM backend |target| names (TargetInfo::llvmBackend),
// once per process; safe to call from several threads. Returns false and
// sets |error| when this LLVM was built without that backend.
bool initializeLLVMBackend(const TargetInfo &target, std::string &error);

// A TargetMachine for |target| at |level| (default: its baseline):
// target.triple, the level's cpu and features, position independent
// (RelocModel::PIC_), small code model, -O2 codegen. On failure returns null
// and sets |error| ("no LLVM backend for target ...").
std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const TargetInfo &target, std::string &error,
                    const FeatureLevel *level = nullptr);

} // namespace graft
