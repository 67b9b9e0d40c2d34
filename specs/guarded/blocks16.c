// Kernels that only handle whole blocks of 16 elements: no tail loop, no
// bounds check. Each call covers the 16 elements from |offset| (one
// workgroup of workgroup_size 16), so the rules that use them may only
// apply when the element count is a multiple of 16; blocks16.yaml says so
// in `where`, and graft checks it per invocation.
#include <stddef.h>

void mul_blocks16(const float *restrict a, const float *restrict b, float *restrict out,
                  size_t offset) {
  for (size_t i = offset; i < offset + 16; ++i)
    out[i] = a[i] * b[i];
}

// In place: |acc| is read and overwritten with acc + c.
void add_blocks16_inplace(float *restrict acc, const float *restrict c, size_t offset) {
  for (size_t i = offset; i < offset + 16; ++i)
    acc[i] += c[i];
}
