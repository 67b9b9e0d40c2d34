// Per-workgroup kernels in the form IREE's static-function samples use
// (samples/custom_dispatch/cpu/embedded): each buffer is a base pointer
// plus an element offset, |dim| is the element count and |tid| the first
// element of this workgroup, a multiple of 64. Plain C, no graft header.
#include <stddef.h>

void simple_mul_workgroup(const float *restrict binding0, size_t binding0_offset,
                          const float *restrict binding1, size_t binding1_offset,
                          float *restrict binding2, size_t binding2_offset, size_t dim,
                          size_t tid) {
  size_t end = tid + 64;
  if (end > dim)
    end = dim;
  for (size_t i = tid; i < end; ++i)
    binding2[binding2_offset + i] =
        binding0[binding0_offset + i] * binding1[binding1_offset + i];
}

// The in-place variant: binding1 is read and overwritten with the product.
void simple_mul_inplace_workgroup(const float *restrict binding0, size_t binding0_offset,
                                  float *restrict binding1, size_t binding1_offset, size_t dim,
                                  size_t tid) {
  size_t end = tid + 64;
  if (end > dim)
    end = dim;
  for (size_t i = tid; i < end; ++i)
    binding1[binding1_offset + i] *= binding0[binding0_offset + i];
}
