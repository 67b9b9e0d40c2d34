/* graft_bench's graft-ab mode: two bundles of one function (two builds of
 * a graph: before and after a change), opened in one process and timed in
 * alternation (bench_time_pairs in timing.h): what a noisy shared machine
 * does to one sample it mostly does to the other of its pair, so the ratio
 * of a pair is steadier than either bundle's minimum over separate runs.
 *
 *   graft_bench graft-ab A.graft B.graft FUNCTION [options] INPUT.npy...
 *
 * Both warm-up calls' results are compared byte for byte ("same_results"):
 * a change meant to keep the results, or one that did not, shows there
 * (reported, not an error: a change may mean to change them). With more
 * than one thread each module has its own pool, whose workers spin for a
 * while after each dispatch (runtime/src/exec/thread_pool.c): every sample
 * then starts after a pause of kPauseMs, once the other's workers sleep. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "graft_call.h"
#include "modes.h"

/* Longer than the pool's spin window (0.5 ms). */
static const double kPauseMs = 2.0;

static int same_results(const graft_call_t* a, const graft_call_t* b) {
  if (a->result_count != b->result_count)
    return 0;
  for (uint32_t i = 0; i < a->result_count; ++i) {
    const graft_tensor_t *x = &a->outputs[i], *y = &b->outputs[i];
    if (x->dtype != y->dtype || x->rank != y->rank || x->size != y->size ||
        memcmp(x->dims, y->dims, sizeof(x->dims[0]) * x->rank) != 0 ||
        (x->size && memcmp(x->data, y->data, x->size) != 0))
      return 0;
  }
  return 1;
}

graft_status_t bench_run_graft_ab(const bench_options_t* o) {
  graft_status_t need =
      bench_need_arguments(o, 3, "BUNDLE_A, BUNDLE_B and FUNCTION");
  if (need)
    return need;
  if (o->save)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "takes no --save (the graft mode saves one "
                             "bundle's results)");
  graft_tensor_t inputs[BENCH_MAX_VALUES] = {{0}};
  graft_call_t calls[2] = {{0}};
  int input_count = o->positional_count - 3;
  graft_status_t st = bench_read_inputs(o->positional + 3, input_count, inputs);
  for (int i = 0; i < 2 && !st; ++i) {
    st = graft_call_open(o, o->positional[i], o->positional[2], inputs,
                         (size_t)input_count, NULL, &calls[i]);
    if (st)
      st = graft_status_annotate(st, "%s", i ? "B" : "A");
  }
  int same = !st && same_results(&calls[0], &calls[1]);
  for (int i = 0; i < 2 && !st; ++i)
    st = graft_call_ready(&calls[i]);
  /* (Both modules were opened with the same options.) */
  uint32_t threads = st ? 0 : graft_module_thread_count(calls[0].module);
  if (!st && o->run_only) {
    printf("{\"impl\": \"graft-ab\", \"threads\": %u, \"same_results\": %s}\n",
           threads, same ? "true" : "false");
  } else if (!st) {
    bench_pair_timing_t t = {0};
    bench_timing_options_t timing = o->timing;
    timing.threads = threads;
    st = bench_time_pairs(graft_call, &calls[0], graft_call, &calls[1],
                          &timing, threads > 1 ? kPauseMs : 0, &t);
    if (!st)
      printf("{\"impl\": \"graft-ab\", \"threads\": %u, \"outputs\": \"%s\", "
             "\"same_results\": %s, \"pairs\": %u, \"calls_per_sample\": %u, "
             "\"a_min_ms\": %.9g, \"a_median_ms\": %.9g, "
             "\"b_min_ms\": %.9g, \"b_median_ms\": %.9g, "
             "\"a_cpu_min_ms\": %.9g, \"b_cpu_min_ms\": %.9g, "
             "\"ratio_min\": %.6f, \"ratio_median\": %.6f, "
             "\"ratio_max\": %.6f, \"b_faster\": %u}\n",
             threads,
             o->outputs == BENCH_OUTPUTS_CALLER ? "caller" : "runtime",
             same ? "true" : "false", t.pairs, t.calls_per_sample, t.a_min_ms,
             t.a_median_ms, t.b_min_ms, t.b_median_ms, t.a_cpu_min_ms,
             t.b_cpu_min_ms, t.ratio_min, t.ratio_median, t.ratio_max,
             t.b_faster);
  }
  for (int i = 0; i < BENCH_MAX_VALUES; ++i)
    graft_tensor_release(&inputs[i]);
  graft_call_close(&calls[0]);
  graft_call_close(&calls[1]);
  return st;
}
