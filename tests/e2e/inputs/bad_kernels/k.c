/* C kernels that misbehave on purpose, for graft-run's debugging aids
 * (run_guard.sh, run_timeout.sh). Each is called as NAME_k(x, result, n). */
#include <stdint.h>
void past_end_k(const float *x, float *r, int64_t n) {
  for (int64_t i = 0; i < n; ++i) r[i] = -x[i];
  r[n] = 1.0f;
}
void before_start_k(const float *x, float *r, int64_t n) {
  for (int64_t i = 0; i < n; ++i) r[i] = -x[i];
  r[-1] = 1.0f;
}
void into_input_k(const float *x, float *r, int64_t n) {
  for (int64_t i = 0; i < n; ++i) r[i] = -x[i];
  ((float *)x)[0] = 2.0f;
}
void spin_k(const float *x, float *r, int64_t n) {
  volatile int spinning = 1;
  while (spinning) {
  }
}
