/* C kernels that misbehave on purpose, for graft-run's debugging aids
 * (run_guard.sh, run_timeout.sh, run_ubsan.sh). Each is called as
 * NAME_k(x, result, n). */
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
/* Undefined behaviour for graft build --sanitize=undefined (run_ubsan.sh),
 * each triggered by the input's values: x = 1 overflows the sum, x = 40
 * shifts past 32 bits, an odd x[0] misaligns the load, and x <= 0 reaches
 * the unreachable point. */
void add_overflow_k(const float *x, float *r, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    int v = (int)x[i];
    r[i] = (float)(v + 2147483647);
  }
}
void shift_k(const float *x, float *r, int64_t n) {
  for (int64_t i = 0; i < n; ++i) r[i] = (float)(1u << (int)x[i]);
}
void misaligned_k(const float *x, float *r, int64_t n) {
  const char *bytes = (const char *)x + (int)x[0];
  for (int64_t i = 0; i < n; ++i) r[i] = -x[i];
  r[0] = *(const float *)bytes;
}
void unreachable_k(const float *x, float *r, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (!(x[i] > 0)) __builtin_unreachable();
    r[i] = -x[i];
  }
}
