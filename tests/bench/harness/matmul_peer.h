/* What the matmul peers (oneDNN, OpenBLAS) share: reading the two operands,
 * checking their shapes, the result buffer, and the elementwise steps that
 * follow the product (--post-ops relu,neg for the MLP's -relu(A@B)). */
#ifndef GRAFT_BENCH_MATMUL_PEER_H_
#define GRAFT_BENCH_MATMUL_PEER_H_

#include <stdint.h>

#include "bench.h"

#define BENCH_MAX_POST_OPS 4

typedef enum bench_post_op_e {
  BENCH_POST_RELU, /* max(x, 0) */
  BENCH_POST_NEG,  /* -x */
} bench_post_op_t;

typedef struct bench_matmul_t {
  graft_tensor_t lhs; /* M x K, f32 (or i8), row-major */
  graft_tensor_t rhs; /* K x N */
  graft_tensor_t out; /* M x N, allocated once (how BLAS is called) */
  int64_t m, k, n;
  bench_post_op_t post_ops[BENCH_MAX_POST_OPS];
  int post_op_count;
  uint32_t threads; /* what the library reported it will use */
} bench_matmul_t;

/* Reads LHS.npy and RHS.npy (the two positional arguments), checks that
 * they are f32 matrices whose inner dimensions agree, allocates the result
 * and parses --post-ops. On failure everything is released. */
graft_status_t bench_matmul_open(const bench_options_t* options,
                                 bench_matmul_t* out_matmul);
/* The same for operands of |elem| and a result of |result| (i8 and i32
 * for the integer peers; no post-ops). */
graft_status_t bench_matmul_open_typed(const bench_options_t* options,
                                       graft_dtype_t elem, graft_dtype_t result,
                                       bench_matmul_t* out_matmul);
void bench_matmul_close(bench_matmul_t* matmul);

/* Applies the post-ops in order to every element of the result, in one
 * pass, on matmul->threads threads (for peers without a fused epilogue). */
void bench_matmul_apply_post_ops(bench_matmul_t* matmul);

/* The part every matmul peer shares once it is set up: one warm-up call of
 * |call| (its result saved if --save was given: the one checked), then the
 * timing, reported as |impl| with |extra| JSON members (may be NULL). */
graft_status_t bench_matmul_measure(const bench_options_t* options,
                                    const bench_matmul_t* matmul,
                                    bench_call_fn_t call, void* user,
                                    const char* impl, const char* extra);

#endif /* GRAFT_BENCH_MATMUL_PEER_H_ */
