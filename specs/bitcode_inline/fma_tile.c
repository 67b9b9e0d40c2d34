// result = a*b + c on the 256-element tile |tile| of n elements. Small and
// branch-free on purpose: linked as bitcode it inlines into graft's dispatch,
// where the loop is vectorized for the target. The multiply-add may be
// contracted into an fma instruction; inputs with exact products (as in
// run.args) give the same result either way.
#include "graft/kernel.h"

#define TILE 256

GRAFT_KERNEL_EXPORT void fma_tile(const float *GRAFT_RESTRICT a,
                                  const float *GRAFT_RESTRICT b,
                                  const float *GRAFT_RESTRICT c,
                                  float *GRAFT_RESTRICT result, int64_t n,
                                  int32_t tile) {
  int64_t begin = (int64_t)tile * TILE;
  int64_t end = begin + TILE < n ? begin + TILE : n;
  for (int64_t i = begin; i < end; ++i)
    result[i] = a[i] * b[i] + c[i];
}
