// Matcher and rewriter tests: patterns and payloads written in graph syntax,
// rules built directly (the loader has its own tests).
#include "spec/Matcher.h"
#include "spec/Rewriter.h"
#include "spec/SpecExpr.h"

#include "graph/Parser.h"
#include "graph/Verifier.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace graft;

namespace {

const char *kMlpPattern = R"(
pattern @mlp(%lhs: tensor<?x?xf32>, %rhs: tensor<?x?xf32>, %init: tensor<?x?xf32>) -> tensor<?x?xf32> {
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

// The seed MLP with a configurable relu constant and capture.
std::string mlpGraph(const std::string &reluConst = "%cst", const std::string &extra = "",
                     const std::string &ret = "%neg") {
  return R"(
func @mlp(%lhs: tensor<?x?xf32>, %rhs: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %cst = constant 0.0 : f32
  %one = constant 1.0 : f32
  %zero2 = constant 0.0 : f32
  %m = dim %lhs {axis = 0} : index
  %n = dim %rhs {axis = 1} : index
  %empty = empty %m, %n : tensor<?x?xf32>
  %fill = fill %cst, %empty : tensor<?x?xf32>
  %mm = matmul %lhs, %rhs, %fill : tensor<?x?xf32>
  %relu = map %mm : tensor<?x?xf32> {
  ^bb0(%x: f32):
    %0 = max %x, )" + reluConst + R"( : f32
    yield %0
  }
  %neg = map %relu : tensor<?x?xf32> {
  ^bb0(%x: f32):
    %0 = neg %x : f32
    yield %0
  }
)" + extra + "  return " + ret + "\n}\n";
}

class MatcherTest : public ::testing::Test {
protected:
  MatcherTest() { diag.setEcho(false); }

  Module *parse(const std::string &text) {
    uint32_t f = sm.add("t" + std::to_string(modules.size()) + ".graph", text);
    auto m = parseModule(sm, f, diag);
    EXPECT_TRUE(m && !diag.hasErrors()) << diag.text();
    if (!m)
      return nullptr;
    EXPECT_TRUE(verifyModule(*m, diag)) << diag.text();
    modules.push_back(std::move(m));
    return modules.back().get();
  }

  // A rule whose pattern is |text|, with a kernel for x86_64 only.
  Rule &addRule(const std::string &name, const std::string &text) {
    auto rule = std::make_unique<Rule>();
    rule->name = name;
    uint32_t f = sm.add(name + ".yaml", text);
    rule->patternModule = parseModuleText(text, f, diag, ParseOptions());
    EXPECT_TRUE(rule->patternModule && !diag.hasErrors()) << diag.text();
    EXPECT_TRUE(verifyModule(*rule->patternModule, diag)) << diag.text();
    rule->pattern = rule->patternModule->functions[0].get();
    for (size_t i = 0; i < rule->pattern->results.size(); ++i)
      rule->outputNames.push_back("result" + std::to_string(i));
    rule->symbol = name;
    rule->kernels["x86_64"] = KernelSource{KernelSource::Kind::CSource, "k.c", {}, {}};
    specs.rules.push_back(std::move(rule));
    return *specs.rules.back();
  }

  static Op *opNamed(Function &fn, const std::string &name) {
    for (Op *op : fn.ops)
      if (op->result() && op->result()->name == name)
        return op;
    return nullptr;
  }
  static Value *argNamed(Function &fn, const std::string &name) {
    for (Value *a : fn.args)
      if (a->name == name)
        return a;
    return nullptr;
  }

