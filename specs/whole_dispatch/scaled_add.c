// A whole-dispatch kernel for result = a*2 + b over n elements: graft calls
// it once per workgroup of a ceildiv(n, 64) x 1 x 1 grid (scaled_add.yaml).
// Workgroup w handles elements [64*w, min(64*w + 64, n)), so n need not be a
// multiple of 64.
#include "graft/kernel.h"

#define TILE 64u

GRAFT_KERNEL_EXPORT int scaled_add_dispatch(
    const graft_dispatch_state_v1_t *dispatch,
    const graft_workgroup_state_v1_t *workgroup) {
  // The rule promises bindings (a, b, result) and one constant; refuse
  // anything else instead of reading past the tables.
  if (dispatch->binding_count != 3 || dispatch->constant_count != 1)
    return GRAFT_KERNEL_ERROR;
  uint64_t n = dispatch->constants[0];
  for (uint32_t i = 0; i < 3; ++i)
    if (dispatch->binding_lengths[i] < n * sizeof(float))
      return GRAFT_KERNEL_ERROR;
  const float *GRAFT_RESTRICT a = (const float *)dispatch->bindings[0];
  const float *GRAFT_RESTRICT b = (const float *)dispatch->bindings[1];
  float *GRAFT_RESTRICT result = (float *)dispatch->bindings[2];

  uint64_t begin = (uint64_t)workgroup->workgroup_id[0] * TILE;
  uint64_t end = begin + TILE < n ? begin + TILE : n;
  for (uint64_t i = begin; i < end; ++i)
    result[i] = a[i] * 2.0f + b[i];
  return GRAFT_KERNEL_OK;
}
