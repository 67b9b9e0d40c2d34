// From dispatches to an object file for one target. Each ISA variant (the
// dispatches lowered for one feature level) is emitted into a module of its
// own, compiled for its level (per-function target-cpu/target-features),
// with the user kernel bitcode compiled for that level linked in and
// internalized there (so small kernels inline across the call and the same
// kernel symbol at two levels does not clash). The variants are then linked
// into one slice module with the library header, everything but the query
// symbol is internal, and the module is optimized (OptPipeline.h: O3 less
// passes that find nothing in graft's code) and emitted as one
// object: LLVM picks instructions per function from its attributes. A
// variant whose level changes nothing in its IR shares the functions of an
// implied level's identical variant (VariantSharing.h).
#pragma once

#include "dispatch/Dispatch.h"
#include "support/PassTimes.h"
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
  std::string objectPath;               // where to write the object
  std::string llvmIRPath, asmPath;      // --emit dumps; empty = skip
  // --time-passes: "<target>: codegen", "LLVM opt" and "object emission"
  // (of the calling thread); null = not timed.
  PassTimes *times = nullptr;
};

// One ISA variant of a slice (graft_variant_v1_t): the dispatches and host
// programs lowered for |level|, and the user kernels compiled for it.
struct SliceVariant {
  const FeatureLevel *level = nullptr;
  const ProgramSet *programs = nullptr;
  std::vector<KernelBitcode> bitcode; // user kernels for |level|, each linked in once
};

// |variants| go from the lowest level to the highest; variants[0]'s tables
// are also the library header's own.
bool compileSliceObject(const std::vector<SliceVariant> &variants, const TargetInfo &target,
                        const CompileOptions &opts, DiagEngine &diag);

} // namespace graft
