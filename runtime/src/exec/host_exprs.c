/* Evaluation of a function's integer expressions (graft_expr_v1_t): the
 * sizes, grid counts and dispatch constants of one invocation, computed from
 * the argument dims and scalar arguments. All arithmetic is checked: an
 * overflow or a division by zero is the caller's error (odd input sizes), not
 * undefined behaviour. The arithmetic is graft/expr.h's, shared with the
 * compiler, so a size folded at compile time and the same size computed here
 * always agree. */
#include <string.h>

#include "exec/executor.h"
#include "graft/expr.h"

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

int64_t graft_host_expr_leaf(const graft_expr_v1_t* e,
                             const graft_tensor_t* args) {
  /* Validated against the declared types, which |args| match. */
  return e->op == GRAFT_EXPR_ARG_DIM ? args[e->a].dims[e->imm]
                                     : scalar_word(&args[e->a]);
}

static graft_status_t failed(const graft_function_v1_t* f, uint32_t i,
                             const graft_expr_v1_t* e, int64_t a, int64_t b,
                             graft_expr_status_t why) {
  if (why == GRAFT_EXPR_STATUS_DIVIDE_BY_ZERO)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "function '%s': size expression %u divides %lld "
                             "by zero",
                             f->name, i, (long long)a);
  if (why == GRAFT_EXPR_STATUS_OVERFLOW)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "function '%s': size expression %u (%lld %s %lld) "
                             "overflows 64 bits",
                             f->name, i, (long long)a,
                             graft_expr_op_symbol(e->op), (long long)b);
  return graft_status_make(GRAFT_INTERNAL,
                           "function '%s': expression %u has op %u, which "
                           "validation refuses; this is a bug in graft, please "
                           "report it",
                           f->name, i, e->op);
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
      values[i] = graft_host_expr_leaf(e, args);
      continue;
    }
    /* Binary: operands are earlier expressions (validated). */
    int64_t a = values[e->a], b = values[e->imm], r = 0;
    graft_expr_status_t why = graft_expr_apply(e->op, a, b, &r);
    if (why != GRAFT_EXPR_STATUS_OK) return failed(f, i, e, a, b, why);
    values[i] = r;
  }
  return NULL;
}
