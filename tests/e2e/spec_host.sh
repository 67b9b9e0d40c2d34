# Host commands (`link: host`): the seed MLP's fill + matmul become a call
# into a system plugin on the invoking thread, between graft's dispatches
# (the relu and neg after it stay graft's). The test plugin has no
# dependency: it runs the matmul on a thread of its own, as a vendor
# library would, and says whether it was called on the thread that loaded
# it (graft-run's main thread), at 1 and 3 pool threads. Then the errors:
# nobody provides the symbol, the plugin returns non-zero (plugin, symbol,
# value), a bare-metal plugin provides it, and the
# spec mistakes. A whole dispatch (dispatch:) works as a host command too.
# specs/host_blas is the worked example with OpenBLAS.
C=$TEST_DIR/spec_host.sh
G=$TEST_DIR/inputs/mlp.graph

rule() { # [replace lines...]
  cat <<YAML
graft-spec: 1
rules:
  - name: mm
    match: |
      pattern @mm(%lhs: tensor<?x?xf32>, %rhs: tensor<?x?xf32>, %init: tensor<?x?xf32>) -> tensor<?x?xf32> {
        %cst = constant 0.0 : f32
        %fill = fill %cst, %init : tensor<?x?xf32>
        %mm = matmul %lhs, %rhs, %fill : tensor<?x?xf32>
        return %mm
      }
    replace:
      call: host_matmul
      args: [lhs, rhs, result, "dim(lhs, 0) : i32", "dim(rhs, 1) : i32", "dim(lhs, 1) : i32"]
YAML
  printf '      %s\n' "$@"
}
cat > host.c <<'CSRC'
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include "graft/abi.h"
typedef struct {
  const float *lhs, *rhs;
  float *result;
  int32_t m, n, k;
} params_t;
static pthread_t loader;
static void *multiply(void *p) {
  const params_t *a = (const params_t *)p;
  for (int32_t i = 0; i < a->m; ++i)
    for (int32_t j = 0; j < a->n; ++j) {
      float acc = 0;
      for (int32_t k = 0; k < a->k; ++k) acc += a->lhs[i * a->k + k] * a->rhs[k * a->n + j];
      a->result[i * a->n + j] = acc;
    }
  return NULL;
}
static int host_matmul(void *p, void *context, void *reserved) {
  const params_t *a = (const params_t *)p;
  if (a->m == 3) return 7;
  printf("[host] %dx%dx%d on the loading thread: %s\n", a->m, a->n, a->k,
         pthread_equal(pthread_self(), loader) ? "yes" : "no");
  fflush(stdout);
  pthread_t worker; /* the library's own thread */
  if (pthread_create(&worker, NULL, multiply, p) != 0) return 5;
  pthread_join(worker, NULL);
  return 0;
}
/* A whole-dispatch host command (dispatch: host_neg): graft's dispatch and
 * workgroup state, one workgroup on worker 0. */
static int host_neg(void *params, void *context, void *reserved) {
  const graft_dispatch_state_v1_t *d = (const graft_dispatch_state_v1_t *)params;
  const graft_workgroup_state_v1_t *w = (const graft_workgroup_state_v1_t *)reserved;
  if (w->worker_id != 0 || d->workgroup_count[0] * d->workgroup_count[1] * d->workgroup_count[2] != 1 ||
      !pthread_equal(pthread_self(), loader))
    return 9;
  const float *x = (const float *)d->bindings[0];
  float *out = (float *)d->bindings[1];
  for (uint64_t i = 0; i < d->constants[0]; ++i) out[i] = -x[i];
  return 0;
}
#define FIXED_PLUGIN_NAME "host_test"
#define FIXED_PLUGIN_FUNCTIONS FIXED_PLUGIN_FUNCTION(host_matmul) FIXED_PLUGIN_FUNCTION(host_neg)
#define FIXED_PLUGIN_ON_LOAD() (loader = pthread_self())
#include "fixed_plugin.h"
CSRC
"$CLANG" -shared -fPIC -O2 -pthread -I"$SRC/runtime/include" -I"$SRC/tests/plugins" host.c -o host.so

rule "link: host" > host.yaml
"$GRAFT" build "$G" --spec host.yaml --target "$ALL_TARGETS" -o host.graft --explain > explain.txt
check --check-prefix=EXPLAIN "$C" < explain.txt
# EXPLAIN: rule 'mm' matched at %mm = matmul
mlp_in=(--input "2x2xf32=[[2 2][-2 -2]]" --input "2x2xf32=[[3 -3][3 -3]]")
for threads in 1 3; do
  "$GRAFT_RUN" host.graft --threads $threads --plugin ./host.so --trace "${mlp_in[@]}" \
    > run.out 2> run.trace
  check --check-prefix=OUT "$C" < run.out
  # The host command, then graft's relu + neg dispatch.
  check --check-prefix=TRACE "$C" < run.trace
done
# OUT: [host] 2x2x2 on the loading thread: yes
# OUT-NEXT: 2x2xf32=[-12 0][0 -12]
# TRACE: mlp_dispatch_0_mm ({{.*}}mlp.graph:{{[0-9]+}}:{{[0-9]+}}) grid 1x1x1
# TRACE-NEXT: mlp_dispatch_1_
# A bigger product against the reference evaluator.
python3 -c "
import random
random.seed(7)
def t(r, c): return f'{r}x{c}xf32=[' + ''.join('[' + ' '.join(str(random.randint(-8, 8)) for _ in range(c)) + ']' for _ in range(r)) + ']'
print(t(17, 9)); print(t(9, 13))" > big.in
mapfile -t IN < big.in
"$GRAFT" eval "$G" --input "${IN[0]}" --input "${IN[1]}" > want.big
"$GRAFT_RUN" host.graft --threads 3 --plugin ./host.so --input "${IN[0]}" --input "${IN[1]}" \
  | grep -v '^\[host\]' > got.big
