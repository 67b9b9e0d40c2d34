/* A bare-metal plugin providing a whole dispatch, scaled_add_dispatch:
 * result = a*2 + b over n elements, one workgroup per 64 of them. The
 * bundle calls it through its import table as
 * fn(dispatch_state, context, workgroup_state) (docs/plugins.md, "Imports
 * from specs"); `graft plugin` builds it for every target into one .sos.
 * No libc, no writable globals: the same file serves every architecture. */
#include "graft/abi.h"
#include "iree/hal/local/executable_plugin.h"

#define TILE 64u

static int scaled_add_dispatch(void* params, void* context, void* reserved) {
  (void)context;
  const graft_dispatch_state_v1_t* dispatch = (const graft_dispatch_state_v1_t*)params;
  const graft_workgroup_state_v1_t* workgroup = (const graft_workgroup_state_v1_t*)reserved;
  /* The rule promises bindings (a, b, result) and one constant; refuse
   * anything else instead of reading past the tables. */
  if (dispatch->binding_count != 3 || dispatch->constant_count != 1) return 1;
  uint64_t n = dispatch->constants[0];
  for (uint32_t i = 0; i < 3; ++i)
    if (dispatch->binding_lengths[i] < n * sizeof(float)) return 2;
  const float* a = (const float*)dispatch->bindings[0];
  const float* b = (const float*)dispatch->bindings[1];
  float* result = (float*)dispatch->bindings[2];
  uint64_t begin = (uint64_t)workgroup->workgroup_id[0] * TILE;
  uint64_t end = begin + TILE < n ? begin + TILE : n;
  for (uint64_t i = begin; i < end; ++i) result[i] = a[i] * 2.0f + b[i];
  return 0;
}

static iree_hal_executable_plugin_status_t scaled_add_load(
    const iree_hal_executable_plugin_environment_v0_t* environment,
    size_t param_count, const iree_hal_executable_plugin_string_pair_t* params,
    void** out_self) {
  (void)environment;
  (void)param_count;
  (void)params;
  *out_self = NULL;
  return iree_hal_executable_plugin_ok_status();
}

static void scaled_add_unload(void* self) { (void)self; }

/* Fills the slot it knows; NOT_FOUND for any other required import so the
 * runtime asks the plugins registered before it. */
static iree_hal_executable_plugin_status_t scaled_add_resolve(
    void* self, const iree_hal_executable_plugin_resolve_params_v0_t* params,
    iree_hal_executable_plugin_resolution_t* out_resolution) {
  (void)self;
  *out_resolution = 0;
  bool required_missing = false;
  for (size_t i = 0; i < params->count; ++i) {
    if (params->out_fn_ptrs[i]) continue;
    const char* name = params->symbol_names[i];
    bool optional = iree_hal_executable_plugin_import_is_optional(name);
    if (optional) ++name;
    if (iree_hal_executable_plugin_strcmp(name, "scaled_add_dispatch") == 0) {
      params->out_fn_ptrs[i] = (void*)scaled_add_dispatch;
      params->out_fn_contexts[i] = NULL;
    } else if (optional) {
      *out_resolution |= IREE_HAL_EXECUTABLE_PLUGIN_RESOLUTION_MISSING_OPTIONAL;
    } else {
      required_missing = true;
    }
  }
  return required_missing ? iree_hal_executable_plugin_status_from_code(
                                IREE_HAL_EXECUTABLE_PLUGIN_STATUS_NOT_FOUND)
                          : iree_hal_executable_plugin_ok_status();
}

IREE_HAL_EXECUTABLE_PLUGIN_EXPORT const iree_hal_executable_plugin_header_t**
iree_hal_executable_plugin_query(
    iree_hal_executable_plugin_version_t max_version, void* reserved) {
  (void)reserved;
  static const iree_hal_executable_plugin_header_t header = {
      .version = IREE_HAL_EXECUTABLE_PLUGIN_VERSION_LATEST,
      .name = "scaled_add",
      .description = "whole-dispatch import (graft specs/dispatch_import)",
      .features = IREE_HAL_EXECUTABLE_PLUGIN_FEATURE_STANDALONE,
      .sanitizer = IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_NONE,
  };
  static const iree_hal_executable_plugin_v0_t plugin = {
      .header = &header,
      .load = scaled_add_load,
      .unload = scaled_add_unload,
      .resolve = scaled_add_resolve,
  };
  if (max_version < IREE_HAL_EXECUTABLE_PLUGIN_VERSION_LATEST) return NULL;
  return (const iree_hal_executable_plugin_header_t**)&plugin;
}
