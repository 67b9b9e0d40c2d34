// Printing the target registry: for people (`graft targets`), for the test
// scripts (`graft targets --format=tsv`) and for cmake at configure time
// (TargetsTool.cpp, `--format=cmake`). One place decides what each consumer
// sees, so the scripts and the build never list architectures themselves.
#pragma once

#include <cstdio>
#include <string>

namespace graft {

enum class TargetFormat { Human, Tsv, CMake };

// Parses "human", "tsv" or "cmake"; false for anything else.
bool parseTargetFormat(const std::string &text, TargetFormat &out);

// Writes every registered target to |out| in |format|.
//  - Human: one line per target (triple, ELF class, how it runs here) and one
//    per feature level.
//  - Tsv: tab-separated records, the first field naming the kind; '#'
//    lines name the columns of each kind:
//      target  name, host (1 or 0), qemu, sysroot, clang triple, the
//              baseline's kernel clang flags (space-separated), ELF class
//              bits, e_machine, baseline level
//      level   target, level, vector bits, vector registers, the CPU
//              features it requires (its own and implied, space-separated)
//      qemu-cpu  target, qemu -cpu model, the best level it runs
//  - CMake: set() commands: GRAFT_TARGETS (the list), GRAFT_HOST_TARGET and,
//    per target T, GRAFT_TARGET_<T>_{QEMU,SYSROOT,CROSS_CC,PROCESSOR,
//    CLANG_TRIPLE}.
void printTargets(std::FILE *out, TargetFormat format);

} // namespace graft
