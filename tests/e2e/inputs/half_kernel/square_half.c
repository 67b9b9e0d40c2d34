// A user kernel computing in _Float16: on x86_64 (x86-64-v2) and riscv64
// (rv64gc) its conversions are calls to __extendhfsf2/__truncsfhf2, which every
// slice carries (lib/link/slice_runtime.c); aarch64 has instructions for them.
#include "graft/kernel.h"
GRAFT_KERNEL_EXPORT void square_half(const _Float16 *x, _Float16 *r, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    r[i] = x[i] * x[i];
}