  SourceManager sm;
  DiagEngine diag{sm};
  std::vector<std::unique_ptr<Module>> modules;
  SpecSet specs;
};

TEST(CastCompatible, DynamicPatternAcceptsStaticPayload) {
  Type pat = Type::tensorOf(DType::F32, {kDynamic, 4});
  EXPECT_TRUE(castCompatible(pat, Type::tensorOf(DType::F32, {8, 4})));
  EXPECT_TRUE(castCompatible(pat, Type::tensorOf(DType::F32, {kDynamic, 4})));
  // A static pattern size needs the same static size, not a '?'.
  EXPECT_FALSE(castCompatible(Type::tensorOf(DType::F32, {8, 4}), Type::tensorOf(DType::F32, {kDynamic, 4})));
  EXPECT_FALSE(castCompatible(pat, Type::tensorOf(DType::F32, {8, 5})));
  EXPECT_FALSE(castCompatible(pat, Type::tensorOf(DType::F64, {8, 4})));
  EXPECT_FALSE(castCompatible(pat, Type::tensorOf(DType::F32, {8, 4, 1})));
  EXPECT_FALSE(castCompatible(Type::scalar(DType::F32), Type::tensorOf(DType::F32, {})));
  EXPECT_TRUE(castCompatible(Type::scalar(DType::F32), Type::scalar(DType::F32)));
}

TEST_F(MatcherTest, MatchesSeedMlp) {
  Function &fn = *parse(mlpGraph())->functions[0];
  Rule &rule = addRule("mlp_relu", kMlpPattern);
  Match m;
  MatchFailure f;
  ASSERT_TRUE(matchRule(rule, opNamed(fn, "relu"), m, f)) << f.why;
  ASSERT_EQ(m.inputs.size(), 3u);
  EXPECT_EQ(m.inputs[0], argNamed(fn, "lhs"));
  EXPECT_EQ(m.inputs[1], argNamed(fn, "rhs"));
  EXPECT_EQ(m.inputs[2], opNamed(fn, "empty")->result());
  ASSERT_EQ(m.outputs.size(), 1u);
  EXPECT_EQ(m.outputs[0], opNamed(fn, "relu")->result());
  EXPECT_EQ(m.ops.size(), 4u); // cst, fill, matmul, relu
  for (const char *name : {"cst", "fill", "mm", "relu"})
    EXPECT_NE(std::find(m.ops.begin(), m.ops.end(), opNamed(fn, name)), m.ops.end()) << name;
}

TEST_F(MatcherTest, KindMismatchAtRootSaysWhatItFound) {
  Function &fn = *parse(mlpGraph())->functions[0];
  Rule &rule = addRule("mlp_relu", kMlpPattern);
  Match m;
  std::string why;
  SourceLoc where;
  EXPECT_FALSE(matchRule(rule, opNamed(fn, "mm"), m, why, where));
  EXPECT_EQ(why, "op kind mismatch at %mm: expected map, found matmul");
  EXPECT_EQ(where.line, opNamed(fn, "mm")->loc.line);
}

TEST_F(MatcherTest, BodyMismatchAtNeg) {
  Function &fn = *parse(mlpGraph())->functions[0];
  Rule &rule = addRule("mlp_relu", kMlpPattern);
  Match m;
  MatchFailure f;
  // neg's producer is relu (a map), not matmul.
  EXPECT_FALSE(matchRule(rule, opNamed(fn, "neg"), m, f));
  EXPECT_EQ(f.why, "op kind mismatch at %relu: expected matmul, found map");
}

// An attribute written as an identifier matches the same text as a string.
TEST_F(MatcherTest, IdentifierAndStringAttributesAreTheSame) {
  Function &fn = *parse(R"(
func @f(%x: tensor<?x4xf32>) -> (tensor<?x6xf32>, tensor<?x6xf32>) {
  %e = pad %x {low = [0, 1], high = [0, 1], mode = "edge"} : tensor<?x6xf32>
  %r = pad %x {low = [0, 1], high = [0, 1], mode = reflect} : tensor<?x6xf32>
  return %e, %r
}
)")->functions[0];
  Rule &rule = addRule("edge", R"(
pattern @p(%x: tensor<?x4xf32>) -> tensor<?x6xf32> {
  %e = pad %x {low = [0, 1], high = [0, 1], mode = edge} : tensor<?x6xf32>
  return %e
}
)");
  Match m;
  MatchFailure f;
  EXPECT_TRUE(matchRule(rule, opNamed(fn, "e"), m, f)) << f.why;
  EXPECT_FALSE(matchRule(rule, opNamed(fn, "r"), m, f));
  EXPECT_EQ(f.why, "attribute mismatch at %r: expected mode = edge, found mode = reflect");
}

TEST_F(MatcherTest, StaticPayloadMatchesDynamicPattern) {
  const char *graph = R"(
func @f(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x5xf32> {
  %cst = constant 0.0 : f32
  %e = empty : tensor<2x5xf32>
  %fill = fill %cst, %e : tensor<2x5xf32>
  %mm = matmul %a, %b, %fill : tensor<2x5xf32>
  %relu = map %mm : tensor<2x5xf32> {
  ^bb0(%x: f32):
    %0 = max %x, %cst : f32
    yield %0
  }
  return %relu
}
)";
  Function &fn = *parse(graph)->functions[0];
  Rule &rule = addRule("mlp_relu", kMlpPattern);
  Match m;
  MatchFailure f;
  EXPECT_TRUE(matchRule(rule, opNamed(fn, "relu"), m, f)) << f.why;
}

TEST_F(MatcherTest, StaticPatternRejectsDynamicPayload) {
  const char *pattern = R"(
pattern @p(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = map %x : tensor<4xf32> {
  ^bb0(%v: f32):
    %0 = neg %v : f32
    yield %0
  }
  return %r
}
)";
  const char *graph = R"(
func @f(%x: tensor<?xf32>, %y: tensor<4xf32>) -> (tensor<?xf32>, tensor<4xf32>) {
  %r = map %x : tensor<?xf32> {
  ^bb0(%v: f32):
    %0 = neg %v : f32
    yield %0
  }
  %s = map %y : tensor<4xf32> {
  ^bb0(%v: f32):
    %0 = neg %v : f32
    yield %0
  }
  return %r, %s
}
)";
  Function &fn = *parse(graph)->functions[0];
  Rule &rule = addRule("neg4", pattern);
  Match m;
  MatchFailure f;
  EXPECT_FALSE(matchRule(rule, opNamed(fn, "r"), m, f));
  EXPECT_EQ(f.why, "type mismatch at %r: expected tensor<4xf32>, found tensor<?xf32>");
  EXPECT_TRUE(matchRule(rule, opNamed(fn, "s"), m, f)) << f.why;
}

