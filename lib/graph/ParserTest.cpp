// Parser tests: every op parses and prints back to the same text, literal
// forms, locations with offsets, error messages with their positions, and
// robustness against malformed input (no crash on any prefix or garbage).
#include "graph/Parser.h"
#include "graph/Verifier.h"
#include "ir/KernelCall.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

namespace graft {
namespace {

struct Parsed {
  SourceManager sm;
  std::unique_ptr<DiagEngine> diag;
  std::unique_ptr<Module> module;
};

std::unique_ptr<Parsed> parse(const std::string &text, const ParseOptions &opts = {}) {
  auto p = std::make_unique<Parsed>();
  uint32_t file = p->sm.add("t.graph", text);
  p->diag = std::make_unique<DiagEngine>(p->sm);
  p->diag->setEcho(false);
  p->module = parseModule(p->sm, file, *p->diag, opts);
  return p;
}

std::string readInput(const std::string &name) {
  const char *src = std::getenv("GRAFT_SOURCE_DIR");
  std::ifstream in(std::string(src ? src : GRAFT_TEST_SOURCE_DIR) +
                   "/tests/e2e/inputs/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Parses, verifies, prints, parses the print again: both prints must agree.
void expectRoundTrip(const std::string &text) {
  auto p = parse(text);
  ASSERT_FALSE(p->diag->hasErrors()) << p->diag->text();
  ASSERT_TRUE(verifyModule(*p->module, *p->diag)) << p->diag->text();
  std::string printed = printModule(*p->module);
  auto q = parse(printed);
  ASSERT_FALSE(q->diag->hasErrors()) << q->diag->text() << "\n" << printed;
  ASSERT_TRUE(verifyModule(*q->module, *q->diag)) << q->diag->text();
  EXPECT_EQ(printModule(*q->module), printed);
}

TEST(Parser, MlpParses) {
  auto p = parse(readInput("mlp.graph"));
  ASSERT_FALSE(p->diag->hasErrors()) << p->diag->text();
  ASSERT_EQ(p->module->functions.size(), 1u);
  const Function &f = *p->module->functions[0];
  EXPECT_EQ(f.name, "mlp");
  ASSERT_EQ(f.args.size(), 2u);
  EXPECT_EQ(f.args[0]->type.str(), "tensor<?x?xf32>");
  ASSERT_EQ(f.ops.size(), 8u);
  EXPECT_EQ(f.ops[5]->kind, OpKind::Matmul);
  const Op &relu = *f.ops[6];
  ASSERT_TRUE(relu.region);
  ASSERT_EQ(relu.region->ops.size(), 1u);
  // The body's max captures the function-level %cst.
  EXPECT_EQ(relu.region->ops[0]->operands[1], f.ops[0]->result());
  EXPECT_EQ(relu.region->yield, relu.region->ops[0]->result());
  // Locations: op at its name, value at its %name.
  EXPECT_EQ(f.ops[0]->loc.line, 5u);
  EXPECT_EQ(f.ops[0]->loc.col, 10u);
  EXPECT_EQ(f.ops[0]->result()->loc.col, 3u);
  ASSERT_EQ(f.results.size(), 1u);
  EXPECT_EQ(f.results[0]->name, "neg");
}

TEST(Parser, MlpPrintsAsWritten) {
  auto p = parse(readInput("mlp.graph"));
  ASSERT_FALSE(p->diag->hasErrors());
  std::string text = readInput("mlp.graph");
  // The printer reproduces the file minus its comment lines.
  std::string body = text.substr(text.find("func"));
  EXPECT_EQ(printFunction(*p->module->functions[0]), body);
}

TEST(Parser, RoundTripFiles) {
  expectRoundTrip(readInput("mlp.graph"));
  expectRoundTrip(readInput("all_ops.graph"));
}

TEST(Parser, RoundTripEveryOp) {
  expectRoundTrip(R"(func @f(%a: tensor<2x?xf32>, %b: tensor<?x4xf32>, %i: tensor<3xi32>, %d: index) -> tensor<2x4xf32> {
  %c = constant 1.5 : tensor<2x4xf32>
  %z = constant [[1, 2], [3, 4]] : tensor<2x2xi8>
  %t = constant [true, false] : tensor<2xi1>
  %e = empty %d : tensor<2x?xf32>
  %f0 = constant -0.25 : f32
  %f = fill %f0, %e : tensor<2x?xf32>
  %m = matmul %a, %b, %c : tensor<2x4xf32>
  %bm0 = constant 0.0 : tensor<5x2x4xf32>
  %x3 = constant 1.0 : tensor<5x2x3xf32>
  %y3 = constant 2.0 : tensor<5x3x4xf32>
  %bm = batch_matmul %x3, %y3, %bm0 : tensor<5x2x4xf32>
  %br = broadcast %i, %d {dims = [1]} : tensor<?x3xi32>
  %tr = transpose %br {perm = [1, 0]} : tensor<3x?xi32>
  %n = mul %d, %d : index
  %rs = reshape %tr, %n : tensor<?xi32>
  %rd = reduce %bm {dims = [0, 2], kind = max} : tensor<2xf32>
  %mp = map %m, %c : tensor<2x4xf32> {
  ^bb0(%p: f32, %q: f32):
    %0 = add %p, %q : f32
    %1 = sub %0, %q : f32
    %2 = mul %1, %1 : f32
    %3 = div %2, %q : f32
    %4 = rem %3, %q : f32
    %5 = max %4, %f0 : f32
    %6 = min %5, %f0 : f32
    %7 = neg %6 : f32
    %8 = abs %7 : f32
    %9 = exp %8 : f32
    %10 = log %9 : f32
    %11 = tanh %10 : f32
    %12 = sqrt %11 : f32
    %13 = rsqrt %12 : f32
    %14 = cmp %13, %p {pred = le} : i1
    %15 = select %14, %13, %p : f32
    %16 = cast %15 : f64
    %17 = cast %16 : f32
    %k = constant inf : f32
    %18 = min %17, %k : f32
    yield %18
  }
  return %mp
}
)");
}

// The float functions and predicates of map bodies (pow ... isinf).
TEST(Parser, RoundTripScalarFunctions) {
  expectRoundTrip(R"(func @f(%a: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %m = map %a, %a : tensor<4xf32> {
  ^bb0(%p: f32, %q: f32):
    %0 = pow %p, %q : f32
    %1 = sign %0 : f32
    %2 = floor %1 : f32
    %3 = ceil %2 : f32
    %4 = round %3 : f32
    %5 = sigmoid %4 : f32
    %6 = erf %5 : f32
    %7 = sin %6 : f32
    %8 = cos %7 : f32
    %9 = log1p %8 : f32
    %10 = expm1 %9 : f32
    %11 = isnan %10 : i1
    %12 = isinf %10 : i1
    %13 = select %11, %p, %10 : f32
    %14 = select %12, %q, %13 : f32
    yield %14
  }
  %s = map %i : tensor<4xi32> {
  ^bb0(%x: i32):
    %0 = sign %x : i32
    yield %0
  }
  return %m, %s
}
)");
}

TEST(Parser, ConstantLiterals) {
  auto p = parse(R"(func @c() -> (f32, i32, tensor<2x2xf16>, f64, f64, i1, index) {
  %a = constant 0.5 : f32
  %b = constant -3 : i32
  %c = constant [[1, 2.5], [-3, 4]] : tensor<2x2xf16>
  %d = constant -inf : f64
  %e = constant nan : f64
  %f = constant true : i1
  %g = constant -9223372036854775808 : index
  return %a, %b, %c, %d, %e, %f, %g
}
)");
  ASSERT_FALSE(p->diag->hasErrors()) << p->diag->text();
  const Function &f = *p->module->functions[0];
  EXPECT_EQ(f.ops[0]->constant.getFloat(DType::F32, 0), 0.5);
  EXPECT_EQ(f.ops[1]->constant.getInt(DType::I32, 0), -3);
  EXPECT_FALSE(f.ops[2]->constant.splat);
  EXPECT_EQ(f.ops[2]->constant.getFloat(DType::F16, 1), 2.5);
  EXPECT_EQ(f.ops[2]->constant.getFloat(DType::F16, 2), -3.0);
  EXPECT_EQ(f.ops[3]->constant.getFloat(DType::F64, 0), -__builtin_inf());
  double nan = f.ops[4]->constant.getFloat(DType::F64, 0);
  EXPECT_NE(nan, nan);
  EXPECT_EQ(f.ops[5]->constant.getInt(DType::I1, 0), 1);
  EXPECT_EQ(f.ops[6]->constant.getInt(DType::Index, 0), INT64_MIN);
}

