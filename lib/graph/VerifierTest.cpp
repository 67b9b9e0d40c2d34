// Verifier tests: valid graphs pass; each malformed graph gives exactly the
// expected first message at the expected line:col.
#include "graph/Parser.h"
#include "graph/Verifier.h"

#include <gtest/gtest.h>

namespace graft {
namespace {

// Parses (must succeed) and verifies |text|; returns all diagnostics.
std::string verify(const std::string &text, bool *ok = nullptr) {
  SourceManager sm;
  uint32_t file = sm.add("v.graph", text);
  DiagEngine diag(sm);
  diag.setEcho(false);
  auto m = parseModule(sm, file, diag);
  EXPECT_FALSE(diag.hasErrors()) << "parse failed: " << diag.text();
  bool result = verifyModule(*m, diag);
  if (ok)
    *ok = result;
  return diag.text();
}

std::string firstError(const std::string &text) {
  std::string all = verify(text);
  return all.substr(0, all.find('\n'));
}

// A function with the usual arguments around one body line (line 2).
std::string fn(const std::string &body, const std::string &ret = "return") {
  return "func @f(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>, %d: tensor<?x?xf32>, "
         "%s: f32, %i: index, %v: tensor<3xi32>) {\n" +
         body + "\n  " + ret + "\n}\n";
}

TEST(Verifier, AcceptsValidGraphs) {
  bool ok = false;
  std::string text = verify(fn("  %acc = constant 0.0 : tensor<2x5xf32>\n"
                               "  %c = constant 0.0 : tensor<3x5xf32>\n"
                               "  %mm = matmul %a, %c, %acc : tensor<2x?xf32>\n"
                               "  %dm = matmul %d, %d, %d : tensor<?x?xf32>\n"
                               "  %e = empty %i : tensor<?x2xf32>\n"
                               "  %i2 = add %i, %i : index\n"
                               "  %j = cast %i2 : index\n"
                               "  %bb = broadcast %v, %i {dims = [1]} : tensor<?x3xi32>\n"
                               "  %r = reduce %a {dims = [0, 1], kind = prod} : tensor<f32>\n"
                               "  %k = argmax %d {axis = 1, keepdims = 1} : tensor<?x1xi32>\n"
                               "  %c1 = constant 0.0 : tensor<2x1xf32>\n"
                               "  %c3 = constant 0.0 : tensor<3xf32>\n"
                               "  %nb = map %c1, %c3, %d : tensor<2x3xf32> {\n"
                               "  ^bb0(%p: f32, %q: f32, %t: f32):\n"
                               "    yield %p\n"
                               "  }"),
                            &ok);
  EXPECT_TRUE(ok) << text;
}

TEST(VerifierErrors, Messages) {
  struct Case {
    std::string body, ret, message;
  };
  const Case cases[] = {
      {"  %x = matmul %a, %b, %b : tensor<2x5xf32>", "return",
       "v.graph:2:8: error: matmul inner dimensions differ: lhs has K = 3, rhs has K = 4"},
      {"  %c = constant 0.0 : tensor<3x5xf32>\n  %x = matmul %a, %c, %b : tensor<2x5xf32>", "return",
       "v.graph:3:8: error: matmul row counts differ: lhs has M = 2, accumulator has M = 4"},
      {"  %c = constant 0.0 : tensor<3x5xf32>\n  %z = constant 0.0 : tensor<2x5xf32>\n"
       "  %x = matmul %a, %c, %z : tensor<3x5xf32>", "return",
       "v.graph:4:8: error: 'matmul' result type tensor<3x5xf32> does not match its operands: expected tensor<2x5xf32>"},
      {"  %x = matmul %a, %v, %b : tensor<2x5xf32>", "return",
       "v.graph:2:8: error: 'matmul' rhs '%v' must have rank 2, found tensor<3xi32>"},
      {"  %x = matmul %a, %b : tensor<2x5xf32>", "return",
       "v.graph:2:8: error: 'matmul' expects 3 operands, found 2"},
      {"  %x = dim %a {axis = 2} : index", "return",
       "v.graph:2:23: error: axis 2 is out of range for tensor<2x3xf32> (rank 2)"},
      {"  %x = dim %a {axis = 0} : i32", "return",
       "v.graph:2:8: error: 'dim' result must be index, found i32"},
      {"  %x = dim %a : index", "return",
       "v.graph:2:8: error: 'dim' needs attribute 'axis' (an integer)"},
      {"  %x = dim %a {axes = 0} : index", "return",
       "v.graph:2:16: error: unknown attribute 'axes' for 'dim', expected 'axis'"},
      {"  %x = transpose %a {perm = [0, 0]} : tensor<2x3xf32>", "return",
       "v.graph:2:29: error: 'transpose' perm [0, 0] is not a permutation of 0..1 (input tensor<2x3xf32>)"},
      {"  %x = transpose %a {perm = [1, 0]} : tensor<2x3xf32>", "return",
       "v.graph:2:8: error: 'transpose' result type tensor<2x3xf32> does not match its operands: expected tensor<3x2xf32>"},
      {"  %x = reduce %a {dims = [2], kind = sum} : tensor<2xf32>", "return",
       "v.graph:2:26: error: 'reduce' dims must be non-empty, increasing and less than the input rank 2, found [2]"},
      {"  %x = reduce %a {dims = [1], kind = avg} : tensor<2xf32>", "return",
       "v.graph:2:38: error: unknown reduce kind 'avg', expected sum, max, min, prod or mean"},
      {"  %x = reduce %a {dims = [1], kind = sum} : tensor<3xf32>", "return",
       "v.graph:2:8: error: 'reduce' result type tensor<3xf32> does not match its operands: expected tensor<2xf32>"},
      {"  %x = empty : tensor<?x2xf32>", "return",
       "v.graph:2:8: error: 'empty' to tensor<?x2xf32> needs 1 index operands (one per '?'), found 0"},
      {"  %x = empty %s : tensor<?x2xf32>", "return",
       "v.graph:2:8: error: 'empty' size operand '%s' must be index, found f32"},
      {"  %x = fill %a, %b : tensor<4x5xf32>", "return",
       "v.graph:2:8: error: 'fill' value '%a' must be a scalar, found tensor<2x3xf32>"},
      {"  %x = fill %s, %v : tensor<3xf32>", "return",
       "v.graph:2:8: error: 'fill' shape source '%v' has element type i32, expected f32"},
      {"  %x = map %a, %b : tensor<2x3xf32> {\n  ^bb0(%p: f32, %q: f32):\n    yield %p\n  }", "return",
       "v.graph:2:8: error: 'map' operands have different shapes: '%a' is tensor<2x3xf32>, '%b' is tensor<4x5xf32> (dim 0: 2 and 4 do not broadcast)"},
      {"  %x = map %a : tensor<2x3xf32> {\n  ^bb0(%p: f32, %q: f32):\n    yield %p\n  }", "return",
       "v.graph:2:8: error: 'map' body has 2 arguments, expected 1 (one per operand)"},
      {"  %x = map %a : tensor<2x3xf32> {\n  ^bb0(%p: f16):\n    yield %p\n  }", "return",
       "v.graph:3:8: error: body argument '%p' has type f16, expected f32 (the element type of '%a')"},
      {"  %x = map %a : tensor<2x3xi32> {\n  ^bb0(%p: f32):\n    yield %p\n  }", "return",
       "v.graph:4:5: error: 'map' body yields f32 but the result element type is i32"},
      {"  %x = map %a : tensor<2x3xf32> {\n  ^bb0(%p: f32):\n    %0 = add %p, %b : f32\n    yield %0\n  }", "return",
       "v.graph:4:10: error: 'add' works on scalars, but operand '%b' is tensor<4x5xf32>"},
      {"  %x = map %a : tensor<2x3xf32> {\n  ^bb0(%p: f32):\n    %0 = dim %a {axis = 0} : index\n    yield %p\n  }", "return",
       "v.graph:4:10: error: op 'dim' is not allowed in a map body (only scalar ops are)"},
      {"  %x = map %a : tensor<2x3xf32> {\n  ^bb0(%p: f32):\n    %0 = add %p, %i : f32\n    yield %0\n  }", "return",
       "v.graph:4:10: error: 'add' operands have different types: f32 and index"},
      {"  %x = map %v : tensor<3xi32> {\n  ^bb0(%p: i32):\n    %0 = exp %p : i32\n    yield %0\n  }", "return",
       "v.graph:4:10: error: 'exp' needs a float operand, found i32"},
      {"  %x = map %a : tensor<2x3xf32> {\n  ^bb0(%p: f32):\n    %0 = cmp %p, %s {pred = less} : i1\n    %1 = select %0, %p, %s : f32\n    yield %1\n  }", "return",
       "v.graph:4:29: error: 'cmp' needs attribute 'pred' = eq, ne, lt, le, gt or ge, found less"},
      {"  %x = map %a : tensor<2x3xf32> {\n  ^bb0(%p: f32):\n    %0 = select %p, %p, %s : f32\n    yield %0\n  }", "return",
       "v.graph:4:10: error: 'select' condition '%p' must be i1, found f32"},
      {"  %x = add %s, %s : f32", "return",
       "v.graph:2:8: error: function-level 'add' is shape arithmetic and needs index operands, found '%s' of type f32"},
      {"  %x = broadcast %a {dims = [1, 0]} : tensor<3x2xf32>", "return",
       "v.graph:2:29: error: 'broadcast' dims must be increasing and less than the result rank 2, found [1, 0]"},
      {"  %x = broadcast %v {dims = [0, 1]} : tensor<3x3xi32>", "return",
       "v.graph:2:29: error: 'broadcast' dims has 2 entries, expected 1 (one per input dimension)"},
      {"  %x = broadcast %v {dims = [1]} : tensor<4x4xi32>", "return",
       "v.graph:2:8: error: 'broadcast' input dimension 0 has size 3, result dimension 1 has size 4"},
      {"  %x = broadcast %v {dims = [1]} : tensor<?x3xi32>", "return",
       "v.graph:2:8: error: 'broadcast' to tensor<?x3xi32> needs 1 index operands (one per '?' result dimension not in dims), found 0"},
      {"  %x = reshape %a : tensor<4x2xf32>", "return",
       "v.graph:2:8: error: 'reshape' changes the element count: tensor<2x3xf32> has 6 elements, tensor<4x2xf32> has 8"},
      {"  %x = reshape %a : tensor<6xi32>", "return",
       "v.graph:2:8: error: 'reshape' result element type i32 differs from the input's f32"},
      {"  %x = constant 1.0 : tensor<?xf32>", "return",
       "v.graph:2:8: error: constant type must have a static shape, found tensor<?xf32>"},
  };
  for (const Case &c : cases)
    EXPECT_EQ(firstError(fn(c.body, c.ret)), c.message) << c.body;
}

TEST(VerifierErrors, DirectCalls) {
  const std::string decl = "kernel @k(%a: tensor<?x4xf32>, %s: f32) -> tensor<?xf32>\n";
  auto call = [&](const std::string &line) {
    return firstError(decl + "func @f(%x: tensor<?x4xf32>, %y: tensor<?x5xf32>, %s: f32, "
                             "%i: index) {\n" + line + "\n  return\n}\n");
  };
  bool ok = false;
  verify(decl + "func @f(%x: tensor<3x4xf32>, %s: f32, %i: index) {\n"
                "  %r = kernel_call @k %x, %s, %i : tensor<?xf32>\n  return\n}\n", &ok);
  EXPECT_TRUE(ok);
  EXPECT_EQ(call("  %r = kernel_call @k %x, %s : tensor<?xf32>"),
            "v.graph:3:8: error: kernel_call @k takes 2 arguments and 1 index operand for the '?' "
            "sizes of its result tensor<?xf32>, found 2 operands");
  EXPECT_EQ(call("  %r = kernel_call @k %y, %s, %i : tensor<?xf32>"),
            "v.graph:3:8: error: kernel_call @k operand 1 ('%y') is tensor<?x5xf32>, but the "
            "kernel declares %a: tensor<?x4xf32>");
  EXPECT_EQ(call("  %r = kernel_call @k %x, %s, %s : tensor<?xf32>"),
            "v.graph:3:8: error: kernel_call @k operand 3 ('%s') gives a '?' size of the result "
            "and must be index, found f32");
  EXPECT_EQ(call("  %r = kernel_call @k %x, %s, %i : tensor<?xf64>"),
            "v.graph:3:8: error: kernel_call @k result type is tensor<?xf64>, but the kernel "
            "returns tensor<?xf32>");
  EXPECT_EQ(call("  %r = kernel_call @k %x, %s, %i {axis = 0} : tensor<?xf32>"),
            "v.graph:3:35: error: unknown attribute 'axis' for 'kernel_call' (it takes none)");
  // A declared static size needs the same static size: a '?' could differ.
  EXPECT_EQ(firstError("kernel @k(%a: tensor<4xf32>) -> tensor<4xf32>\n"
                       "func @f(%x: tensor<?xf32>) {\n  %r = kernel_call @k %x : tensor<4xf32>\n"
                       "  return\n}\n"),
            "v.graph:3:8: error: kernel_call @k operand 1 ('%x') is tensor<?xf32>, but the "
            "kernel declares %a: tensor<4xf32>");
}

TEST(VerifierErrors, Returns) {
  EXPECT_EQ(firstError("func @f(%a: tensor<2x3xf32>) -> (tensor<2x3xf32>, f32) {\n  return %a\n}\n"),
            "v.graph:2:3: error: 'return' has 1 value, but '@f' declares 2 results");
  EXPECT_EQ(firstError("func @f(%a: tensor<2x3xf32>) -> tensor<2x4xf32> {\n  return %a\n}\n"),
            "v.graph:2:3: error: return value 0 '%a' has type tensor<2x3xf32>, but '@f' declares tensor<2x4xf32>");
  EXPECT_EQ(firstError("func @f(%a: tensor<?x3xf32>) -> tensor<2x3xf32> {\n  return %a\n}\n"),
            "v.graph:2:3: error: return value 0 '%a' has type tensor<?x3xf32>, but '@f' declares tensor<2x3xf32>");
  // A declared '?' accepts any size.
  bool ok = false;
  verify("func @f(%a: tensor<2x3xf32>) -> tensor<?x?xf32> {\n  return %a\n}\n", &ok);
  EXPECT_TRUE(ok);
}

TEST(VerifierErrors, ReportsEveryBadOp) {
  std::string all = verify(fn("  %x = dim %a {axis = 5} : index\n"
                              "  %y = transpose %a {perm = [0]} : tensor<2x3xf32>\n"
                              "  %z = add %s, %s : f32"));
  size_t count = 0;
  for (size_t p = all.find("error:"); p != std::string::npos; p = all.find("error:", p + 1))
    ++count;
  EXPECT_EQ(count, 3u) << all;
  // Shows the line and a caret under the column.
  EXPECT_NE(all.find("    %x = dim %a {axis = 5} : index\n" + std::string(24, ' ') + "^\n"),
            std::string::npos) << all;
}

} // namespace
} // namespace graft
