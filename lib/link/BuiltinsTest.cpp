// Unit tests of the builtins object: it is emitted for every target with the
// right symbols (weak, hidden), and on the host the routines behave like the
// C library's (overlapping memmove both ways, memset, memcmp sign).
#include "link/Builtins.h"

#include <set>

#include "link/TestUtil.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"

namespace graft {
namespace {

using test::ScratchDir;

TEST(Builtins, EmittedForEveryTarget) {
  for (const TargetInfo *target : allTargets()) {
    ScratchDir dir;
    SourceManager sm;
    DiagEngine diag(sm);
    diag.setEcho(false);
    std::string path = dir.file("builtins.o");
    ASSERT_TRUE(emitBuiltinsObject(*target, path, diag)) << diag.text();
    auto objOrErr = llvm::object::ObjectFile::createObjectFile(path);
    ASSERT_TRUE(static_cast<bool>(objOrErr))
        << llvm::toString(objOrErr.takeError());
    auto *elf =
        llvm::dyn_cast<llvm::object::ELFObjectFileBase>(objOrErr->getBinary());
    ASSERT_NE(elf, nullptr);
    EXPECT_EQ(elf->getEMachine(), target->elfMachine) << target->name;
    EXPECT_EQ(elf->getEType(), llvm::ELF::ET_REL);
    std::set<std::string> defined;
    for (const llvm::object::ELFSymbolRef &sym : elf->symbols()) {
      auto name = sym.getName();
      ASSERT_TRUE(static_cast<bool>(name));
      auto flags = sym.getFlags();
      ASSERT_TRUE(static_cast<bool>(flags));
      if (*flags & llvm::object::SymbolRef::SF_Undefined) {
        ADD_FAILURE() << target->name << ": builtins need '" << name->str()
                      << "'";
        continue;
      }
      if (!(*flags & llvm::object::SymbolRef::SF_Global))
        continue;
      EXPECT_TRUE(*flags & llvm::object::SymbolRef::SF_Weak) << name->str();
      EXPECT_EQ(sym.getOther() & 3, llvm::ELF::STV_HIDDEN) << name->str();
      defined.insert(name->str());
    }
    EXPECT_EQ(defined, (std::set<std::string>{"__extendhfsf2", "__truncdfhf2",
                                              "__truncsfbf2", "__truncsfhf2", "bcmp",
                                              "fmod", "fmodf", "memcmp", "memcpy",
                                              "memmove", "memset"}))
        << target->name;
  }
}

TEST(Builtins, BadOutputPathIsReported) {
  SourceManager sm;
  DiagEngine diag(sm);
  diag.setEcho(false);
  EXPECT_FALSE(emitBuiltinsObject(*lookupTarget("x86_64"),
                                  "/nonexistent/dir/b.o", diag));
  EXPECT_EQ(diag.text().rfind(
                "/nonexistent/dir/b.o: error: cannot open for writing: ", 0),
            0u)
      << diag.text();
}

// Links the host builtins into a normal program: the program's calls bind to
// the builtins' hidden definitions, not to the C library.
const char kHarness[] = R"C(
typedef unsigned long size_t;
void *memcpy(void *, const void *, size_t);
void *memmove(void *, const void *, size_t);
void *memset(void *, int, size_t);
int memcmp(const void *, const void *, size_t);
int printf(const char *, ...);
static int check(int ok, int line) {
  if (!ok) printf("check failed at line %d\n", line);
  return ok ? 0 : 1;
}
#define CHECK(x) failures += check((x), __LINE__)
int main(void) {
  int failures = 0;
  unsigned char a[100], b[100];
  for (int i = 0; i < 100; ++i) a[i] = (unsigned char)i;
  CHECK(memcpy(b, a, 37) == b);
  for (int i = 0; i < 37; ++i) CHECK(b[i] == i);
  /* Overlap, destination above the source: must copy backwards. */
  for (int i = 0; i < 100; ++i) b[i] = (unsigned char)i;
  memmove(b + 3, b, 90);
  for (int i = 0; i < 90; ++i) CHECK(b[i + 3] == i);
  /* Overlap, destination below the source. */
  for (int i = 0; i < 100; ++i) b[i] = (unsigned char)i;
  memmove(b, b + 5, 91);
  for (int i = 0; i < 91; ++i) CHECK(b[i] == i + 5);
  CHECK(memset(b, 0xC5, 29) == b);
  for (int i = 0; i < 29; ++i) CHECK(b[i] == 0xC5);
  CHECK(b[29] == 34);
  CHECK(memcmp(a, a, 100) == 0);
  a[50] = 200; b[0] = 1;
  unsigned char c[100];
  memcpy(c, a, 100);
  c[50] = 10;
  CHECK(memcmp(a, c, 100) > 0);  /* 200 > 10 as unsigned char */
  c[50] = 250;
  CHECK(memcmp(a, c, 100) < 0);
  CHECK(memcmp(a, c, 50) == 0);
  return failures;
}
)C";

TEST(Builtins, BehaveLikeTheCLibraryOnTheHost) {
  const TargetInfo *host = hostTarget();
  if (!host)
    GTEST_SKIP() << "no graft target for this host";
  ScratchDir dir;
  SourceManager sm;
  DiagEngine diag(sm);
  diag.setEcho(false);
  std::string builtins = dir.file("builtins.o");
  ASSERT_TRUE(emitBuiltinsObject(*host, builtins, diag)) << diag.text();
  std::string harness = dir.file("harness.c"), exe = dir.file("harness");
  test::writeText(harness, kHarness);
  std::string output;
  ASSERT_EQ(test::run({GRAFT_TEST_CLANG, "-O1", "-fno-builtin", harness,
                       builtins, "-o", exe},
                      dir.file("cc.log"), output),
            0)
      << output;
  EXPECT_EQ(test::run({exe}, dir.file("run.log"), output), 0) << output;
}

} // namespace
} // namespace graft
