/* Evaluation of a function's integer expressions (graft_expr_v1_t): the
 * sizes, grid counts and dispatch constants of one invocation, computed from
 * the argument dims and scalar arguments. All arithmetic is checked: an
 * overflow or a division by zero is the caller's error (odd input sizes), not
 * undefined behaviour. */
#include <string.h>

#include "exec/executor.h"

/* Scalar argument as a dispatch constant word (abi.h: integers sign-extended,
 * floats as their bit pattern). */
static int64_t scalar_word(const graft_tensor_t* t) {
  const uint8_t* p = t->data;
  switch (t->dtype) {
    case GRAFT_DTYPE_I1: return *p != 0;
    case GRAFT_DTYPE_I8: return *(const int8_t*)p;
    case GRAFT_DTYPE_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case GRAFT_DTYPE_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case GRAFT_DTYPE_F16:
    case GRAFT_DTYPE_BF16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case GRAFT_DTYPE_F32: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { int64_t v; memcpy(&v, p, 8); return v; }
  }
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

static graft_status_t overflow(const graft_function_v1_t* f, uint32_t i,
                               const char* op, int64_t a, int64_t b) {
  return graft_status_make(GRAFT_INVALID_ARGUMENT,
                           "function '%s': size expression %u (%lld %s %lld) "
                           "overflows 64 bits",
                           f->name, i, (long long)a, op, (long long)b);
}

graft_status_t graft_host_exprs_evaluate(const graft_function_v1_t* f,
                                         const graft_tensor_t* args,
                                         int64_t* values) {
  for (uint32_t i = 0; i < f->expr_count; ++i) {
    const graft_expr_v1_t* e = &f->exprs[i];
    if (e->op == GRAFT_EXPR_CONST) {
      values[i] = e->imm;
      continue;
    }
    if (e->op == GRAFT_EXPR_ARG_DIM || e->op == GRAFT_EXPR_ARG_SCALAR) {
      /* Validated against the declared types, which |args| match. */
      values[i] = e->op == GRAFT_EXPR_ARG_DIM ? args[e->a].dims[e->imm]
                                              : scalar_word(&args[e->a]);
      continue;
    }
    /* Binary: operands are earlier expressions (validated). */
    int64_t a = values[e->a], b = values[e->imm], r = 0;
    switch (e->op) {
      case GRAFT_EXPR_ADD:
        if (__builtin_add_overflow(a, b, &r)) return overflow(f, i, "+", a, b);
        break;
      case GRAFT_EXPR_SUB:
        if (__builtin_sub_overflow(a, b, &r)) return overflow(f, i, "-", a, b);
        break;
      case GRAFT_EXPR_MUL:
        if (__builtin_mul_overflow(a, b, &r)) return overflow(f, i, "*", a, b);
        break;
      case GRAFT_EXPR_DIV:
      case GRAFT_EXPR_CEILDIV:
      case GRAFT_EXPR_REM:
        if (b == 0)
          return graft_status_make(GRAFT_INVALID_ARGUMENT,
                                   "function '%s': size expression %u divides "
                                   "%lld by zero",
                                   f->name, i, (long long)a);
        if (a == INT64_MIN && b == -1) return overflow(f, i, "/", a, b);
        if (e->op == GRAFT_EXPR_DIV) {
          r = floor_div(a, b);
        } else if (e->op == GRAFT_EXPR_CEILDIV) {
          /* ceil(a/b) is floor(a/b) plus one when b does not divide a. */
          r = floor_div(a, b) + (a % b != 0);
        } else {
          r = a - floor_div(a, b) * b;
        }
        break;
      case GRAFT_EXPR_MIN: r = a < b ? a : b; break;
      case GRAFT_EXPR_MAX: r = a > b ? a : b; break;
      default:
        return graft_status_make(GRAFT_INTERNAL,
                                 "function '%s': expression %u has op %u, "
                                 "which validation refuses; this is a bug in "
                                 "graft, please report it",
                                 f->name, i, e->op);
    }
    values[i] = r;
  }
  return NULL;
}
