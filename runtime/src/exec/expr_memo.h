/* The host expression values of a module's last call of each function,
 * kept with the leaves they came from (the argument dims and scalar
 * arguments the expressions read), so that a call with the same leaves
 * copies the values instead of evaluating every expression again: a call
 * repeated with the same shapes, the usual case, evaluates none. The values
 * are a pure function of the leaves (graft_host_exprs_evaluate), so a copy
 * is exactly what evaluating would give; only a successful evaluation is
 * kept, and the checks, which read the values, run on every call.
 *
 * Safe across threads: a call takes a function's memo with an atomic flag
 * and, when another call holds it, evaluates as if there were none.
 * Internal to graft_runtime. */
#ifndef GRAFT_RUNTIME_EXPR_MEMO_H_
#define GRAFT_RUNTIME_EXPR_MEMO_H_

#include <stdint.h>

#include "graft/abi.h"
#include "graft/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct graft_expr_memos_t graft_expr_memos_t;

/* One memo per function of |library| (validated). */
graft_status_t graft_expr_memos_create(const graft_library_v1_t* library,
                                       graft_expr_memos_t** out_memos);
/* NULL is ignored. */
void graft_expr_memos_free(graft_expr_memos_t* memos);

/* graft_host_exprs_evaluate of function |ordinal| (|f|), through its memo
 * when |memos| is not NULL. */
graft_status_t graft_expr_memos_evaluate(graft_expr_memos_t* memos,
                                         uint32_t ordinal,
                                         const graft_function_v1_t* f,
                                         const graft_tensor_t* args,
                                         int64_t* values);

/* Calls of function |ordinal| whose values came from its memo (tests). */
uint64_t graft_expr_memos_hits(const graft_expr_memos_t* memos,
                               uint32_t ordinal);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_EXPR_MEMO_H_ */
