/* graft/expr.h, the one definition of graft's integer arithmetic, against an
 * independent reference: exact 128-bit arithmetic (where the target has
 * __int128) with floor division written as "remainder first", over every
 * pair of boundary values and every binary op; a table of cases checked by
 * hand (and by Python's // and %); the wrapping element rules; and the
 * runtime's host-expression evaluator, which must agree with the header for
 * every pair (value or error). The compiler's uses of the header are tested
 * in lib/shape/ExprSemanticsTest.cpp and tests/e2e/int_semantics.sh. */
#include <stdint.h>

#include "exec/executor.h"
#include "graft/expr.h"
#include "io/test_harness.h"

/* Powers of two among them (1, 2, 64, 256, 2^32, 2^62) take
 * graft_expr_apply's shift path for DIV, CEILDIV and REM, next to
 * dividends one off a multiple of them and negative ones. */
static const int64_t kValues[] = {
    INT64_MIN, INT64_MIN + 1, -(INT64_C(1) << 32), -257, -65, -64, -7, -2, -1,
    0, 1, 2, 3, 7, 63, 64, 65, 96, 256, 257, INT64_C(1) << 32,
    INT64_C(1) << 62, INT64_MAX - 1, INT64_MAX,
};
enum { kValueCount = sizeof(kValues) / sizeof(kValues[0]) };

static const uint32_t kBinaryOps[] = {
    GRAFT_EXPR_ADD, GRAFT_EXPR_SUB, GRAFT_EXPR_MUL, GRAFT_EXPR_DIV,
    GRAFT_EXPR_CEILDIV, GRAFT_EXPR_MIN, GRAFT_EXPR_MAX, GRAFT_EXPR_REM,
    GRAFT_EXPR_EQ, GRAFT_EXPR_LT,
};
enum { kOpCount = sizeof(kBinaryOps) / sizeof(kBinaryOps[0]) };

#ifdef __SIZEOF_INT128__
/* The reference: the exact result in 128 bits, then a range check. Floor
 * division here takes the remainder first (r with the sign of b, then
 * q = (a - r) / b exactly), not graft_floor_div's quotient adjustment. */
static graft_expr_status_t reference(uint32_t op, int64_t a, int64_t b,
                                     int64_t* out) {
  __int128 x = a, y = b, r;
  switch (op) {
    case GRAFT_EXPR_ADD: r = x + y; break;
    case GRAFT_EXPR_SUB: r = x - y; break;
    case GRAFT_EXPR_MUL: r = x * y; break;
    case GRAFT_EXPR_MIN: r = x < y ? x : y; break;
    case GRAFT_EXPR_MAX: r = x > y ? x : y; break;
    case GRAFT_EXPR_EQ: r = x == y; break;
    case GRAFT_EXPR_LT: r = x < y; break;
    default: {
      if (y == 0) return GRAFT_EXPR_STATUS_DIVIDE_BY_ZERO;
      __int128 m = x % y;
      if (m != 0 && ((m < 0) != (y < 0))) m += y;
      __int128 q = (x - m) / y;
      if (op == GRAFT_EXPR_REM) r = m;
      else if (op == GRAFT_EXPR_DIV) r = q;
      else r = m != 0 ? q + 1 : q; /* CEILDIV */
    }
  }
  if (r < INT64_MIN || r > INT64_MAX) return GRAFT_EXPR_STATUS_OVERFLOW;
  *out = (int64_t)r;
  return GRAFT_EXPR_STATUS_OK;
}

static void apply_matches_128_bit_reference(void) {
  for (int o = 0; o < kOpCount; ++o)
    for (int i = 0; i < kValueCount; ++i)
      for (int j = 0; j < kValueCount; ++j) {
        int64_t a = kValues[i], b = kValues[j], got = 0, want = 0;
        graft_expr_status_t gs = graft_expr_apply(kBinaryOps[o], a, b, &got);
        graft_expr_status_t ws = reference(kBinaryOps[o], a, b, &want);
        if (gs != ws || (gs == GRAFT_EXPR_STATUS_OK && got != want)) {
          printf("  %lld %s %lld: got status %d value %lld, want %d %lld\n",
                 (long long)a, graft_expr_op_symbol(kBinaryOps[o]),
                 (long long)b, gs, (long long)got, ws, (long long)want);
          graft_test_case_failed_ = 1;
        }
      }
}
#endif

#define EXPECT_APPLY(op, a, b, expected)                            \
  do {                                                              \
    int64_t v_ = 0;                                                 \
    EXPECT(graft_expr_apply(op, a, b, &v_) == GRAFT_EXPR_STATUS_OK); \
    EXPECT(v_ == (expected));                                       \
  } while (0)
#define EXPECT_APPLY_FAILS(op, a, b, status)            \
  do {                                                  \
    int64_t v_ = 42;                                    \
    EXPECT(graft_expr_apply(op, a, b, &v_) == (status)); \
    EXPECT(v_ == 42);                                   \
  } while (0)

