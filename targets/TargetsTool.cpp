// graft-targets-info: the target registry as cmake set() commands. cmake
// compiles this with targets/*.cpp (no LLVM) and runs it at configure time
// (cmake/GraftTargets.cmake) to learn which runtimes to cross-build, with
// which compiler, and how tests run each target.
#include <cstdio>

#include "Describe.h"

int main() {
  graft::printTargets(stdout, graft::TargetFormat::CMake);
  return std::ferror(stdout) ? 1 : 0;
}
