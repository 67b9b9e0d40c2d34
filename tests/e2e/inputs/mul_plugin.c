// A system plugin for tests: IREE's per-workgroup simple_mul kernels as
// imports, their arguments packed in one params struct (graft spec --header
// prints it). Built with -DSYMBOL="name" -DFN=mul|mul_inplace: the plugin
// provides SYMBOL (an optional import's name has a '?' first) with FN.
// A tid that is not a workgroup's first element fails the call.
#include <stddef.h>
#include "iree/hal/local/executable_plugin.h"
typedef struct {
  const float *lhs; size_t lhs_offset;
  const float *rhs; size_t rhs_offset;
  float *result; size_t result_offset;
  size_t dim, tid;
} mul_params_t;
static int mul(void *p, void *context, void *reserved) {
  const mul_params_t *a = (const mul_params_t *)p;
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
static int mul_inplace(void *p, void *context, void *reserved) {
  const inplace_params_t *a = (const inplace_params_t *)p;
  if (a->tid % 64 != 0 || a->tid >= a->dim) return 1;
  size_t end = a->tid + 64 < a->dim ? a->tid + 64 : a->dim;
  for (size_t i = a->tid; i < end; ++i)
    a->result[a->result_offset + i] *= a->lhs[a->lhs_offset + i];
  return 0;
}
static iree_hal_executable_plugin_status_t load(const iree_hal_executable_plugin_environment_v0_t *e,
    size_t n, const iree_hal_executable_plugin_string_pair_t *p, void **self) {
  *self = NULL;
  return iree_hal_executable_plugin_ok_status();
}
static void unload(void *self) {}
static iree_hal_executable_plugin_status_t resolve(void *self,
    const iree_hal_executable_plugin_resolve_params_v0_t *params,
    iree_hal_executable_plugin_resolution_t *out) {
  *out = 0;
  for (size_t i = 0; i < params->count; ++i) {
    const char *name = params->symbol_names[i];
    if (iree_hal_executable_plugin_import_is_optional(name)) ++name;
    if (iree_hal_executable_plugin_strcmp(name, SYMBOL) == 0)
      params->out_fn_ptrs[i] = (void *)FN;
  }
  return iree_hal_executable_plugin_ok_status();
}
IREE_HAL_EXECUTABLE_PLUGIN_EXPORT const iree_hal_executable_plugin_header_t **
iree_hal_executable_plugin_query(iree_hal_executable_plugin_version_t v, void *r) {
  static const iree_hal_executable_plugin_header_t header = {
      .version = IREE_HAL_EXECUTABLE_PLUGIN_VERSION_LATEST, .name = "wg",
      .features = IREE_HAL_EXECUTABLE_PLUGIN_FEATURE_NONE};
  static const iree_hal_executable_plugin_v0_t plugin = {
      .header = &header, .load = load, .unload = unload, .resolve = resolve};
  return (const iree_hal_executable_plugin_header_t **)&plugin;
}