/* Python: -7 // 2 == -4, -7 % 2 == 1, 7 // -2 == -4, 7 % -2 == -1. */
static void floor_division_table(void) {
  EXPECT_APPLY(GRAFT_EXPR_DIV, -7, 2, -4);
  EXPECT_APPLY(GRAFT_EXPR_REM, -7, 2, 1);
  EXPECT_APPLY(GRAFT_EXPR_DIV, 7, -2, -4);
  EXPECT_APPLY(GRAFT_EXPR_REM, 7, -2, -1);
  EXPECT_APPLY(GRAFT_EXPR_DIV, -7, -2, 3);
  EXPECT_APPLY(GRAFT_EXPR_REM, -7, -2, -1);
  EXPECT_APPLY(GRAFT_EXPR_DIV, 7, 2, 3);
  EXPECT_APPLY(GRAFT_EXPR_REM, 7, 2, 1);
  EXPECT_APPLY(GRAFT_EXPR_CEILDIV, -7, 2, -3);
  EXPECT_APPLY(GRAFT_EXPR_CEILDIV, 7, -2, -3);
  EXPECT_APPLY(GRAFT_EXPR_CEILDIV, 7, 2, 4);
  EXPECT_APPLY(GRAFT_EXPR_CEILDIV, INT64_MAX, 2, INT64_C(1) << 62);
  EXPECT_APPLY(GRAFT_EXPR_DIV, INT64_MIN, 2, -(INT64_C(1) << 62));
  EXPECT_APPLY(GRAFT_EXPR_REM, INT64_MIN, -1, 0);
  EXPECT_APPLY(GRAFT_EXPR_REM, INT64_MIN, INT64_MAX, INT64_MAX - 1);
  EXPECT_APPLY(GRAFT_EXPR_DIV, INT64_MIN, INT64_MAX, -2);
  EXPECT_APPLY(GRAFT_EXPR_EQ, -1, -1, 1);
  EXPECT_APPLY(GRAFT_EXPR_LT, INT64_MIN, INT64_MAX, 1);
  EXPECT_APPLY(GRAFT_EXPR_LT, 0, 0, 0);
  EXPECT_APPLY_FAILS(GRAFT_EXPR_DIV, INT64_MIN, -1, GRAFT_EXPR_STATUS_OVERFLOW);
  EXPECT_APPLY_FAILS(GRAFT_EXPR_CEILDIV, INT64_MIN, -1,
                     GRAFT_EXPR_STATUS_OVERFLOW);
  EXPECT_APPLY_FAILS(GRAFT_EXPR_ADD, INT64_MAX, 1, GRAFT_EXPR_STATUS_OVERFLOW);
  EXPECT_APPLY_FAILS(GRAFT_EXPR_SUB, 0, INT64_MIN, GRAFT_EXPR_STATUS_OVERFLOW);
  EXPECT_APPLY_FAILS(GRAFT_EXPR_MUL, INT64_MIN, -1, GRAFT_EXPR_STATUS_OVERFLOW);
  EXPECT_APPLY_FAILS(GRAFT_EXPR_REM, 5, 0, GRAFT_EXPR_STATUS_DIVIDE_BY_ZERO);
  EXPECT_APPLY_FAILS(GRAFT_EXPR_CEILDIV, 5, 0,
                     GRAFT_EXPR_STATUS_DIVIDE_BY_ZERO);
  EXPECT_APPLY_FAILS(GRAFT_EXPR_ARG_DIM, 1, 1, GRAFT_EXPR_STATUS_NOT_BINARY);
}

/* Element rules: floor, never failing; the caller truncates to the width. */
static void wrapping_element_rules(void) {
  EXPECT(graft_wrapping_div(-7, 2) == -4);
  EXPECT(graft_wrapping_rem(-7, 2) == 1);
  EXPECT(graft_wrapping_div(7, 0) == 0);
  EXPECT(graft_wrapping_rem(7, 0) == 7);
  EXPECT(graft_wrapping_div(INT64_MIN, -1) == INT64_MIN);
  EXPECT(graft_wrapping_rem(INT64_MIN, -1) == 0);
  EXPECT((int8_t)graft_wrapping_div(-128, -1) == -128);
  /* a == b * div(a, b) + rem(a, b) for every pair, modulo 2^64. */
  for (int i = 0; i < kValueCount; ++i)
    for (int j = 0; j < kValueCount; ++j) {
      int64_t a = kValues[i], b = kValues[j];
      uint64_t back = (uint64_t)b * (uint64_t)graft_wrapping_div(a, b) +
                      (uint64_t)graft_wrapping_rem(a, b);
      EXPECT(back == (uint64_t)a);
    }
}

/* The runtime's host expressions give what the header gives, for every op
 * and pair: the value, or an error naming the overflow or zero divisor. */
static void host_exprs_agree_with_header(void) {
  for (int o = 0; o < kOpCount; ++o)
    for (int i = 0; i < kValueCount; ++i)
      for (int j = 0; j < kValueCount; ++j) {
        int64_t a = kValues[i], b = kValues[j], want = 0;
        graft_expr_v1_t exprs[3] = {{GRAFT_EXPR_CONST, 0, a},
                                    {GRAFT_EXPR_CONST, 0, b},
                                    {kBinaryOps[o], 0, 1}};
        graft_function_v1_t f = {.name = "f", .expr_count = 3, .exprs = exprs};
        int64_t values[3] = {0};
        graft_status_t s = graft_host_exprs_evaluate(&f, NULL, values);
        graft_expr_status_t ws = graft_expr_apply(kBinaryOps[o], a, b, &want);
        const char* text = s ? graft_status_message(s) : "";
        int ok = ws == GRAFT_EXPR_STATUS_OK
                     ? !s && values[2] == want
                     : s && strstr(text, ws == GRAFT_EXPR_STATUS_OVERFLOW
                                             ? "overflows 64 bits"
                                             : "by zero") != NULL;
        if (!ok) {
          printf("  %lld %s %lld: runtime says '%s' (value %lld)\n",
                 (long long)a, graft_expr_op_symbol(kBinaryOps[o]),
                 (long long)b, text, (long long)values[2]);
          graft_test_case_failed_ = 1;
        }
        graft_status_free(s);
      }
}

int main(void) {
#ifdef __SIZEOF_INT128__
  TEST_CASE(apply_matches_128_bit_reference);
#endif
  TEST_CASE(floor_division_table);
  TEST_CASE(wrapping_element_rules);
  TEST_CASE(host_exprs_agree_with_header);
  return graft_test_finish();
}
