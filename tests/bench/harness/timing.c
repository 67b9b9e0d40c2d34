/* Repetition timing for graft_bench (see timing.h). */
#define _POSIX_C_SOURCE 200809L
#include "timing.h"

#include <stdlib.h>
#include <time.h>

/* Calibration stops doubling here: a call this fast is not a real call. */
#define MAX_CALLS_PER_SAMPLE (1u << 24)

static double clock_ms(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

double bench_now_ms(void) { return clock_ms(CLOCK_MONOTONIC); }

double bench_cpu_ms(void) { return clock_ms(CLOCK_PROCESS_CPUTIME_ID); }

double bench_thread_cpu_ms(void) { return clock_ms(CLOCK_THREAD_CPUTIME_ID); }

static int compare_doubles(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* One batch's times: wall, the process's CPU, the calling thread's CPU. */
typedef struct batch_times_t {
  double wall, process_cpu, thread_cpu;
} batch_times_t;

/* Runs |count| calls and measures them. */
static graft_status_t time_batch(bench_call_fn_t call, void* user,
                                 uint32_t count, batch_times_t* out) {
  double process = bench_cpu_ms(), thread = bench_thread_cpu_ms();
  double start = bench_now_ms();
  for (uint32_t i = 0; i < count; ++i) {
    graft_status_t status = call(user);
    if (status)
      return status;
  }
  out->wall = bench_now_ms() - start;
  out->thread_cpu = bench_thread_cpu_ms() - thread;
  out->process_cpu = bench_cpu_ms() - process;
  return NULL;
}

static double min_of(const double* v, uint32_t n) {
  double m = v[0];
  for (uint32_t i = 1; i < n; ++i)
    m = v[i] < m ? v[i] : m;
  return m;
}

graft_status_t bench_time_calls(bench_call_fn_t call, void* user,
                                const bench_timing_options_t* options,
                                bench_timing_t* out_timing) {
  uint32_t max_samples = options->samples ? options->samples : 1;
  double* samples = malloc(3 * max_samples * sizeof(double));
  double* process_cpu = samples + max_samples;
  double* thread_cpu = process_cpu + max_samples;
  if (!samples)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "out of memory for %u timing samples",
                             max_samples);
  uint32_t batch = 1;
  batch_times_t t = {0};
  graft_status_t status = time_batch(call, user, batch, &t);
  while (!status && t.wall < options->min_sample_ms &&
         batch < MAX_CALLS_PER_SAMPLE) {
    batch *= 2;
    status = time_batch(call, user, batch, &t);
  }
  uint32_t taken = 0;
  double total = 0;
  while (!status && taken < max_samples) {
    status = time_batch(call, user, batch, &t);
    process_cpu[taken] = t.process_cpu / batch;
    thread_cpu[taken] = t.thread_cpu / batch;
    samples[taken++] = t.wall / batch;
    total += t.wall;
    /* A few samples even when one blows the budget: the median of one is
     * no median. */
    if (total >= options->budget_ms && taken >= 3)
      break;
  }
  if (!status) {
    qsort(samples, taken, sizeof(double), compare_doubles);
    out_timing->process_cpu_min_ms = min_of(process_cpu, taken);
    out_timing->cpu_min_ms = options->threads == 1 ? min_of(thread_cpu, taken)
                                                   : out_timing->process_cpu_min_ms;
    out_timing->samples = taken;
    out_timing->calls_per_sample = batch;
    out_timing->min_ms = samples[0];
    out_timing->median_ms =
        taken % 2 ? samples[taken / 2]
                  : 0.5 * (samples[taken / 2 - 1] + samples[taken / 2]);
    out_timing->max_ms = samples[taken - 1];
    out_timing->mean_ms = total / batch / taken;
  }
  free(samples);
  return status;
}
