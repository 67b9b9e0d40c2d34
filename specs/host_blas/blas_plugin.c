/* A system plugin serving graft host commands with OpenBLAS.
 *
 * blas_sgemm runs on the thread that invoked the graft function, between
 * graft's dispatches, never on graft's workers: OpenBLAS may start and use
 * its own threads for the product (OPENBLAS_NUM_THREADS) without competing
 * with graft's pool for the same cores at the same time.
 *
 * Build (a system shared library, linked against OpenBLAS):
 *   clang -shared -fPIC -O2 -I<graft>/include blas_plugin.c -lopenblas \
 *     -o blas_plugin.so
 */
#include <cblas.h>
#include <stdint.h>
#include <stdio.h>

#include "iree/hal/local/executable_plugin.h"

/* The rule's args, in order (host_blas.yaml). Buffers are dense and
 * row-major: graft's tensors. */
typedef struct {
  const float* lhs;
  const float* rhs;
  float* result;
  int32_t m, n, k;
} blas_sgemm_params_t;

static int blas_sgemm(void* params_ptr, void* context, void* reserved) {
  (void)context;
  (void)reserved;
  const blas_sgemm_params_t* p = (const blas_sgemm_params_t*)params_ptr;
  if (p->m < 0 || p->n < 0 || p->k < 0) return 1;
  printf("[blas_plugin]: cblas_sgemm M = %d, N = %d, K = %d\n", p->m, p->n,
         p->k);
  fflush(stdout);
  /* result = 1 * lhs x rhs + 0 * result (the fill with 0.0). */
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, p->m, p->n, p->k,
              1.0f, p->lhs, p->k > 0 ? p->k : 1, p->rhs, p->n > 0 ? p->n : 1,
              0.0f, p->result, p->n > 0 ? p->n : 1);
  return 0;
}

static iree_hal_executable_plugin_status_t blas_plugin_load(
    const iree_hal_executable_plugin_environment_v0_t* environment,
    size_t param_count, const iree_hal_executable_plugin_string_pair_t* params,
    void** out_self) {
  (void)environment;
  (void)param_count;
  (void)params;
  *out_self = NULL;
  return iree_hal_executable_plugin_ok_status();
}

static void blas_plugin_unload(void* self) { (void)self; }

static iree_hal_executable_plugin_status_t blas_plugin_resolve(
    void* self, const iree_hal_executable_plugin_resolve_params_v0_t* params,
    iree_hal_executable_plugin_resolution_t* out_resolution) {
  (void)self;
  *out_resolution = 0;
  int missing = 0;
  for (size_t i = 0; i < params->count; ++i) {
    if (params->out_fn_ptrs[i]) continue;
    const char* name = params->symbol_names[i];
    int optional = iree_hal_executable_plugin_import_is_optional(name);
    if (optional) ++name;
    if (iree_hal_executable_plugin_strcmp(name, "blas_sgemm") == 0) {
      params->out_fn_ptrs[i] = (void*)blas_sgemm;
      params->out_fn_contexts[i] = NULL;
    } else if (optional) {
      *out_resolution |= IREE_HAL_EXECUTABLE_PLUGIN_RESOLUTION_MISSING_OPTIONAL;
    } else {
      missing = 1;
    }
  }
  return missing ? iree_hal_executable_plugin_status_from_code(
                       IREE_HAL_EXECUTABLE_PLUGIN_STATUS_NOT_FOUND)
                 : iree_hal_executable_plugin_ok_status();
}

IREE_HAL_EXECUTABLE_PLUGIN_EXPORT const iree_hal_executable_plugin_header_t**
iree_hal_executable_plugin_query(
    iree_hal_executable_plugin_version_t max_version, void* reserved) {
  (void)reserved;
  static const iree_hal_executable_plugin_header_t header = {
      .version = IREE_HAL_EXECUTABLE_PLUGIN_VERSION_LATEST,
      .name = "blas_plugin",
      .description = "graft host commands served by OpenBLAS",
      .features = IREE_HAL_EXECUTABLE_PLUGIN_FEATURE_NONE,
      .sanitizer = IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_KIND,
  };
  static const iree_hal_executable_plugin_v0_t plugin = {
      .header = &header,
      .load = blas_plugin_load,
      .unload = blas_plugin_unload,
      .resolve = blas_plugin_resolve,
  };
  return max_version <= IREE_HAL_EXECUTABLE_PLUGIN_VERSION_LATEST
             ? (const iree_hal_executable_plugin_header_t**)&plugin
             : NULL;
}
