/* graft integer arithmetic, defined once.
 *
 * Everything in graft that divides integers does it the way this header
 * says: the runtime's host expressions (graft_expr_v1_t in abi.h), the
 * compiler's folding of those expressions, spec expressions, the reference
 * evaluator, and the code graft generates for integer map bodies (which
 * emits the same rules as LLVM IR and is tested against this header).
 *
 * Division is floor division: the quotient is rounded toward negative
 * infinity and the remainder has the sign of the divisor (Python's // and %),
 * so that a == b * div(a, b) + rem(a, b) always holds:
 *     div(-7, 2) == -4    rem(-7, 2) == 1    div(7, -2) == -4    rem(7, -2) == -1
 *
 * Two families share that rule:
 *   - Host arithmetic (sizes, grid counts, index values at function level,
 *     spec expressions) is checked: a result outside int64 and a zero
 *     divisor are errors, reported by graft_expr_apply().
 *   - Tensor element arithmetic (integer map bodies) never fails: it wraps in
 *     the element's width (two's complement), and a zero divisor gives
 *     div(a, 0) == 0 and rem(a, 0) == a, which keeps the identity above.
 *     graft_wrapping_div() and graft_wrapping_rem() take operands
 *     sign-extended to 64 bits; the caller truncates the result to the width.
 *
 * Pure C99 with static inline functions only, so that the compiler (C++), the
 * runtime (C) and freestanding code can all include it. */
#ifndef GRAFT_EXPR_H_
#define GRAFT_EXPR_H_

#include <stdint.h>

#include "graft/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum graft_expr_status_e {
  GRAFT_EXPR_STATUS_OK = 0,
  GRAFT_EXPR_STATUS_OVERFLOW = 1,         /* the result is not an int64 */
  GRAFT_EXPR_STATUS_DIVIDE_BY_ZERO = 2,   /* DIV, CEILDIV or REM by 0 */
  GRAFT_EXPR_STATUS_NOT_BINARY = 3,       /* |op| is not a binary op */
} graft_expr_status_t;

/* floor(a / b). Requires b != 0 and not (a == INT64_MIN && b == -1). */
static inline int64_t graft_floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* a - b * floor(a / b), with the sign of b. Requires b != 0; defined for
 * INT64_MIN and -1 (the result, 0, fits). */
static inline int64_t graft_floor_rem(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

/* Applies binary op |op| (GRAFT_EXPR_ADD .. the last binary op of abi.h) to
 * |a| and |b| with the checks of host arithmetic. On GRAFT_EXPR_STATUS_OK
 * the result is in |*out|; otherwise |*out| is left alone. */
static inline graft_expr_status_t graft_expr_apply(uint32_t op, int64_t a,
                                                   int64_t b, int64_t* out) {
  int64_t r = 0;
  switch (op) {
    case GRAFT_EXPR_ADD:
      if (__builtin_add_overflow(a, b, &r)) return GRAFT_EXPR_STATUS_OVERFLOW;
      break;
    case GRAFT_EXPR_SUB:
      if (__builtin_sub_overflow(a, b, &r)) return GRAFT_EXPR_STATUS_OVERFLOW;
      break;
    case GRAFT_EXPR_MUL:
      if (__builtin_mul_overflow(a, b, &r)) return GRAFT_EXPR_STATUS_OVERFLOW;
      break;
    case GRAFT_EXPR_DIV:
    case GRAFT_EXPR_CEILDIV:
    case GRAFT_EXPR_REM:
      if (b > 0 && (b & (b - 1)) == 0) {
        /* A power of two (most tile sizes): floor(a / b) is an arithmetic
         * shift (what GCC and Clang give >> of a negative int64), the floor
         * remainder a mask; exactly the results of the division below, at
         * a fraction of a 64-bit idiv's latency (host programs evaluate
         * several per call). */
        int64_t rem = a & (b - 1);
        r = a >> __builtin_ctzll((uint64_t)b);
        if (op == GRAFT_EXPR_REM) r = rem;
        else if (op == GRAFT_EXPR_CEILDIV && rem != 0) r += 1;
        break;
      }
      if (op == GRAFT_EXPR_REM) {
        if (b == 0) return GRAFT_EXPR_STATUS_DIVIDE_BY_ZERO;
        r = graft_floor_rem(a, b);
        break;
      }
      if (b == 0) return GRAFT_EXPR_STATUS_DIVIDE_BY_ZERO;
      if (a == INT64_MIN && b == -1) return GRAFT_EXPR_STATUS_OVERFLOW;
      r = graft_floor_div(a, b);
      /* ceil(a / b) is floor(a / b) plus one when b does not divide a; that
       * never overflows (the quotient is INT64_MAX only for b == +-1). */
      if (op == GRAFT_EXPR_CEILDIV && graft_floor_rem(a, b) != 0) r += 1;
      break;
    case GRAFT_EXPR_MIN: r = a < b ? a : b; break;
    case GRAFT_EXPR_MAX: r = a > b ? a : b; break;
    case GRAFT_EXPR_EQ: r = a == b; break;
    case GRAFT_EXPR_LT: r = a < b; break;
    default: return GRAFT_EXPR_STATUS_NOT_BINARY;
  }
  *out = r;
  return GRAFT_EXPR_STATUS_OK;
}

/* How messages write binary op |op|: "+", "-", "*", "/", "%", "ceildiv",
 * "min", "max", "==", "<"; "?" for anything else. Infix ops are the
 * one-character ones and the comparisons. */
static inline const char* graft_expr_op_symbol(uint32_t op) {
  switch (op) {
    case GRAFT_EXPR_ADD: return "+";
    case GRAFT_EXPR_SUB: return "-";
    case GRAFT_EXPR_MUL: return "*";
    case GRAFT_EXPR_DIV: return "/";
    case GRAFT_EXPR_REM: return "%";
    case GRAFT_EXPR_CEILDIV: return "ceildiv";
    case GRAFT_EXPR_MIN: return "min";
    case GRAFT_EXPR_MAX: return "max";
    case GRAFT_EXPR_EQ: return "==";
    case GRAFT_EXPR_LT: return "<";
    default: return "?";
  }
}

/* Tensor element division on operands sign-extended from the element width:
 * floor division, div(a, 0) == 0, and div(a, -1) == -a computed modulo 2^64
 * (the caller's truncation to the width then wraps INT_MIN / -1 to INT_MIN). */
static inline int64_t graft_wrapping_div(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  return graft_floor_div(a, b);
}

/* Tensor element remainder: floor remainder, rem(a, 0) == a. */
static inline int64_t graft_wrapping_rem(int64_t a, int64_t b) {
  if (b == 0) return a;
  return graft_floor_rem(a, b);
}

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_EXPR_H_ */
