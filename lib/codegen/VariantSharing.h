// ISA variants of one slice that share code. A feature level may say where
// its code can differ from that of the levels it implies
// (FeatureLevel::changesOnly, as kinds of IR); a variant whose IR has none
// of those kinds and is otherwise the same as an implied level's variant
// compiles to the same code, so Compile.cpp lists that level's functions
// for it instead of compiling a copy. (aarch64's armv8.2-a+dotprod adds
// atomics, narrow-integer and CRC instructions: float code is armv8-a's.)
#pragma once

#include "targets/Target.h"

#include <llvm/IR/Module.h>

#include <string>

namespace graft::codegen {

// Whether |kind| is a kind of IR levelMayChangeCode knows.
bool knownIRKind(const std::string &kind);

// Whether |level|'s features may change the code of |m| (a variant's module
// before optimisation) from that of the levels it implies: its changesOnly
// is empty, or |m| has IR of one of those kinds.
bool levelMayChangeCode(const FeatureLevel &level, const llvm::Module &m);

// Whether |level| implies |lower| (of the same target), directly or
// through other levels.
bool levelImplies(const TargetInfo &target, const FeatureLevel &level, const FeatureLevel &lower);

// The key that says whether two variant modules are the same: |m| as
// bitcode (its globals and functions with their attributes, and its
// source file name, which emitVariantFunctions sets to the same name for
// every level so that it does not tell levels apart).
std::string variantKey(const llvm::Module &m);

} // namespace graft::codegen
