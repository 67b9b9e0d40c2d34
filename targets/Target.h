// A compilation target: everything the compiler needs to know about one
// architecture, in one place. Each architecture is one file in this folder
// that defines `const TargetInfo <name>Target`; adding an architecture means
// adding <name>.cpp and one line in Targets.def and CMakeLists.txt.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace graft {

struct TargetInfo {
  const char *name;        // "x86_64": what users write in --target
  const char *triple;      // LLVM triple for codegen of slices
  const char *cpu;         // baseline CPU every slice must run on
  const char *features;    // LLVM feature string on top of |cpu|
  unsigned vectorBits;     // native vector width used to size loops
  uint16_t elfMachine;     // e_machine (EM_X86_64, EM_AARCH64, EM_RISCV)
  uint8_t elfClass;        // ELFCLASS64
  uint8_t elfData;         // ELFDATA2LSB
  const char *lldEmulation;// -m for lld ("elf_x86_64")
  const char *clangTriple; // --target for compiling user C kernels
  std::vector<std::string> clangFlags; // freestanding flags for kernels
  const char *qemu;        // qemu-user binary to run it on another host, or ""
};

// All registered targets, in a stable order (x86_64, aarch64, riscv64).
const std::vector<const TargetInfo *> &allTargets();
// The target named |name|, or null.
const TargetInfo *lookupTarget(const std::string &name);
// The target of the machine the compiler runs on, or null.
const TargetInfo *hostTarget();
// "x86_64, aarch64, riscv64" for messages.
std::string targetNames();


} // namespace graft
