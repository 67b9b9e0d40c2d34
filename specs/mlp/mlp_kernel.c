// relu(lhs * rhs) for rows [8*block, 8*block + 8) of an MxK by KxN product,
// row-major, dense. Called once per workgroup by the dispatch graft generates
// for the mlp_relu rule in mlp.yaml.
#include "graft/kernel.h"

GRAFT_KERNEL_EXPORT void mlp_kernel(const float *GRAFT_RESTRICT lhs,
                                    const float *GRAFT_RESTRICT rhs,
                                    float *GRAFT_RESTRICT result, int32_t m,
                                    int32_t n, int32_t k, int32_t block) {
  int32_t begin = block * 8;
  int32_t end = begin + 8 < m ? begin + 8 : m;
  for (int32_t i = begin; i < end; ++i) {
    for (int32_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int32_t p = 0; p < k; ++p)
        acc += lhs[(size_t)i * k + p] * rhs[(size_t)p * n + j];
      result[(size_t)i * n + j] = acc < 0.0f ? 0.0f : acc;
    }
  }
}
