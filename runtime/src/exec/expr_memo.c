/* Host expression values kept across calls (see expr_memo.h). */
#include "exec/expr_memo.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "exec/executor.h"

typedef struct memo_t {
  atomic_flag busy;    /* held by the call reading or writing the memo */
  int valid;           /* |leaves| and |values| are a successful evaluation */
  uint32_t leaf_count;
  uint32_t* leaf_exprs; /* indices of the ARG_DIM / ARG_SCALAR expressions */
  int64_t* leaves;      /* their values, leaf_count */
  int64_t* values;      /* every expression's value, f->expr_count */
  _Atomic uint64_t hits;
} memo_t;

struct graft_expr_memos_t {
  uint32_t count;
  memo_t* memos;
};

static int is_leaf(const graft_expr_v1_t* e) {
  return e->op == GRAFT_EXPR_ARG_DIM || e->op == GRAFT_EXPR_ARG_SCALAR;
}

void graft_expr_memos_free(graft_expr_memos_t* memos) {
  if (!memos) return;
  for (uint32_t i = 0; i < memos->count; ++i) {
    free(memos->memos[i].leaf_exprs);
    free(memos->memos[i].leaves);
    free(memos->memos[i].values);
  }
  free(memos->memos);
  free(memos);
}

graft_status_t graft_expr_memos_create(const graft_library_v1_t* library,
                                       graft_expr_memos_t** out_memos) {
  *out_memos = NULL;
  graft_expr_memos_t* memos = calloc(1, sizeof(*memos));
  uint32_t count = library->function_count;
  if (memos) memos->memos = calloc(count ? count : 1, sizeof(memo_t));
  int ok = memos && memos->memos;
  if (ok) memos->count = count;
  for (uint32_t i = 0; ok && i < count; ++i) {
    const graft_function_v1_t* f = &library->functions[i];
    memo_t* m = &memos->memos[i];
    atomic_flag_clear(&m->busy);
    for (uint32_t e = 0; e < f->expr_count; ++e)
      m->leaf_count += is_leaf(&f->exprs[e]);
    m->leaf_exprs = calloc(m->leaf_count ? m->leaf_count : 1, sizeof(uint32_t));
    m->leaves = calloc(m->leaf_count ? m->leaf_count : 1, sizeof(int64_t));
    m->values = calloc(f->expr_count ? f->expr_count : 1, sizeof(int64_t));
    ok = m->leaf_exprs && m->leaves && m->values;
    for (uint32_t e = 0, l = 0; ok && e < f->expr_count; ++e)
      if (is_leaf(&f->exprs[e])) m->leaf_exprs[l++] = e;
  }
  if (!ok) {
    graft_expr_memos_free(memos);
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "out of memory for host expression memos");
  }
  *out_memos = memos;
  return NULL;
}

/* Whether |m| holds the values for these |args|: every leaf agrees. */
static int leaves_match(const memo_t* m, const graft_function_v1_t* f,
                        const graft_tensor_t* args) {
  for (uint32_t l = 0; l < m->leaf_count; ++l)
    if (graft_host_expr_leaf(&f->exprs[m->leaf_exprs[l]], args) !=
        m->leaves[l])
      return 0;
  return 1;
}

graft_status_t graft_expr_memos_evaluate(graft_expr_memos_t* memos,
                                         uint32_t ordinal,
                                         const graft_function_v1_t* f,
                                         const graft_tensor_t* args,
                                         int64_t* values) {
  memo_t* m = memos ? &memos->memos[ordinal] : NULL;
  if (!m || atomic_flag_test_and_set_explicit(&m->busy, memory_order_acquire))
    return graft_host_exprs_evaluate(f, args, values);
  graft_status_t st = NULL;
  size_t bytes = sizeof(int64_t) * f->expr_count;
  if (m->valid && leaves_match(m, f, args)) {
    memcpy(values, m->values, bytes);
    /* Only the flag's holder writes it: no locked add. */
    atomic_store_explicit(
        &m->hits, atomic_load_explicit(&m->hits, memory_order_relaxed) + 1,
        memory_order_relaxed);
  } else {
    st = graft_host_exprs_evaluate(f, args, values);
    m->valid = !st;
    if (!st) {
      memcpy(m->values, values, bytes);
      for (uint32_t l = 0; l < m->leaf_count; ++l)
        m->leaves[l] = values[m->leaf_exprs[l]];
    }
  }
  atomic_flag_clear_explicit(&m->busy, memory_order_release);
  return st;
}

uint64_t graft_expr_memos_hits(const graft_expr_memos_t* memos,
                               uint32_t ordinal) {
  return atomic_load_explicit(&memos->memos[ordinal].hits,
                              memory_order_relaxed);
}