TEST(Parser, PatternKeywordAndOffsets) {
  ParseOptions opts;
  opts.lineOffset = 10;
  opts.colOffset = 4;
  auto p = parse("pattern @p(%a: f32) -> f32 {\n  %b = bogus %a : f32\n  return %a\n}\n",
                 opts);
  EXPECT_TRUE(p->module->functions[0]->isPattern);
  EXPECT_EQ(p->diag->text().substr(0, p->diag->text().find('\n')),
            "t.graph:12:12: error: unknown op 'bogus'");
}

TEST(Parser, ParseModuleTextUsesFileForLocations) {
  SourceManager sm;
  uint32_t file = sm.add("spec.yaml", "rules:\n  pattern: |\n    pattern @p(%a: f32) -> f32 {\n      return %zz\n    }\n");
  DiagEngine diag(sm);
  diag.setEcho(false);
  ParseOptions opts;
  opts.lineOffset = 2;
  opts.colOffset = 4;
  auto m = parseModuleText("pattern @p(%a: f32) -> f32 {\n  return %zz\n}\n", file, diag, opts);
  EXPECT_EQ(diag.text(), "spec.yaml:4:14: error: use of undefined value '%zz'\n"
                         "        return %zz\n"
                         "               ^\n");
}

TEST(Printer, KernelCallAndUnnamedValues) {
  auto p = parse("func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %a\n}\n");
  ASSERT_FALSE(p->diag->hasErrors());
  Function &f = *p->module->functions[0];
  Op *call = f.newOp(OpKind::KernelCall, SourceLoc{});
  auto plan = std::make_shared<KernelCall>();
  plan->name = "fast_relu";
  call->call = plan;
  call->operands.push_back(f.args[0]);
  for (int i = 0; i < 2; ++i) {
    Value *v = f.newValue(f.args[0]->type, "", SourceLoc{});
    v->def = call;
    call->results.push_back(v);
  }
  f.ops.push_back(call);
  f.results[0] = call->results[1];
  EXPECT_EQ(printFunction(f), "func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                              "  %_0, %_1 = kernel_call @fast_relu %a : tensor<4xf32>, tensor<4xf32>\n"
                              "  return %_1\n"
                              "}\n");
  // The first result is unused: erasing dead ops keeps the call.
  EXPECT_EQ(f.eraseDeadOps(), 0u);
  EXPECT_TRUE(f.isUsed(call->results[1]));
  EXPECT_FALSE(f.isUsed(call->results[0]));
}

