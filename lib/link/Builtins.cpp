// Builds the builtins object (memcpy & co., see Builtins.h) from LLVM IR.
//
// The IR is written by hand rather than compiled from C so that no compiler
// or libc headers are needed at graft's run time. Every function carries
// "no-builtins": without it LLVM may recognise the copy loop as a memcpy
// idiom and turn memcpy into a call to itself.
#include "link/Builtins.h"

#include "link/TargetMachine.h"
#include "support/InternalError.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace graft {

// slice_runtime.c and slice_ubsan.c compiled to LLVM IR when graft was
// built (CMakeLists.txt).
static const char kSliceRuntimeIR[] =
#include "SliceRuntimeIR.inc"
    ;
static const char kSliceUbsanIR[] =
#include "SliceUbsanIR.inc"
    ;

// Adds the C routines of |ir| (one of the above, named |what|) to |dst|.
// Their IR was produced for x86_64; the functions are plain integer, float
// and pointer code, so dropping the target attributes (the module's triple
// and data layout are set by the caller) retargets them.
static void linkEmbeddedC(llvm::Module &dst, llvm::LLVMContext &context, const char *ir,
                          const std::string &what) {
  llvm::SMDiagnostic parseError;
  std::unique_ptr<llvm::Module> routines = llvm::parseAssemblyString(ir, parseError, context);
  GRAFT_CHECK(routines, "the " + what + " IR does not parse: " + parseError.getMessage().str());
  routines->setSourceFileName("graft-builtins");
  routines->setTargetTriple(dst.getTargetTriple());
  routines->setDataLayout(dst.getDataLayout());
  for (llvm::Function &f : *routines) {
    f.removeFnAttr("target-cpu");
    f.removeFnAttr("target-features");
    f.removeFnAttr("tune-cpu");
    f.addFnAttr("no-builtins");
  }
  routines->setModuleFlag(llvm::Module::Warning, "wchar_size", 4u);
  bool failed = llvm::Linker::linkModules(dst, std::move(routines));
  GRAFT_CHECK(!failed, "cannot link the " + what + " routines into the builtins");
}

// "isize" stands for size_t: emitBuiltinsObject replaces it with the
// integer type of the target's pointer width (i32 or i64) before parsing.
// Copies move 8 bytes at a time with align-1 accesses (legal everywhere; the backend splits them where
// unaligned access is slow) and finish byte by byte.
static const char kBuiltinsIR[] = R"IR(
; The forward copy shared by memcpy and memmove (not memcpy itself, which
; a user kernel may replace with a copy in any direction).
define internal ptr @graft.copy.forward(ptr %d, ptr %s, isize %n) #0 {
entry:
  br label %wide
wide:
  %i = phi isize [ 0, %entry ], [ %i.next, %wide.body ]
  %rem = sub isize %n, %i
  %big = icmp uge isize %rem, 8
  br i1 %big, label %wide.body, label %tail
wide.body:
  %sp = getelementptr i8, ptr %s, isize %i
  %dp = getelementptr i8, ptr %d, isize %i
  %v = load i64, ptr %sp, align 1
  store i64 %v, ptr %dp, align 1
  %i.next = add isize %i, 8
  br label %wide
tail:
  %j = phi isize [ %i, %wide ], [ %j.next, %tail.body ]
  %more = icmp ult isize %j, %n
  br i1 %more, label %tail.body, label %done
tail.body:
  %sb = getelementptr i8, ptr %s, isize %j
  %db = getelementptr i8, ptr %d, isize %j
  %b = load i8, ptr %sb, align 1
  store i8 %b, ptr %db, align 1
  %j.next = add isize %j, 1
  br label %tail
done:
  ret ptr %d
}

define weak hidden ptr @memcpy(ptr %d, ptr %s, isize %n) #0 {
entry:
  %r = tail call ptr @graft.copy.forward(ptr %d, ptr %s, isize %n)
  ret ptr %r
}

; Forward when the destination starts before the source or past its end
; (each 8-byte chunk is loaded before it is stored, so a forward copy into a
; lower address never overwrites bytes it has yet to read); backward
; otherwise.
define weak hidden ptr @memmove(ptr %d, ptr %s, isize %n) #0 {
entry:
  %di = ptrtoint ptr %d to isize
  %si = ptrtoint ptr %s to isize
  %dist = sub isize %di, %si
  %fwd = icmp uge isize %dist, %n
  br i1 %fwd, label %forward, label %back.wide
forward:
  %r = tail call ptr @graft.copy.forward(ptr %d, ptr %s, isize %n)
  ret ptr %r
back.wide:
  %k = phi isize [ %n, %entry ], [ %k.next, %back.wide.body ]
  %kbig = icmp uge isize %k, 8
  br i1 %kbig, label %back.wide.body, label %back.tail
back.wide.body:
  %k.next = sub isize %k, 8
  %bsp = getelementptr i8, ptr %s, isize %k.next
  %bdp = getelementptr i8, ptr %d, isize %k.next
  %bv = load i64, ptr %bsp, align 1
  store i64 %bv, ptr %bdp, align 1
  br label %back.wide
back.tail:
  %m = phi isize [ %k, %back.wide ], [ %m.next, %back.tail.body ]
  %mmore = icmp ne isize %m, 0
  br i1 %mmore, label %back.tail.body, label %done
back.tail.body:
  %m.next = sub isize %m, 1
  %bsb = getelementptr i8, ptr %s, isize %m.next
  %bdb = getelementptr i8, ptr %d, isize %m.next
  %bb = load i8, ptr %bsb, align 1
  store i8 %bb, ptr %bdb, align 1
  br label %back.tail
done:
  ret ptr %d
}

