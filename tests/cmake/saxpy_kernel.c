// result = 2*x + y on the 64-element tile |tile| of n elements (the spec's
// grid has one workgroup per tile). Compiled by graft for every target of
// the bundle; graft_add_bundle's depfile makes edits here rebuild it.
#include "graft/kernel.h"

#define TILE 64

GRAFT_KERNEL_EXPORT void saxpy_tile(const float *GRAFT_RESTRICT x,
                                    const float *GRAFT_RESTRICT y,
                                    float *GRAFT_RESTRICT result, int64_t n,
                                    int32_t tile) {
  int64_t begin = (int64_t)tile * TILE;
  int64_t end = begin + TILE < n ? begin + TILE : n;
  for (int64_t i = begin; i < end; ++i)
    result[i] = 2.0f * x[i] + y[i];
}
