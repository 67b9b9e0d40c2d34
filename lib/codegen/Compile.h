// From dispatches to an object file for one target: emit the slice module,
// link user kernel bitcode into it (so small kernels inline across the call),
// internalize everything but the query symbol, optimize at O3 for the
// target's baseline CPU and emit an object.
#pragma once

#include "dispatch/Dispatch.h"
#include "targets/Target.h"

#include <string>
#include <vector>

namespace graft {

struct CompileOptions {
  std::string moduleName;               // library name
  std::vector<std::string> bitcode;     // user kernels as LLVM bitcode files
  std::string objectPath;               // where to write the object
  std::string llvmIRPath, asmPath;      // --emit dumps; empty = skip
};

bool compileSliceObject(const ProgramSet &programs, const TargetInfo &target,
                        const CompileOptions &opts, DiagEngine &diag);

} // namespace graft
