// Unit tests of the in-process linker: a slice per target from objects
// compiled with clang, the slice invariants, determinism, and lld's errors
// reported with input names.
#include "link/Linker.h"

#include "link/Builtins.h"
#include "link/TestUtil.h"

namespace graft {
namespace {

using test::ScratchDir;

// A tiny library: a data table of pointers (RELATIVE relocations in
// read-only-after-relocation data), a non-exported helper, a call to memcpy
// (provided by the builtins) and the query function.
const char kLibrary[] = R"C(
typedef unsigned long size_t;
void *memcpy(void *, const void *, size_t);
static int twice(int x) { return 2 * x; }
int helper_not_exported(int x) { return twice(x) + 1; }
static int (*const table[])(int) = {twice, helper_not_exported};
static char buffer[64];
__attribute__((visibility("default")))
const void *graft_library_query(unsigned version, void *env, size_t n) {
  memcpy(buffer, env, n);
  return version < 2 ? (const void *)table[version] : buffer;
}
)C";

struct Linked {
  bool ok = false;
  std::vector<uint8_t> elf;
  std::string diagText;
};

Linked linkSources(const TargetInfo &target,
                   const std::vector<std::string> &sources,
                   const ScratchDir &dir, bool withBuiltins = true) {
  Linked result;
  SourceManager sm;
  DiagEngine diag(sm);
  diag.setEcho(false);
  std::vector<LinkInput> inputs;
  for (size_t i = 0; i < sources.size(); ++i) {
    std::string obj;
    if (!test::compileC(target, sources[i], dir.path(),
                        "input" + std::to_string(i), obj))
      return result;
    inputs.push_back({"kernels" + std::to_string(i) + ".c", obj});
  }
  if (withBuiltins) {
    std::string builtins =
        dir.file(std::string("builtins.") + target.name + ".o");
    EXPECT_TRUE(emitBuiltinsObject(target, builtins, diag)) << diag.text();
    inputs.push_back({"graft builtins", builtins});
  }
  result.ok = linkSlice(target, inputs, dir.path(), result.elf, diag);
  result.diagText = diag.text();
  return result;
}

uint16_t machineOf(const std::vector<uint8_t> &elf) {
  return elf[18] | elf[19] << 8;
}

TEST(Linker, LinksASliceForEveryTarget) {
  for (const TargetInfo *target : allTargets()) {
    ScratchDir dir;
    Linked l = linkSources(*target, {kLibrary}, dir);
    ASSERT_TRUE(l.ok) << target->name << ":\n" << l.diagText;
    EXPECT_EQ(l.diagText, "");
    EXPECT_EQ(verifySlice(*target, l.elf), "");
    EXPECT_EQ(machineOf(l.elf), target->elfMachine);
    EXPECT_EQ(l.elf[16], 3) << "e_type must be ET_DYN";
  }
}

TEST(Linker, SameInputsSameBytes) {
  const TargetInfo &target = *lookupTarget("aarch64");
  ScratchDir a, b;
  Linked first = linkSources(target, {kLibrary}, a);
  Linked second = linkSources(target, {kLibrary}, b);
  Linked third =
      linkSources(target, {kLibrary}, a); // lld runs again in-process
  ASSERT_TRUE(first.ok && second.ok && third.ok)
      << first.diagText << second.diagText;
  EXPECT_EQ(first.elf, second.elf);
  EXPECT_EQ(first.elf, third.elf);
  // No trace of the scratch paths in the slice.
  std::string bytes(first.elf.begin(), first.elf.end());
  EXPECT_EQ(bytes.find("graft-link-test"), std::string::npos);
}

TEST(Linker, UndefinedSymbolNamesSymbolAndInput) {
  const TargetInfo &target = *lookupTarget("x86_64");
  ScratchDir dir;
  Linked l = linkSources(target, {R"C(
int mlp_kernel(int);
__attribute__((visibility("default"))) int graft_library_query(int x) {
  return mlp_kernel(x);
}
)C"},
                         dir);
  EXPECT_FALSE(l.ok);
  EXPECT_NE(
      l.diagText.find("x86_64 slice: error: undefined symbol: mlp_kernel"),
      std::string::npos)
      << l.diagText;
  EXPECT_NE(l.diagText.find("kernels0.c"), std::string::npos) << l.diagText;
  EXPECT_EQ(l.diagText.find(dir.path()), std::string::npos)
      << "temporary paths must be replaced by input names:\n"
      << l.diagText;
}

TEST(Linker, WrongArchitectureIsReported) {
  const TargetInfo &x86 = *lookupTarget("x86_64");
  const TargetInfo &arm = *lookupTarget("aarch64");
  ScratchDir dir;
  std::string obj;
  ASSERT_TRUE(test::compileC(arm, kLibrary, dir.path(), "arm", obj));
  SourceManager sm;
  DiagEngine diag(sm);
  diag.setEcho(false);
  std::vector<uint8_t> elf;
  EXPECT_FALSE(linkSlice(x86, {{"arm-kernels.o", obj}}, dir.path(), elf, diag));
  EXPECT_NE(diag.text().find(
                "x86_64 slice: error: arm-kernels.o is incompatible with "
                "elf_x86_64"),
            std::string::npos)
      << diag.text();
}

TEST(Linker, MissingQueryFunctionIsAnError) {
  const TargetInfo &target = *lookupTarget("riscv64");
  ScratchDir dir;
  Linked l =
      linkSources(target, {"int unrelated(int x) { return x + 1; }\n"}, dir);
  EXPECT_FALSE(l.ok);
  EXPECT_NE(l.diagText.find("graft_library_query"), std::string::npos)
      << l.diagText;
}

TEST(Linker, MissingInputFile) {
  const TargetInfo &target = *lookupTarget("x86_64");
  ScratchDir dir;
  SourceManager sm;
  DiagEngine diag(sm);
  diag.setEcho(false);
  std::vector<uint8_t> elf;
  EXPECT_FALSE(linkSlice(target, {{"kernels.c", dir.file("nope.o")}},
                         dir.path(), elf, diag));
  EXPECT_EQ(diag.text(),
            "kernels.c: error: cannot link x86_64 slice: object file '" +
                dir.file("nope.o") + "' does not exist\n");
  EXPECT_FALSE(linkSlice(target, {}, dir.path(), elf, diag));
  EXPECT_NE(diag.text().find("x86_64 slice: error: nothing to link"),
            std::string::npos);
}

TEST(Linker, VerifySliceCatchesBrokenInvariants) {
  const TargetInfo &x86 = *lookupTarget("x86_64");
  ScratchDir dir;
  Linked l = linkSources(x86, {kLibrary}, dir);
  ASSERT_TRUE(l.ok) << l.diagText;
  EXPECT_EQ(verifySlice(*lookupTarget("aarch64"), l.elf),
            "e_machine is 62, expected 183 (aarch64)");
  std::vector<uint8_t> exec = l.elf;
  exec[16] = 2; // ET_EXEC
  EXPECT_EQ(verifySlice(x86, exec), "e_type is 2, expected ET_DYN (3)");
  EXPECT_EQ(verifySlice(x86, {1, 2, 3}), "not an ELF file (3 bytes)");
  std::vector<uint8_t> truncated(l.elf.begin(), l.elf.begin() + 80);
  EXPECT_NE(verifySlice(x86, truncated), "");
}

// --sanitize=undefined: a kernel built with UBSan's minimal runtime links
// against the instrumented builtins with no undefined symbol, and the slice
// exports graft_ubsan_install next to the query function; verifySlice
// holds it to exactly that list.
TEST(Linker, UbsanSliceExportsItsInstaller) {
  const char kOverflow[] = "__attribute__((visibility(\"default\")))\n"
                           "int graft_library_query(int a, int b) { return a + b; }\n";
  for (const TargetInfo *target : allTargets()) {
    ScratchDir dir;
    SourceManager sm;
    DiagEngine diag(sm);
    diag.setEcho(false);
    std::string obj;
    ASSERT_TRUE(test::compileC(*target, kOverflow, dir.path(), "k", obj,
                               {"-fsanitize=undefined", "-fsanitize-minimal-runtime"}))
        << target->name;
    std::string builtins = dir.file("builtins.o");
    ASSERT_TRUE(emitBuiltinsObject(*target, builtins, diag, true)) << diag.text();
    std::vector<uint8_t> elf;
    const std::vector<std::string> exported = {"graft_library_query", "graft_ubsan_install"};
    ASSERT_TRUE(linkSlice(*target, {{"k.c", obj}, {"graft builtins", builtins}}, dir.path(),
                          elf, diag, exported))
        << target->name << ":\n" << diag.text();
    EXPECT_EQ(verifySlice(*target, elf, exported), "");
    EXPECT_EQ(verifySlice(*target, elf),
              "exports 'graft_ubsan_install' besides graft_library_query");
    EXPECT_EQ(verifySlice(*target, elf, {"graft_library_query", "graft_ubsan_install", "x"}),
              "does not export x");
  }
}

TEST(Linker, VerifySliceRejectsExtraExports) {
  const TargetInfo &x86 = *lookupTarget("x86_64");
  ScratchDir dir;
  std::string obj;
  ASSERT_TRUE(test::compileC(x86, kLibrary, dir.path(), "lib", obj));
  // Link it like an ordinary shared library: everything exported.
  std::string so = dir.file("plain.so");
  std::string output;
  ASSERT_EQ(test::run({GRAFT_TEST_CLANG, "--target=x86_64-unknown-linux-gnu",
                       "-fuse-ld=lld", "-shared", "-nostdlib",
                       "-Wl,--hash-style=sysv", obj, "-o", so},
                      dir.file("link.log"), output),
            0)
      << output;
  std::ifstream in(so, std::ios::binary);
  std::vector<uint8_t> elf((std::istreambuf_iterator<char>(in)),
                           std::istreambuf_iterator<char>());
  std::string problem = verifySlice(x86, elf);
  EXPECT_TRUE(problem == "has the undefined dynamic symbol 'memcpy'" ||
              problem ==
                  "exports 'helper_not_exported' besides graft_library_query")
      << problem;
}

} // namespace
} // namespace graft
