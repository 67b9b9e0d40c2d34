// Which variants may share code (VariantSharing.h): every kind of IR a
// level names is one the check knows; a level with none named may change
// any code; the named kinds are found in IR; implication is transitive.
#include "codegen/VariantSharing.h"

#include <gtest/gtest.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/SourceMgr.h>

namespace graft {
namespace {

TEST(VariantSharing, LevelsNameKnownKinds) {
  for (const TargetInfo *t : allTargets())
    for (const FeatureLevel &level : t->levels)
      for (const char *kind : level.changesOnly)
        EXPECT_TRUE(codegen::knownIRKind(kind)) << t->name << " " << level.name << ": " << kind;
}

// Whether |level| of aarch64 may change the code of |ir|.
bool mayChange(const char *levelName, const char *ir) {
  llvm::LLVMContext c;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> m = llvm::parseAssemblyString(ir, error, c);
  EXPECT_TRUE(m) << error.getMessage().str();
  return codegen::levelMayChangeCode(*lookupLevel(*lookupTarget("aarch64"), levelName), *m);
}

TEST(VariantSharing, FindsTheKinds) {
  const char *dot = "armv8.2-a+dotprod";
  const char *floats = "define float @f(float %a, float %b) {\n"
                       "  %p = fmul float %a, %b\n  ret float %p\n}\n";
  EXPECT_FALSE(mayChange(dot, floats));
  EXPECT_TRUE(mayChange("armv8-a", floats)) << "a level that names no kinds changes anything";
  EXPECT_TRUE(mayChange(dot, "define i32 @f(i8 %a) {\n  %w = sext i8 %a to i32\n  ret i32 %w\n}\n"));
  EXPECT_TRUE(mayChange(dot, "define <8 x i16> @f(<8 x i16> %a) {\n"
                             "  %p = mul <8 x i16> %a, %a\n  ret <8 x i16> %p\n}\n"));
  EXPECT_TRUE(mayChange(dot, "define i64 @f(ptr %p) {\n"
                             "  %o = atomicrmw add ptr %p, i64 1 seq_cst\n  ret i64 %o\n}\n"));
  EXPECT_TRUE(mayChange(dot, "declare i32 @llvm.aarch64.crc32b(i32, i32)\n"
                             "define i32 @f(i32 %a) {\n"
                             "  %c = call i32 @llvm.aarch64.crc32b(i32 %a, i32 %a)\n  ret i32 %c\n}\n"));
  EXPECT_TRUE(mayChange(dot, "define void @f() {\n  call void asm sideeffect \"nop\", \"\"()\n"
                             "  ret void\n}\n"));
}

TEST(VariantSharing, Implies) {
  const TargetInfo &x86 = *lookupTarget("x86_64");
  const FeatureLevel &v2 = *lookupLevel(x86, "x86-64-v2"), &v3 = *lookupLevel(x86, "x86-64-v3"),
                     &v4 = *lookupLevel(x86, "x86-64-v4");
  EXPECT_TRUE(codegen::levelImplies(x86, v4, v2));
  EXPECT_TRUE(codegen::levelImplies(x86, v3, v2));
  EXPECT_FALSE(codegen::levelImplies(x86, v2, v3));
  EXPECT_FALSE(codegen::levelImplies(x86, v2, v2));
}

} // namespace
} // namespace graft
