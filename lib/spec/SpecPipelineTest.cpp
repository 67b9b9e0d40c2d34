// The worked example end to end inside the compiler: load specs/mlp/mlp.yaml,
// rewrite tests/e2e/inputs/mlp.graph, compile the kernel for every target.
#include "spec/CallPlan.h"
#include "spec/KernelCompiler.h"
#include "spec/Rewriter.h"
#include "spec/SpecLoader.h"

#include "graph/Parser.h"
#include "graph/Verifier.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace graft;

namespace {

std::string sourceDir() {
  const char *d = std::getenv("GRAFT_SOURCE_DIR");
  return d ? d : GRAFT_TEST_SOURCE_DIR;
}

TEST(SpecPipeline, MlpExample) {
  SourceManager sm;
  DiagEngine diag(sm);
  diag.setEcho(false);
  SpecSet specs;
  ASSERT_TRUE(loadSpecFile(sourceDir() + "/specs/mlp/mlp.yaml", sm, diag, specs))
      << diag.text();
  std::ifstream in(sourceDir() + "/tests/e2e/inputs/mlp.graph");
  std::stringstream ss;
  ss << in.rdbuf();
  uint32_t f = sm.add("mlp.graph", ss.str());
  auto m = parseModule(sm, f, diag);
  ASSERT_TRUE(m && verifyModule(*m, diag)) << diag.text();

  RewriteReport report;
  ASSERT_EQ(applySpecs(*m, specs, "x86_64", diag, &report), 1u) << report.explainText;
  const std::string &ex = report.explainText;
  EXPECT_NE(ex.find("@mlp: rule 'mlp_relu' matched at %relu = map (mlp.graph:11:11)"),
            std::string::npos)
      << ex;
  EXPECT_NE(ex.find("inputs: %lhs = %lhs, %rhs = %rhs, %init = %empty"), std::string::npos)
      << ex;
  EXPECT_NE(ex.find("did not match at %neg = map (mlp.graph:16:10): op kind mismatch at "
                    "%relu: expected matmul, found map"),
            std::string::npos)
      << ex;
  std::string printed = printFunction(*m->functions[0]);
  EXPECT_NE(printed.find("kernel_call"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("matmul"), std::string::npos) << printed;

  const Rule &rule = *specs.rules[0];
  std::string work = (std::filesystem::temp_directory_path() /
                      ("graft_spec_pipeline_" + std::to_string(::getpid())))
                         .string();
  // Every target the spec has a kernel for (the others fall back to
  // compiled code; spec_examples.sh checks that end to end).
  EXPECT_FALSE(rule.kernels.empty());
  for (const auto &[name, source] : rule.kernels) {
    const TargetInfo *t = lookupTarget(name);
    ASSERT_TRUE(t) << name;
    CompiledKernel k;
    EXPECT_TRUE(compileKernel(*planKernelCall(rule, name, "", diag), *t, work, diag, k))
        << name << "\n" << diag.text();
  }
  std::filesystem::remove_all(work);
}

} // namespace
