// Creating an llvm::TargetMachine for a graft target (see TargetMachine.h).
#include "link/TargetMachine.h"

#include <mutex>

#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

// Only the backends graft has targets for are initialized, so a build of
// LLVM without, say, RISC-V still fails loudly (on lookup) rather than at
// link time of graft itself.
extern "C" {
void LLVMInitializeX86TargetInfo();
void LLVMInitializeX86Target();
void LLVMInitializeX86TargetMC();
void LLVMInitializeX86AsmPrinter();
void LLVMInitializeX86AsmParser();
void LLVMInitializeAArch64TargetInfo();
void LLVMInitializeAArch64Target();
void LLVMInitializeAArch64TargetMC();
void LLVMInitializeAArch64AsmPrinter();
void LLVMInitializeAArch64AsmParser();
void LLVMInitializeRISCVTargetInfo();
void LLVMInitializeRISCVTarget();
void LLVMInitializeRISCVTargetMC();
void LLVMInitializeRISCVAsmPrinter();
void LLVMInitializeRISCVAsmParser();
}

namespace graft {

void initializeLLVMTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeX86AsmParser();
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64Target();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64AsmPrinter();
    LLVMInitializeAArch64AsmParser();
    LLVMInitializeRISCVTargetInfo();
    LLVMInitializeRISCVTarget();
    LLVMInitializeRISCVTargetMC();
    LLVMInitializeRISCVAsmPrinter();
    LLVMInitializeRISCVAsmParser();
  });
}

std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const TargetInfo &target, std::string &error) {
  initializeLLVMTargets();
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
  // RISC-V needs the ABI spelled out to agree with the kernels clang
  // compiles (lp64d); other targets take their triple's default.
  if (llvm::Triple(target.triple).isRISCV64())
    options.MCOptions.ABIName = "lp64d";
  std::unique_ptr<llvm::TargetMachine> tm(llvmTarget->createTargetMachine(
      target.triple, target.cpu, target.features, options, llvm::Reloc::PIC_,
      llvm::CodeModel::Small, llvm::CodeGenOptLevel::Default));
  if (!tm) {
    error = std::string("LLVM could not create a target machine for ") +
            target.name + " (triple '" + target.triple + "', cpu '" +
            target.cpu + "', features '" + target.features + "')";
    return nullptr;
  }
  return tm;
}

} // namespace graft
