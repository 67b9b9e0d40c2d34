/* IREE's per-workgroup simple_mul kernels as plugin imports (system or
 * bare-metal), their arguments packed in one params struct (graft spec
 * --header prints it): simple_mul_workgroup and its in-place variant
 * simple_mul_inplace_workgroup. A tid that is not a workgroup's first
 * element fails the call. */
#include <stddef.h>

typedef struct {
  const float *lhs; size_t lhs_offset;
  const float *rhs; size_t rhs_offset;
  float *result; size_t result_offset;
  size_t dim, tid;
} mul_params_t;
static int simple_mul_workgroup(void *p, void *context, void *reserved) {
  const mul_params_t *a = (const mul_params_t *)p;
  (void)context, (void)reserved;
  if (a->tid % 64 != 0 || a->tid >= a->dim) return 1;
  size_t end = a->tid + 64 < a->dim ? a->tid + 64 : a->dim;
  for (size_t i = a->tid; i < end; ++i)
    a->result[a->result_offset + i] = a->lhs[a->lhs_offset + i] * a->rhs[a->rhs_offset + i];
  return 0;
}

typedef struct {
  const float *lhs; size_t lhs_offset;
  float *result; size_t result_offset;
  size_t dim, tid;
} inplace_params_t;
static int simple_mul_inplace_workgroup(void *p, void *context, void *reserved) {
  const inplace_params_t *a = (const inplace_params_t *)p;
  (void)context, (void)reserved;
  if (a->tid % 64 != 0 || a->tid >= a->dim) return 1;
  size_t end = a->tid + 64 < a->dim ? a->tid + 64 : a->dim;
  for (size_t i = a->tid; i < end; ++i)
    a->result[a->result_offset + i] *= a->lhs[a->lhs_offset + i];
  return 0;
}

#define FIXED_PLUGIN_NAME "mul"
#define FIXED_PLUGIN_FUNCTIONS \
  FIXED_PLUGIN_FUNCTION(simple_mul_workgroup) FIXED_PLUGIN_FUNCTION(simple_mul_inplace_workgroup)
#include "fixed_plugin.h"
