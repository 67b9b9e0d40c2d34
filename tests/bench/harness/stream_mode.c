/* graft_bench's STREAM-style bandwidth peers, over the case's .npy inputs
 * into a result allocated once:
 *
 *   stream-copy X.npy          out[i] = x[i]             (8 bytes/element)
 *   stream-triad X.npy Y.npy   out[i] = x[i] + 3 * y[i]  (12 bytes/element)
 *
 * Like McCalpin's STREAM: plain loops split statically over OpenMP threads,
 * compiled with -O3 (CMakeLists.txt), bytes counted as STREAM counts them
 * (each array read or written once; a cache's write-allocate read is not
 * counted). gcc keeps both as vectorized loops with ordinary stores (no
 * memcpy call, no non-temporal stores), as in STREAM built with OpenMP.
 * Triad has the 2-reads-1-write pattern of the elementwise
 * chain, so the two rates are directly comparable. */
#include <stdio.h>

#include "bench.h"
#include "modes.h"

#define TRIAD_SCALAR 3.0f

typedef struct stream_call_t {
  const float* x;
  const float* y; /* NULL for copy */
  float* out;
  int64_t count;
  uint32_t threads;
} stream_call_t;

static graft_status_t copy_call(void* user) {
  stream_call_t* c = user;
  const float* restrict x = c->x;
  float* restrict out = c->out;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(c->threads)
#endif
  for (int64_t i = 0; i < c->count; ++i)
    out[i] = x[i];
  return NULL;
}

static graft_status_t triad_call(void* user) {
  stream_call_t* c = user;
  const float* restrict x = c->x;
  const float* restrict y = c->y;
  float* restrict out = c->out;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(c->threads)
#endif
  for (int64_t i = 0; i < c->count; ++i)
    out[i] = x[i] + TRIAD_SCALAR * y[i];
  return NULL;
}

graft_status_t bench_run_stream(const bench_options_t* o, int triad) {
  int want = triad ? 2 : 1;
  if (o->positional_count != want)
    return graft_status_make(
        GRAFT_INVALID_ARGUMENT, "needs %s, found %d path(s)",
        triad ? "X.npy and Y.npy" : "X.npy", o->positional_count);
  graft_tensor_t in[2] = {{0}}, out = {0};
  graft_status_t st = bench_read_inputs(o->positional, want, in);
  for (int i = 0; !st && i < want; ++i)
    if (in[i].dtype != GRAFT_DTYPE_F32 ||
        graft_tensor_element_count(&in[i]) !=
            graft_tensor_element_count(&in[0]))
      st = graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "expects f32 inputs of one size");
  if (!st)
    st = graft_tensor_allocate(GRAFT_DTYPE_F32, in[0].rank, in[0].dims, &out);
#ifdef _OPENMP
  uint32_t threads = o->threads;
#else
  uint32_t threads = 1;
  if (!st && o->threads != 1)
    st = graft_status_make(GRAFT_UNIMPLEMENTED,
                           "graft_bench was built without OpenMP: STREAM "
                           "runs on one thread only, asked for %u",
                           o->threads);
#endif
  stream_call_t call = {in[0].data, triad ? in[1].data : NULL, out.data,
                        (int64_t)graft_tensor_element_count(&in[0]), threads};
  bench_call_fn_t fn = triad ? triad_call : copy_call;
  if (!st)
    st = fn(&call); /* warm-up: first touch of |out|; checked */
  if (!st && o->save)
    st = bench_save_results(o->save, &out, 1);
  if (!st)
    st = bench_measure(o, fn, &call, o->mode, threads, NULL);
  graft_tensor_release(&in[0]);
  graft_tensor_release(&in[1]);
  graft_tensor_release(&out);
  return st;
}
