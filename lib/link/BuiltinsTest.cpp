// Unit tests of the builtins object: it is emitted for every target with the
// right symbols (weak, hidden), and on the host the routines behave like the
// C library's (overlapping memmove both ways, memset, memcmp sign).
#include "link/Builtins.h"

#include <map>
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
    std::set<std::string> expected = {
        "__extendhfsf2", "__truncdfhf2", "__truncsfbf2", "__truncsfhf2", "bcmp", "fmod",
        "fmodf", "memcmp", "memcpy", "memmove", "memset", "__divdi3", "__moddi3",
        "__udivdi3", "__umoddi3", "__udivmoddi4", "__divsi3", "__modsi3", "__udivsi3",
        "__umodsi3", "__floatdidf", "__floatundidf", "__floatdisf", "__floatundisf",
        "__fixdfdi", "__fixunsdfdi", "__fixsfdi", "__fixunssfdi"};
    for (const char *f : {"trunc", "floor", "ceil", "round", "rint", "nearbyint", "roundeven",
                          "fmax", "fmin"}) {
      expected.insert(f);
      expected.insert(std::string(f) + "f");
    }
    // Plus every function the target's own runtime IR defines.
    std::string extra = target->runtimeIR;
    for (size_t at = extra.find("\ndefine "); at != std::string::npos;
         at = extra.find("\ndefine ", at + 1)) {
      size_t name = extra.find('@', at) + 1;
      expected.insert(extra.substr(name, extra.find('(', name) - name));
    }
    EXPECT_EQ(defined, expected) << target->name;
  }
}

// The global symbols an emitted builtins object defines, by name, with
// whether each is weak and hidden; a symbol it needs is a failure.
std::map<std::string, std::pair<bool, bool>> definedGlobals(const std::string &path,
                                                            const std::string &what) {
  std::map<std::string, std::pair<bool, bool>> out;
  auto objOrErr = llvm::object::ObjectFile::createObjectFile(path);
  if (!objOrErr) {
    ADD_FAILURE() << llvm::toString(objOrErr.takeError());
    return out;
  }
  auto *elf = llvm::cast<llvm::object::ELFObjectFileBase>(objOrErr->getBinary());
  for (const llvm::object::ELFSymbolRef &sym : elf->symbols()) {
    auto name = sym.getName();
    auto flags = sym.getFlags();
    if (!name || !flags) {
      ADD_FAILURE() << what << ": unreadable symbol";
      llvm::consumeError(name.takeError());
      llvm::consumeError(flags.takeError());
      continue;
    }
    if (*flags & llvm::object::SymbolRef::SF_Undefined)
      ADD_FAILURE() << what << ": builtins need '" << name->str() << "'";
    else if (*flags & llvm::object::SymbolRef::SF_Global)
      out[name->str()] = {(*flags & llvm::object::SymbolRef::SF_Weak) != 0,
                          (sym.getOther() & 3) == llvm::ELF::STV_HIDDEN};
  }
  return out;
}