const char *kDiamondPattern = R"(
pattern @p(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = map %x : tensor<?xf32> {
  ^bb0(%v: f32):
    %0 = neg %v : f32
    yield %0
  }
  %b = map %a, %a : tensor<?xf32> {
  ^bb0(%u: f32, %w: f32):
    %0 = add %u, %w : f32
    yield %0
  }
  return %b
}
)";

std::string diamondGraph(const std::string &second) {
  return R"(
func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a1 = map %x : tensor<?xf32> {
  ^bb0(%v: f32):
    %0 = neg %v : f32
    yield %0
  }
  %a2 = map %x : tensor<?xf32> {
  ^bb0(%v: f32):
    %0 = neg %v : f32
    yield %0
  }
  %b = map %a1, )" + second + R"( : tensor<?xf32> {
  ^bb0(%u: f32, %w: f32):
    %0 = add %u, %w : f32
    yield %0
  }
  return %b
}
)";
}

TEST_F(MatcherTest, DagMismatchWhenSharedProducerIsDuplicated) {
  Function &fn = *parse(diamondGraph("%a2"))->functions[0];
  Rule &rule = addRule("diamond", kDiamondPattern);
  Match m;
  MatchFailure f;
  EXPECT_FALSE(matchRule(rule, opNamed(fn, "b"), m, f));
  EXPECT_NE(f.why.find("dag mismatch"), std::string::npos) << f.why;
}

