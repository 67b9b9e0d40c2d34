/* Repetition timing for graft_bench (see timing.h). */
#define _POSIX_C_SOURCE 200809L
#include "timing.h"

#include <stdlib.h>
#include <time.h>

double bench_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int compare_doubles(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

graft_status_t bench_time_calls(bench_call_fn_t call, void* user,
                                uint32_t max_reps, double budget_ms,
                                bench_timing_t* out_timing) {
  if (max_reps == 0) max_reps = 1;
  double* samples = malloc(max_reps * sizeof(double));
  if (!samples)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "out of memory for %u timing samples", max_reps);
  uint32_t reps = 0;
  double total = 0;
  graft_status_t status = NULL;
  while (reps < max_reps && !status) {
    double start = bench_now_ms();
    status = call(user);
    double elapsed = bench_now_ms() - start;
    samples[reps++] = elapsed;
    total += elapsed;
    /* A few samples even when one call blows the budget: the median of
     * one is no median. */
    if (total >= budget_ms && reps >= 3) break;
  }
  if (!status) {
    qsort(samples, reps, sizeof(double), compare_doubles);
    out_timing->reps = reps;
    out_timing->min_ms = samples[0];
    out_timing->median_ms = reps % 2 ? samples[reps / 2]
                                     : 0.5 * (samples[reps / 2 - 1] + samples[reps / 2]);
    out_timing->mean_ms = total / reps;
  }
  free(samples);
  return status;
}
