// The freestanding C routines a slice may need at link time.
//
// LLVM lowers large copies and fills (and user kernels call) memcpy, memmove,
// memset, memcmp and bcmp. A slice links no libc, so graft supplies them: one
// object per target, built in-process from LLVM IR. They are weak (a user
// kernel's own definition wins) and hidden (never exported from the slice).
#pragma once

#include <string>

#include "support/Diagnostics.h"
#include "targets/Target.h"

namespace graft {

// Writes the builtins object for |target| to |path|; with |ubsanRuntime|
// it also holds UBSan's minimal handlers and graft_ubsan_install
// (slice_ubsan.c, for `graft build --sanitize=undefined`). On failure
// reports "<path>: error: ..." through |diag| and returns false.
bool emitBuiltinsObject(const TargetInfo &target, const std::string &path,
                        DiagEngine &diag, bool ubsanRuntime = false);

} // namespace graft
