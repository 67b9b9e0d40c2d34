# `link: import` / `link: optional` through the compiler: spec errors, an
# optional import's fallback and its plugin, an import that fails
# (the plugin's name, the symbol and the value), every missing import named
# when the bundle is opened, and resolution order across plugins (the later
# plugin wins a symbol both provide; a specialised plugin providing some
# symbols is used next to a reference one providing all).
C=$TEST_DIR/spec_import.sh
G=$TEST_DIR/inputs/mlp.graph

# import.yaml <replace lines...>: the seed's fill+matmul+relu.
rule() {
  cat <<YAML
graft-spec: 1
rules:
  - name: r
    match: |
      pattern @mlp(%lhs: tensor<?x?xf32>, %rhs: tensor<?x?xf32>, %init: tensor<?x?xf32>) -> tensor<?x?xf32> {
        %cst = constant 0.0 : f32
        %fill = fill %cst, %init : tensor<?x?xf32>
        %mm = matmul %lhs, %rhs, %fill : tensor<?x?xf32>
        %relu = map %mm : tensor<?x?xf32> {
        ^bb0(%x: f32):
          %0 = max %x, %cst : f32
          yield %0
        }
        return %relu
      }
    replace:
      call: mlp_external
      args: [memref(lhs), memref(rhs), memref(result), "dim(lhs, 0) : i32", "dim(rhs, 1) : i32", "dim(lhs, 1) : i32"]
YAML
  printf '      %s\n' "$@"
}

# An import has no kernels: the plugin provides it at load time.
rule "link: import" "kernels: {x86_64: {source: k.c}}" > kernels.yaml
expect_fail "$GRAFT" build "$G" --spec kernels.yaml --target x86_64 -o x.graft
check --check-prefix=KERNELS "$C" < "$T/out"
# KERNELS: kernels.yaml:20:16: error: 'kernels' is for static kernels; an import is provided by a plugin when the bundle is loaded (graft-run --plugin)
# KERNELS-NEXT: {{^}}      kernels: {x86_64: {source: k.c}}
# KERNELS-NEXT: {{^}}               ^

# IREE's convention: an import returns int.
rule "link: import" "returns: void" > void.yaml
expect_fail "$GRAFT" build "$G" --spec void.yaml --target x86_64 -o x.graft
check --check-prefix=VOID "$C" < "$T/out"
# VOID: void.yaml:20:16: error: an import always returns int (0: success), as IREE's plugin functions do; 'returns: void' is for static kernels

# An optional import: with no plugin graft's generated fallback runs (the
# matmul dispatch, no call), with the seed's plugin the plugin runs (its line,
# the call's dispatch, no matmul); the same results on 1 and 3 threads.
"$GRAFT" build "$G" --spec "$SRC/specs/mlp_optional/mlp_optional.yaml" --target x86_64 -o optional.graft
"$CLANG" -shared -fPIC -O2 -I"$SRC/runtime/include" "$SRC/runtime/examples/plugins/mlp_plugin.c" -o mlp_plugin.so
mlp_in=(--input "2x2xf32=[[2 2][-2 -2]]" --input "2x2xf32=[[3 -3][3 -3]]")
"$GRAFT_RUN" optional.graft --trace "${mlp_in[@]}" > fallback.out 2> fallback.trace
check --check-prefix=FALLBACK "$C" < fallback.trace
# FALLBACK-NOT: mlp_external
# FALLBACK: mlp_dispatch_0_matmul
# FALLBACK-NOT: mlp_external
check --check-prefix=RESULT "$C" < fallback.out
# RESULT-NOT: [Plugin]
# RESULT: 2x2xf32=[-12 0][0 -12]
for threads in 1 3; do
  "$GRAFT_RUN" optional.graft --threads $threads --plugin ./mlp_plugin.so --trace "${mlp_in[@]}" \
    > plugin.out 2> plugin.trace
  check --check-prefix=PLUGIN "$C" < plugin.out
  check --check-prefix=CALLED "$C" < plugin.trace
done
# PLUGIN: [Plugin]: M = 2, N = 2, K = 2
# PLUGIN-NEXT: 2x2xf32=[-12 0][0 -12]
# CALLED-NOT: matmul
# CALLED: mlp_dispatch_1_mlp_external
# CALLED-NOT: matmul

