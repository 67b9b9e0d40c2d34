/* graft_bench's oneDNN peers, both called the way a oneDNN user calls them:
 *
 *   onednn-sgemm   dnnl_sgemm (row-major C = A * B), then --post-ops as a
 *                  separate loop;
 *   onednn-matmul  the matmul primitive, created once for the shapes (not
 *                  timed), with --post-ops fused as eltwise post-ops (relu,
 *                  then linear with alpha -1 for neg), executed per call;
 *   onednn-gemm-s8 dnnl_gemm_s8s8s32 (i8 x i8 summed in i32, no offsets):
 *                  the peer of graft's i8 matmul (ONNX MatMulInteger).
 *
 * oneDNN's Debian build uses the OpenMP runtime: the thread count is set
 * with omp_set_num_threads before anything is created, and the count
 * oneDNN then sees (omp_get_max_threads) is what gets reported. */
#include <stdio.h>
#include <string.h>

#include "matmul_peer.h"
#include "modes.h"
#include "oneapi/dnnl/dnnl.h"
#include "oneapi/dnnl/dnnl_debug.h"

#if DNNL_CPU_RUNTIME == DNNL_RUNTIME_OMP
#include <omp.h>
#endif

static graft_status_t check(dnnl_status_t status, const char* what) {
  if (status == dnnl_success)
    return NULL;
  return graft_status_make(GRAFT_INTERNAL, "oneDNN: %s failed: %s", what,
                           dnnl_status2str(status));
}

/* Sets oneDNN's thread count; returns the count it will use. */
static graft_status_t set_threads(uint32_t threads, uint32_t* out_used) {
#if DNNL_CPU_RUNTIME == DNNL_RUNTIME_OMP
  omp_set_num_threads((int)threads);
  *out_used = (uint32_t)omp_get_max_threads();
  return NULL;
#elif DNNL_CPU_RUNTIME == DNNL_RUNTIME_SEQ
  *out_used = 1;
  if (threads == 1)
    return NULL;
  return graft_status_make(GRAFT_UNIMPLEMENTED,
                           "this oneDNN is sequential: cannot run %u threads",
                           threads);
#else
  (void)threads;
  (void)out_used;
  return graft_status_make(GRAFT_UNIMPLEMENTED,
                           "oneDNN's CPU runtime '%s' is not supported here "
                           "(graft_bench sets threads through OpenMP)",
                           dnnl_runtime2str(DNNL_CPU_RUNTIME));
#endif
}

void bench_describe_onednn(void) {
  const dnnl_version_t* v = dnnl_version();
  printf("\"version\": \"%d.%d.%d\", \"runtime\": \"%s\", \"isa\": \"%s\"",
         v->major, v->minor, v->patch, dnnl_runtime2str(v->cpu_runtime),
         dnnl_cpu_isa2str(dnnl_get_effective_cpu_isa()));
}

/* ---- dnnl_sgemm ---------------------------------------------------------- */

static graft_status_t sgemm_call(void* user) {
  bench_matmul_t* mm = user;
  graft_status_t st =
      check(dnnl_sgemm('N', 'N', mm->m, mm->n, mm->k, 1.0f, mm->lhs.data, mm->k,
                       mm->rhs.data, mm->n, 0.0f, mm->out.data, mm->n),
            "dnnl_sgemm");
  if (!st)
    bench_matmul_apply_post_ops(mm);
  return st;
}

/* A BLAS-style call of the library: operands of |elem|, a result of
 * |result|, one |call| per sample, reported as |impl|. */
static graft_status_t run_blas_call(const bench_options_t* o, graft_dtype_t elem,
                                    graft_dtype_t result, bench_call_fn_t call,
                                    const char* impl) {
  bench_matmul_t mm;
  graft_status_t st = bench_matmul_open_typed(o, elem, result, &mm);
  if (st)
    return st;
  st = set_threads(o->threads, &mm.threads);
  if (!st)
    st = bench_matmul_measure(o, &mm, call, &mm, impl, NULL);
  bench_matmul_close(&mm);
  return st;
}

graft_status_t bench_run_onednn_sgemm(const bench_options_t* o) {
  return run_blas_call(o, GRAFT_DTYPE_F32, GRAFT_DTYPE_F32, sgemm_call, "onednn-sgemm");
}

/* ---- dnnl_gemm_s8s8s32 ---------------------------------------------------- */

static graft_status_t gemm_s8_call(void* user) {
  bench_matmul_t* mm = user;
  const int32_t no_offset = 0;
  return check(dnnl_gemm_s8s8s32('N', 'N', 'F', mm->m, mm->n, mm->k, 1.0f, mm->lhs.data,
                                 mm->k, 0, mm->rhs.data, mm->n, 0, 0.0f, mm->out.data,
                                 mm->n, &no_offset),
               "dnnl_gemm_s8s8s32");
}

graft_status_t bench_run_onednn_gemm_s8(const bench_options_t* o) {
  return run_blas_call(o, GRAFT_DTYPE_I8, GRAFT_DTYPE_I32, gemm_s8_call, "onednn-gemm-s8");
}

