/* graft/kernel.h: the header for hand-written kernels spliced in by specs
 * (docs/spec-format.md).
 *
 * Kernels are freestanding C: graft compiles them with -ffreestanding
 * -nostdlib for every target of the bundle and links them into the slice.
 * There is no libc, no thread-local storage, no malloc and no I/O. Many
 * workgroups may run a kernel at the same time on different threads, so a
 * kernel must not write global state.
 *
 * Two kinds of kernels:
 *
 *  - `replace: {call: name, args: [...]}`: graft generates the dispatch and
 *    calls the kernel once per workgroup with the listed arguments, in order.
 *    A tensor name passes its base pointer (const T* for pattern arguments,
 *    T* for outputs); `memref(x)` passes an MLIR-style memref descriptor
 *    expanded into scalar parameters (see GRAFT_MEMREF_PARAMS below); integer
 *    expressions pass int32_t (i32), int64_t (i64) or intptr_t/size_t
 *    (index); scalar pattern arguments pass their value. The kernel returns
 *    void, or int with `returns: status` (nonzero fails the dispatch).
 *
 *  - `replace: {dispatch: name}`: the kernel *is* the dispatch function, in
 *    graft's dispatch ABI (graft/abi.h): bindings are the pattern's inputs
 *    then its outputs, constants are the rule's `constants`.
 *
 * Example:
 *
 *   #include "graft/kernel.h"
 *   GRAFT_KERNEL_EXPORT void mlp_kernel(const float *GRAFT_RESTRICT lhs,
 *                                       const float *GRAFT_RESTRICT rhs,
 *                                       float *GRAFT_RESTRICT result,
 *                                       int32_t m, int32_t n, int32_t k);
 */
#ifndef GRAFT_KERNEL_H_
#define GRAFT_KERNEL_H_

#include <stddef.h>
#include <stdint.h>

#include "graft/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the kernel entry point. Kernels are compiled with hidden visibility
 * (only graft's query symbol leaves the slice); the attribute keeps the
 * definition from being dropped before graft links it. */
#define GRAFT_KERNEL_EXPORT __attribute__((used))

/* `restrict` for C and C++ kernels: graft never passes aliasing buffers to
 * one call (inputs are read-only, outputs are distinct allocations). */
#ifdef __cplusplus
#define GRAFT_RESTRICT __restrict__
#else
#define GRAFT_RESTRICT restrict
#endif

/* The memref descriptor of a rank-N tensor, as `memref(x)` passes it. The
 * fields arrive as separate parameters, in this order:
 *
 *   T *base;            allocated pointer
 *   T *aligned;         pointer to use for element access (== base in graft)
 *   size_t offset;      in elements, from |aligned| (0 in graft)
 *   size_t sizes[N];    one per dimension
 *   size_t strides[N];  in elements; row-major, so strides[N-1] == 1
 *
 * Element (i, j) of a rank-2 memref is aligned[offset + i*strides[0] +
 * j*strides[1]]. GRAFT_MEMREF_PARAMS2(const float, lhs) declares the seven
 * parameters of a rank-2 memref named lhs_base, lhs_aligned, lhs_offset,
 * lhs_size0, lhs_size1, lhs_stride0, lhs_stride1. */
#define GRAFT_MEMREF_PARAMS1(T, name)                                        \
  T *GRAFT_RESTRICT name##_base, T *GRAFT_RESTRICT name##_aligned,           \
      size_t name##_offset, size_t name##_size0, size_t name##_stride0
#define GRAFT_MEMREF_PARAMS2(T, name)                                        \
  T *GRAFT_RESTRICT name##_base, T *GRAFT_RESTRICT name##_aligned,           \
      size_t name##_offset, size_t name##_size0, size_t name##_size1,        \
      size_t name##_stride0, size_t name##_stride1
#define GRAFT_MEMREF_PARAMS3(T, name)                                        \
  T *GRAFT_RESTRICT name##_base, T *GRAFT_RESTRICT name##_aligned,           \
      size_t name##_offset, size_t name##_size0, size_t name##_size1,        \
      size_t name##_size2, size_t name##_stride0, size_t name##_stride1,     \
      size_t name##_stride2

/* Status values for `returns: status` kernels. Any nonzero value fails the
 * dispatch and is reported to the caller of the function. */
#define GRAFT_KERNEL_OK 0
#define GRAFT_KERNEL_ERROR 1

/* Freestanding math: compiler builtins that lower to instructions where the
 * target has them (no libm is linked into slices). */
static inline float graft_sqrtf(float x) { return __builtin_sqrtf(x); }
static inline double graft_sqrt(double x) { return __builtin_sqrt(x); }
static inline float graft_fabsf(float x) { return __builtin_fabsf(x); }
static inline float graft_fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }
static inline float graft_fminf(float a, float b) { return __builtin_fminf(a, b); }

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_KERNEL_H_ */
