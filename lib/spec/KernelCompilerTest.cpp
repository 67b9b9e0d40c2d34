// Kernel compilation tests: C kernels for two architectures, and the checks
// on objects and bitcode (architecture, symbol, TLS, signature).
#include "spec/CallPlan.h"
#include "spec/KernelCompiler.h"
#include "spec/SpecExpr.h"

#include "graph/Parser.h"

#include <gtest/gtest.h>

#include <llvm/Support/Program.h>

#include <filesystem>
#include <fstream>

using namespace graft;

namespace {

const char *kPattern = R"(pattern @neg(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = map %x : tensor<?xf32> {
  ^bb0(%v: f32):
    %0 = neg %v : f32
    yield %0
  }
  return %r
}
)";

const char *kKernel = R"(#include "graft/kernel.h"
GRAFT_KERNEL_EXPORT void neg_kernel(const float *GRAFT_RESTRICT x,
                                    float *GRAFT_RESTRICT r, int32_t n) {
  for (int32_t i = 0; i < n; ++i)
    r[i] = -x[i];
}
)";

class KernelCompilerTest : public ::testing::Test {
protected:
  KernelCompilerTest() {
    diag.setEcho(false);
    dir = std::filesystem::temp_directory_path() /
          ("graft_kernel_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    uint32_t f = sm.add("spec.yaml", kPattern);
    rule.name = "neg";
    rule.symbol = "neg_kernel";
    rule.patternModule = parseModuleText(kPattern, f, diag, ParseOptions());
    EXPECT_TRUE(rule.patternModule && !diag.hasErrors()) << diag.text();
    rule.pattern = rule.patternModule->functions[0].get();
    rule.outputNames = {"result"};
    SpecScope scope{rule.pattern, rule.outputNames, {}};
    for (const char *a : {"x", "result", "dim(x, 0) : i32"}) {
      KernelArg arg;
      EXPECT_TRUE(parseKernelArg(a, SourceLoc(), scope, diag, arg)) << diag.text();
      rule.args.push_back(arg);
    }
  }
  ~KernelCompilerTest() override { std::filesystem::remove_all(dir); }

  // The rule's call plan with |src| as its kernel (compileKernel takes the
  // target to compile for separately).
  std::shared_ptr<const KernelCall> plan(const KernelSource &src) {
    rule.kernels = {{"x86_64", src}};
    return planKernelCall(rule, "x86_64", "", diag);
  }

  KernelSource write(const std::string &name, const std::string &text) {
    std::ofstream(dir / name) << text;
    return KernelSource{KernelSource::Kind::CSource, (dir / name).string(), {}, {}};
  }
  // Builds an object file with clang directly (what a user would hand us).
  KernelSource object(const std::string &name, const std::string &src,
                      const std::string &triple) {
    KernelSource c = write(name + ".c", src);
    std::string out = (dir / (name + ".o")).string();
    std::string clang = GRAFT_CLANG_PATH;
    std::string targetFlag = "--target=" + triple;
    KernelToolchain tc;
    std::string err;
    EXPECT_TRUE(findKernelToolchain(tc, err)) << err;
    std::string inc = "-I" + tc.includeDir;
    std::vector<llvm::StringRef> argv = {clang, targetFlag, inc, "-ffreestanding", "-O1", "-c", c.path, "-o", out};
    EXPECT_EQ(llvm::sys::ExecuteAndWait(clang, argv), 0);
    return KernelSource{KernelSource::Kind::Object, out, {}, {}};
  }
  // Everything reported, with the temp dir stripped.
  std::string errors() const {
    std::string t = diag.text(), prefix = (dir / "").string();
    for (size_t p; (p = t.find(prefix)) != std::string::npos;)
      t.erase(p, prefix.size());
    return t;
  }

  std::filesystem::path dir;
  SourceManager sm;
  DiagEngine diag{sm};
  Rule rule;
};

TEST_F(KernelCompilerTest, CompilesCForTwoArchitectures) {
  KernelSource src = write("neg.c", kKernel);
  for (const char *t : {"x86_64", "aarch64"}) {
    CompiledKernel k;
    ASSERT_TRUE(compileKernel(*plan(src), *lookupTarget(t), (dir / "work").string(), diag, k))
        << t << "\n" << diag.text();
    EXPECT_EQ(k.kind, CompiledKernel::Bitcode);
    EXPECT_TRUE(std::filesystem::exists(k.path));
    ASSERT_GE(k.bytes.size(), 4u);
    EXPECT_EQ(std::string(k.bytes.data(), 2), "BC");
    // The other architecture's check rejects it.
    const char *other = std::string(t) == "x86_64" ? "aarch64" : "x86_64";
    EXPECT_FALSE(checkKernel(k, "neg_kernel", *lookupTarget(other), "neg.bc", diag));
  }
  EXPECT_NE(errors().find("neg.bc: error: bitcode is for x86_64"), std::string::npos)
      << errors();
}

TEST_F(KernelCompilerTest, CommandLineIsFreestandingForTheTarget) {
  KernelSource src = write("neg.c", kKernel);
  src.flags = {"-O3"};
  KernelBuildOptions options;
  options.flags = {"-DFROM_BUILD=1"};
  std::vector<std::string> cmd = kernelCompileCommand(KernelToolchain{"clang-19", "/inc"}, src,
                                                      *lookupTarget("aarch64"), options, "o.bc");
  auto at = [&](const std::string &f) {
    return std::find(cmd.begin(), cmd.end(), f) - cmd.begin();
  };
  auto has = [&](const std::string &f) { return at(f) != long(cmd.size()); };
  EXPECT_EQ(cmd[0], "clang-19");
  EXPECT_TRUE(has("--target=aarch64-unknown-linux-gnu"));
  EXPECT_TRUE(has("-ffixed-x18"));
  EXPECT_TRUE(has("-ffreestanding"));
  EXPECT_TRUE(has("-emit-llvm"));
  EXPECT_TRUE(has("-fPIC"));
  EXPECT_TRUE(has("-I/inc"));
  EXPECT_TRUE(has("-fno-color-diagnostics"));
  // Spec flags come after graft's, build flags after the spec's: later wins.
  EXPECT_LT(at("-O2"), at("-O3"));
  EXPECT_LT(at("-O3"), at("-DFROM_BUILD=1"));
  // clang lists what it read, next to the output.
  EXPECT_EQ(cmd[at("-MF") + 1], "o.bc.d");
}

TEST_F(KernelCompilerTest, DependenciesIncludeHeaders) {
  std::ofstream(dir / "neg_impl.h") << "static inline float negate(float v) { return -v; }\n";
  KernelSource src = write("neg_h.c", R"(#include "graft/kernel.h"
#include "neg_impl.h"
GRAFT_KERNEL_EXPORT void neg_kernel(const float *x, float *r, int32_t n) {
  for (int32_t i = 0; i < n; ++i)
    r[i] = negate(x[i]);
}
)");
  CompiledKernel k;
  ASSERT_TRUE(compileKernel(*plan(src), *lookupTarget("x86_64"), (dir / "w").string(), diag, k))
      << diag.text();
  auto has = [&](const std::string &suffix) {
    for (const std::string &d : k.dependencies)
      if (d.size() >= suffix.size() && d.compare(d.size() - suffix.size(), suffix.size(), suffix) == 0)
        return true;
    return false;
  };
  EXPECT_TRUE(has("/neg_h.c"));
  EXPECT_TRUE(has("/neg_impl.h"));
  EXPECT_TRUE(has("/graft/kernel.h"));
}

TEST_F(KernelCompilerTest, ObjectForTheWrongArchitecture) {
  KernelSource obj = object("neg_arm", kKernel, "aarch64-unknown-linux-gnu");
  CompiledKernel k;
  EXPECT_FALSE(compileKernel(*plan(obj), *lookupTarget("x86_64"), dir.string(), diag, k));
  EXPECT_NE(errors().find("neg_arm.o: error: object is for aarch64, expected target x86_64"),
            std::string::npos)
      << errors();
  diag.setEcho(false);
  CompiledKernel k2;
  EXPECT_TRUE(compileKernel(*plan(obj), *lookupTarget("aarch64"), dir.string(), diag, k2));
  EXPECT_EQ(k2.kind, CompiledKernel::Object);
}

TEST_F(KernelCompilerTest, ObjectWithoutTheSymbol) {
  KernelSource obj = object("other", "void something_else(void) {}\n",
                            "x86_64-unknown-linux-gnu");
  CompiledKernel k;
  EXPECT_FALSE(compileKernel(*plan(obj), *lookupTarget("x86_64"), dir.string(), diag, k));
  EXPECT_NE(errors().find("other.o: error: does not define kernel symbol 'neg_kernel' "
                          "(target x86_64)"),
            std::string::npos)
      << errors();
}

TEST_F(KernelCompilerTest, SourceWithoutTheSymbol) {
  KernelSource src = write("typo.c", "void neg_kernal(void) {}\n");
  CompiledKernel k;
  EXPECT_FALSE(compileKernel(*plan(src), *lookupTarget("x86_64"), dir.string(), diag, k));
  EXPECT_NE(errors().find("typo.c: error: does not define kernel symbol 'neg_kernel'"),
            std::string::npos)
      << errors();
}

TEST_F(KernelCompilerTest, ThreadLocalIsRejected) {
  std::string src = std::string(kKernel) + "_Thread_local int counter;\n"
                                           "void bump(void) { ++counter; }\n";
  CompiledKernel k;
  EXPECT_FALSE(compileKernel(*plan(write("tls.c", src)), *lookupTarget("x86_64"),
                             dir.string(), diag, k));
  EXPECT_NE(errors().find("tls.c: error: thread-local variable 'counter' is not supported"),
            std::string::npos)
      << errors();
}

TEST_F(KernelCompilerTest, SignatureMustMatchTheArgs) {
  KernelSource src = write("short.c", "void neg_kernel(const float *x, float *r) {}\n");
  CompiledKernel k;
  EXPECT_FALSE(compileKernel(*plan(src), *lookupTarget("x86_64"), dir.string(), diag, k));
  EXPECT_NE(errors().find("short.c: error: kernel 'neg_kernel' takes 2 parameter(s), but "
                          "rule 'neg' passes 3"),
            std::string::npos)
      << errors();
}

TEST_F(KernelCompilerTest, ClangErrorsAreReported) {
  KernelSource src = write("broken.c", "void neg_kernel(const float *x {}\n");
  CompiledKernel k;
  EXPECT_FALSE(compileKernel(*plan(src), *lookupTarget("x86_64"), dir.string(), diag, k));
  std::string e = errors();
  EXPECT_NE(e.find("broken.c: error: clang failed to compile the kernel for target x86_64"),
            std::string::npos)
      << e;
  // clang's own diagnostic, with its line:col, is part of the message.
  EXPECT_NE(e.find("broken.c:1:"), std::string::npos) << e;
}

} // namespace
