/* Repetition timing shared by both modes of graft_bench: run a callback a
 * number of times (bounded by a time budget), record each call's wall time
 * and summarize as min / median / mean. Min is the number to compare (least
 * disturbed by other load on a shared machine); median shows the spread. */
#ifndef GRAFT_BENCH_TIMING_H_
#define GRAFT_BENCH_TIMING_H_

#include <stdint.h>

#include "graft/status.h"

typedef struct bench_timing_t {
  uint32_t reps; /* timed calls actually made (>= 1 on success) */
  double min_ms;
  double median_ms;
  double mean_ms;
} bench_timing_t;

/* One timed call; |user| is passed through. */
typedef graft_status_t (*bench_call_fn_t)(void* user);

/* Milliseconds on a monotonic clock. */
double bench_now_ms(void);

/* Times up to |max_reps| calls of |call|, stopping early once the timed
 * calls add up to |budget_ms| and at least 3 were made (or |max_reps|, if
 * smaller; 0 counts as 1; callers skip timing entirely for 0). Stops on the first failing call and returns its
 * status. */
graft_status_t bench_time_calls(bench_call_fn_t call, void* user,
                                uint32_t max_reps, double budget_ms,
                                bench_timing_t* out_timing);

#endif /* GRAFT_BENCH_TIMING_H_ */
