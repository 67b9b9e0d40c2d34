// LLVM code generation for one target: dispatch functions, the library
// metadata (abi.h structs) and the query function, in one llvm::Module.
#pragma once

#include "dispatch/Dispatch.h"

#include <memory>
#include <string>

namespace llvm {
class Function;
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace graft {

struct TargetInfo;

// Emits the whole slice module. Kernel-call dispatches declare the user's
// symbols; they are resolved by linking bitcode into the module (see
// Compile.h) or object files at link time.
std::unique_ptr<llvm::Module> emitSliceModule(llvm::LLVMContext &ctx,
                                              const ProgramSet &programs,
                                              const TargetInfo &target,
                                              llvm::TargetMachine &tm,
                                              const std::string &moduleName);

namespace codegen {
// Internal entry points (one file each).
void emitLoopDispatch(llvm::Module &m, const Dispatch &d, const TargetInfo &t);
void emitCallDispatch(llvm::Module &m, const Dispatch &d, const TargetInfo &t);
// The leaf routines of a packed matmul (PackedMatmul.cpp), one per tile
// shape and module.
llvm::Function *packedMatmulPackRhs(llvm::Module &m, const PackedMatmul &p);
llvm::Function *packedMatmulTile(llvm::Module &m, const PackedMatmul &p);
void emitLibrary(llvm::Module &m, const ProgramSet &programs,
                 const std::string &moduleName);
} // namespace codegen

} // namespace graft
