// The seed's `mlp_external` (IREE samples/custom_dispatch/cpu/mlp_plugin)
// as a static graft kernel: relu(lhs @ rhs) over memref descriptors. The
// seed read its arguments from a packed params struct handed over by the
// plugin API and printed M, N, K; here the same fields arrive as plain
// parameters (graft expands `memref(x)` into base, aligned, offset, sizes,
// strides) and there is no stdio: kernels are freestanding.
#include "graft/kernel.h"

// Element [i][j] of a rank-2 memref, honoring its offset and strides so the
// kernel stays correct for any layout graft may pass.
static inline size_t get_index(size_t i, size_t j, size_t offset,
                               size_t stride0, size_t stride1) {
  return offset + i * stride0 + j * stride1;
}

GRAFT_KERNEL_EXPORT void mlp_external(GRAFT_MEMREF_PARAMS2(const float, lhs),
                                      GRAFT_MEMREF_PARAMS2(const float, rhs),
                                      GRAFT_MEMREF_PARAMS2(float, result),
                                      int32_t M, int32_t N, int32_t K) {
  // The sizes are also in the descriptors; the seed passes M, N, K
  // separately and so does the rule, which keeps the signature identical.
  (void)lhs_base, (void)lhs_size0, (void)lhs_size1;
  (void)rhs_base, (void)rhs_size0, (void)rhs_size1;
  (void)result_base, (void)result_size0, (void)result_size1;
  for (int32_t i = 0; i < M; i++) {
    for (int32_t j = 0; j < N; j++) {
      float curr_result = 0.0f;
      for (int32_t k = 0; k < K; k++) {
        size_t lhs_index = get_index(i, k, lhs_offset, lhs_stride0, lhs_stride1);
        size_t rhs_index = get_index(k, j, rhs_offset, rhs_stride0, rhs_stride1);
        curr_result += lhs_aligned[lhs_index] * rhs_aligned[rhs_index];
      }
      curr_result = curr_result < 0.0f ? 0.0f : curr_result;
      result_aligned[get_index(i, j, result_offset, result_stride0,
                               result_stride1)] = curr_result;
    }
  }
}
