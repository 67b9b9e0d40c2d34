/* Shared parts of the matmul peers (see matmul_peer.h). */
#include "matmul_peer.h"

#include <string.h>

static graft_status_t parse_post_ops(const char* text, bench_matmul_t* mm) {
  mm->post_op_count = 0;
  if (!text || !*text)
    return NULL;
  const char* p = text;
  while (*p) {
    size_t len = strcspn(p, ",");
    if (mm->post_op_count == BENCH_MAX_POST_OPS)
      return graft_status_make(GRAFT_INVALID_ARGUMENT,
                               "--post-ops '%s': more than %d steps", text,
                               BENCH_MAX_POST_OPS);
    if (len == 4 && !strncmp(p, "relu", 4)) {
      mm->post_ops[mm->post_op_count++] = BENCH_POST_RELU;
    } else if (len == 3 && !strncmp(p, "neg", 3)) {
      mm->post_ops[mm->post_op_count++] = BENCH_POST_NEG;
    } else {
      return graft_status_make(GRAFT_INVALID_ARGUMENT,
                               "--post-ops '%s': unknown step '%.*s', expected "
                               "relu or neg",
                               text, (int)len, p);
    }
    p += len;
    if (*p == ',')
      ++p;
  }
  return NULL;
}

static graft_status_t check_shapes(const graft_tensor_t* a,
                                   const graft_tensor_t* b,
                                   graft_dtype_t elem) {
  if (a->dtype != elem || b->dtype != elem)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "this matmul peer expects %s inputs, found %s and %s",
                             graft_dtype_name(elem), graft_dtype_name(a->dtype),
                             graft_dtype_name(b->dtype));
  if (a->rank != 2 || b->rank != 2)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "matmul peers expect two matrices, found ranks "
                             "%u and %u",
                             a->rank, b->rank);
  if (a->dims[1] != b->dims[0])
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "matmul inner dimensions differ: lhs has K = "
                             "%lld, rhs has K = %lld",
                             (long long)a->dims[1], (long long)b->dims[0]);
  return NULL;
}

graft_status_t bench_matmul_open(const bench_options_t* o, bench_matmul_t* mm) {
  return bench_matmul_open_typed(o, GRAFT_DTYPE_F32, GRAFT_DTYPE_F32, mm);
}

graft_status_t bench_matmul_open_typed(const bench_options_t* o, graft_dtype_t elem,
                                       graft_dtype_t result, bench_matmul_t* mm) {
  memset(mm, 0, sizeof(*mm));
  if (o->positional_count != 2)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "needs LHS.npy and RHS.npy, found %d path(s)",
                             o->positional_count);
  graft_tensor_t inputs[2] = {{0}};
  graft_status_t st = bench_read_inputs(o->positional, 2, inputs);
  mm->lhs = inputs[0];
  mm->rhs = inputs[1];
  if (!st)
    st = check_shapes(&mm->lhs, &mm->rhs, elem);
  if (!st)
    st = parse_post_ops(o->post_ops, mm);
  if (!st && mm->post_op_count && result != GRAFT_DTYPE_F32)
    st = graft_status_make(GRAFT_INVALID_ARGUMENT,
                           "--post-ops: only f32 results take post-ops");
  if (!st) {
    mm->m = mm->lhs.dims[0];
    mm->k = mm->lhs.dims[1];
    mm->n = mm->rhs.dims[1];
    int64_t dims[2] = {mm->m, mm->n};
    st = graft_tensor_allocate(result, 2, dims, &mm->out);
  }
  if (st)
    bench_matmul_close(mm);
  return st;
}

void bench_matmul_close(bench_matmul_t* mm) {
  graft_tensor_release(&mm->lhs);
  graft_tensor_release(&mm->rhs);
  graft_tensor_release(&mm->out);
}

/* One post-op over a run of elements: a loop the compiler vectorizes. */
static void apply_post_op(bench_post_op_t op, float* data, int64_t count) {
  if (op == BENCH_POST_RELU) {
    for (int64_t i = 0; i < count; ++i)
      data[i] = data[i] > 0.0f ? data[i] : 0.0f;
  } else {
    for (int64_t i = 0; i < count; ++i)
      data[i] = -data[i];
  }
}

/* Elements per chunk: every post-op runs over a chunk while it is in L1,
 * so all of them together make one pass over memory. */
#define POST_OP_CHUNK 2048
/* Fewer chunks than this run on the calling thread: waking a thread costs
 * more than the loop (the 2x2 MLP). */
#define POST_OP_PARALLEL_CHUNKS 16

void bench_matmul_apply_post_ops(bench_matmul_t* mm) {
  if (!mm->post_op_count)
    return;
  float* data = mm->out.data;
  int64_t count = mm->m * mm->n;
  int64_t chunks = (count + POST_OP_CHUNK - 1) / POST_OP_CHUNK;
#ifdef _OPENMP
#pragma omp parallel for schedule(static)                                      \
    num_threads(mm->threads) if (chunks >= POST_OP_PARALLEL_CHUNKS)
#endif
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t begin = c * POST_OP_CHUNK;
    int64_t len = count - begin < POST_OP_CHUNK ? count - begin : POST_OP_CHUNK;
    for (int j = 0; j < mm->post_op_count; ++j)
      apply_post_op(mm->post_ops[j], data + begin, len);
  }
}

graft_status_t bench_matmul_measure(const bench_options_t* o,
                                    const bench_matmul_t* mm,
                                    bench_call_fn_t call, void* user,
                                    const char* impl, const char* extra) {
  graft_status_t st = call(user);
  if (!st && o->save)
    st = bench_save_results(o->save, &mm->out, 1);
  if (!st)
    st = bench_measure(o, call, user, impl, mm->threads, extra);
  return st;
}
