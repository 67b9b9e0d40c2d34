// See KernelCompiler.h. Clang runs as a separate process (the clang driver is
// not a library we can call safely in-process); everything else uses LLVM's
// bitcode reader and object file library.
#include "spec/KernelCompiler.h"

#include "spec/Prototype.h"
#include "support/Depfile.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <llvm/TargetParser/Triple.h>


namespace graft {

namespace {

std::string archName(uint16_t machine, bool is64Bit) {
  const TargetInfo *t = lookupTargetByMachine(machine);
  if (!t)
    return "e_machine " + std::to_string(machine);
  if ((t->pointerBits() == 64) != is64Bit)
    return std::string(t->name) + " (but " + (is64Bit ? "64" : "32") + "-bit)";
  return t->name;
}

std::string describeKind(KernelSource::Kind k) {
  switch (k) {
  case KernelSource::Kind::CSource: return "source";
  case KernelSource::Kind::Object: return "object";
  case KernelSource::Kind::Bitcode: return "bitcode";
  }
  return "kernel";
}

bool readFile(const std::string &path, std::vector<char> &out, std::string &err) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf) {
    err = buf.getError().message();
    return false;
  }
  out.assign((*buf)->getBufferStart(), (*buf)->getBufferEnd());
  return true;
}

// What the LLVM type |t| is in C terms, in the words of describeParam.
KernelParam paramOf(const llvm::Type *t) {
  KernelParam p;
  if (t->isPointerTy())
    p.kind = KernelParam::Kind::Pointer;
  else if (t->isFloatingPointTy())
    p.kind = KernelParam::Kind::Float, p.bits = t->getPrimitiveSizeInBits();
  else
    p.bits = t->isIntegerTy() ? t->getIntegerBitWidth() : 0;
  return p;
}

// The kernel's definition against the prototype the rule implies: every
// parameter's kind and width (a C kernel's bitcode keeps them; the calling
// convention depends on them) and the return type.
bool checkSignature(const llvm::Function &fn, const KernelPrototype &want, const KernelCall &plan,
                    const std::string &display, DiagEngine &diag) {
  bool ok = true;
  const std::string &symbol = want.symbol;
  if (fn.arg_size() != want.params.size()) {
    diag.error(display, "kernel '" + symbol + "' takes " + std::to_string(fn.arg_size()) +
                            " parameter(s), but rule '" + plan.name + "' passes " +
                            std::to_string(want.params.size()) +
                            (plan.form == KernelForm::Call
                                 ? " (memref arguments expand to 3 + 2*rank)"
                                 : " (dispatch state, workgroup state)") +
                            "; expected " + formatPrototype(want));
    ok = false;
  } else {
    for (unsigned i = 0; i < fn.arg_size(); ++i) {
      KernelParam have = paramOf(fn.getArg(i)->getType());
      const KernelParam &w = want.params[i];
      if (have.kind == w.kind && (w.kind == KernelParam::Kind::Pointer || have.bits == w.bits))
        continue;
      diag.error(display, "kernel '" + symbol + "' parameter " + std::to_string(i + 1) +
                              " is " + describeParam(have) + ", but rule '" + plan.name +
                              "' passes " + describeParam(w) + " ('" + w.ctype + " " +
                              w.name + "'" +
                              (w.source.empty() || w.source == w.name
                                   ? std::string()
                                   : " from '" + w.source + "'") +
                              ")");
      ok = false;
    }
  }
  llvm::Type *ret = fn.getReturnType();
  if (want.returnsInt ? !ret->isIntegerTy(32) : !ret->isVoidTy()) {
    diag.error(display, "kernel '" + symbol + "' must return " +
                            std::string(want.returnsInt ? "int" : "void") + " (rule '" +
                            plan.name + "' says returns: " +
                            (plan.returnsStatus ? "status" : "void") + ")");
    ok = false;
  }
  return ok;
}

bool checkBitcode(const CompiledKernel &k, const std::string &symbol,
                  const TargetInfo &target, const std::string &display,
                  DiagEngine &diag, const KernelCall *plan) {
  llvm::LLVMContext ctx;
  llvm::MemoryBufferRef ref(llvm::StringRef(k.bytes.data(), k.bytes.size()), display);
  auto mod = llvm::parseBitcodeFile(ref, ctx);
  if (!mod) {
    diag.error(display, "not a valid LLVM bitcode file: " +
                            llvm::toString(mod.takeError()));
    return false;
  }
  llvm::Triple have((*mod)->getTargetTriple());
  llvm::Triple want(target.triple);
  if (have.getArch() != want.getArch()) {
    diag.error(display, "bitcode is for " + std::string(have.getArchName()) +
                            " (triple '" + have.str() + "'), expected target " +
                            target.name);
    return false;
  }
  // The reader does not verify: IR that breaks LLVM's rules (llvm-as
  // --disable-verify writes it) is the kernel's error, not the slice's.
  std::string invalid;
  llvm::raw_string_ostream why(invalid);
  if (llvm::verifyModule(**mod, &why)) {
    while (!invalid.empty() && invalid.back() == '\n')
      invalid.pop_back();
    diag.error(display, "bitcode is not valid LLVM IR: " + invalid);
    return false;
  }
  bool ok = true;
  for (const llvm::GlobalVariable &g : (*mod)->globals()) {
    if (g.isThreadLocal()) {
      diag.error(display, "thread-local variable '" + g.getName().str() +
                              "' is not supported in kernels (graft slices have no "
                              "TLS)");
      ok = false;
    }
  }
  const llvm::Function *fn = (*mod)->getFunction(symbol);
  if (!fn || fn->isDeclaration()) {
    diag.error(display, "does not define kernel symbol '" + symbol + "' (target " +
                            target.name + ")");
    return false;
  }
  if (!plan)
    return ok;
  return checkSignature(*fn, kernelPrototype(*plan, target), *plan, display, diag) && ok;
}