TEST_F(MatcherTest, DagMatchesWhenProducerIsShared) {
  Function &fn = *parse(diamondGraph("%a1"))->functions[0];
  Rule &rule = addRule("diamond", kDiamondPattern);
  Match m;
  MatchFailure f;
  ASSERT_TRUE(matchRule(rule, opNamed(fn, "b"), m, f)) << f.why;
  EXPECT_EQ(m.ops.size(), 2u);
  EXPECT_EQ(m.inputs[0], argNamed(fn, "x"));
}

TEST_F(MatcherTest, ConflictingInputBindings) {
  const char *pattern = R"(
pattern @p(%x: tensor<?xf32>) -> tensor<?xf32> {
  %b = map %x, %x : tensor<?xf32> {
  ^bb0(%u: f32, %w: f32):
    %0 = add %u, %w : f32
    yield %0
  }
  return %b
}
)";
  const char *graph = R"(
func @f(%p: tensor<?xf32>, %q: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %b = map %p, %q : tensor<?xf32> {
  ^bb0(%u: f32, %w: f32):
    %0 = add %u, %w : f32
    yield %0
  }
  %c = map %p, %p : tensor<?xf32> {
  ^bb0(%u: f32, %w: f32):
    %0 = add %u, %w : f32
    yield %0
  }
  return %b, %c
}
)";
  Function &fn = *parse(graph)->functions[0];
  Rule &rule = addRule("double", pattern);
  Match m;
  MatchFailure f;
  EXPECT_FALSE(matchRule(rule, opNamed(fn, "b"), m, f));
  EXPECT_NE(f.why.find("conflicting bindings for %x"), std::string::npos) << f.why;
  EXPECT_TRUE(matchRule(rule, opNamed(fn, "c"), m, f)) << f.why;
}

TEST_F(MatcherTest, CaptureMustBeTheMatchedConstant) {
  // relu captures 1.0 where the pattern captures the 0.0 that fills.
  Function &fn = *parse(mlpGraph("%one"))->functions[0];
  Rule &rule = addRule("mlp_relu", kMlpPattern);
  Match m;
  MatchFailure f;
  EXPECT_FALSE(matchRule(rule, opNamed(fn, "relu"), m, f));
  EXPECT_NE(f.why.find("constant mismatch"), std::string::npos) << f.why;
}

TEST_F(MatcherTest, CaptureOfAnEqualConstantMatches) {
  // Documented decision: constants compare by value, so a second 0.0 does.
  Function &fn = *parse(mlpGraph("%zero2"))->functions[0];
  Rule &rule = addRule("mlp_relu", kMlpPattern);
  Match m;
  MatchFailure f;
  ASSERT_TRUE(matchRule(rule, opNamed(fn, "relu"), m, f)) << f.why;
  EXPECT_NE(std::find(m.ops.begin(), m.ops.end(), opNamed(fn, "zero2")), m.ops.end());
}

TEST_F(MatcherTest, CaptureOfAnArgumentDoesNotMatchAConstant) {
  const char *graph = R"(
func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %init: tensor<?x?xf32>, %s: f32) -> tensor<?x?xf32> {
  %cst = constant 0.0 : f32
  %fill = fill %cst, %init : tensor<?x?xf32>
  %mm = matmul %a, %b, %fill : tensor<?x?xf32>
  %relu = map %mm : tensor<?x?xf32> {
  ^bb0(%x: f32):
    %0 = max %x, %s : f32
    yield %0
  }
  return %relu
}
)";
  Function &fn = *parse(graph)->functions[0];
  Rule &rule = addRule("mlp_relu", kMlpPattern);
  Match m;
  MatchFailure f;
  EXPECT_FALSE(matchRule(rule, opNamed(fn, "relu"), m, f));
  EXPECT_NE(f.why.find("found argument %s"), std::string::npos) << f.why;
}