TEST(IR, EraseDeadOpsRemovesChains) {
  auto p = parse("func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                 "  %n = dim %a {axis = 0} : index\n"
                 "  %e = empty %n : tensor<?xf32>\n"
                 "  %c = constant 1.0 : f32\n"
                 "  %m = map %a : tensor<4xf32> {\n"
                 "  ^bb0(%x: f32):\n"
                 "    %0 = add %x, %c : f32\n"
                 "    yield %0\n"
                 "  }\n"
                 "  return %m\n"
                 "}\n");
  ASSERT_FALSE(p->diag->hasErrors()) << p->diag->text();
  Function &f = *p->module->functions[0];
  EXPECT_EQ(f.users(f.ops[2]->result()).size(), 1u); // captured by the body
  EXPECT_EQ(f.eraseDeadOps(), 2u); // %e, then %n
  ASSERT_EQ(f.ops.size(), 2u);
  EXPECT_EQ(f.ops[0]->kind, OpKind::Constant);
}

// First line of the diagnostics: "file:line:col: error: message".
std::string firstError(const std::string &text) {
  auto p = parse(text);
  const std::string &all = p->diag->text();
  return all.substr(0, all.find('\n'));
}

TEST(ParserErrors, Messages) {
  EXPECT_EQ(firstError("func @f() {\n  %a = frob : f32\n  return\n}\n"),
            "t.graph:2:8: error: unknown op 'frob'");
  EXPECT_EQ(firstError("func @f() -> f32 {\n  return %nope\n}\n"),
            "t.graph:2:10: error: use of undefined value '%nope'");
  EXPECT_EQ(firstError("func @f() {\n  %a = constant 1 : index\n  %a = constant 2 : index\n  return\n}\n"),
            "t.graph:3:3: error: redefinition of value '%a'");
  EXPECT_EQ(firstError("func @f(%a: tensor<2x3xf32) {\n  return\n}\n"),
            "t.graph:1:13: error: unterminated tensor type, expected '>'");
  EXPECT_EQ(firstError("func @f(%a: tensor<2x3yf32>) {\n  return\n}\n"),
            "t.graph:1:23: error: expected 'x' after dimension in tensor type, found 'y'");
  EXPECT_EQ(firstError("func @f(%a: tensor<2xf33>) {\n  return\n}\n"),
            "t.graph:1:22: error: unknown element type 'f33' in tensor type");
  EXPECT_EQ(firstError("func @f() {\n  %a = constant [1, 2, 3] : tensor<2xf32>\n  return\n}\n"),
            "t.graph:2:17: error: constant literal has 3 elements along dimension 0, type tensor<2xf32> has 2");
  EXPECT_EQ(firstError("func @f() {\n  %a = constant 300 : i8\n  return\n}\n"),
            "t.graph:2:17: error: integer literal 300 is out of range for i8 [-128, 127]");
  EXPECT_EQ(firstError("func @f() {\n  %a = constant 1.5 : i32\n  return\n}\n"),
            "t.graph:2:17: error: expected an integer literal for i32, found '1.5'");
  EXPECT_EQ(firstError("func @f() {\n  %a = constant 99999999999999999999 : i64\n  return\n}\n"),
            "t.graph:2:17: error: integer literal 99999999999999999999 is out of range for 64 bits");
  EXPECT_EQ(firstError("func @f() {\n  %a = constant 1e39 : f32\n  return\n}\n"),
            "t.graph:2:17: error: float literal 1e39 is out of range for f32");
  EXPECT_EQ(firstError("func @f(%a: f32) -> f32 {\n  %b = kernel_call %a : f32\n  return %b\n}\n"),
            "t.graph:2:20: error: expected the called kernel's name like '@simple_mul', found '%a'");
  EXPECT_EQ(firstError("func @f(%a: f32) {\n  %b = neg %a {x = 1, x = 2} : f32\n  return\n}\n"),
            "t.graph:2:23: error: duplicate attribute 'x'");
  EXPECT_EQ(firstError("func @f(%a: f32) {\n  %b = neg %a : f32 %a\n  return\n}\n"),
            "t.graph:2:21: error: expected end of line after the op, found '%a'");
  EXPECT_EQ(firstError("func @f(%a: f32) {\n  %b = neg %a : f32\n}\n"),
            "t.graph:3:1: error: function '@f' must end with 'return'");
  EXPECT_EQ(firstError("fun @f() {}\n"),
            "t.graph:1:1: error: expected 'func', 'pattern' or 'kernel', found 'fun'");
  EXPECT_EQ(firstError("func @f() {\n  %a = constant 1 : index\n  return\n}\nfunc @f() {\n  return\n}\n"),
            "t.graph:5:6: error: redefinition of function '@f'");
  EXPECT_EQ(firstError("func @f(%t: tensor<4xf32>) -> tensor<4xf32> {\n  %m = map %t : tensor<4xf32> {\n    %0 = neg %t : f32\n    yield %0\n  }\n  return %m\n}\n"),
            "t.graph:3:5: error: expected a body header like '^bb0(%x: f32):', found '%0'");
  EXPECT_EQ(firstError("func @f() {\n  %a = constant \"s\" : f32\n  return\n}\n"),
            "t.graph:2:17: error: expected a constant literal (number, true, false, inf, nan or list), found string \"s\"");
  EXPECT_EQ(firstError("func @f(%a: tensor<1x1x1x1x1x1x1x1x1xf32>) {\n  return\n}\n"),
            "t.graph:1:13: error: tensor rank 9 exceeds the maximum of 8");
}

