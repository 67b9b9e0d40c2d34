// What a slice's library header says (abi.h), read from the ELF file without
// loading or running it, for any architecture graft targets: used by
// `graft-fatelf info`.
#pragma once

#include "targets/Target.h"

#include <cstdint>
#include <string>
#include <vector>

namespace graft {

struct LibraryInfo {
  uint32_t abiVersion = 0;
  std::string name;     // module name
  std::string producer; // "graft 0.1.0"
  // One signature per function: "mlp(tensor<?x?xf32>, f32) -> tensor<?xf32>".
  std::vector<std::string> functions;
  // One line per ISA variant: "x86-64-v4: 1 dispatch, needs sse3 ... avx512vl".
  std::vector<std::string> variants;
  // Built with --sanitize=undefined: it exports GRAFT_UBSAN_INSTALL_SYMBOL.
  bool sanitizeUndefined = false;
};

// Reads the library header of |elf|, a slice for |target|. The header is
// found as the only place where the library magic is followed by two
// relocated pointers (name, producer); struct offsets come from the
// target's data layout applied to codegen's views of the abi.h structs, so
// nothing here restates abi.h. Fails with |error| on anything unexpected.
bool readLibraryInfo(const std::vector<uint8_t> &elf, const TargetInfo &target,
                     LibraryInfo &out, std::string &error);

} // namespace graft
