// Turning a rule's kernel for one target into something the linker can use:
// C sources are compiled to LLVM bitcode with clang (freestanding flags, the
// target's triple and baseline), bitcode and object files are read as they
// are. Every result is checked: right architecture, defines the kernel
// symbol, no thread-local storage (slices have no TLS).
#pragma once

#include "spec/KernelToolchain.h"
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
  // Every file the kernel was made from: the source and each header clang
  // read (from its -MD output), or the object/bitcode file itself.
  std::vector<std::string> dependencies;
  // The clang command line of a C source (for --verbose), set even when
  // compilation fails.
  std::vector<std::string> command;
};

// The clang flags of `graft build --sanitize=undefined` for C kernels.
inline constexpr const char *kSanitizeUndefinedFlags[] = {"-fsanitize=undefined",
                                                          "-fsanitize-minimal-runtime"};

// What a whole build passes to every C kernel.
struct KernelBuildOptions {
  // Added after the spec's own flags (-I, -D from the command line or
  // graft_add_bundle), so the build can override a spec.
  std::vector<std::string> flags;
  bool color = false; // clang's coloured diagnostics
  // The feature level the kernel is compiled for (its clang flags); null =
  // the target's baseline.
  const FeatureLevel *level = nullptr;
  // `graft build --sanitize=undefined`: UBSan checks with the minimal
  // runtime's handlers, which the slice's builtins define (slice_ubsan.c).
  bool sanitizeUndefined = false;
};

// The clang command line for freestanding C on |target|, shared by kernels
// and bare-metal plugins: clang --target=... <target flags> <freestanding
// flags> -O2 [-emit-llvm] -c -I<graft include dir> <flags> <build flags>
// -MD -MF <out>.d source -o out.
std::vector<std::string> freestandingCompileCommand(const KernelToolchain &toolchain,
                                                    const TargetInfo &target,
                                                    const std::string &source,
                                                    const std::vector<std::string> &flags,
                                                    const KernelBuildOptions &options,
                                                    const std::string &outPath, bool bitcode);

// The command for a C kernel (exposed for tests and --verbose): freestanding,
// to bitcode, the spec's flags before the build's.
std::vector<std::string> kernelCompileCommand(const KernelToolchain &toolchain,
                                              const KernelSource &src,
                                              const TargetInfo &target,
                                              const KernelBuildOptions &options,
                                              const std::string &outPath);

// Runs a clang command line with stderr to |logPath|. On failure reports
// "<source>: error: clang failed to compile the <what> for target T (exit
// code N)" followed by clang's messages, and returns false.
bool runCompileCommand(const std::vector<std::string> &cmd, const std::string &source,
                       const std::string &what, const TargetInfo &target,
                       const std::string &logPath, DiagEngine &diag);

// Produces the kernel of a call plan for |target| from the plan's source and
// checks it against the plan (symbol, parameter count, return type). C
// sources compile into |workDir| (created if missing). Errors name the kernel
// file, the rule and the target.
bool compileKernel(const KernelCall &plan, const TargetInfo &target, const std::string &workDir,
                   DiagEngine &diag, CompiledKernel &out, const KernelBuildOptions &options = {});

// The checks of compileKernel for a kernel already compiled for another
// call plan with the same file: architecture, |plan|'s symbol, its
// parameters and return type.
bool checkKernelForPlan(const CompiledKernel &kernel, const KernelCall &plan,
                        const TargetInfo &target, DiagEngine &diag);

// Checks that the object file |obj| is for |target| and has no thread-local
// symbols and no section both writable and executable, and sets |defines|
// when it defines |symbol|. For inputs where the
// symbol may be in any one of several files (bare-metal plugins).
bool checkObjectFor(const CompiledKernel &obj, const TargetInfo &target,
                    const std::string &display, const std::string &symbol,
                    bool &defines, DiagEngine &diag);

// Checks that |kernel| is for |target| (ELF e_machine or bitcode triple),
// defines |symbol| and has no thread-local variables. |display| names the
// file in messages.
bool checkKernel(const CompiledKernel &kernel, const std::string &symbol,
                 const TargetInfo &target, const std::string &display, DiagEngine &diag);

} // namespace graft