# An optional import's call and its fallback write the same buffer: an
# output that is a reshape's view has none of its own.
cat > view.graph <<'GRAPH'
func @f(%x: tensor<6xf32>) -> tensor<2x3xf32> {
  %n = map %x : tensor<6xf32> {
  ^bb0(%v: f32):
    %0 = neg %v : f32
    yield %0
  }
  %r = reshape %n : tensor<2x3xf32>
  return %r
}
GRAPH
cat > view.yaml <<'YAML'
graft-spec: 1
rules:
  - name: negr
    match: |
      pattern @p(%x: tensor<6xf32>) -> tensor<2x3xf32> {
        %n = map %x : tensor<6xf32> {
        ^bb0(%v: f32):
          %0 = neg %v : f32
          yield %0
        }
        %r = reshape %n : tensor<2x3xf32>
        return %r
      }
    replace:
      call: negr
      link: optional
      args: [x, result]
YAML
expect_fail "$GRAFT" build view.graph --spec view.yaml --target x86_64 -o x.graft
check --check-prefix=VIEW "$C" < "$T/out"
# VIEW: view.graph:7:8: error: rule 'negr' (link: optional): output 0 has no buffer of its own (it is an argument, a constant or a reshape's view) for both the call and graft's fallback to write; use link: import
# VIEW-NEXT: {{^}}  %r = reshape %n : tensor<2x3xf32>
# VIEW-NEXT: {{^}}       ^

# An import that fails: mlp_external returning 7 for three rows. The message
# names the dispatch, the plugin (its header's name and its file), the
# symbol and the value; the same plugin then serves good inputs.
rule "link: import" "grid: [1, 1, 1]" > import.yaml
"$GRAFT" build "$G" --spec import.yaml --target x86_64 -o mlp.graft
cat > picky.c <<'CSRC'
#include <stdint.h>
#include <stddef.h>
#include "iree/hal/local/executable_plugin.h"
typedef struct { float *base, *aligned; size_t offset, sizes[2], strides[2]; } memref_t;
typedef struct { memref_t lhs, rhs, result; int32_t m, n, k; } params_t;
static int mlp_external(void *p, void *context, void *reserved) {
  params_t *a = (params_t *)p;
  if (a->m == 3) return 7;
  for (int32_t i = 0; i < a->m; ++i)
    for (int32_t j = 0; j < a->n; ++j) {
      float acc = 0;
      for (int32_t k = 0; k < a->k; ++k)
        acc += a->lhs.aligned[i * a->lhs.strides[0] + k] * a->rhs.aligned[k * a->rhs.strides[0] + j];
      a->result.aligned[i * a->result.strides[0] + j] = acc > 0 ? acc : 0;
    }
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
  for (size_t i = 0; i < params->count; ++i)
    if (iree_hal_executable_plugin_strcmp(params->symbol_names[i], "mlp_external") == 0)
      params->out_fn_ptrs[i] = (void *)mlp_external;
  return iree_hal_executable_plugin_ok_status();
}
IREE_HAL_EXECUTABLE_PLUGIN_EXPORT const iree_hal_executable_plugin_header_t **
iree_hal_executable_plugin_query(iree_hal_executable_plugin_version_t v, void *r) {
  static const iree_hal_executable_plugin_header_t header = {
      .version = IREE_HAL_EXECUTABLE_PLUGIN_VERSION_LATEST, .name = "picky",
      .features = IREE_HAL_EXECUTABLE_PLUGIN_FEATURE_NONE};
  static const iree_hal_executable_plugin_v0_t plugin = {
      .header = &header, .load = load, .unload = unload, .resolve = resolve};
  return (const iree_hal_executable_plugin_header_t **)&plugin;
}
CSRC
"$CLANG" -shared -fPIC -O2 -I"$SRC/runtime/include" picky.c -o picky.so
expect_fail "$GRAFT_RUN" mlp.graft --plugin ./picky.so --input 3x2xf32=1 --input 2x2xf32=1
check --check-prefix=FAIL "$C" < "$T/out"
# FAIL: graft-run: error: dispatch 'mlp_dispatch_0_r' ({{.*}}mlp.graph:11:11) failed in workgroup (0,0,0): import 'mlp_external' of plugin 'picky' (./picky.so) returned 7
"$GRAFT_RUN" mlp.graft --plugin ./picky.so --input "2x2xf32=[[2 2][-2 -2]]" \
  --input "2x2xf32=[[3 -3][3 -3]]" | check --check-prefix=PICKY "$C"
# PICKY: 2x2xf32=[-12 0][0 -12]

