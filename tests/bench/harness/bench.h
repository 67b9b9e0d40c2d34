/* What every mode of graft_bench shares: the parsed command line, reading
 * the input .npy files, and printing one measurement as a line of JSON
 * (the protocol run_bench.py reads). See bench_main.c for the modes. */
#ifndef GRAFT_BENCH_BENCH_H_
#define GRAFT_BENCH_BENCH_H_

#include <stdint.h>

#include "graft/status.h"
#include "graft/tensor.h"
#include "timing.h"

#define BENCH_MAX_VALUES 16

/* Where graft writes its results (graft mode). RUNTIME is how users call
 * the C API today: the runtime allocates each result and the caller
 * releases it. CALLER passes storage allocated once, so that the day the
 * runtime writes results into caller buffers directly this one flag measures
 * the steady state (today the runtime copies into it). */
typedef enum bench_outputs_e {
  BENCH_OUTPUTS_RUNTIME = 0,
  BENCH_OUTPUTS_CALLER = 1,
} bench_outputs_t;

typedef struct bench_options_t {
  const char* mode;
  const char* positional[BENCH_MAX_VALUES + 2];
  int positional_count;
  uint32_t threads;  /* 0 = all CPUs */
  uint32_t run_only; /* --reps 0: one untimed call (to --save and check) */
  bench_timing_options_t timing;
  const char* save;     /* write result i to <save><i>.npy */
  const char* post_ops; /* C peers: "relu,neg" etc., applied after matmul */
  bench_outputs_t outputs;
  int profile; /* graft: --profile, the runtime profile's summary */
  int unpinned; /* graft, wake: --unpinned (GRAFT_RUNTIME_FLAG_UNPINNED) */
} bench_options_t;

/* NULL when the command line has at least |count| positional arguments,
 * else an error saying the mode |needs| them ("BUNDLE and FUNCTION"). */
graft_status_t bench_need_arguments(const bench_options_t* options, int count,
                                    const char* needs);

/* Reads |count| .npy files into |out_tensors| (released by the caller). */
graft_status_t bench_read_inputs(const char* const* paths, int count,
                                 graft_tensor_t* out_tensors);

/* Writes |count| results as <prefix><i>.npy. */
graft_status_t bench_save_results(const char* prefix,
                                  const graft_tensor_t* results,
                                  uint32_t count);

/* Times |call| with the options' timing and prints the measurement's JSON
 * line: {"impl": ..., "threads": ..., <extra>, "min_ms": ... }. |extra| is
 * JSON members without braces (may be NULL or ""). With --reps 0 only
 * "impl", "threads" and |extra| are printed. */
graft_status_t bench_measure(const bench_options_t* options,
                             bench_call_fn_t call, void* user, const char* impl,
                             uint32_t threads, const char* extra);

#endif /* GRAFT_BENCH_BENCH_H_ */
