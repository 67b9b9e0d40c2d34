/* The modes of graft_bench (bench_main.c dispatches on the first argument)
 * and the peer libraries behind them. A peer's modes are compiled only when
 * CMake found the library (GRAFT_BENCH_HAVE_<PEER>); otherwise the mode
 * stays in the table and fails with the reason, so a missing peer is
 * reported, never silently dropped. */
#ifndef GRAFT_BENCH_MODES_H_
#define GRAFT_BENCH_MODES_H_

#include "bench.h"

graft_status_t bench_run_graft(const bench_options_t* options);

/* Two bundles of one function timed in alternation (graft_ab_mode.c). */
graft_status_t bench_run_graft_ab(const bench_options_t* options);

/* Worker wake-up latency of graft's thread pool (wake_mode.c). */
graft_status_t bench_run_wake(const bench_options_t* options);

/* |triad| 0: stream-copy; 1: stream-triad. */
graft_status_t bench_run_stream(const bench_options_t* options, int triad);

#ifdef GRAFT_BENCH_HAVE_ONEDNN
graft_status_t bench_run_onednn_sgemm(const bench_options_t* options);
graft_status_t bench_run_onednn_matmul(const bench_options_t* options);
graft_status_t bench_run_onednn_gemm_s8(const bench_options_t* options);
/* Prints the library's JSON members: version, runtime, effective ISA. */
void bench_describe_onednn(void);
#endif

#ifdef GRAFT_BENCH_HAVE_OPENBLAS
graft_status_t bench_run_openblas_sgemm(const bench_options_t* options);
/* Prints the library's JSON members: config, corename, parallel. */
void bench_describe_openblas(void);
#endif

#endif /* GRAFT_BENCH_MODES_H_ */