// --sanitize=undefined: the instrumented builtins add UBSan's minimal
// handlers (weak, hidden; each check with its _abort variant except the two
// that never continue) and graft_ubsan_install, the only new visible symbol;
// they need nothing. Plain builtins have none of them.
TEST(Builtins, UbsanHandlersOnlyWhenAsked) {
  for (const TargetInfo *target : allTargets()) {
    ScratchDir dir;
    SourceManager sm;
    DiagEngine diag(sm);
    diag.setEcho(false);
    ASSERT_TRUE(emitBuiltinsObject(*target, dir.file("plain.o"), diag)) << diag.text();
    ASSERT_TRUE(emitBuiltinsObject(*target, dir.file("ubsan.o"), diag, true)) << diag.text();
    auto plain = definedGlobals(dir.file("plain.o"), target->name);
    auto ubsan = definedGlobals(dir.file("ubsan.o"), target->name);
    std::set<std::string> added;
    for (const auto &[name, attrs] : ubsan) {
      if (plain.count(name))
        continue;
      added.insert(name);
      if (name == "graft_ubsan_install") {
        EXPECT_FALSE(attrs.first || attrs.second) << target->name << ": " << name;
        continue;
      }
      EXPECT_EQ(name.rfind("__ubsan_handle_", 0), 0u) << name;
      EXPECT_TRUE(attrs.first && attrs.second) << target->name << ": " << name;
    }
    for (const auto &[name, attrs] : plain)
      EXPECT_TRUE(ubsan.count(name)) << name;
    EXPECT_EQ(added.size(), 22u * 2 + 2 + 1) << target->name;
    for (const char *name :
         {"graft_ubsan_install", "__ubsan_handle_add_overflow_minimal",
          "__ubsan_handle_add_overflow_minimal_abort",
          "__ubsan_handle_shift_out_of_bounds_minimal", "__ubsan_handle_type_mismatch_minimal",
          "__ubsan_handle_builtin_unreachable_minimal", "__ubsan_handle_missing_return_minimal"})
      EXPECT_TRUE(added.count(name)) << target->name << ": " << name;
    EXPECT_FALSE(added.count("__ubsan_handle_builtin_unreachable_minimal_abort"));
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

// The integer division and int64 <-> float routines 32-bit targets call
// (slice_runtime.c), linked into a host program and compared with the
// host's own instructions on edge cases and pseudo-random operands.
const char kArithmeticHarness[] = R"C(
typedef unsigned long long u64;
typedef long long i64;
typedef unsigned u32;
i64 __divdi3(i64, i64); i64 __moddi3(i64, i64);
u64 __udivdi3(u64, u64); u64 __umoddi3(u64, u64);
int __divsi3(int, int); int __modsi3(int, int);
u32 __udivsi3(u32, u32); u32 __umodsi3(u32, u32);
double __floatdidf(i64); double __floatundidf(u64);
float __floatdisf(i64); float __floatundisf(u64);
i64 __fixdfdi(double); u64 __fixunsdfdi(double);
i64 __fixsfdi(float); u64 __fixunssfdi(float);
float truncf(float); float floorf(float); float ceilf(float); float rintf(float);
float roundf(float); float fmaxf(float, float); float fminf(float, float);
double trunc(double); double floor(double); double ceil(double); double rint(double);
double round(double); double fmax(double, double); double fmin(double, double);
int printf(const char *, ...);
static u64 state = 0x9e3779b97f4a7c15ull;
static u64 next(void) {
  state ^= state << 13; state ^= state >> 7; state ^= state << 17;
  /* Mix magnitudes: small, 32-bit and full 64-bit operands. */
  switch (state & 3) {
  case 0: return state >> 58;
  case 1: return state >> 32;
  case 2: return (u64)(i64)(int)(state >> 29);
  default: return state;
  }
}
static int failures;
#define CHECK(x) do { if (!(x)) { ++failures; if (failures < 10) \
  printf("check failed at line %d: %llx %llx\n", __LINE__, a, b); } } while (0)
