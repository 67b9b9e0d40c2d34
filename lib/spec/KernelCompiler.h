// Turning a rule's kernel for one target into something the linker can use:
// C sources are compiled to LLVM bitcode with clang (freestanding flags, the
// target's triple and baseline), bitcode and object files are read as they
// are. Every result is checked: right architecture, defines the kernel
// symbol, no thread-local storage (slices have no TLS).
#pragma once

#include "spec/Spec.h"
#include "targets/Target.h"

#include <string>
#include <vector>

namespace graft {

struct CompiledKernel {
  enum Kind { Bitcode, Object } kind = Bitcode;
  std::string path;        // file on disk (the compiled bitcode in |workDir|,
                           // or the user's object/bitcode file)
  std::vector<char> bytes; // its contents
};

// The clang command line used for a C kernel (exposed for tests and
// --verbose): clang --target=... <target flags> <freestanding flags> -O2
// -emit-llvm -c -I<graft include dir> <user flags> src -o out.
std::vector<std::string> kernelCompileCommand(const KernelSource &src,
                                              const TargetInfo &target,
                                              const std::string &outPath);

// The directory holding graft/kernel.h: $GRAFT_INCLUDE_DIR, else
// <dir of the running binary>/../include when it has graft/kernel.h, else the
// source tree's runtime/include.
std::string graftIncludeDir();

// Produces the kernel of |rule| for |target| from |src|. C sources compile
// into |workDir| (created if missing). Errors name the kernel file, the rule
// and the target.
bool compileKernel(const Rule &rule, const KernelSource &src, const TargetInfo &target,
                   const std::string &workDir, DiagEngine &diag, CompiledKernel &out);

// Checks that |kernel| is for |target| (ELF e_machine or bitcode triple),
// defines |symbol| and has no thread-local variables. |display| names the
// file in messages.
bool checkKernel(const CompiledKernel &kernel, const std::string &symbol,
                 const TargetInfo &target, const std::string &display, DiagEngine &diag);

} // namespace graft