TEST(Parser, RoundTripDirectCall) {
  expectRoundTrip("kernel @k(%a: tensor<?xf32>, %s: f32) -> tensor<?x4xf32>\n\n"
                  "func @f(%x: tensor<?xf32>, %s: f32) -> tensor<?x4xf32> {\n"
                  "  %n = dim %x {axis = 0} : index\n"
                  "  %r = kernel_call @k %x, %s, %n : tensor<?x4xf32>\n"
                  "  return %r\n"
                  "}\n");
  expectRoundTrip("kernel @k(%a: tensor<?x3xf32>, %b: tensor<?x3xf32>) -> tensor<?x3xf32> like %b\n\n"
                  "func @f(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {\n"
                  "  %r = kernel_call @k %x, %x : tensor<?x3xf32>\n"
                  "  return %r\n"
                  "}\n");
  auto p = parse("kernel @k(%a: tensor<4xf32>) -> tensor<4xf32>\n"
                 "func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                 "  %r = kernel_call @k %x : tensor<4xf32>\n"
                 "  return %r\n"
                 "}\n");
  ASSERT_FALSE(p->diag->hasErrors()) << p->diag->text();
  const KernelDecl *k = p->module->lookupKernel("k");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->argNames, std::vector<std::string>{"a"});
  EXPECT_EQ(k->resultType.str(), "tensor<4xf32>");
  EXPECT_EQ(p->module->functions[0]->ops[0]->callee, k);
}