/* ---- matmul primitive ---------------------------------------------------- */

typedef struct primitive_call_t {
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  dnnl_primitive_desc_t pd;
  dnnl_primitive_t primitive;
  dnnl_memory_t memories[3]; /* src, weights, dst */
  dnnl_exec_arg_t args[3];
} primitive_call_t;

static graft_status_t primitive_call(void* user) {
  primitive_call_t* c = user;
  graft_status_t st = check(
      dnnl_primitive_execute(c->primitive, c->stream, 3, c->args), "execute");
  if (!st)
    st = check(dnnl_stream_wait(c->stream), "stream wait");
  return st;
}

static graft_status_t make_post_ops(const bench_matmul_t* mm,
                                    dnnl_primitive_attr_t attr) {
  dnnl_post_ops_t post_ops = NULL;
  graft_status_t st = check(dnnl_post_ops_create(&post_ops), "post-ops");
  for (int i = 0; !st && i < mm->post_op_count; ++i) {
    st = mm->post_ops[i] == BENCH_POST_RELU
             ? check(dnnl_post_ops_append_eltwise(
                         post_ops, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f),
                     "relu post-op")
             : check(dnnl_post_ops_append_eltwise(
                         post_ops, 1.0f, dnnl_eltwise_linear, -1.0f, 0.0f),
                     "neg post-op");
  }
  if (!st)
    st = check(dnnl_primitive_attr_set_post_ops(attr, post_ops),
               "attaching post-ops");
  if (post_ops)
    dnnl_post_ops_destroy(post_ops);
  return st;
}

/* Creates the engine, stream, primitive (for these shapes and post-ops) and
 * the memory objects over the harness's buffers. */
static graft_status_t make_primitive(bench_matmul_t* mm, primitive_call_t* c) {
  dnnl_memory_desc_t mds[3];
  dnnl_dims_t dims[3] = {{mm->m, mm->k}, {mm->k, mm->n}, {mm->m, mm->n}};
  void* data[3] = {mm->lhs.data, mm->rhs.data, mm->out.data};
  int arg_kinds[3] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
  dnnl_primitive_attr_t attr = NULL;
  dnnl_matmul_desc_t desc;
  graft_status_t st =
      check(dnnl_engine_create(&c->engine, dnnl_cpu, 0), "engine");
  if (!st)
    st = check(
        dnnl_stream_create(&c->stream, c->engine, dnnl_stream_default_flags),
        "stream");
  for (int i = 0; !st && i < 3; ++i)
    st = check(
        dnnl_memory_desc_init_by_tag(&mds[i], 2, dims[i], dnnl_f32, dnnl_ab),
        "memory descriptor");
  if (!st)
    st = check(dnnl_matmul_desc_init(&desc, &mds[0], &mds[1], NULL, &mds[2]),
               "matmul descriptor");
  if (!st)
    st = check(dnnl_primitive_attr_create(&attr), "attributes");
  if (!st)
    st = make_post_ops(mm, attr);
  if (!st)
    st = check(dnnl_primitive_desc_create(&c->pd, &desc, attr, c->engine, NULL),
               "primitive descriptor");
  if (!st)
    st = check(dnnl_primitive_create(&c->primitive, c->pd), "primitive");
  for (int i = 0; !st && i < 3; ++i) {
    st = check(dnnl_memory_create(&c->memories[i], &mds[i], c->engine, data[i]),
               "memory");
    c->args[i].arg = arg_kinds[i];
    c->args[i].memory = c->memories[i];
  }
  if (attr)
    dnnl_primitive_attr_destroy(attr);
  return st;
}

static void destroy_primitive(primitive_call_t* c) {
  for (int i = 0; i < 3; ++i)
    if (c->memories[i])
      dnnl_memory_destroy(c->memories[i]);
  if (c->primitive)
    dnnl_primitive_destroy(c->primitive);
  if (c->pd)
    dnnl_primitive_desc_destroy(c->pd);
  if (c->stream)
    dnnl_stream_destroy(c->stream);
  if (c->engine)
    dnnl_engine_destroy(c->engine);
}

graft_status_t bench_run_onednn_matmul(const bench_options_t* o) {
  bench_matmul_t mm;
  graft_status_t st = bench_matmul_open(o, &mm);
  if (st)
    return st;
  primitive_call_t call;
  memset(&call, 0, sizeof(call));
  /* Threads first: the primitive sizes its work for them when created. */
  st = set_threads(o->threads, &mm.threads);
  if (!st)
    st = make_primitive(&mm, &call);
  /* Which kernel oneDNN picked (e.g. "brg:avx512_core"): says which ISA. */
  const char* impl = NULL;
  if (!st)
    st = check(
        dnnl_primitive_desc_query(call.pd, dnnl_query_impl_info_str, 0, &impl),
        "implementation query");
  char extra[256];
  snprintf(extra, sizeof(extra), "\"kernel\": \"%s\"", impl ? impl : "?");
  if (!st)
    st = bench_matmul_measure(o, &mm, primitive_call, &call, "onednn-matmul",
                              extra);
  destroy_primitive(&call);
  bench_matmul_close(&mm);
  return st;
}