# Resolution order. Two rules import tag_a (neg) and tag_b (abs) as whole
# dispatches; the plugin writes its TAG (+100 for tag_b) everywhere. The
# reference plugin provides both, the specialised one only tag_a.
cat > two.graph <<'GRAPH'
func @two(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %a = map %x : tensor<?xf32> {
  ^bb0(%v: f32):
    %0 = neg %v : f32
    yield %0
  }
  %b = map %x : tensor<?xf32> {
  ^bb0(%v: f32):
    %0 = abs %v : f32
    yield %0
  }
  return %a, %b
}
GRAPH
tag_rule() {
  cat <<YAML
  - name: rule_$1
    match: |
      pattern @p(%x: tensor<?xf32>) -> tensor<?xf32> {
        %r = map %x : tensor<?xf32> {
        ^bb0(%v: f32):
          %0 = $2 %v : f32
          yield %0
        }
        return %r
      }
    replace:
      dispatch: tag_$1
      link: import
      constants: ["dim(x, 0)"]
YAML
}
{ echo "graft-spec: 1"; echo "rules:"; tag_rule a neg; tag_rule b abs; } > two.yaml
"$GRAFT" build two.graph --spec two.yaml --target "$ALL_TARGETS" -o two.graft
cat > tag.c <<'CSRC'
#include "graft/abi.h"
#include "iree/hal/local/executable_plugin.h"
static int fill(void *params, float value) {
  const graft_dispatch_state_v1_t *d = (const graft_dispatch_state_v1_t *)params;
  float *out = (float *)d->bindings[1];
  for (uint64_t i = 0; i < d->constants[0]; ++i) out[i] = value;
  return 0;
}
static int tag_a(void *params, void *context, void *reserved) { return fill(params, TAG); }
static int tag_b(void *params, void *context, void *reserved) { return fill(params, TAG + 100); }
static iree_hal_executable_plugin_status_t load(const iree_hal_executable_plugin_environment_v0_t *e,
    size_t n, const iree_hal_executable_plugin_string_pair_t *p, void **self) {
  *self = 0;
  return iree_hal_executable_plugin_ok_status();
}
static void unload(void *self) {}
static iree_hal_executable_plugin_status_t resolve(void *self,
    const iree_hal_executable_plugin_resolve_params_v0_t *params,
    iree_hal_executable_plugin_resolution_t *out) {
  *out = 0;
  for (size_t i = 0; i < params->count; ++i) {
    if (params->out_fn_ptrs[i]) continue;
    if (iree_hal_executable_plugin_strcmp(params->symbol_names[i], "tag_a") == 0)
      params->out_fn_ptrs[i] = (void *)tag_a;
    else if (PROVIDES_B && iree_hal_executable_plugin_strcmp(params->symbol_names[i], "tag_b") == 0)
      params->out_fn_ptrs[i] = (void *)tag_b;
  }
  return iree_hal_executable_plugin_ok_status();
}
IREE_HAL_EXECUTABLE_PLUGIN_EXPORT const iree_hal_executable_plugin_header_t **
iree_hal_executable_plugin_query(iree_hal_executable_plugin_version_t v, void *r) {
  static const iree_hal_executable_plugin_header_t header = {
      .version = IREE_HAL_EXECUTABLE_PLUGIN_VERSION_LATEST, .name = NAME,
      .features = IREE_HAL_EXECUTABLE_PLUGIN_FEATURE_STANDALONE};
  static const iree_hal_executable_plugin_v0_t plugin = {
      .header = &header, .load = load, .unload = unload, .resolve = resolve};
  return (const iree_hal_executable_plugin_header_t **)&plugin;
}
CSRC
"$GRAFT" plugin tag.c -DTAG=1 -DPROVIDES_B=1 '-DNAME="reference"' --target "$ALL_TARGETS" -o reference.sos
"$GRAFT" plugin tag.c -DTAG=2 -DPROVIDES_B=0 '-DNAME="special"' --target "$ALL_TARGETS" -o special.sos

# Nothing registered: both imports are named.
expect_fail "$GRAFT_RUN" two.graft --input 3xf32=1
check --check-prefix=MISSING "$C" < "$T/out"
# MISSING: graft-run: error: two.graft: library 'two' requires 2 imports that nothing provides: 'tag_a', 'tag_b' (no plugins registered)

for target in "${TARGETS[@]}"; do
  # Reference then specialised: tag_a from the specialised one (the later
  # one wins), tag_b from the reference one (the specialised one lacks it).
  run_on "$target" two.graft --plugin reference.sos --plugin special.sos --input 3xf32=1 \
    | check --check-prefix=BOTH "$C"
  # BOTH: 3xf32=2 2 2
  # BOTH-NEXT: 3xf32=101 101 101
  # Specialised then reference: the reference one, later, wins both.
  run_on "$target" two.graft --plugin special.sos --plugin reference.sos --input 3xf32=1 \
    | check --check-prefix=LATER "$C"
  # LATER: 3xf32=1 1 1
  # LATER-NEXT: 3xf32=101 101 101
done
