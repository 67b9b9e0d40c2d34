# An import (`link: import`) with per-workgroup arguments: the packed params
# struct carries `workgroup_offset(0)` (a different value in every
# workgroup) and `workgroup_size` sets the grid, as for a static kernel. The
# plugin multiplies its workgroup's 64 elements; the result is the
# workgroup_kernel example's, on 1 and 3 threads. `graft spec --header`
# prints the import's params struct and its signature.
C=$TEST_DIR/spec_import_workgroup.sh
EX=$SRC/specs/workgroup_kernel
sed -n '1,/- name: simple_mul_inplace/p' "$EX/simple_mul.yaml" | sed '$d' |
  sed '/kernels:/,$d; s/call: simple_mul_workgroup/&\n      link: import/' > import.yaml
"$GRAFT" build "$EX/simple_mul.graph" --spec import.yaml --target x86_64 -o mul.graft

"$GRAFT" spec --header import.yaml --target x86_64 | check --check-prefix=HEADER "$C"
# HEADER: // rule 'simple_mul' ({{.*}}), for x86_64
# HEADER-NEXT: struct simple_mul_workgroup_params {
# HEADER-NEXT:   const float *lhs;
# HEADER-NEXT:   size_t arg1; /* 0 */
# HEADER:   size_t arg7; /* workgroup_offset(0) */
# HEADER-NEXT: };
# HEADER-NEXT: int simple_mul_workgroup(void *params, void *context, void *reserved); /* import */

# The plugin provides SYMBOL (an optional import's name has a '?' first).
cat > wg.c <<'CSRC'
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
CSRC
"$CLANG" -shared -fPIC -O2 -I"$SRC/runtime/include" '-DSYMBOL="simple_mul_workgroup"' -DFN=mul \
  wg.c -o wg.so
read_run_args "$EX/run.args"
for threads in 1 3; do
  # 200 elements: four workgroups (ceildiv(200, 64)), the last one partial.
  "$GRAFT_RUN" mul.graft --plugin ./wg.so --threads $threads --trace "${RUN_ARGS[@]}" \
    > out.txt 2> trace.txt
  diff out.txt "$EX/expected.txt"
  check --check-prefix=TRACE "$C" < trace.txt
done
# TRACE: simple_mul_dispatch_0_simple_mul ({{.*}}) grid 4x1x1

# The in-place rule as an optional import: the output starts as a copy of
# %acc (it is not the only use of %acc's buffer: the fallback writes there
# too), a copy guarded like the call. With no plugin graft's fallback runs;
# with one the import updates the copy in place, per workgroup.
awk '/- name: simple_mul_inplace/ { x = 1 } x' "$EX/simple_mul.yaml" |
  sed '/kernels:/,$d; s/call: simple_mul_inplace_workgroup/&\n      link: optional/' |
  { printf 'graft-spec: 1\nrules:\n'; cat; } > optional.yaml
"$GRAFT" build "$EX/simple_mul.graph" --spec optional.yaml --target x86_64 -o optional.graft
"$GRAFT_RUN" optional.graft --trace "${RUN_ARGS[@]}" > out.txt 2> trace.txt
diff out.txt "$EX/expected.txt"
check --check-prefix=FALLBACK "$C" < trace.txt
# FALLBACK-NOT: simple_mul_inplace
"$CLANG" -shared -fPIC -O2 -I"$SRC/runtime/include" '-DSYMBOL="simple_mul_inplace_workgroup"' \
  -DFN=mul_inplace wg.c -o ip.so
for threads in 1 3; do
  "$GRAFT_RUN" optional.graft --plugin ./ip.so --threads $threads --trace "${RUN_ARGS[@]}" \
    > out.txt 2> trace.txt
  diff out.txt "$EX/expected.txt"
  check --check-prefix=INPLACE "$C" < trace.txt
done
# INPLACE: simple_mul_dispatch_{{[0-9]+}}_simple_mul_inplace ({{.*}}) grid 4x1x1