TEST_F(MatcherTest, BodyOpMismatch) {
  const char *pattern = R"(
pattern @p(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = map %x : tensor<?xf32> {
  ^bb0(%v: f32):
    %0 = exp %v : f32
    yield %0
  }
  return %r
}
)";
  const char *graph = R"(
func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = map %x : tensor<?xf32> {
  ^bb0(%v: f32):
    %0 = neg %v : f32
    yield %0
  }
  return %r
}
)";
  Function &fn = *parse(graph)->functions[0];
  Rule &rule = addRule("exp", pattern);
  Match m;
  MatchFailure f;
  EXPECT_FALSE(matchRule(rule, opNamed(fn, "r"), m, f));
  EXPECT_EQ(f.why, "body mismatch in %r: op kind mismatch at %0: expected exp, found neg");
  EXPECT_EQ(f.patternLoc.line, 5u);
  EXPECT_EQ(f.payloadLoc.line, 5u);
}

TEST_F(MatcherTest, AttributeMismatch) {
  const char *pattern = R"(
pattern @p(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %r = reduce %x {dims = [1], kind = sum} : tensor<?xf32>
  return %r
}
)";
  const char *graph = R"(
func @f(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %a = reduce %x {dims = [1], kind = max} : tensor<?xf32>
  %b = reduce %x {dims = [0], kind = sum} : tensor<?xf32>
  %c = reduce %x {dims = [1], kind = sum} : tensor<?xf32>
  return %a, %b, %c
}
)";
  Function &fn = *parse(graph)->functions[0];
  Rule &rule = addRule("rowsum", pattern);
  Match m;
  MatchFailure f;
  EXPECT_FALSE(matchRule(rule, opNamed(fn, "a"), m, f));
  EXPECT_EQ(f.why, "attribute mismatch at %a: expected kind = sum, found kind = max");
  EXPECT_FALSE(matchRule(rule, opNamed(fn, "b"), m, f));
  EXPECT_EQ(f.why, "attribute mismatch at %b: expected dims = [1], found dims = [0]");
  EXPECT_TRUE(matchRule(rule, opNamed(fn, "c"), m, f)) << f.why;
}

TEST_F(MatcherTest, ConstantValueMismatchInFill) {
  std::string graph = mlpGraph();
  // Fill with 1.0 instead of 0.0 (and relu captures 1.0 too).
  size_t p = graph.find("fill %cst");
  graph.replace(p, 9, "fill %one");
  p = graph.find("max %x, %cst");
  graph.replace(p, 12, "max %x, %one");
  Function &fn = *parse(graph)->functions[0];
  Rule &rule = addRule("mlp_relu", kMlpPattern);
  Match m;
  MatchFailure f;
  EXPECT_FALSE(matchRule(rule, opNamed(fn, "relu"), m, f));
  EXPECT_EQ(f.why.rfind("constant mismatch at %one: expected 0.0", 0), 0u) << f.why;
}

TEST_F(MatcherTest, ConstraintsOnStaticShapes) {
  const char *pattern = R"(
pattern @p(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = map %x : tensor<?xf32> {
  ^bb0(%v: f32):
    %0 = neg %v : f32
    yield %0
  }
  return %r
}
)";
  const char *graph = R"(