static void one(u64 a, u64 b) {
  i64 sa = (i64)a, sb = (i64)b;
  if (b != 0) {
    CHECK(__udivdi3(a, b) == a / b);
    CHECK(__umoddi3(a, b) == a % b);
    if (!(sa == (i64)(1ull << 63) && sb == -1)) {
      CHECK(__divdi3(sa, sb) == sa / sb);
      CHECK(__moddi3(sa, sb) == sa % sb);
    }
  }
  u32 a32 = (u32)a, b32 = (u32)b;
  if (b32 != 0) {
    CHECK(__udivsi3(a32, b32) == a32 / b32);
    CHECK(__umodsi3(a32, b32) == a32 % b32);
    if (!((int)a32 == (int)0x80000000u && (int)b32 == -1)) {
      CHECK(__divsi3((int)a32, (int)b32) == (int)a32 / (int)b32);
      CHECK(__modsi3((int)a32, (int)b32) == (int)a32 % (int)b32);
    }
  }
  CHECK(__floatdidf(sa) == (double)sa);
  CHECK(__floatundidf(a) == (double)a);
  CHECK(__floatdisf(sa) == (float)sa);
  CHECK(__floatundisf(a) == (float)a);
  double d = (double)sa / 3.0;
  CHECK(__fixdfdi(d) == (i64)d);
  float f = (float)sa / 3.0f;
  CHECK(__fixsfdi(f) == (i64)f);
  double ud = (double)a * 0.75;
  CHECK(__fixunsdfdi(ud) == (u64)ud);
  float uf = (float)a * 0.75f;
  CHECK(__fixunssfdi(uf) == (u64)uf);
  /* Rounding, against SSE4.1's ROUNDSS/ROUNDSD (-msse4.1): bit patterns,
   * so -0.0 and NaN count. round() has no instruction: checked by its
   * definition. */
  union { float f; u32 u; } fa, fb;
  union { double d; u64 u; } da, db;
  float fs[2] = {f, (float)(i64)a * 0x1p-40f};
  double ds[2] = {d, (double)sa * 0x1p-70};
  for (int k = 0; k < 2; ++k) {
#define SAME_F(x, y) (fa.f = (x), fb.f = (y), fa.u == fb.u)
#define SAME_D(x, y) (da.d = (x), db.d = (y), da.u == db.u)
    float v = fs[k];
    double w = ds[k];
    CHECK(SAME_F(truncf(v), __builtin_truncf(v)));
    CHECK(SAME_F(floorf(v), __builtin_floorf(v)));
    CHECK(SAME_F(ceilf(v), __builtin_ceilf(v)));
    CHECK(SAME_F(rintf(v), __builtin_rintf(v)));
    CHECK(SAME_D(trunc(w), __builtin_trunc(w)));
    CHECK(SAME_D(floor(w), __builtin_floor(w)));
    CHECK(SAME_D(ceil(w), __builtin_ceil(w)));
    CHECK(SAME_D(rint(w), __builtin_rint(w)));
    float rv = roundf(v);
    CHECK(rv == __builtin_truncf(v) + (v - __builtin_truncf(v) >= 0.5f) -
                    (v - __builtin_truncf(v) <= -0.5f));
    double rw = round(w);
    CHECK(rw == __builtin_trunc(w) + (w - __builtin_trunc(w) >= 0.5) -
                    (w - __builtin_trunc(w) <= -0.5));
    CHECK(fmaxf(v, 0.25f) == (v > 0.25f ? v : 0.25f));
    CHECK(fmin(w, 0.25) == (w < 0.25 ? w : 0.25));
  }
}
int main(void) {
  static const u64 edges[] = {0, 1, 2, 3, 7, 0x7fffffffull, 0x80000000ull,
    0xffffffffull, 0x100000000ull, 0x1fffffffffffffull, 0x20000000000001ull,
    0x7fffffffffffffffull, 0x8000000000000000ull, 0xffffffffffffffffull,
    0xfffffffffffffffeull, 0x8000000000000001ull, 0x123456789abcdefull};
  unsigned n = sizeof(edges) / sizeof(edges[0]);
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = 0; j < n; ++j) one(edges[i], edges[j]);
  for (int i = 0; i < 200000; ++i) { u64 a = next(); one(a, next()); }
  union { float f; u32 u; } nan = {0};
  nan.u = 0x7fc00000u;
  if (fmaxf(nan.f, 2.0f) != 2.0f || fminf(3.0f, nan.f) != 3.0f) ++failures;
  float halves[] = {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 8388607.5f, -0.0f};
  for (unsigned i = 0; i < sizeof(halves) / sizeof(halves[0]); ++i) {
    union { float f; u32 u; } x = {rintf(halves[i])}, y = {__builtin_rintf(halves[i])};
    if (x.u != y.u) ++failures;
  }
  return failures != 0;
}
)C";

TEST(Builtins, ArithmeticRoutinesMatchTheHostInstructions) {
  const TargetInfo *host = hostTarget();
  if (!host)
    GTEST_SKIP() << "no graft target for this host";
  ScratchDir dir;
  SourceManager sm;
  DiagEngine diag(sm);
  diag.setEcho(false);
  std::string builtins = dir.file("builtins.o");
  ASSERT_TRUE(emitBuiltinsObject(*host, builtins, diag)) << diag.text();
  std::string harness = dir.file("arith.c"), exe = dir.file("arith");
  test::writeText(harness, kArithmeticHarness);
  std::string output;
  ASSERT_EQ(test::run({GRAFT_TEST_CLANG, "-O1", "-msse4.1", "-fno-builtin", harness, builtins,
                       "-o", exe},
                      dir.file("cc.log"), output),
            0)
      << output;
  EXPECT_EQ(test::run({exe}, dir.file("run.log"), output), 0) << output;
}

} // namespace
} // namespace graft