TEST(ParserErrors, DirectCalls) {
  const std::string decl = "kernel @k(%a: tensor<?xf32>) -> tensor<?xf32>\n";
  EXPECT_EQ(firstError("func @f(%a: tensor<?xf32>) {\n  %b = kernel_call @k %a : tensor<?xf32>\n  return\n}\n"),
            "t.graph:2:20: error: call of undeclared kernel '@k'; declare it before the function: "
            "'kernel @k(%a: tensor<?xf32>, ...) -> tensor<?xf32>'");
  EXPECT_EQ(firstError(decl + "pattern @p(%a: tensor<?xf32>) -> tensor<?xf32> {\n  %b = kernel_call @k %a : tensor<?xf32>\n  return %b\n}\n"),
            "t.graph:3:8: error: a pattern cannot call a kernel; 'kernel_call' is written in functions");
  EXPECT_EQ(firstError(decl + "func @f(%a: tensor<?xf32>) {\n  %m = map %a : tensor<?xf32> {\n  ^bb0(%x: f32):\n"
                       "    %0 = kernel_call @k %x : f32\n    yield %0\n  }\n  return\n}\n"),
            "t.graph:5:10: error: 'kernel_call' cannot be used in a map body");
  EXPECT_EQ(firstError(decl + decl), "t.graph:2:8: error: redefinition of '@k'");
  EXPECT_EQ(firstError(decl + "func @k() {\n  return\n}\n"),
            "t.graph:2:6: error: redefinition of '@k', declared as a kernel");
  EXPECT_EQ(firstError("kernel @k(%a: f32, %a: f32) -> tensor<?xf32>\n"),
            "t.graph:1:20: error: duplicate argument '%a' of kernel @k");
  EXPECT_EQ(firstError("kernel @k(%a: f32) -> f32\n"),
            "t.graph:1:23: error: kernel @k must return a tensor (the buffer it writes), found f32");
  EXPECT_EQ(firstError("kernel @k(%a: f32) -> (tensor<?xf32>, tensor<?xf32>)\n"),
            "t.graph:1:23: error: a kernel returns one tensor; expected its type, found '('");
  EXPECT_EQ(firstError("kernel @k(%a: tensor<?xf32>) -> tensor<?xf32> like %b\n"),
            "t.graph:1:52: error: kernel @k has no argument '%b'");
  EXPECT_EQ(firstError("kernel @k(%a: tensor<?xf32>) -> tensor<?x2xf32> like %a\n"),
            "t.graph:1:54: error: the result tensor<?x2xf32> of kernel @k cannot have the sizes of %a: tensor<?xf32>");
  EXPECT_EQ(firstError("kernel @k(%a: tensor<3xf32>) -> tensor<4xf32> like %a\n"),
            "t.graph:1:52: error: the result tensor<4xf32> of kernel @k cannot have the sizes of %a: tensor<3xf32>");
  EXPECT_EQ(firstError("kernel @k(%a: f32)\nfunc @f() {\n  return\n}\n"),
            "t.graph:2:1: error: expected '->' and the kernel's result type, found 'func'");
}

