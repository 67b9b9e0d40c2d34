#include "codegen/Compile.h"

#include "codegen/Codegen.h"
#include "link/TargetMachine.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Triple.h>

namespace graft {

using llvm::LLVMContext;

std::unique_ptr<llvm::Module> emitSliceModule(LLVMContext &ctx, const ProgramSet &programs,
                                              const TargetInfo &target, llvm::TargetMachine &tm,
                                              const std::string &moduleName) {
  auto m = std::make_unique<llvm::Module>(moduleName, ctx);
  m->setSourceFileName(moduleName);
  m->setTargetTriple(target.triple);
  m->setDataLayout(tm.createDataLayout());
  m->setPICLevel(llvm::PICLevel::BigPIC);
  for (const Dispatch &d : programs.dispatches) {
    if (d.isCall)
      codegen::emitCallDispatch(*m, d, target);
    else
      codegen::emitLoopDispatch(*m, d, target);
  }
  codegen::emitLibrary(*m, programs, moduleName);
  return m;
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

bool compileSliceObject(const ProgramSet &programs, const TargetInfo &target,
                        const CompileOptions &opts, DiagEngine &diag) {
  std::string err;
  std::unique_ptr<llvm::TargetMachine> tm = createTargetMachine(target, err);
  if (!tm) {
    diag.error(std::string("target ") + target.name, err);
    return false;
  }
  LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = emitSliceModule(ctx, programs, target, *tm, opts.moduleName);

  // Everything graft generated is compiled for the target's baseline.
  const std::string features = llvmFeatureString(target, target.baseline());
  for (llvm::Function &f : *m) {
    if (f.isDeclaration())
      continue;
    f.addFnAttr("target-cpu", target.baseline().llvmCpu);
    if (!features.empty())
      f.addFnAttr("target-features", features);
  }

  // Messages of the bitcode linker (a symbol two kernels define), for the
  // error that names the kernel file.
  std::string linkMessage;
  ctx.setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo *info, void *out) {
        llvm::raw_string_ostream os(*static_cast<std::string *>(out));
        llvm::DiagnosticPrinterRawOStream printer(os);
        info->print(printer);
        os << "\n";
      },
      &linkMessage);
  for (const KernelBitcode &k : opts.bitcode) {
    llvm::SMDiagnostic smd;
    std::unique_ptr<llvm::Module> bc = llvm::parseIRFile(k.path, smd, ctx);
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
    bc->setDataLayout(m->getDataLayout());
    bc->setTargetTriple(target.triple);
    linkMessage.clear();
    if (llvm::Linker::linkModules(*m, std::move(bc))) {
      while (!linkMessage.empty() && linkMessage.back() == '\n')
        linkMessage.pop_back();
      diag.error(k.name, "cannot link the kernel into the " + std::string(target.name) +
                             " slice: " + linkMessage);
      return false;
    }
  }

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
  if (llvm::verifyModule(*m, &vos)) {
    diag.error(std::string(target.name) + " slice",
               "internal error: generated LLVM IR is invalid: " + vos.str());
    return false;
  }

  {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PipelineTuningOptions pto;
    pto.LoopVectorization = true;
    pto.SLPVectorization = true;
    llvm::PassBuilder pb(tm.get(), pto);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    mpm.run(*m, mam);
  }

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
    if (tm->addPassesToEmitFile(pm, os, nullptr, kind)) {
      diag.error(std::string(target.name), "internal error: the target cannot emit this file type");
      return false;
    }
    pm.run(*m);
    return true;
  };
  if (!opts.asmPath.empty() && !emit(opts.asmPath, llvm::CodeGenFileType::AssemblyFile))
    return false;
  return emit(opts.objectPath, llvm::CodeGenFileType::ObjectFile);
}

} // namespace graft
