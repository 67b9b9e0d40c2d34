/* Repetition timing shared by every mode of graft_bench: run a callback in
 * samples of equal size and summarize the per-call wall time as min /
 * median / max / mean.
 *
 * A call far shorter than the clock's resolution and overhead (the 2x2 MLP
 * takes well under a microsecond) cannot be timed alone, so the calls are
 * batched: calibration doubles the batch until one batch lasts at least
 * |min_sample_ms|, and every sample then times that many calls back to back
 * and divides. A call that already lasts that long is timed alone. The
 * PyTorch peer (torch_peer.py) times the same way. */
#ifndef GRAFT_BENCH_TIMING_H_
#define GRAFT_BENCH_TIMING_H_

#include <stdint.h>

#include "graft/status.h"

typedef struct bench_timing_options_t {
  uint32_t samples;     /* timed samples wanted (>= 1) */
  double budget_ms;     /* stop early once the samples add up to this... */
  double min_sample_ms; /* ...(after 3 samples); batch calls to this length */
  /* Threads the implementation runs a call on. At 1 every call runs on the
   * calling thread, and the CPU time taken is that thread's alone: other
   * threads of the process are not the call's (OpenBLAS's pthreads workers,
   * started when the library loads, spin on sched_yield for about 130 ms
   * before they sleep, also in modes that never call OpenBLAS; the process
   * clock counted them, up to 2x the wall time). */
  uint32_t threads;
} bench_timing_options_t;

typedef struct bench_timing_t {
  uint32_t samples;          /* samples actually taken */
  uint32_t calls_per_sample; /* the calibrated batch */
  double min_ms;             /* per call: the least disturbed sample */
  double median_ms;
  double max_ms;
  double mean_ms;
  /* The least CPU time of a sample, per call: what a call costs when
   * preemption is left out. At 1 thread, the calling thread's CPU time:
   * the wall time the call would take on a quiet core (a shared VM's wall
   * samples all include other jobs' time slices), never more than
   * |min_ms|. At N threads, the process's: every thread's time added up,
   * spinning included (the pool's, and OpenBLAS's start-up spin when a
   * sample falls in it), but only as far as Linux has added it: another
   * running thread's time reaches the process clock at scheduler ticks,
   * so the least of short samples leaves much of it out (run_bench.py
   * takes N-thread rates from |min_ms|). */
  double cpu_min_ms;
  /* The least process CPU time of a sample, per call, at any thread count
   * (at 1 thread, cpu_min_ms plus what other threads burnt meanwhile). */
  double process_cpu_min_ms;
} bench_timing_t;

/* One call; |user| is passed through. */
typedef graft_status_t (*bench_call_fn_t)(void* user);

/* Milliseconds on a monotonic clock. */
double bench_now_ms(void);
/* Milliseconds of CPU time of the whole process (every thread). */
double bench_cpu_ms(void);
/* Milliseconds of CPU time of the calling thread. */
double bench_thread_cpu_ms(void);

/* Calibrates the batch, then times up to |options->samples| samples of it.
 * Stops on the first failing call and returns its status. */
graft_status_t bench_time_calls(bench_call_fn_t call, void* user,
                                const bench_timing_options_t* options,
                                bench_timing_t* out_timing);

/* Two implementations timed in alternation (graft_bench graft-ab): the
 * same batch for both (the larger of their calibrations), samples in pairs
 * whose order alternates (A B, B A, ...), so that a machine that slows down
 * or speeds up for seconds at a time (a shared VM's other tenants) moves
 * both samples of a pair alike. The ratio of a pair, B / A, is then steadier
 * than either implementation's own spread. */
typedef struct bench_pair_timing_t {
  uint32_t pairs;            /* pairs actually taken */
  uint32_t calls_per_sample; /* the calibrated batch */
  double a_min_ms, a_median_ms, b_min_ms, b_median_ms; /* per call */
  double a_cpu_min_ms, b_cpu_min_ms; /* as cpu_min_ms above */
  double ratio_min, ratio_median, ratio_max; /* b / a, per pair */
  uint32_t b_faster;         /* pairs whose B sample was the shorter */
} bench_pair_timing_t;

/* Calibrates, then times up to |options->samples| pairs (the budget counts
 * both samples of a pair). |pause_ms| > 0: sleep that long before each
 * sample (a thread pool of the other implementation goes back to sleep
 * first). Stops on the first failing call and returns its status. */
graft_status_t bench_time_pairs(bench_call_fn_t call_a, void* user_a,
                                bench_call_fn_t call_b, void* user_b,
                                const bench_timing_options_t* options,
                                double pause_ms,
                                bench_pair_timing_t* out_timing);

#endif /* GRAFT_BENCH_TIMING_H_ */