TEST(ParserErrors, SeveralErrorsInOneRun) {
  auto p = parse("func @f(%a: f32) -> f32 {\n"
                 "  %b = frob %a : f32\n"
                 "  %c = neg %b : f32\n" // %b failed: no second report
                 "  %d = neg %zz : f32\n"
                 "  %e = constant 1 : i99\n"
                 "  return %a\n"
                 "}\n");
  EXPECT_EQ(p->diag->errorCount(), 3u) << p->diag->text();
  EXPECT_NE(p->diag->text().find("t.graph:4:12: error: use of undefined value '%zz'"),
            std::string::npos);
  EXPECT_NE(p->diag->text().find("t.graph:5:21: error: unknown type 'i99'"),
            std::string::npos);
}

TEST(ParserErrors, BadBodyDoesNotLeakIntoFunction) {
  auto p = parse("func @f(%t: tensor<4xf32>) -> tensor<4xf32> {\n"
                 "  %m = map %t : tensor<4xf32> {\n"
                 "  ^bb0(%x f32):\n"
                 "    %0 = neg %x : f32\n"
                 "    yield %0\n"
                 "  }\n"
                 "  %n = frob %t : f32\n"
                 "  return %t\n"
                 "}\n");
  EXPECT_EQ(p->diag->errorCount(), 2u) << p->diag->text();
  EXPECT_NE(p->diag->text().find("t.graph:7:8: error: unknown op 'frob'"),
            std::string::npos) << p->diag->text();
}

// No input may crash the parser or the verifier: every prefix of a valid
// file, random byte flips, binary garbage, deep nesting, unterminated text.
TEST(ParserRobustness, MalformedInputs) {
  std::string mlp = readInput("all_ops.graph");
  auto check = [](const std::string &text) {
    auto p = parse(text);
    if (!p->diag->hasErrors())
      verifyModule(*p->module, *p->diag);
  };
  for (size_t n = 0; n <= mlp.size(); ++n)
    check(mlp.substr(0, n));
  std::mt19937 rng(42);
  for (int i = 0; i < 2000; ++i) {
    std::string t = mlp;
    for (int k = 0; k < 3; ++k)
      t[rng() % t.size()] = static_cast<char>(rng() % 256);
    check(t);
  }
  std::string garbage;
  for (int i = 0; i < 4096; ++i)
    garbage += static_cast<char>(rng() % 256);
  check(garbage);
  check("func @f() {\n  %a = constant " + std::string(100000, '[') + " : f32\n");
  std::string nested = "func @f(%t: tensor<4xf32>) -> tensor<4xf32> {\n";
  for (int i = 0; i < 200; ++i)
    nested += "%m" + std::to_string(i) + " = map %t : tensor<4xf32> {\n^bb0(%x: f32):\n";
  check(nested);
  check("func @f(%a: tensor<99999999999999999999999x2xf32>) {\n return\n}\n");
  check("func @f() {\n  %a = constant \"unterminated\n");
  check("func");
  check("func @");
  check("%");
  check(std::string("func @f()\0 {}", 13));
}

} // namespace
} // namespace graft
