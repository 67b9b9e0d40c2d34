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
   * sample falls in it). */
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

#endif /* GRAFT_BENCH_TIMING_H_ */