bool checkObject(const CompiledKernel &k, const std::string &symbol,
                 const TargetInfo &target, const std::string &display, DiagEngine &diag) {
  bool defines = false;
  if (!checkObjectFor(k, target, display, symbol, defines, diag))
    return false;
  if (!defines) {
    diag.error(display, "does not define kernel symbol '" + symbol + "' (target " +
                            target.name + ")");
    return false;
  }
  return true;
}

} // namespace

bool checkObjectFor(const CompiledKernel &k, const TargetInfo &target,
                    const std::string &display, const std::string &symbol,
                    bool &defines, DiagEngine &diag) {
  defines = false;
  llvm::MemoryBufferRef ref(llvm::StringRef(k.bytes.data(), k.bytes.size()), display);
  auto obj = llvm::object::ObjectFile::createObjectFile(ref);
  if (!obj) {
    diag.error(display, "not an object file: " + llvm::toString(obj.takeError()));
    return false;
  }
  auto *elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(obj->get());
  if (!elf) {
    diag.error(display, "not an ELF object file; kernels must be ELF relocatable "
                        "objects");
    return false;
  }
  uint16_t machine = elf->getEMachine();
  if (machine != target.elfMachine || elf->is64Bit() != (target.pointerBits() == 64)) {
    diag.error(display, "object is for " + archName(machine, elf->is64Bit()) + ", expected target " +
                            target.name);
    return false;
  }
  bool ok = true;
  // The loader maps no page both writable and executable (W^X).
  for (llvm::object::ELFSectionRef sec : elf->sections()) {
    uint64_t wx = llvm::ELF::SHF_WRITE | llvm::ELF::SHF_EXECINSTR;
    if ((sec.getFlags() & wx) != wx)
      continue;
    auto name = sec.getName();
    diag.error(display, "section '" + (name ? name->str() : std::string("?")) +
                            "' is both writable and executable (graft slices are W^X)");
    if (!name)
      llvm::consumeError(name.takeError());
    ok = false;
  }
  for (const llvm::object::ELFSymbolRef &sym : elf->symbols()) {
    auto name = sym.getName();
    auto flags = sym.getFlags();
    if (!name || !flags) {
      llvm::consumeError(name.takeError());
      llvm::consumeError(flags.takeError());
      continue;
    }
    if (sym.getELFType() == llvm::ELF::STT_TLS) {
      diag.error(display, "thread-local symbol '" + name->str() +
                              "' is not supported (graft slices have no TLS)");
      ok = false;
    }
    if (*name == symbol && !(*flags & llvm::object::SymbolRef::SF_Undefined))
      defines = true;
  }
  return ok;
}

std::vector<std::string> freestandingCompileCommand(const KernelToolchain &toolchain,
                                                    const TargetInfo &target,
                                                    const std::string &source,
                                                    const std::vector<std::string> &flags,
                                                    const KernelBuildOptions &options,
                                                    const std::string &outPath, bool bitcode) {
  std::vector<std::string> cmd = {toolchain.clang,
                                  std::string("--target=") + target.clangTriple};
  std::vector<std::string> levelFlags =
      kernelClangFlags(target, options.level ? *options.level : target.baseline());
  cmd.insert(cmd.end(), levelFlags.begin(), levelFlags.end());
  // Freestanding: no libc, no stack protector runtime, no unwinding; PIC for
  // the ET_DYN slice; hidden so only the query symbol is exported.
  for (const char *f : {"-ffreestanding", "-nostdlib", "-fno-stack-protector",
                        "-fno-exceptions", "-fno-asynchronous-unwind-tables", "-fno-math-errno",
                        "-fPIC",
                        "-fvisibility=hidden", "-O2"})
    cmd.push_back(f);
  // Before the user's flags, so --kernel-flag=-fno-sanitize=... can narrow it.
  if (options.sanitizeUndefined)
    cmd.insert(cmd.end(), std::begin(kSanitizeUndefinedFlags), std::end(kSanitizeUndefinedFlags));
  if (bitcode)
    cmd.push_back("-emit-llvm");
  cmd.push_back("-c");
  // clang writes to a log file, not a terminal: say explicitly what to do.
  cmd.push_back(options.color ? "-fcolor-diagnostics" : "-fno-color-diagnostics");
  cmd.push_back("-I" + toolchain.includeDir);
  cmd.insert(cmd.end(), flags.begin(), flags.end());
  cmd.insert(cmd.end(), options.flags.begin(), options.flags.end());
  // Every file clang reads, for a depfile.
  cmd.insert(cmd.end(), {"-MD", "-MF", outPath + ".d"});
  cmd.push_back(source);
  cmd.push_back("-o");
  cmd.push_back(outPath);
  return cmd;
}

