/* The part of a test plugin that is the same in every test: an IREE-style
 * plugin (IREE's names, no libc: it builds as a system library and with
 * graft plugin) serving a fixed table of import functions. A test's plugin
 * source defines its functions, then
 *
 *   #define FIXED_PLUGIN_NAME "host_test"
 *   #define FIXED_PLUGIN_FUNCTIONS FIXED_PLUGIN_FUNCTION(host_matmul) ...
 *   #include "fixed_plugin.h"
 *
 * and optionally FIXED_PLUGIN_ON_LOAD() (a statement run by load). resolve
 * fills every empty slot whose name (without '?') is one of the functions
 * and leaves the others to plugins registered earlier. */
#ifndef GRAFT_TESTS_PLUGINS_FIXED_PLUGIN_H_
#define GRAFT_TESTS_PLUGINS_FIXED_PLUGIN_H_

#include "iree/hal/local/executable_plugin.h"

#ifndef FIXED_PLUGIN_ON_LOAD
#define FIXED_PLUGIN_ON_LOAD()
#endif

typedef struct fixed_plugin_entry_t {
  const char* name;
  int (*fn)(void* params, void* context, void* reserved);
} fixed_plugin_entry_t;

#define FIXED_PLUGIN_FUNCTION(f) {#f, f},
static const fixed_plugin_entry_t fixed_plugin_entries[] = {
    FIXED_PLUGIN_FUNCTIONS};
#undef FIXED_PLUGIN_FUNCTION

static iree_hal_executable_plugin_status_t fixed_plugin_load(
    const iree_hal_executable_plugin_environment_v0_t* environment,
    size_t param_count, const iree_hal_executable_plugin_string_pair_t* params,
    void** out_self) {
  (void)environment;
  (void)param_count;
  (void)params;
  FIXED_PLUGIN_ON_LOAD();
  *out_self = 0;
  return iree_hal_executable_plugin_ok_status();
}

static void fixed_plugin_unload(void* self) { (void)self; }

static iree_hal_executable_plugin_status_t fixed_plugin_resolve(
    void* self, const iree_hal_executable_plugin_resolve_params_v0_t* params,
    iree_hal_executable_plugin_resolution_t* out_resolution) {
  (void)self;
  *out_resolution = 0;
  for (size_t i = 0; i < params->count; ++i) {
    const char* name = params->symbol_names[i];
    if (params->out_fn_ptrs[i]) continue;
    if (iree_hal_executable_plugin_import_is_optional(name)) ++name;
    for (size_t e = 0;
         e < sizeof(fixed_plugin_entries) / sizeof(fixed_plugin_entries[0]); ++e)
      if (iree_hal_executable_plugin_strcmp(name, fixed_plugin_entries[e].name) == 0)
        params->out_fn_ptrs[i] = (void*)fixed_plugin_entries[e].fn;
  }
  return iree_hal_executable_plugin_ok_status();
}

IREE_HAL_EXECUTABLE_PLUGIN_EXPORT const iree_hal_executable_plugin_header_t**
iree_hal_executable_plugin_query(
    iree_hal_executable_plugin_version_t max_version, void* reserved) {
  (void)max_version;
  (void)reserved;
  static const iree_hal_executable_plugin_header_t header = {
      .version = IREE_HAL_EXECUTABLE_PLUGIN_VERSION_LATEST,
      .name = FIXED_PLUGIN_NAME,
      .features = IREE_HAL_EXECUTABLE_PLUGIN_FEATURE_STANDALONE,
  };
  static const iree_hal_executable_plugin_v0_t plugin = {
      .header = &header,
      .load = fixed_plugin_load,
      .unload = fixed_plugin_unload,
      .resolve = fixed_plugin_resolve,
  };
  return (const iree_hal_executable_plugin_header_t**)&plugin;
}

#endif /* GRAFT_TESTS_PLUGINS_FIXED_PLUGIN_H_ */