func @f(%a: tensor<8xf32>, %b: tensor<6xf32>, %c: tensor<?xf32>) -> (tensor<8xf32>, tensor<6xf32>, tensor<?xf32>) {
  %ra = map %a : tensor<8xf32> {
  ^bb0(%v: f32):
    %0 = neg %v : f32
    yield %0
  }
  %rb = map %b : tensor<6xf32> {
  ^bb0(%v: f32):
    %0 = neg %v : f32
    yield %0
  }
  %rc = map %c : tensor<?xf32> {
  ^bb0(%v: f32):
    %0 = neg %v : f32
    yield %0
  }
  return %ra, %rb, %rc
}
)";
  Function &fn = *parse(graph)->functions[0];
  Rule &rule = addRule("neg", pattern);
  SpecScope scope{rule.pattern, rule.outputNames, {}};
  Constraint c;
  c.kind = Constraint::Kind::DivisibleBy;
  ASSERT_TRUE(parseSpecExpr("dim(x, 0)", SourceLoc(), scope, diag, c.value)) << diag.text();
  c.divisor = 4;
  c.text = "divisible(dim(x, 0), 4)";
  rule.constraints.push_back(c);
  Match m;
  MatchFailure f;
  EXPECT_TRUE(matchRule(rule, opNamed(fn, "ra"), m, f)) << f.why;
  EXPECT_TRUE(m.guards.empty());
  EXPECT_FALSE(matchRule(rule, opNamed(fn, "rb"), m, f));
  EXPECT_EQ(f.why, "constraint divisible(dim(x, 0), 4) failed: dim(x, 0) = 6");
  // A dynamic size: the match holds under a run-time guard.
  EXPECT_TRUE(matchRule(rule, opNamed(fn, "rc"), m, f)) << f.why;
  ASSERT_EQ(m.guards.size(), 1u);
  EXPECT_EQ(m.guards[0].constraint, &rule.constraints[0]);
  EXPECT_EQ(m.guards[0].why, "dim(x, 0) is dynamic (tensor<?xf32>)");
}

// Rewriting.

const char *kReluPattern = R"(
pattern @relu(%t: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %cst = constant 0.0 : f32
  %relu = map %t : tensor<?x?xf32> {
  ^bb0(%x: f32):
    %0 = max %x, %cst : f32
    yield %0
  }
  return %relu
}
)";

TEST_F(MatcherTest, RewriteMlpIntoKernelCall) {
  Function &fn = *parse(mlpGraph())->functions[0];
  addRule("mlp_relu", kMlpPattern);
  RewriteReport report;
  EXPECT_EQ(applySpecs(*modules[0], specs, "x86_64", diag, &report), 1u);
  // fill, matmul and relu are gone; the call sits where relu was.
  EXPECT_EQ(opNamed(fn, "fill"), nullptr);
  EXPECT_EQ(opNamed(fn, "mm"), nullptr);
  EXPECT_EQ(opNamed(fn, "relu"), nullptr);
  Op *neg = opNamed(fn, "neg");
  ASSERT_NE(neg, nullptr);
  Op *call = neg->operands[0]->def;
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->kind, OpKind::KernelCall);
  // The call carries its plan: the rule's name, the result's dims as a
  // size program over the operands, the pattern's checks (K among them).
  ASSERT_NE(call->call, nullptr);
  EXPECT_EQ(call->call->name, "mlp_relu");
  ASSERT_EQ(call->call->resultDims.size(), 1u);
  ASSERT_EQ(call->call->resultDims[0].size(), 2u);
  EXPECT_EQ(call->call->exprs.at(call->call->resultDims[0][0]).op, GRAFT_EXPR_ARG_DIM);
  bool kCheck = false;
  for (const KernelCallCheck &c : call->call->checks)
    kCheck |= c.message.find("inner dimensions (K)") != std::string::npos;
  EXPECT_TRUE(kCheck);
  ASSERT_EQ(call->operands.size(), 3u);
  EXPECT_EQ(call->operands[2], opNamed(fn, "empty")->result());
  EXPECT_EQ(call->results[0]->type.str(), "tensor<?x?xf32>");
  auto pos = [&](Op *op) { return std::find(fn.ops.begin(), fn.ops.end(), op) - fn.ops.begin(); };
  EXPECT_LT(pos(opNamed(fn, "empty")), pos(call));
  EXPECT_LT(pos(call), pos(neg));
  ASSERT_EQ(report.matches.size(), 1u);
  EXPECT_EQ(report.matches[0].outputs[0], call->results[0]);
  EXPECT_NE(report.explainText.find("rule 'mlp_relu' matched at %relu"), std::string::npos)
      << report.explainText;
  EXPECT_NE(report.explainText.find("rule 'mlp_relu' did not match at %neg"), std::string::npos)
      << report.explainText;
}

