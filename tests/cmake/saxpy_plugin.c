/* saxpy_tile for saxpy_import.yaml as an IREE-style plugin with no libc, so
 * that graft_add_plugin() builds the same source as a system library and as
 * a bare-metal .sos. */
#include <stdint.h>

#include "iree/hal/local/executable_plugin.h"

/* The rule's args, in order. */
typedef struct {
  const float* x;
  const float* y;
  float* result;
  int64_t n;
  int32_t tile;
} saxpy_params_t;

static int saxpy_tile(void* params_ptr, void* context, void* reserved) {
  (void)context;
  (void)reserved;
  const saxpy_params_t* p = (const saxpy_params_t*)params_ptr;
  int64_t end = (int64_t)(p->tile + 1) * 64;
  if (end > p->n) end = p->n;
  for (int64_t i = (int64_t)p->tile * 64; i < end; ++i)
    p->result[i] = 2.0f * p->x[i] + p->y[i];
  return 0;
}

static iree_hal_executable_plugin_status_t saxpy_load(
    const iree_hal_executable_plugin_environment_v0_t* environment,
    size_t param_count, const iree_hal_executable_plugin_string_pair_t* params,
    void** out_self) {
  (void)environment;
  (void)param_count;
  (void)params;
  *out_self = 0;
  return iree_hal_executable_plugin_ok_status();
}

static void saxpy_unload(void* self) { (void)self; }

static iree_hal_executable_plugin_status_t saxpy_resolve(
    void* self, const iree_hal_executable_plugin_resolve_params_v0_t* params,
    iree_hal_executable_plugin_resolution_t* out_resolution) {
  (void)self;
  *out_resolution = 0;
  for (size_t i = 0; i < params->count; ++i)
    if (!params->out_fn_ptrs[i] &&
        iree_hal_executable_plugin_strcmp(params->symbol_names[i], "saxpy_tile") == 0)
      params->out_fn_ptrs[i] = (void*)saxpy_tile;
  return iree_hal_executable_plugin_ok_status();
}

IREE_HAL_EXECUTABLE_PLUGIN_EXPORT const iree_hal_executable_plugin_header_t**
iree_hal_executable_plugin_query(
    iree_hal_executable_plugin_version_t max_version, void* reserved) {
  (void)max_version;
  (void)reserved;
  static const iree_hal_executable_plugin_header_t header = {
      .version = IREE_HAL_EXECUTABLE_PLUGIN_VERSION_LATEST,
      .name = "saxpy_plugin",
      .description = "saxpy_tile for the CMake example",
      .features = IREE_HAL_EXECUTABLE_PLUGIN_FEATURE_STANDALONE,
      .sanitizer = IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_KIND,
  };
  static const iree_hal_executable_plugin_v0_t plugin = {
      .header = &header,
      .load = saxpy_load,
      .unload = saxpy_unload,
      .resolve = saxpy_resolve,
  };
  return (const iree_hal_executable_plugin_header_t**)&plugin;
}
