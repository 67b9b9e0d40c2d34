// result[i] = sum over j of x[i][j] for a dense row-major m x n matrix, in
// index order like graft's reduce, so results match bit for bit. Only the
// x86_64 slice links it (see rowsum.yaml).
#include "graft/kernel.h"

GRAFT_KERNEL_EXPORT void rowsum_kernel(const float *GRAFT_RESTRICT x,
                                       float *GRAFT_RESTRICT result, int64_t m,
                                       int64_t n) {
  for (int64_t i = 0; i < m; ++i) {
    float acc = 0.0f;
    for (int64_t j = 0; j < n; ++j)
      acc += x[i * n + j];
    result[i] = acc;
  }
}
