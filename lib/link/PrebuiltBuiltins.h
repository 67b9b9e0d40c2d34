// The builtins objects (Builtins.h) compiled when graft itself was built.
//
// They depend on the target only, never on the graph, so `graft build`
// writes the prebuilt bytes instead of running LLVM's backend on them at
// every build. The bytes are those emitBuiltinsObject writes (the table is
// made by calling it: lib/link/tools/BuiltinsGen.cpp), so bundles are the
// same either way.
#pragma once

#include <cstddef>
#include <string>

#include "support/Diagnostics.h"
#include "targets/Target.h"

namespace graft {

// The prebuilt object of |target|: its bytes and size, or nullptr when graft
// was built without it (an LLVM without the target's backend).
const unsigned char *prebuiltBuiltinsObject(const TargetInfo &target, size_t &size);

// Writes the builtins object for |target| to |path|: the prebuilt one, or
// else one emitted now (which reports what is missing). With
// |ubsanRuntime| (graft build --sanitize=undefined) it is always emitted
// now, with UBSan's handlers (Builtins.h). On failure reports
// "<path>: error: ..." through |diag| and returns false.
bool writeBuiltinsObject(const TargetInfo &target, const std::string &path, DiagEngine &diag,
                         bool ubsanRuntime = false);

} // namespace graft
