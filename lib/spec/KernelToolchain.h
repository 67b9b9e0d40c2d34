// Where graft finds what C kernels are compiled with: clang 19 and graft's
// kernel headers (graft/kernel.h). Both are found from the running graft's
// own location, so an installed (or moved) prefix works, and never from the
// tree graft was built in:
//
//   clang     $GRAFT_CLANG; else clang-19 or clang next to the graft binary;
//             else clang-19 on PATH
//   headers   $GRAFT_INCLUDE_DIR; else <dir of the graft binary>/../include
//
// The build tree mirrors that layout (cmd/graft/CMakeLists.txt stages the
// headers in <build>/cmd/include).
#pragma once

#include <string>

namespace graft {

struct KernelToolchain {
  std::string clang;      // the clang executable
  std::string includeDir; // the directory holding graft/kernel.h
};

// Fills |out|, or fails with |error| saying what is missing, where graft
// looked and which environment variable sets it.
bool findKernelToolchain(KernelToolchain &out, std::string &error);

} // namespace graft
