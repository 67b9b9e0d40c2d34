/* A standalone (bare-metal) plugin in the style of IREE's
 * samples/custom_dispatch/cpu/plugin/standalone_plugin.c, written against
 * IREE's header names to show that such sources build unchanged for graft:
 *
 *   graft plugin standalone_plugin.c --target x86_64,aarch64,riscv64 \
 *       -o standalone_plugin.sos
 *   graft-run app.graft --plugin=standalone_plugin.sos ...
 *
 * Standalone means: no libc, no syscalls, no thread-local storage, no
 * writable globals. Everything the plugin needs comes through the plugin
 * API (here nothing at all: the plugin is a table of pure functions), so the
 * same .sos file serves x86_64, aarch64 and riscv64 hosts.
 *
 * It provides one import, `simple_mul_workgroup`: out = lhs * rhs for the 64
 * elements starting at |tid|, with IREE's calling convention
 * int fn(void* params, void* context, void* reserved). */
#include "iree/hal/local/executable_plugin.h"

#define ELEMENTS_PER_WORKGROUP 64

/* The packed argument struct the caller builds: each buffer as the MLIR
 * memref<?xf32> expansion (base, aligned base, offset, size, stride), then
 * the element count and the first element of this workgroup. */
typedef struct {
  const float* lhs;
  const float* lhs_aligned;
  size_t lhs_offset;
  size_t lhs_size;
  size_t lhs_stride;
  const float* rhs;
  const float* rhs_aligned;
  size_t rhs_offset;
  size_t rhs_size;
  size_t rhs_stride;
  float* out;
  float* out_aligned;
  size_t out_offset;
  size_t out_size;
  size_t out_stride;
  size_t dim;
  size_t tid;
} simple_mul_params_t;

/* Returns 0 on success; anything else fails the invocation. */
static int simple_mul_workgroup(void* params_ptr, void* context,
                                void* reserved) {
  (void)context;
  (void)reserved;
  const simple_mul_params_t* p = (const simple_mul_params_t*)params_ptr;
  size_t end = p->tid + ELEMENTS_PER_WORKGROUP;
  if (end > p->dim) end = p->dim;
  for (size_t i = p->tid; i < end; ++i) {
    p->out[p->out_offset + i * p->out_stride] =
        p->lhs[p->lhs_offset + i * p->lhs_stride] *
        p->rhs[p->rhs_offset + i * p->rhs_stride];
  }
  return 0;
}

/* Stateless: nothing to allocate, no parameters understood. */
static iree_hal_executable_plugin_status_t standalone_plugin_load(
    const iree_hal_executable_plugin_environment_v0_t* environment,
    size_t param_count, const iree_hal_executable_plugin_string_pair_t* params,
    void** out_self) {
  (void)environment;
  (void)param_count;
  (void)params;
  *out_self = NULL;
  return iree_hal_executable_plugin_ok_status();
}

static void standalone_plugin_unload(void* self) { (void)self; }

/* Fills the slots this plugin knows and leaves the others; a required
 * import it does not know makes it answer NOT_FOUND so that the runtime
 * asks the plugins registered before it. */
static iree_hal_executable_plugin_status_t standalone_plugin_resolve(
    void* self, const iree_hal_executable_plugin_resolve_params_v0_t* params,
    iree_hal_executable_plugin_resolution_t* out_resolution) {
  (void)self;
  *out_resolution = 0;
  bool required_missing = false;
  for (size_t i = 0; i < params->count; ++i) {
    if (params->out_fn_ptrs[i]) continue; /* a later plugin provided it */
    const char* name = params->symbol_names[i];
    bool optional = iree_hal_executable_plugin_import_is_optional(name);
    if (optional) ++name;
    if (iree_hal_executable_plugin_strcmp(name, "simple_mul_workgroup") == 0) {
      params->out_fn_ptrs[i] = (void*)simple_mul_workgroup;
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
      .name = "sample_standalone",
      .description = "standalone plugin sample (graft "
                     "runtime/examples/plugins/standalone_plugin.c)",
      .features = IREE_HAL_EXECUTABLE_PLUGIN_FEATURE_STANDALONE,
      .sanitizer = IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_NONE,
  };
  static const iree_hal_executable_plugin_v0_t plugin = {
      .header = &header,
      .load = standalone_plugin_load,
      .unload = standalone_plugin_unload,
      .resolve = standalone_plugin_resolve,
  };
  if (max_version < IREE_HAL_EXECUTABLE_PLUGIN_VERSION_LATEST) return NULL;
  return (const iree_hal_executable_plugin_header_t**)&plugin;
}
