// A "row sum" that reports which kernel ran: every result is WHICH, the
// number the rule's entry passes with -D, so the test can tell which
// feature level's kernel the loaded variant linked.
#include "graft/kernel.h"

GRAFT_KERNEL_EXPORT void which_kernel(const float *GRAFT_RESTRICT x,
                                      float *GRAFT_RESTRICT result, int64_t m) {
  (void)x;
  for (int64_t i = 0; i < m; ++i)
    result[i] = WHICH;
}
