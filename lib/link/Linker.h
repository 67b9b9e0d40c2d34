// Linking one slice of a bundle with lld, in-process.
//
// A slice is a freestanding ET_DYN ELF: no interpreter, no DT_NEEDED, no
// undefined symbols, exactly one exported symbol (graft_library_query, see
// runtime/include/graft/abi.h), no TLS, W^X segments, a SysV hash table (what
// graft's own loader reads), and the same bytes for the same inputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/Diagnostics.h"
#include "targets/Target.h"

namespace graft {

struct LinkInput {
  std::string
      name; // for messages, e.g. "kernels.c" or "mlp (x86_64 dispatches)"
  std::string path; // object or archive file on disk
  // Holds code a user wrote (a kernel object, dispatches with kernel
  // bitcode inlined, a plugin's source): a slice that breaks the rules
  // below is then reported as the user's error, else as graft's bug.
  bool userCode = false;
};

// Links |inputs| into a freestanding ET_DYN slice for |target|, using
// |workDir| (which must exist) for the version script and the output file.
// On success fills |elf| with the bytes. On failure reports lld's errors (with
// input paths replaced by their names) or the broken slice invariant, naming
// the inputs with user code, through |diag| as "<target> slice: error: ..."
// and returns false (a broken invariant with no user code aborts: a bug).
// Thread safe: lld is not re-entrant, so calls are serialized.
// |exported| are the only symbols left visible, each a function:
// graft_library_query for a bundle's slice (with graft_ubsan_install when
// it is instrumented, see graft/abi.h), the plugin query function for a
// bare-metal plugin (`graft plugin`), which is linked the same way.
bool linkSlice(const TargetInfo &target, const std::vector<LinkInput> &inputs,
               const std::string &workDir, std::vector<uint8_t> &elf,
               DiagEngine &diag,
               const std::vector<std::string> &exported = {"graft_library_query"});

// Checks the invariants above on a linked slice; returns "" when they hold,
// else what is wrong ("exports 'foo' besides graft_library_query"). Used by
// linkSlice; exposed for its tests.
std::string verifySlice(const TargetInfo &target,
                        const std::vector<uint8_t> &elf,
                        const std::vector<std::string> &exported = {"graft_library_query"});

} // namespace graft
