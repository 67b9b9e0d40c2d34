#include "codegen/Compile.h"

#include "codegen/Codegen.h"
#include "codegen/OptPipeline.h"
#include "codegen/VariantSharing.h"
#include "link/TargetMachine.h"
#include "support/InternalError.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>

namespace graft {

using llvm::LLVMContext;

// Emits the dispatches of one ISA variant into a module of their own, not
// yet marked for its level (setLevelAttributes). Kernel-call dispatches
// declare the user's symbols; they are resolved by linking bitcode into the
// module or object files at link time.
static std::unique_ptr<llvm::Module> emitVariantFunctions(LLVMContext &ctx,
                                                          const ProgramSet &programs,
                                                          const TargetInfo &target,
                                                          const FeatureLevel &level,
                                                          llvm::TargetMachine &tm) {
  auto m = std::make_unique<llvm::Module>(level.name, ctx);
  m->setSourceFileName("variant"); // the same for every level (variantKey)
  m->setTargetTriple(target.triple);
  m->setDataLayout(tm.createDataLayout());
  for (const Dispatch &d : programs.dispatches) {
    if (d.isCall)
      codegen::emitCallDispatch(*m, d);
    else
      codegen::emitLoopDispatch(*m, d);
  }
  return m;
}

// Compiles every function of |m| for |level|.
static void setLevelAttributes(llvm::Module &m, const TargetInfo &target,
                               const FeatureLevel &level) {
  const std::string features = llvmFeatureString(target, level);
  for (llvm::Function &f : m) {
    if (f.isDeclaration())
      continue;
    f.addFnAttr("target-cpu", level.llvmCpu);
    if (!features.empty())
      f.addFnAttr("target-features", features);
    // The level's vector width, not LLVM's tuning default: x86-64-v4 asks
    // LLVM for 256-bit loops unless a function prefers 512.
    if (level.vectorBits > 128 && !f.hasFnAttribute("prefer-vector-width"))
      f.addFnAttr("prefer-vector-width", std::to_string(level.vectorBits));
  }
}

static bool writeText(const std::string &path, const std::string &text, DiagEngine &diag) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    diag.error(path, "cannot write: " + ec.message());
    return false;
  }
  os << text;
  return true;
}

// Links the user kernel bitcode files into |m|, each once, checking each
// one's architecture. |linkMessage| collects what the bitcode linker says (a
// symbol two kernels define), for the error that names the kernel file.
static bool linkKernelBitcode(llvm::Module &m, const std::vector<KernelBitcode> &bitcode,
                              const TargetInfo &target, std::string &linkMessage,
                              DiagEngine &diag) {
  for (const KernelBitcode &k : bitcode) {
    llvm::SMDiagnostic smd;
    std::unique_ptr<llvm::Module> bc = llvm::parseIRFile(k.path, smd, m.getContext());
    if (!bc) {
      diag.error(k.name, "cannot read LLVM bitcode: " + smd.getMessage().str());
      return false;
    }
    llvm::Triple bt(bc->getTargetTriple());
    if (bt.getArch() != llvm::Triple(target.triple).getArch()) {
      diag.error(k.name, "bitcode is for " + bt.getArchName().str() + ", but the target is " +
                             target.name);
      return false;
    }
    bc->setDataLayout(m.getDataLayout());
    bc->setTargetTriple(target.triple);
    linkMessage.clear();
    if (llvm::Linker::linkModules(m, std::move(bc))) {
      while (!linkMessage.empty() && linkMessage.back() == '\n')
        linkMessage.pop_back();
      diag.error(k.name, "cannot link the kernel into the " + std::string(target.name) +
                             " slice: " + linkMessage);
      return false;
    }
  }
  return true;
}