TEST_F(MatcherTest, RootValueUsedTwiceIsRewiredEverywhere) {
  std::string extra = R"(  %twice = map %relu, %neg : tensor<?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %0 = add %a, %b : f32
    yield %0
  }
)";
  Function &fn = *parse(mlpGraph("%cst", extra, "%twice"))->functions[0];
  addRule("mlp_relu", kMlpPattern);
  EXPECT_EQ(applySpecs(*modules[0], specs, "x86_64", diag, nullptr), 1u);
  Op *twice = opNamed(fn, "twice");
  Op *neg = opNamed(fn, "neg");
  ASSERT_TRUE(twice && neg);
  EXPECT_EQ(twice->operands[0]->def->kind, OpKind::KernelCall);
  EXPECT_EQ(neg->operands[0], twice->operands[0]);
  EXPECT_EQ(opNamed(fn, "relu"), nullptr);
}

TEST_F(MatcherTest, IntermediateUsedOutsideStaysAlive) {
  std::string extra = R"(  %also = map %mm : tensor<?x?xf32> {
  ^bb0(%a: f32):
    %0 = neg %a : f32
    yield %0
  }
)";
  Function &fn = *parse(mlpGraph("%cst", extra, "%also"))->functions[0];
  addRule("mlp_relu", kMlpPattern);
  EXPECT_EQ(applySpecs(*modules[0], specs, "x86_64", diag, nullptr), 1u);
  EXPECT_NE(opNamed(fn, "mm"), nullptr);   // still used by %also
  EXPECT_NE(opNamed(fn, "fill"), nullptr); // feeds %mm
  EXPECT_EQ(opNamed(fn, "relu"), nullptr);
  EXPECT_EQ(opNamed(fn, "neg")->operands[0]->def->kind, OpKind::KernelCall);
}

TEST_F(MatcherTest, FirstRuleWinsAtTheSameRoot) {
  Module *mod = parse(mlpGraph());
  Function &fn = *mod->functions[0];
  addRule("relu_only", kReluPattern);
  addRule("mlp_relu", kMlpPattern);
  RewriteReport report;
  EXPECT_EQ(applySpecs(*mod, specs, "x86_64", diag, &report), 1u);
  ASSERT_EQ(report.matches.size(), 1u);
  EXPECT_EQ(report.matches[0].rule->name, "relu_only");
  EXPECT_NE(opNamed(fn, "mm"), nullptr); // not covered by relu_only
}

TEST_F(MatcherTest, LargerRuleFirstClaimsTheProducers) {
  Module *mod = parse(mlpGraph());
  Function &fn = *mod->functions[0];
  addRule("mlp_relu", kMlpPattern);
  addRule("relu_only", kReluPattern);
  RewriteReport report;
  EXPECT_EQ(applySpecs(*mod, specs, "x86_64", diag, &report), 1u);
  ASSERT_EQ(report.matches.size(), 1u);
  EXPECT_EQ(report.matches[0].rule->name, "mlp_relu");
  EXPECT_EQ(opNamed(fn, "mm"), nullptr);
}

TEST_F(MatcherTest, RulesWithoutKernelForTargetAreSkipped) {
  Module *mod = parse(mlpGraph());
  addRule("mlp_relu", kMlpPattern);
  RewriteReport report;
  EXPECT_EQ(applySpecs(*mod, specs, "aarch64", diag, &report), 0u);
  EXPECT_NE(report.explainText.find("rule 'mlp_relu' skipped: no kernel for target aarch64"),
            std::string::npos)
      << report.explainText;
  EXPECT_NE(opNamed(*mod->functions[0], "relu"), nullptr);
}