diff -u want.big got.big

# A whole dispatch as a host command: the plugin gets graft's dispatch and
# workgroup state (bindings, constants), on the invoking thread, once.
cat > neg.graph <<'GRAPH'
func @neg(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = map %x : tensor<?xf32> {
  ^bb0(%v: f32):
    %0 = neg %v : f32
    yield %0
  }
  return %r
}
GRAPH
cat > neg.yaml <<'YAML'
graft-spec: 1
rules:
  - name: neg
    match: |
      pattern @p(%x: tensor<?xf32>) -> tensor<?xf32> {
        %r = map %x : tensor<?xf32> {
        ^bb0(%v: f32):
          %0 = neg %v : f32
          yield %0
        }
        return %r
      }
    replace:
      dispatch: host_neg
      link: host
      constants: ["dim(x, 0)"]
YAML
"$GRAFT" build neg.graph --spec neg.yaml --target x86_64 -o neg.graft
for threads in 1 3; do
  "$GRAFT_RUN" neg.graft --threads $threads --plugin ./host.so --input "5xf32=[1 -2 3 -4 5]" \
    | check --check-prefix=NEG "$C"
done
# NEG: 5xf32=-1 2 -3 4 -5

# Nobody provides the host command: the open fails naming the symbol and
# the plugins searched.
expect_fail "$GRAFT_RUN" host.graft "${mlp_in[@]}"
check --check-prefix=NONE "$C" < "$T/out"
# NONE: graft-run: error: host.graft: library 'mlp' requires 1 import that nothing provides: 'host_matmul' (no plugins registered)
"$CLANG" -shared -fPIC -O2 -I"$SRC/runtime/include" "$SRC/runtime/examples/plugins/mlp_plugin.c" -o other.so
expect_fail "$GRAFT_RUN" host.graft --plugin ./other.so "${mlp_in[@]}"
check --check-prefix=OTHER "$C" < "$T/out"
# OTHER: graft-run: error: host.graft: library 'mlp' requires 1 import that nothing provides: 'host_matmul' (plugins searched: {{.*}}other.so{{.*}})

# The plugin returns 7 (for three rows): the host command, the symbol, the
# plugin (name and file) and the value.
expect_fail "$GRAFT_RUN" host.graft --plugin ./host.so --input 3x2xf32=1 --input 2x2xf32=1
check --check-prefix=FAIL "$C" < "$T/out"
# FAIL: graft-run: error: host command 'mlp_dispatch_0_mm' ({{.*}}mlp.graph:{{[0-9]+}}:{{[0-9]+}}): 'host_matmul' of plugin 'host_test' (./host.so) returned 7

# A bare-metal plugin may not serve a host command.
cat > bare.c <<'CSRC'
static int host_matmul(void *p, void *context, void *reserved) { return 0; }
#define FIXED_PLUGIN_NAME "bare"
#define FIXED_PLUGIN_FUNCTIONS FIXED_PLUGIN_FUNCTION(host_matmul)
#include "fixed_plugin.h"
CSRC
"$GRAFT" plugin bare.c -I "$SRC/tests/plugins" --target "$ALL_TARGETS" -o bare.sos
for target in "${TARGETS[@]}"; do
  expect_fail run_on "$target" host.graft --plugin bare.sos "${mlp_in[@]}"
  check --check-prefix=BARE "$C" < "$T/out"
done
# BARE: host.graft: library 'mlp': import 'host_matmul' is a host command, but plugin 'bare.sos' ('bare') that provides it is bare-metal; host commands run on the calling thread and need a system plugin (a shared library)

# Spec mistakes: kernels, returns: void.
rule "link: host" "kernels: {x86_64: {source: k.c}}" > kernels.yaml
expect_fail "$GRAFT" build "$G" --spec kernels.yaml --target x86_64 -o x.graft
check --check-prefix=KERNELS "$C" < "$T/out"
# KERNELS: kernels.yaml:15:16: error: 'kernels' is for static kernels; an import is provided by a plugin when the bundle is loaded (graft-run --plugin)
rule "link: host" "returns: void" > void.yaml
expect_fail "$GRAFT" build "$G" --spec void.yaml --target x86_64 -o x.graft
check --check-prefix=VOID "$C" < "$T/out"
# VOID: void.yaml:15:16: error: an import always returns int (0: success), as IREE's plugin functions do; 'returns: void' is for static kernels
rule "link: hots" > typo.yaml
expect_fail "$GRAFT" build "$G" --spec typo.yaml --target x86_64 -o x.graft
check --check-prefix=TYPO "$C" < "$T/out"
# TYPO: typo.yaml:14:13: error: expected 'link' to be static, import, optional or host, found 'hots'
# TYPO-NEXT: {{^}}      link: hots
# TYPO-NEXT: {{^}}            ^

# graft spec --header shows the struct graft packs and says it is a host
# command.
"$GRAFT" spec --header host.yaml --target x86_64 | check --check-prefix=HEADER "$C"
# HEADER: struct host_matmul_params {
# HEADER-NEXT:   const float *lhs;
# HEADER-NEXT:   const float *rhs;
# HEADER-NEXT:   float *result;
# HEADER-NEXT:   int32_t arg3; /* dim(lhs, 0) : i32 */
# HEADER-NEXT:   int32_t arg4; /* dim(rhs, 1) : i32 */
# HEADER-NEXT:   int32_t arg5; /* dim(lhs, 1) : i32 */
# HEADER-NEXT: };
# HEADER-NEXT: int host_matmul(void *params, void *context, void *reserved); /* host command */
