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

/* A batch's CPU time as cpu_min_ms counts it (timing.h): the calling
 * thread's at 1 thread, the whole process's at more. */
static double batch_cpu(const batch_times_t* t, uint32_t threads) {
  return threads == 1 ? t->thread_cpu : t->process_cpu;
}

/* Doubles the batch from 1 until one batch of |call| lasts at least
 * |min_sample_ms| (or MAX_CALLS_PER_SAMPLE). */
static graft_status_t calibrate(bench_call_fn_t call, void* user,
                                double min_sample_ms, uint32_t* out_batch) {
  uint32_t batch = 1;
  batch_times_t t = {0};
  graft_status_t status = time_batch(call, user, batch, &t);
  while (!status && t.wall < min_sample_ms && batch < MAX_CALLS_PER_SAMPLE) {
    batch *= 2;
    status = time_batch(call, user, batch, &t);
  }
  *out_batch = batch;
  return status;
}

static double median_sorted(const double* v, uint32_t n) {
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
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
  double* cpu = process_cpu + max_samples;
  if (!samples)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "out of memory for %u timing samples",
                             max_samples);
  uint32_t batch = 1;
  batch_times_t t = {0};
  graft_status_t status = calibrate(call, user, options->min_sample_ms, &batch);
  uint32_t taken = 0;
  double total = 0;
  while (!status && taken < max_samples) {
    status = time_batch(call, user, batch, &t);
    process_cpu[taken] = t.process_cpu / batch;
    cpu[taken] = batch_cpu(&t, options->threads) / batch;
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
    out_timing->cpu_min_ms = min_of(cpu, taken);
    out_timing->samples = taken;
    out_timing->calls_per_sample = batch;
    out_timing->min_ms = samples[0];
    out_timing->median_ms = median_sorted(samples, taken);
    out_timing->max_ms = samples[taken - 1];
    out_timing->mean_ms = total / batch / taken;
  }
  free(samples);
  return status;
}

static void pause_for(double ms) {
  long long ns = (long long)(ms * 1e6);
  struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

graft_status_t bench_time_pairs(bench_call_fn_t call_a, void* user_a,
                                bench_call_fn_t call_b, void* user_b,
                                const bench_timing_options_t* options,
                                double pause_ms,
                                bench_pair_timing_t* out_timing) {
  uint32_t max_pairs = options->samples ? options->samples : 1;
  double* a = malloc(5 * max_pairs * sizeof(double));
  double* b = a + max_pairs;
  double* ratio = b + max_pairs;
  double* a_cpu = ratio + max_pairs;
  double* b_cpu = a_cpu + max_pairs;
  if (!a)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "out of memory for %u timing pairs", max_pairs);
  uint32_t batch_a = 1, batch_b = 1;
  graft_status_t status =
      calibrate(call_a, user_a, options->min_sample_ms, &batch_a);
  if (!status)
    status = calibrate(call_b, user_b, options->min_sample_ms, &batch_b);
  uint32_t batch = batch_a > batch_b ? batch_a : batch_b;
  uint32_t taken = 0, b_faster = 0;
  double total = 0;
  while (!status && taken < max_pairs) {
    batch_times_t t[2] = {{0}};
    for (int s = 0; s < 2 && !status; ++s) {
      /* A then B in even pairs, B then A in odd ones. */
      int is_b = s ^ (int)(taken % 2);
      if (pause_ms > 0)
        pause_for(pause_ms);
      status = is_b ? time_batch(call_b, user_b, batch, &t[1])
                    : time_batch(call_a, user_a, batch, &t[0]);
    }
    if (status)
      break;
    a[taken] = t[0].wall / batch;
    b[taken] = t[1].wall / batch;
    a_cpu[taken] = batch_cpu(&t[0], options->threads) / batch;
    b_cpu[taken] = batch_cpu(&t[1], options->threads) / batch;
    ratio[taken] = b[taken] / a[taken];
    b_faster += b[taken] < a[taken];
    total += t[0].wall + t[1].wall;
    ++taken;
    if (total >= options->budget_ms && taken >= 3)
      break;
  }
  if (!status) {
    out_timing->pairs = taken;
    out_timing->calls_per_sample = batch;
    out_timing->a_cpu_min_ms = min_of(a_cpu, taken);
    out_timing->b_cpu_min_ms = min_of(b_cpu, taken);
    qsort(a, taken, sizeof(double), compare_doubles);
    qsort(b, taken, sizeof(double), compare_doubles);
    qsort(ratio, taken, sizeof(double), compare_doubles);
    out_timing->a_min_ms = a[0];
    out_timing->a_median_ms = median_sorted(a, taken);
    out_timing->b_min_ms = b[0];
    out_timing->b_median_ms = median_sorted(b, taken);
    out_timing->ratio_min = ratio[0];
    out_timing->ratio_median = median_sorted(ratio, taken);
    out_timing->ratio_max = ratio[taken - 1];
    out_timing->b_faster = b_faster;
  }
  free(a);
  return status;
}