std::vector<std::string> kernelCompileCommand(const KernelToolchain &toolchain,
                                              const KernelSource &src,
                                              const TargetInfo &target,
                                              const KernelBuildOptions &options,
                                              const std::string &outPath) {
  return freestandingCompileCommand(toolchain, target, src.path, src.flags, options, outPath,
                                    /*bitcode=*/true);
}

bool runCompileCommand(const std::vector<std::string> &cmd, const std::string &source,
                       const std::string &what, const TargetInfo &target,
                       const std::string &logPath, DiagEngine &diag) {
  std::vector<llvm::StringRef> argv(cmd.begin(), cmd.end());
  std::optional<llvm::StringRef> redirects[3] = {std::nullopt, std::nullopt,
                                                 llvm::StringRef(logPath)};
  std::string execErr;
  int rc = llvm::sys::ExecuteAndWait(cmd[0], argv, std::nullopt, redirects, 0, 0,
                                     &execErr);
  if (rc == 0)
    return true;
  std::vector<char> logText;
  std::string ignored;
  readFile(logPath, logText, ignored);
  std::string msg = rc < 0 ? "cannot run " + cmd[0] + ": " + execErr
                           : "clang failed to compile the " + what + " for target " +
                                 std::string(target.name) + " (exit code " +
                                 std::to_string(rc) + ")";
  if (!logText.empty())
    msg += "\n" + std::string(logText.begin(), logText.end());
  while (!msg.empty() && msg.back() == '\n')
    msg.pop_back();
  diag.error(source, msg);
  return false;
}

bool checkKernel(const CompiledKernel &kernel, const std::string &symbol,
                 const TargetInfo &target, const std::string &display, DiagEngine &diag) {
  if (kernel.kind == CompiledKernel::Bitcode)
    return checkBitcode(kernel, symbol, target, display, diag, nullptr);
  return checkObject(kernel, symbol, target, display, diag);
}

bool compileKernel(const KernelCall &plan, const TargetInfo &target, const std::string &workDir,
                   DiagEngine &diag, CompiledKernel &out, const KernelBuildOptions &options) {
  out = CompiledKernel();
  const KernelSource &src = plan.source;
  std::string err;
  auto context = [&] {
    diag.note(src.loc, std::string("kernel ") + describeKind(src.kind) + " for target " +
                           target.name + " of rule '" + plan.name + "'");
  };
  if (src.kind == KernelSource::Kind::CSource) {
    KernelToolchain toolchain;
    if (!findKernelToolchain(toolchain, err)) {
      diag.error(src.path, err);
      context();
      return false;
    }
    if (auto ec = llvm::sys::fs::create_directories(workDir)) {
      diag.error(workDir, "cannot create work directory: " + ec.message());
      return false;
    }
    llvm::SmallString<256> bc(workDir);
    llvm::sys::path::append(bc, plan.name + "." + target.name + ".bc");
    llvm::SmallString<256> log(workDir);
    llvm::sys::path::append(log, plan.name + "." + target.name + ".log");
    out.command = kernelCompileCommand(toolchain, src, target, options, std::string(bc));
    if (!runCompileCommand(out.command, src.path, "kernel", target, std::string(log), diag)) {
      context();
      return false;
    }
    std::vector<char> depText;
    if (!readFile(std::string(bc) + ".d", depText, err)) {
      diag.error(std::string(bc) + ".d", "cannot read clang's dependency file: " + err);
      context();
      return false;
    }
    out.dependencies = parseDepfilePrerequisites(std::string(depText.begin(), depText.end()));
    out.kind = CompiledKernel::Bitcode;
    out.path = std::string(bc);
  } else {
    out.kind = src.kind == KernelSource::Kind::Object ? CompiledKernel::Object
                                                      : CompiledKernel::Bitcode;
    out.path = src.path;
    out.dependencies = {src.path};
  }
  if (!readFile(out.path, out.bytes, err)) {
    diag.error(out.path, "cannot read kernel: " + err);
    context();
    return false;
  }
  return checkKernelForPlan(out, plan, target, diag);
}

bool checkKernelForPlan(const CompiledKernel &kernel, const KernelCall &plan,
                        const TargetInfo &target, DiagEngine &diag) {
  const KernelSource &src = plan.source;
  bool ok = kernel.kind == CompiledKernel::Bitcode
                ? checkBitcode(kernel, plan.symbol, target, src.path, diag, &plan)
                : checkObject(kernel, plan.symbol, target, src.path, diag);
  if (!ok)
    diag.note(src.loc, std::string("kernel ") + describeKind(src.kind) + " for target " +
                           target.name + " of rule '" + plan.name + "'");
  return ok;
}

} // namespace graft