// Prepares a variant's module for linking into the slice module: its
// functions become external for the link (the linker drops local symbols
// nothing in their module refers to, and nothing does yet: the library
// header comes later; the slice module internalizes them again) and, with
// a non-empty |suffix|, everything it defines is renamed so that the
// variants' symbols do not meet (user kernels linked as bitcode too: each
// variant has its own copy, compiled for its level). Declarations (object
// kernels, LLVM's intrinsics and helper calls) keep their names: they are
// resolved once for the whole slice.
static void prepareVariant(llvm::Module &m, const std::string &suffix) {
  for (llvm::GlobalValue &g : m.global_values()) {
    if (g.isDeclaration() || g.getName().starts_with("llvm."))
      continue;
    if (llvm::isa<llvm::Function>(g) && g.hasLocalLinkage())
      g.setLinkage(llvm::GlobalValue::ExternalLinkage);
    if (!suffix.empty())
      g.setName((g.getName() + suffix).str());
  }
}

// The index of an earlier variant whose code variants[i] (emitted into
// |vm|, not yet marked for its level) shares, or -1: neither links kernel
// bitcode (compiled per level), the earlier level is one variants[i]'s
// implies, the level's features change nothing in |vm|, and their IR is
// the same (|keys|: variantKey of each variant that may be shared).
static int sharedVariant(const std::vector<SliceVariant> &variants, size_t i,
                         const llvm::Module &vm, const std::vector<std::string> &keys,
                         const TargetInfo &target) {
  const SliceVariant &v = variants[i];
  if (keys[i].empty() || codegen::levelMayChangeCode(*v.level, vm))
    return -1;
  for (size_t j = 0; j < i; ++j)
    if (keys[j] == keys[i] && codegen::levelImplies(target, *v.level, *variants[j].level))
      return static_cast<int>(j);
  return -1;
}

