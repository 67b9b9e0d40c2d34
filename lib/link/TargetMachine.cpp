// Creating an llvm::TargetMachine for a graft target (see TargetMachine.h).
#include "link/TargetMachine.h"

#include <cstring>
#include <mutex>
#include <set>

#include "llvm/MC/TargetRegistry.h"
#include "llvm/Target/TargetOptions.h"

// The initializers of every backend this LLVM was built with, from LLVM's
// own lists. Only the backends graft's targets name are ever called, so a
// build of LLVM without, say, RISC-V fails with a message naming the target
// that needs it.
extern "C" {
#define LLVM_TARGET(T)                                                         \
  void LLVMInitialize##T##TargetInfo();                                        \
  void LLVMInitialize##T##Target();                                            \
  void LLVMInitialize##T##TargetMC();
#include "llvm/Config/Targets.def"
#define LLVM_ASM_PRINTER(T) void LLVMInitialize##T##AsmPrinter();
#include "llvm/Config/AsmPrinters.def"
#define LLVM_ASM_PARSER(T) void LLVMInitialize##T##AsmParser();
#include "llvm/Config/AsmParsers.def"
}

namespace graft {

namespace {

struct BackendInit {
  const char *name;
  void (*init)();
};

const BackendInit kTargets[] = {
#define LLVM_TARGET(T)                                                         \
  {#T, [] {                                                                    \
     LLVMInitialize##T##TargetInfo();                                          \
     LLVMInitialize##T##Target();                                              \
     LLVMInitialize##T##TargetMC();                                            \
   }},
#include "llvm/Config/Targets.def"
};
const BackendInit kAsmPrinters[] = {
#define LLVM_ASM_PRINTER(T) {#T, LLVMInitialize##T##AsmPrinter},
#include "llvm/Config/AsmPrinters.def"
};
// Kernels may contain inline assembly, which codegen parses.
const BackendInit kAsmParsers[] = {
#define LLVM_ASM_PARSER(T) {#T, LLVMInitialize##T##AsmParser},
#include "llvm/Config/AsmParsers.def"
};

template <size_t N> bool runInit(const BackendInit (&table)[N], const char *name) {
  for (const BackendInit &b : table)
    if (std::strcmp(b.name, name) == 0) {
      b.init();
      return true;
    }
  return false;
}

} // namespace

bool initializeLLVMBackend(const TargetInfo &target, std::string &error) {
  static std::mutex mutex;
  static std::set<std::string> done;
  std::lock_guard<std::mutex> lock(mutex);
  if (done.count(target.llvmBackend))
    return true;
  if (!runInit(kTargets, target.llvmBackend)) {
    error = std::string("this LLVM was built without the ") + target.llvmBackend +
            " backend that target " + target.name + " needs";
    return false;
  }
  runInit(kAsmPrinters, target.llvmBackend);
  runInit(kAsmParsers, target.llvmBackend);
  done.insert(target.llvmBackend);
  return true;
}

std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const TargetInfo &target, std::string &error,
                    const FeatureLevel *level) {
  if (!initializeLLVMBackend(target, error))
    return nullptr;
  const FeatureLevel &l = level ? *level : target.baseline();
  std::string lookupError;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(target.triple, lookupError);
  if (!llvmTarget) {
    error = std::string("no LLVM backend for target ") + target.name +
            " (triple '" + target.triple + "'): " + lookupError;
    return nullptr;
  }
  llvm::TargetOptions options;
  // Slices are freestanding: no exception tables to unwind through, and
  // every function lives in its own section so lld can drop unused ones.
  options.FunctionSections = true;
  options.DataSections = true;
  // The ABI must agree with the one clang compiles kernels for.
  options.MCOptions.ABIName = target.abiName;
  const std::string features = llvmFeatureString(target, l);
  std::unique_ptr<llvm::TargetMachine> tm(llvmTarget->createTargetMachine(
      target.triple, l.llvmCpu, features, options, llvm::Reloc::PIC_,
      llvm::CodeModel::Small, llvm::CodeGenOptLevel::Default));
  if (!tm) {
    error = std::string("LLVM could not create a target machine for ") +
            target.name + " (triple '" + target.triple + "', cpu '" +
            l.llvmCpu + "', features '" + features + "')";
    return nullptr;
  }
  return tm;
}

} // namespace graft
