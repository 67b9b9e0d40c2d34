/* The naive C reference for matmul benchmarks: a plain triple loop that a
 * C programmer would write, compiled with -O3 -march=x86-64-v2 (set on this
 * one file in CMakeLists.txt), so graft's code can be compared with what an
 * optimizing C compiler does with no tiling, packing or threads. */
#ifndef GRAFT_BENCH_NAIVE_MATMUL_H_
#define GRAFT_BENCH_NAIVE_MATMUL_H_

#include <stdint.h>

/* out[b][i][j] = sum_k lhs[b][i][k] * rhs[b][k][j] for |batch| row-major
 * f32 matrices (MxK times KxN). |out| is overwritten. The loop order is
 * i-k-j: the innermost loop walks rows of rhs and out contiguously, which
 * the compiler vectorizes; the sum over k is in index order. */
void bench_naive_matmul_f32(const float* lhs, const float* rhs, float* out,
                            int64_t batch, int64_t m, int64_t k, int64_t n);

#endif /* GRAFT_BENCH_NAIVE_MATMUL_H_ */
