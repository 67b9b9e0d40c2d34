// Spec loader tests: a valid spec, and errors (each checked for its message
// and its file:line:col in the YAML file).
#include "spec/SpecLoader.h"
#include "spec/SpecExpr.h"
#include "targets/Target.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace graft;

namespace {

const char *kPattern = R"(      pattern @mlp(%lhs: tensor<?x?xf32>, %rhs: tensor<?x?xf32>, %init: tensor<?x?xf32>) -> tensor<?x?xf32> {
        %cst = constant 0.0 : f32
        %fill = fill %cst, %init : tensor<?x?xf32>
        %mm = matmul %lhs, %rhs, %fill : tensor<?x?xf32>
        %relu = map %mm : tensor<?x?xf32> {
        ^bb0(%x: f32):
          %0 = max %x, %cst : f32
          yield %0
        }
        return %relu
      }
)";

class SpecLoaderTest : public ::testing::Test {
protected:
  SpecLoaderTest() {
    diag.setEcho(false);
    dir = std::filesystem::temp_directory_path() /
          ("graft_spec_loader_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "k.c") << "void mlp_kernel(void) {}\n";
  }
  ~SpecLoaderTest() override { std::filesystem::remove_all(dir); }

  // A spec with one rule; |replace| is the body of `replace:`.
  static std::string spec(const std::string &replace, const std::string &pattern = kPattern,
                          const std::string &where = "") {
    return "graft-spec: 1\nrules:\n  - name: mlp_relu\n    match: |\n" + pattern + where +
           "    replace:\n" + replace;
  }
  static std::string goodReplace() {
    return "      call: mlp_kernel\n"
           "      outputs: [result]\n"
           "      args: [lhs, rhs, result, \"dim(lhs, 0) : i32\", \"dim(rhs, 1) : i32\", "
           "\"dim(lhs, 1) : i32\"]\n"
           "      grid: [1, \"ceildiv(dim(result, 0), 64)\"]\n"
           "      kernels:\n"
           "        x86_64: {source: k.c, flags: [-O3]}\n";
  }

  bool load(const std::string &text) {
    std::string path = (dir / "spec.yaml").string();
    std::ofstream(path) << text;
    return loadSpecFile(path, sm, diag, specs);
  }
  // "spec.yaml:L:C: error: msg" with the temp path stripped.
  std::string firstError() const {
    std::string t = diag.text();
    std::string prefix = (dir / "").string();
    size_t p = t.find(prefix);
    if (p != std::string::npos)
      t.erase(p, prefix.size());
    return t.substr(0, t.find('\n'));
  }
  // 1-based line:col of the first occurrence of |needle| in |text|.
  static std::string where(const std::string &text, const std::string &needle) {
    size_t p = text.find(needle);
    size_t line = 1 + std::count(text.begin(), text.begin() + p, '\n');
    size_t col = p - (text.rfind('\n', p) + 1) + 1;
    return std::to_string(line) + ":" + std::to_string(col);
  }

  std::filesystem::path dir;
  SourceManager sm;
  DiagEngine diag{sm};
  SpecSet specs;
};

TEST_F(SpecLoaderTest, LoadsTheMlpRule) {
  ASSERT_TRUE(load(spec(goodReplace(), kPattern,
                        "    where:\n"
                        "      - divisible: {value: \"dim(lhs, 1)\", by: 4}\n"
                        "      - range: {value: \"dim(lhs, 0)\", min: 1, max: 4096}\n"
                        "      - element_types: {of: lhs, in: [f32, f64]}\n")))
      << diag.text();
  ASSERT_EQ(specs.rules.size(), 1u);
  const Rule &r = *specs.rules[0];
  EXPECT_EQ(r.name, "mlp_relu");
  ASSERT_NE(r.pattern, nullptr);
  EXPECT_TRUE(r.pattern->isPattern);
  EXPECT_EQ(r.pattern->args.size(), 3u);
  EXPECT_EQ(r.form, KernelForm::Call);
  EXPECT_EQ(r.symbol, "mlp_kernel");
  EXPECT_EQ(r.outputNames, std::vector<std::string>{"result"});
  ASSERT_EQ(r.args.size(), 6u);
  EXPECT_EQ(r.args[0].kind, KernelArg::Kind::Tensor);
  EXPECT_EQ(r.args[0].input, 0);
  EXPECT_EQ(r.args[2].kind, KernelArg::Kind::Tensor);
  EXPECT_EQ(r.args[2].output, 0);
  EXPECT_EQ(r.args[3].kind, KernelArg::Kind::Expr);
  EXPECT_EQ(r.args[3].type, DType::I32);
  EXPECT_EQ(r.args[3].expr.kind, SpecExpr::Kind::Dim);
  EXPECT_EQ(r.args[4].expr.input, 1);
  EXPECT_EQ(r.args[4].expr.axis, 1);
  SpecScope scope{r.pattern, r.outputNames, {}};
  EXPECT_EQ(formatSpecExpr(r.grid[0], scope), "1");
  EXPECT_EQ(formatSpecExpr(r.grid[1], scope), "ceildiv(dim(result, 0), 64)");
  EXPECT_EQ(formatSpecExpr(r.grid[2], scope), "1");
  ASSERT_TRUE(r.hasKernelFor("x86_64"));
  EXPECT_FALSE(r.hasKernelFor("aarch64"));
  EXPECT_EQ(r.kernels.at("x86_64").path, (dir / "k.c").string());
  EXPECT_EQ(r.kernels.at("x86_64").flags, std::vector<std::string>{"-O3"});
  ASSERT_EQ(r.constraints.size(), 3u);
  EXPECT_EQ(r.constraints[0].divisor, 4);
  EXPECT_EQ(r.constraints[1].max, 4096);
  EXPECT_EQ(r.constraints[2].types.size(), 2u);
}

TEST_F(SpecLoaderTest, MemrefAndWorkgroupArgs) {
  std::string replace = "      call: mlp_kernel\n"
                        "      args: [\"memref(lhs)\", \"workgroup_id(0) : i32\", "
                        "\"workgroup_count(1)\", \"max(dim(lhs, 0) - 1, 0) : i64\", result]\n"
                        "      kernels:\n        x86_64: {source: k.c}\n";
  ASSERT_TRUE(load(spec(replace))) << diag.text();
  const Rule &r = *specs.rules[0];
  ASSERT_EQ(r.args.size(), 5u);
  EXPECT_EQ(r.args[0].kind, KernelArg::Kind::Memref);
  EXPECT_EQ(r.args[1].kind, KernelArg::Kind::Expr);
  EXPECT_EQ(r.args[1].expr.kind, SpecExpr::Kind::WorkgroupId);
  EXPECT_EQ(r.args[1].type, DType::I32);
  EXPECT_EQ(r.args[2].expr.kind, SpecExpr::Kind::WorkgroupCount);
  EXPECT_EQ(r.args[2].expr.axis, 1);
  EXPECT_EQ(r.args[2].type, DType::Index);
  EXPECT_TRUE(r.args[2].expr.perWorkgroup());
  EXPECT_FALSE(r.args[3].expr.perWorkgroup());
  EXPECT_EQ(r.args[3].type, DType::I64);
  EXPECT_EQ(formatSpecExpr(r.args[3].expr, SpecScope{r.pattern, r.outputNames, {}}),
            "max((dim(lhs, 0) - 1), 0)");
  EXPECT_EQ(r.outputNames, std::vector<std::string>{"result"}); // the default
}

TEST_F(SpecLoaderTest, BadYaml) {
  EXPECT_FALSE(load("graft-spec: 1\nrules: [\n  {name: x\n"));
  EXPECT_EQ(firstError().rfind("spec.yaml:", 0), 0u) << diag.text();
  EXPECT_NE(firstError().find(": error: invalid YAML: "), std::string::npos) << diag.text();
}

TEST_F(SpecLoaderTest, UnknownKey) {
  std::string text = spec(goodReplace() + "      grd: [1]\n");
  EXPECT_FALSE(load(text));
  EXPECT_EQ(firstError(), "spec.yaml:" + where(text, "grd") +
                              ": error: unknown key 'grd' in replace; expected one of: call, "
                              "dispatch, link, returns, outputs, args, constants, grid, workgroup_size, kernels");
}

TEST_F(SpecLoaderTest, UnknownArgumentName) {
  std::string replace = goodReplace();
  replace.replace(replace.find("rhs, result"), 3, "rhz");
  std::string text = spec(replace);
  EXPECT_FALSE(load(text));
  EXPECT_EQ(firstError(), "spec.yaml:" + where(text, "rhz") +
                              ": error: unknown name 'rhz'; expected a pattern argument or "
                              "output name");
}

TEST_F(SpecLoaderTest, BadExpression) {
  std::string replace = goodReplace();
  replace.replace(replace.find("ceildiv(dim(result, 0), 64)"), 27, "dim(result, 0) +");
  std::string text = spec(replace);
  EXPECT_FALSE(load(text));
  // Points just past the '+', at the end of the quoted text.
  std::string at = where(text, "dim(result, 0) +\"");
  size_t colon = at.find(':');
  std::string expected = at.substr(0, colon) + ":" +
                         std::to_string(std::stoi(at.substr(colon + 1)) + 16);
  EXPECT_EQ(firstError(), "spec.yaml:" + expected +
                              ": error: expected an integer, a name or '(', found end of "
                              "expression");
}

// Found by fuzz_spec: 50000 nested parentheses overflowed the stack of the
// recursive-descent parser. Deep or long expressions are now an error.
TEST_F(SpecLoaderTest, DeeplyNestedExpression) {
  std::string replace = goodReplace();
  replace.replace(replace.find("ceildiv(dim(result, 0), 64)"), 27,
                  std::string(50000, '(') + "1" + std::string(50000, ')'));
  EXPECT_FALSE(load(spec(replace)));
  EXPECT_NE(firstError().find(": error: expression is too complex: more than 1000 "
                              "operators, calls and parentheses"),
            std::string::npos)
      << firstError();
}

// A flat chain "1+1+...+1" builds a tree as deep as it is long.
TEST_F(SpecLoaderTest, LongExpressionChain) {
  std::string expr = "1";
  for (int i = 0; i < 25000; ++i)
    expr += "+1";
  std::string replace = goodReplace();
  replace.replace(replace.find("ceildiv(dim(result, 0), 64)"), 27, expr);
  EXPECT_FALSE(load(spec(replace)));
  EXPECT_NE(firstError().find(": error: expression is too complex"), std::string::npos)
      << firstError();
}

TEST_F(SpecLoaderTest, DimAxisOutOfRange) {
  std::string replace = goodReplace();
  replace.replace(replace.find("dim(lhs, 0) : i32"), 11, "dim(lhs, 2)");
  std::string text = spec(replace);
  EXPECT_FALSE(load(text));
  std::string at = where(text, "dim(lhs, 2)");
  EXPECT_EQ(firstError(), "spec.yaml:" + at.substr(0, at.find(':')) + ":" +
                              std::to_string(std::stoi(at.substr(at.find(':') + 1)) + 9) +
                              ": error: axis 2 out of range for 'lhs' of rank 2");
}

TEST_F(SpecLoaderTest, PatternErrorPointsIntoTheYaml) {
  std::string pattern = kPattern;
  pattern.replace(pattern.find("%rhs, %fill"), 4, "%rhz");
  std::string text = spec(goodReplace(), pattern);
  EXPECT_FALSE(load(text));
  EXPECT_EQ(firstError().rfind("spec.yaml:" + where(text, "%rhz") + ": error: ", 0), 0u)
      << diag.text();
  // The caret line shows the YAML line.
  EXPECT_NE(diag.text().find("        %mm = matmul %lhs, %rhz, %fill"), std::string::npos)
      << diag.text();
}

TEST_F(SpecLoaderTest, PatternErrorInStrippedBlockScalar) {
  std::string text = "graft-spec: 1\nrules:\n  - name: r\n    match: |-\n\n"
                     "        pattern @p(%x: tensor<?xf32>) -> tensor<?xf32> {\n"
                     "          return %y\n"
                     "        }\n"
                     "    replace:\n      call: k\n      args: [x]\n"
                     "      kernels: {x86_64: {source: k.c}}\n";
  EXPECT_FALSE(load(text));
  EXPECT_EQ(firstError().rfind("spec.yaml:" + where(text, "%y") + ": error: ", 0), 0u)
      << diag.text();
}

TEST_F(SpecLoaderTest, PatternMustReachEveryOp) {
  std::string pattern = kPattern;
  pattern.insert(pattern.find("        return"),
                 "        %stray = fill %cst, %init : tensor<?x?xf32>\n");
  std::string text = spec(goodReplace(), pattern);
  EXPECT_FALSE(load(text));
  EXPECT_EQ(firstError().rfind("spec.yaml:" + where(text, "fill %cst, %init : tensor<?x?xf32>\n        return"), 0), 0u)
      << diag.text();
  EXPECT_NE(firstError().find("pattern op %stray does not feed the pattern root"),
            std::string::npos);
}

TEST_F(SpecLoaderTest, VersionIsRequired) {
  EXPECT_FALSE(load("rules: []\n"));
  EXPECT_EQ(firstError(), "spec.yaml:1:1: error: missing 'graft-spec: 1' (the spec format "
                          "version)");
}

TEST_F(SpecLoaderTest, VersionMustBeOne) {
  EXPECT_FALSE(load("graft-spec: 2\nrules: []\n"));
  EXPECT_EQ(firstError(), "spec.yaml:1:13: error: unsupported spec format version 2; this "
                          "graft reads version 1");
}

TEST_F(SpecLoaderTest, MissingKernelFile) {
  std::string replace = goodReplace();
  replace.replace(replace.find("k.c"), 3, "nope.c");
  std::string text = spec(replace);
  EXPECT_FALSE(load(text));
  EXPECT_EQ(firstError(), "spec.yaml:" + where(text, "nope.c") +
                              ": error: kernel source 'nope.c' not found (looked for " +
                              (dir / "nope.c").string() + ")");
}

TEST_F(SpecLoaderTest, UnknownTarget) {
  std::string replace = goodReplace() + "        sparc: {source: k.c}\n";
  std::string text = spec(replace);
  EXPECT_FALSE(load(text));
  std::string levels;
  for (const TargetInfo *t : allTargets())
    for (const FeatureLevel &l : t->levels)
      levels += std::string(levels.empty() ? "" : ", ") + l.name;
  EXPECT_EQ(firstError(), "spec.yaml:" + where(text, "sparc") +
                              ": error: unknown target 'sparc'; expected one of: " +
                              targetNames() + ", or a feature level: " + levels);
}

// A kernel may be given per feature level: it serves that level and the
// ones above it up to the next named level; the target's entry serves the
// levels below.
TEST_F(SpecLoaderTest, KernelPerLevel) {
  std::string replace = goodReplace() + "        x86-64-v3: {source: k.c, flags: [-DV3]}\n";
  ASSERT_TRUE(load(spec(replace)));
  const Rule &r = *specs.rules[0];
  ASSERT_TRUE(r.kernelFor("x86_64"));
  EXPECT_EQ(r.kernelFor("x86_64")->flags, std::vector<std::string>{"-O3"});
  EXPECT_EQ(r.kernelFor("x86_64", "x86-64-v2"), r.kernelFor("x86_64"));
  ASSERT_TRUE(r.kernelFor("x86_64", "x86-64-v3"));
  EXPECT_EQ(r.kernelFor("x86_64", "x86-64-v3")->flags, std::vector<std::string>{"-DV3"});
  EXPECT_EQ(r.kernelFor("x86_64", "x86-64-v4"), r.kernelFor("x86_64", "x86-64-v3"));
  EXPECT_EQ(r.kernelFor("aarch64", "armv8.2-a+dotprod"), nullptr);
}

TEST_F(SpecLoaderTest, DuplicateRuleAcrossFiles) {
  ASSERT_TRUE(load(spec(goodReplace()))) << diag.text();
  EXPECT_FALSE(load(spec(goodReplace())));
  EXPECT_NE(firstError().find("error: duplicate rule name 'mlp_relu'; first defined at"),
            std::string::npos)
      << diag.text();
}

TEST_F(SpecLoaderTest, OutputCountMustMatchPattern) {
  std::string replace = goodReplace();
  replace.replace(replace.find("[result]"), 8, "[a, b]");
  std::string text = spec(replace);
  EXPECT_FALSE(load(text));
  EXPECT_EQ(firstError(), "spec.yaml:" + where(text, "[a, b]") +
                              ": error: expected 1 output name(s), one per pattern result, "
                              "found 2");
}

TEST_F(SpecLoaderTest, DispatchFormTakesConstants) {
  std::string replace = "      dispatch: mlp_dispatch\n"
                        "      constants: [\"dim(lhs, 0)\", \"dim(rhs, 1)\"]\n"
                        "      grid: [\"ceildiv(dim(lhs, 0), 8)\"]\n"
                        "      kernels:\n        aarch64: {source: k.c}\n";
  ASSERT_TRUE(load(spec(replace))) << diag.text();
  const Rule &r = *specs.rules[0];
  EXPECT_EQ(r.form, KernelForm::Dispatch);
  EXPECT_EQ(r.constants.size(), 2u);
  EXPECT_TRUE(r.args.empty());
  EXPECT_TRUE(r.hasKernelFor("aarch64"));
}

} // namespace