TEST_F(MatcherTest, TwoMatchesInOneFunction) {
  const char *graph = R"(
func @f(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %cst = constant 0.0 : f32
  %r1 = map %x : tensor<?x?xf32> {
  ^bb0(%a: f32):
    %0 = max %a, %cst : f32
    yield %0
  }
  %r2 = map %r1 : tensor<?x?xf32> {
  ^bb0(%a: f32):
    %0 = max %a, %cst : f32
    yield %0
  }
  return %r2
}
)";
  Module *mod = parse(graph);
  Function &fn = *mod->functions[0];
  addRule("relu_only", kReluPattern);
  EXPECT_EQ(applySpecs(*mod, specs, "x86_64", diag, nullptr), 2u);
  ASSERT_EQ(fn.ops.size(), 2u);
  EXPECT_EQ(fn.ops[0]->kind, OpKind::KernelCall);
  EXPECT_EQ(fn.ops[1]->kind, OpKind::KernelCall);
  EXPECT_EQ(fn.ops[1]->operands[0], fn.ops[0]->results[0]);
  EXPECT_EQ(fn.results[0], fn.ops[1]->results[0]);
}

const char *kTwoResultPattern = R"(
pattern @mm_relu(%lhs: tensor<?x?xf32>, %rhs: tensor<?x?xf32>, %init: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %cst = constant 0.0 : f32
  %fill = fill %cst, %init : tensor<?x?xf32>
  %mm = matmul %lhs, %rhs, %fill : tensor<?x?xf32>
  %relu = map %mm : tensor<?x?xf32> {
  ^bb0(%x: f32):
    %0 = max %x, %cst : f32
    yield %0
  }
  return %relu, %mm
}
)";

TEST_F(MatcherTest, TwoResultsBothRewired) {
  std::string extra = R"(  %sum = map %neg, %mm : tensor<?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %0 = add %a, %b : f32
    yield %0
  }
)";
  Function &fn = *parse(mlpGraph("%cst", extra, "%sum"))->functions[0];
  addRule("mm_relu", kTwoResultPattern);
  EXPECT_EQ(applySpecs(*modules[0], specs, "x86_64", diag, nullptr), 1u);
  Op *sum = opNamed(fn, "sum");
  Op *neg = opNamed(fn, "neg");
  ASSERT_TRUE(sum && neg);
  Op *call = neg->operands[0]->def;
  ASSERT_EQ(call->kind, OpKind::KernelCall);
  ASSERT_EQ(call->results.size(), 2u);
  EXPECT_EQ(neg->operands[0], call->results[0]);
  EXPECT_EQ(sum->operands[1], call->results[1]);
  EXPECT_EQ(opNamed(fn, "mm"), nullptr);
}

TEST_F(MatcherTest, OutputUsedBeforeTheRootIsRejected) {
  const char *graph = R"(
func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %init: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %cst = constant 0.0 : f32
  %fill = fill %cst, %init : tensor<?x?xf32>
  %mm = matmul %a, %b, %fill : tensor<?x?xf32>
  %early = map %mm : tensor<?x?xf32> {
  ^bb0(%x: f32):
    %0 = neg %x : f32
    yield %0
  }
  %relu = map %mm : tensor<?x?xf32> {
  ^bb0(%x: f32):
    %0 = max %x, %cst : f32
    yield %0
  }
  return %relu, %early
}
)";
  Module *mod = parse(graph);
  addRule("mm_relu", kTwoResultPattern);
  RewriteReport report;
  EXPECT_EQ(applySpecs(*mod, specs, "x86_64", diag, &report), 0u);
  EXPECT_NE(report.explainText.find("output %mm is used before the end of the match, by %early"),
            std::string::npos)
      << report.explainText;
}

} // namespace