define weak hidden ptr @memset(ptr %d, i32 %c, isize %n) #0 {
entry:
  %c8 = trunc i32 %c to i8
  %c64 = zext i8 %c8 to i64
  %splat = mul i64 %c64, 72340172838076673
  br label %wide
wide:
  %i = phi isize [ 0, %entry ], [ %i.next, %wide.body ]
  %rem = sub isize %n, %i
  %big = icmp uge isize %rem, 8
  br i1 %big, label %wide.body, label %tail
wide.body:
  %dp = getelementptr i8, ptr %d, isize %i
  store i64 %splat, ptr %dp, align 1
  %i.next = add isize %i, 8
  br label %wide
tail:
  %j = phi isize [ %i, %wide ], [ %j.next, %tail.body ]
  %more = icmp ult isize %j, %n
  br i1 %more, label %tail.body, label %done
tail.body:
  %db = getelementptr i8, ptr %d, isize %j
  store i8 %c8, ptr %db, align 1
  %j.next = add isize %j, 1
  br label %tail
done:
  ret ptr %d
}

; Bytes compare as unsigned char, as C requires.
define weak hidden i32 @memcmp(ptr %a, ptr %b, isize %n) #0 {
entry:
  br label %loop
loop:
  %i = phi isize [ 0, %entry ], [ %i.next, %same ]
  %more = icmp ult isize %i, %n
  br i1 %more, label %body, label %equal
body:
  %ap = getelementptr i8, ptr %a, isize %i
  %bp = getelementptr i8, ptr %b, isize %i
  %av = load i8, ptr %ap, align 1
  %bv = load i8, ptr %bp, align 1
  %eq = icmp eq i8 %av, %bv
  br i1 %eq, label %same, label %differ
same:
  %i.next = add isize %i, 1
  br label %loop
differ:
  %a32 = zext i8 %av to i32
  %b32 = zext i8 %bv to i32
  %diff = sub i32 %a32, %b32
  ret i32 %diff
equal:
  ret i32 0
}

define weak hidden i32 @bcmp(ptr %a, ptr %b, isize %n) #0 {
entry:
  %r = call i32 @memcmp(ptr %a, ptr %b, isize %n)
  ret i32 %r
}

attributes #0 = { nounwind "no-builtins" }
)IR";

static std::string builtinsIR(const TargetInfo &target) {
  std::string ir = kBuiltinsIR;
  const std::string size = target.pointerBits() == 32 ? "i32" : "i64";
  for (size_t at = ir.find("isize"); at != std::string::npos; at = ir.find("isize", at))
    ir.replace(at, 5, size);
  return ir;
}

// Links the target's own entry points (TargetInfo::runtimeIR, e.g. ARM's
// __aeabi_* names around the generic routines) into |dst|.
static void linkTargetRuntime(llvm::Module &dst, llvm::LLVMContext &context,
                              const TargetInfo &target) {
  if (!*target.runtimeIR)
    return;
  llvm::SMDiagnostic parseError;
  std::unique_ptr<llvm::Module> extra =
      llvm::parseAssemblyString(target.runtimeIR, parseError, context);
  GRAFT_CHECK(extra, std::string("the runtime IR of target ") + target.name +
                         " does not parse: " + parseError.getMessage().str());
  extra->setTargetTriple(dst.getTargetTriple());
  extra->setDataLayout(dst.getDataLayout());
  for (llvm::Function &f : *extra)
    f.addFnAttr("no-builtins");
  bool failed = llvm::Linker::linkModules(dst, std::move(extra));
  GRAFT_CHECK(!failed, std::string("cannot link the runtime IR of target ") + target.name);
}

bool emitBuiltinsObject(const TargetInfo &target, const std::string &path,
                        DiagEngine &diag, bool ubsanRuntime) {
  std::string error;
  std::unique_ptr<llvm::TargetMachine> tm = createTargetMachine(target, error);
  if (!tm) {
    diag.error(path, error);
    return false;
  }

  llvm::LLVMContext context;
  llvm::SMDiagnostic parseError;
  const std::string ir = builtinsIR(target);
  // The IR is part of graft: failing to parse or verify it is a graft bug.
  std::unique_ptr<llvm::Module> module = llvm::parseAssemblyString(ir, parseError, context);
  GRAFT_CHECK(module, "the builtins IR does not parse: " + parseError.getMessage().str());
  module->setTargetTriple(target.triple);
  module->setDataLayout(tm->createDataLayout());
  linkEmbeddedC(*module, context, kSliceRuntimeIR, "slice runtime");
  if (ubsanRuntime)
    linkEmbeddedC(*module, context, kSliceUbsanIR, "UBSan handler");
  linkTargetRuntime(*module, context, target);
  module->setModuleIdentifier("graft-builtins");
  module->setSourceFileName("graft-builtins");
  std::string verifyText;
  llvm::raw_string_ostream verifyOS(verifyText);
  bool invalid = llvm::verifyModule(*module, &verifyOS);
  GRAFT_CHECK(!invalid, "the builtins IR is invalid: " + verifyText);

  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    diag.error(path, "cannot open for writing: " + ec.message());
    return false;
  }
  llvm::legacy::PassManager passes;
  // createTargetMachine succeeded, so the backend is there and emits objects.
  bool cannot = tm->addPassesToEmitFile(passes, out, nullptr, llvm::CodeGenFileType::ObjectFile);
  GRAFT_CHECK(!cannot, std::string("LLVM cannot emit objects for ") + target.name);
  passes.run(*module);
  out.close();
  if (out.has_error()) {
    diag.error(path, "cannot write: " + out.error().message());
    out.clear_error();
    return false;
  }
  return true;
}

} // namespace graft
