/* Naive triple-loop f32 matmul reference (see naive_matmul.h). */
#include "naive_matmul.h"

void bench_naive_matmul_f32(const float* lhs, const float* rhs, float* out,
                            int64_t batch, int64_t m, int64_t k, int64_t n) {
  for (int64_t b = 0; b < batch; ++b) {
    const float* a = lhs + b * m * k;
    const float* r = rhs + b * k * n;
    float* c = out + b * m * n;
    for (int64_t i = 0; i < m; ++i) {
      float* row = c + i * n;
      for (int64_t j = 0; j < n; ++j) row[j] = 0.0f;
      for (int64_t p = 0; p < k; ++p) {
        float a_ip = a[i * k + p];
        const float* r_row = r + p * n;
        for (int64_t j = 0; j < n; ++j) row[j] += a_ip * r_row[j];
      }
    }
  }
}