bool compileSliceObject(const std::vector<SliceVariant> &variants, const TargetInfo &target,
                        const CompileOptions &opts, DiagEngine &diag) {
  const std::string passPrefix = std::string(target.name) + ": ";
  PassTimer pass(opts.times, passPrefix + "codegen");
  std::string err;
  std::unique_ptr<llvm::TargetMachine> tm = createTargetMachine(target, err);
  if (!tm) {
    diag.error(std::string("target ") + target.name, err);
    return false;
  }
  LLVMContext ctx;
  // What LLVM says: the bitcode linker's messages, for errors that name the
  // kernel file, and every error, which the backend reports here too (an
  // error in a kernel's inline assembly) instead of failing the emission.
  struct Messages {
    std::string link;
    std::string errors;
  } messages;
  std::string &linkMessage = messages.link;
  ctx.setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo *info, void *out) {
        auto &m = *static_cast<Messages *>(out);
        std::string text;
        llvm::raw_string_ostream os(text);
        llvm::DiagnosticPrinterRawOStream printer(os);
        info->print(printer);
        m.link += text + "\n";
        if (info->getSeverity() == llvm::DS_Error)
          m.errors += (m.errors.empty() ? "" : "\n") + text;
      },
      &messages);
  auto m = std::make_unique<llvm::Module>(opts.moduleName, ctx);
  m->setSourceFileName(opts.moduleName);
  m->setTargetTriple(target.triple);
  m->setDataLayout(tm->createDataLayout());
  m->setPICLevel(llvm::PICLevel::BigPIC);

  // The first variant keeps the plain names (what --emit=asm readers and a
  // one-level build see); the others are suffixed with their level. A
  // variant that can share an earlier one's code (VariantSharing.h) lists
  // that variant's functions and compiles nothing.
  const bool mayShare = std::any_of(variants.begin(), variants.end(), [](const SliceVariant &v) {
    return !v.level->changesOnly.empty();
  });
  std::vector<std::string> keys(variants.size()); // variantKey, where it may be shared
  std::vector<codegen::VariantSymbols> symbols;
  for (size_t i = 0; i < variants.size(); ++i) {
    const SliceVariant &v = variants[i];
    std::unique_ptr<llvm::Module> vm =
        emitVariantFunctions(ctx, *v.programs, target, *v.level, *tm);
    if (mayShare && v.bitcode.empty())
      keys[i] = codegen::variantKey(*vm);
    if (int j = sharedVariant(variants, i, *vm, keys, target); j >= 0) {
      symbols.push_back({v.level, v.programs, symbols[j].dispatchSymbols});
      continue;
    }
    setLevelAttributes(*vm, target, *v.level);
    if (!linkKernelBitcode(*vm, v.bitcode, target, linkMessage, diag))
      return false;
    std::string suffix = i == 0 ? "" : std::string(".") + v.level->name;
    prepareVariant(*vm, suffix);
    codegen::VariantSymbols vs{v.level, v.programs, {}};
    for (const Dispatch &d : v.programs->dispatches)
      vs.dispatchSymbols.push_back(d.name + suffix);
    symbols.push_back(std::move(vs));
    linkMessage.clear();
    // Kernels were linked into the variant (and their clashes reported)
    // above; its remaining globals are graft's, suffixed per variant.
    bool failed = llvm::Linker::linkModules(*m, std::move(vm));
    GRAFT_CHECK(!failed, std::string("cannot link the ") + v.level->name +
                             " variant into the slice module: " + linkMessage);
  }
  codegen::emitLibrary(*m, target, symbols, opts.moduleName);

  // Only the query symbol is visible: kernels linked as bitcode become
  // internal, which lets the inliner fold them into their dispatch.
  for (llvm::GlobalValue &g : m->global_values()) {
    if (g.isDeclaration() || g.getName() == GRAFT_QUERY_SYMBOL)
      continue;
    if (g.getName().starts_with("llvm."))
      continue;
    g.setLinkage(llvm::GlobalValue::InternalLinkage);
  }

  std::string verr;
  llvm::raw_string_ostream vos(verr);
  // Kernel bitcode was verified when it was checked (KernelCompiler).
  bool invalid = llvm::verifyModule(*m, &vos);
  GRAFT_CHECK(!invalid, "the generated LLVM IR is invalid: " + vos.str());

  pass.next(passPrefix + "LLVM opt");
  const bool linksBitcode = std::any_of(variants.begin(), variants.end(),
                                        [](const SliceVariant &v) { return !v.bitcode.empty(); });
  optimizeSliceModule(*m, *tm, skippedOptPasses(linksBitcode));

  pass.next(passPrefix + "object emission");
  if (!opts.llvmIRPath.empty()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    m->print(os, nullptr);
    if (!writeText(opts.llvmIRPath, os.str(), diag))
      return false;
  }
  auto emit = [&](const std::string &path, llvm::CodeGenFileType kind) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
    if (ec) {
      diag.error(path, "cannot write: " + ec.message());
      return false;
    }
    llvm::legacy::PassManager pm;
    bool cannot = tm->addPassesToEmitFile(pm, os, nullptr, kind);
    GRAFT_CHECK(!cannot, std::string("LLVM cannot emit this file type for ") + target.name);
    pm.run(*m);
    return true;
  };
  if (!opts.asmPath.empty() && !emit(opts.asmPath, llvm::CodeGenFileType::AssemblyFile))
    return false;
  if (!emit(opts.objectPath, llvm::CodeGenFileType::ObjectFile))
    return false;
  if (messages.errors.empty())
    return true;
  // Graft's own IR compiles cleanly; kernel bitcode (its inline assembly)
  // may not, and the object LLVM wrote anyway is not to be linked.
  std::string kernels;
  for (const SliceVariant &v : variants)
    for (const KernelBitcode &k : v.bitcode)
      if (kernels.find(k.name) == std::string::npos)
        kernels += (kernels.empty() ? "" : ", ") + k.name;
  GRAFT_CHECK(!kernels.empty(), "LLVM failed to compile the " + std::string(target.name) +
                                    " slice: " + messages.errors);
  diag.error(std::string(target.name) + " slice",
             "LLVM failed to compile the kernels linked into it (" + kernels +
                 "): " + messages.errors);
  return false;
}

} // namespace graft
