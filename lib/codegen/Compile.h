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

// A user kernel compiled (or given) as LLVM bitcode.
struct KernelBitcode {
  std::string path; // the file on disk
  std::string name; // for messages: "k.c (rules 'a', 'b')"
};

struct CompileOptions {
  std::string moduleName;               // library name
  std::vector<KernelBitcode> bitcode;   // user kernels, each linked in once
  std::string objectPath;               // where to write the object
  std::string llvmIRPath, asmPath;      // --emit dumps; empty = skip
};

bool compileSliceObject(const ProgramSet &programs, const TargetInfo &target,
                        const CompileOptions &opts, DiagEngine &diag);

} // namespace graft
