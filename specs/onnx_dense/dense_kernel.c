// relu(x * w + bias) for rows [8*block, 8*block + 8) of a batch x 4 input, a
// 4 x 3 weight matrix and a batch x 3 bias, row-major, dense. Called once per
// workgroup by the dispatch graft generates for the dense_relu rule in
// dense.yaml.
#include "graft/kernel.h"

enum { K = 4, N = 3 };

GRAFT_KERNEL_EXPORT void dense_kernel(const float *GRAFT_RESTRICT x,
                                      const float *GRAFT_RESTRICT w,
                                      const float *GRAFT_RESTRICT bias,
                                      float *GRAFT_RESTRICT result, int32_t m,
                                      int32_t block) {
  int32_t begin = block * 8;
  int32_t end = begin + 8 < m ? begin + 8 : m;
  for (int32_t i = begin; i < end; ++i) {
    for (int32_t j = 0; j < N; ++j) {
      float acc = 0.0f;
      for (int32_t p = 0; p < K; ++p)
        acc += x[(size_t)i * K + p] * w[(size_t)p * N + j];
      acc += bias[(size_t)i * N + j];
      result[(size_t)i * N + j] = acc < 0.0f ? 0.0f : acc;
    }
  }
}
