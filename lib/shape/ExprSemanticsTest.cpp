// One integer semantics in every place the compiler computes host
// arithmetic: constant folding in the host program (ExprTable), spec
// expressions (parsed and evaluated), and the reference evaluator's
// function-level index ops all give what graft/expr.h gives, for every op
// and every pair of boundary values (INT64_MIN, -1, 0, ...), errors
// included. graft/expr.h itself is checked against an independent 128-bit
// reference in runtime/src/exec/expr_test.c (with the runtime's evaluator of
// host expressions); tests/e2e/int_semantics.sh runs the same pairs through
// graft eval and compiled bundles.
#include "eval/Evaluator.h"
#include "graph/Parser.h"
#include "graph/Verifier.h"
#include "shape/ExprTable.h"
#include "spec/SpecExpr.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>

namespace graft {
namespace {

const int64_t kValues[] = {INT64_MIN, INT64_MIN + 1, -7, -2, -1, 0, 1, 2, 3, 7,
                           INT64_MAX - 1, INT64_MAX};

struct OpCase {
  graft_expr_op_t op;
  const char *graphOp; // function-level op in graph files, or null
  const char *specOp;  // spec expression operator / function, or null
};
const OpCase kOps[] = {
    {GRAFT_EXPR_ADD, "add", "+"},      {GRAFT_EXPR_SUB, "sub", "-"},
    {GRAFT_EXPR_MUL, "mul", "*"},      {GRAFT_EXPR_DIV, "div", "/"},
    {GRAFT_EXPR_REM, "rem", "%"},      {GRAFT_EXPR_CEILDIV, nullptr, "ceildiv"},
    {GRAFT_EXPR_MIN, "min", "min"},    {GRAFT_EXPR_MAX, "max", "max"},
    {GRAFT_EXPR_EQ, nullptr, nullptr}, {GRAFT_EXPR_LT, nullptr, nullptr},
};

// What graft/expr.h says: the value, or the failure.
struct Expected {
  graft_expr_status_t status;
  int64_t value = 0;
};
Expected expected(graft_expr_op_t op, int64_t a, int64_t b) {
  Expected e;
  e.status = graft_expr_apply(op, a, b, &e.value);
  return e;
}

std::string pairText(const OpCase &c, int64_t a, int64_t b) {
  return std::to_string(a) + " " + graft_expr_op_symbol(c.op) + " " + std::to_string(b);
}

TEST(ExprSemantics, FoldingInTheHostProgram) {
  for (const OpCase &c : kOps)
    for (int64_t a : kValues)
      for (int64_t b : kValues) {
        ExprTable t;
        uint32_t id = t.binary(c.op, t.constant(a), t.constant(b));
        std::vector<FoldError> errors = t.takeFoldErrors();
        Expected want = expected(c.op, a, b);
        if (want.status == GRAFT_EXPR_STATUS_OK) {
          EXPECT_TRUE(errors.empty()) << pairText(c, a, b);
          EXPECT_EQ(t.constValue(id), want.value) << pairText(c, a, b);
        } else {
          // Not folded, reported, and left for the runtime to refuse too.
          ASSERT_EQ(errors.size(), 1u) << pairText(c, a, b);
          EXPECT_EQ(errors[0].status, want.status) << pairText(c, a, b);
          EXPECT_FALSE(t.constValue(id).has_value()) << pairText(c, a, b);
        }
      }
  ExprTable t;
  t.binary(GRAFT_EXPR_DIV, t.constant(-7), t.constant(0));
  EXPECT_EQ(t.takeFoldErrors()[0].message(), "-7 / 0 divides by zero");
  t.binary(GRAFT_EXPR_CEILDIV, t.constant(INT64_MIN), t.constant(-1));
  EXPECT_EQ(t.takeFoldErrors()[0].message(),
            "ceildiv(-9223372036854775808, -1) overflows 64 bits");
}

// A spec-expression literal for |v| (the grammar has no literal for
// INT64_MIN itself).
std::string literal(int64_t v) {
  if (v == INT64_MIN)
    return "(-9223372036854775807 - 1)";
  return std::to_string(v);
}

TEST(ExprSemantics, SpecExpressions) {
  SourceManager sm;
  DiagEngine diag(sm);
  diag.setEcho(false);
  SpecScope scope; // no names: constant expressions only
  for (const OpCase &c : kOps) {
    if (!c.specOp)
      continue;
    for (int64_t a : kValues)
      for (int64_t b : kValues) {
        std::string text = std::strlen(c.specOp) == 1
                               ? literal(a) + " " + c.specOp + " " + literal(b)
                               : std::string(c.specOp) + "(" + literal(a) + ", " + literal(b) + ")";
        SpecExpr e;
        ASSERT_TRUE(parseSpecExpr(text, SourceLoc{}, scope, diag, e)) << text << diag.text();
        SpecEvalFailure why;
        std::optional<int64_t> v = evalSpecExprStatic(e, {}, {}, scope, why);
        Expected want = expected(c.op, a, b);
        if (want.status == GRAFT_EXPR_STATUS_OK) {
          EXPECT_EQ(v, want.value) << text << ": " << why.message;
        } else {
          EXPECT_FALSE(v.has_value()) << text;
          EXPECT_TRUE(why.undefined) << text;
        }
      }
  }
  SpecExpr e;
  ASSERT_TRUE(parseSpecExpr("-7 % 0", SourceLoc{}, scope, diag, e));
  SpecEvalFailure why;
  EXPECT_FALSE(evalSpecExprStatic(e, {}, {}, scope, why));
  EXPECT_EQ(why.message, "(-7 % 0): -7 % 0 divides by zero");
}

graft_tensor_t indexScalar(int64_t v) {
  graft_tensor_t t;
  std::memset(&t, 0, sizeof t);
  t.dtype = GRAFT_DTYPE_INDEX;
  t.size = 8;
  t.data = std::malloc(8);
  std::memcpy(t.data, &v, 8);
  return t;
}

TEST(ExprSemantics, EvaluatorIndexArithmetic) {
  for (const OpCase &c : kOps) {
    if (!c.graphOp)
      continue;
    std::string text = std::string("func @f(%a: index, %b: index) -> index {\n  %r = ") +
                       c.graphOp + " %a, %b : index\n  return %r\n}\n";
    SourceManager sm;
    DiagEngine diag(sm);
    diag.setEcho(false);
    std::unique_ptr<Module> m = parseModule(sm, sm.add("t.graph", text), diag);
    ASSERT_TRUE(m && verifyModule(*m, diag)) << diag.text();
    for (int64_t a : kValues)
      for (int64_t b : kValues) {
        std::vector<graft_tensor_t> in = {indexScalar(a), indexScalar(b)}, out;
        std::string error;
        bool ok = evaluate(*m->functions[0], in, out, error);
        Expected want = expected(c.op, a, b);
        if (want.status == GRAFT_EXPR_STATUS_OK) {
          ASSERT_TRUE(ok) << pairText(c, a, b) << ": " << error;
          int64_t got;
          std::memcpy(&got, out[0].data, 8);
          EXPECT_EQ(got, want.value) << pairText(c, a, b);
        } else {
          EXPECT_FALSE(ok) << pairText(c, a, b);
          EXPECT_NE(error.find(want.status == GRAFT_EXPR_STATUS_OVERFLOW ? "overflows 64 bits"
                                                                         : "divides by zero"),
                    std::string::npos)
              << error;
        }
        for (graft_tensor_t &t : in)
          std::free(t.data);
        for (graft_tensor_t &t : out)
          std::free(t.data);
      }
  }
}

} // namespace
} // namespace graft
