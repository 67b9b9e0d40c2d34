# processor_id() and processor_data() as kernel arguments: which worker runs
# the workgroup, and the CPU feature words the runtime detected (IREE's
# cpu_data layout, graft_dispatch_state_v1_t.processor_data). One workgroup
# per row of a ?x2 i64 tensor; the kernel writes the worker into column 0
# and processor_data[0] into column 1. The worker must lie in [0, threads)
# (all 0 on one thread) and the word must be the first one
# graft_cpu_data_print reports for the same CPU. Three ways: a static
# kernel on every target (natively and under qemu), an import from a
# bare-metal .sos on every target, an import from a system plugin on the
# host written against IREE's names (the fields IREE's sample plugins read,
# at the end of the parameter struct).
C=$TEST_DIR/spec_processor.sh
cat > p.graph <<'G'
func @f(%x: tensor<?x2xi64>) -> tensor<?x2xi64> {
  %r = map %x : tensor<?x2xi64> {
  ^bb0(%v: i64):
    %0 = neg %v : i64
    yield %0
  }
  return %r
}
G
rule() { # <link> [replace lines...]
  cat <<YAML
graft-spec: 1
rules:
  - name: probe
    match: |
      pattern @p(%x: tensor<?x2xi64>) -> tensor<?x2xi64> {
        %r = map %x : tensor<?x2xi64> {
        ^bb0(%v: i64):
          %0 = neg %v : i64
          yield %0
        }
        return %r
      }
    replace:
      call: probe
      link: $1
      args: [x, result, "workgroup_id(0)", "processor_id() : i32", "processor_data()"]
      grid: ["dim(x, 0)", 1, 1]
YAML
  shift
  printf '      %s\n' "$@"
}
# The kernel, static (void) or behind IREE's import convention.
cat > probe.h <<'CSRC'
#include <stdint.h>
static void probe_row(int64_t *out, int64_t row, int32_t processor_id,
                      const uint64_t *processor_data) {
  out[row * 2] = processor_id;
  out[row * 2 + 1] = (int64_t)processor_data[0];
}
CSRC
cat > static.c <<'CSRC'
#include <stddef.h>
#include "probe.h"
void probe(const int64_t *x, int64_t *result, size_t row, int32_t processor_id,
           const uint64_t *processor_data) {
  probe_row(result, (int64_t)row, processor_id, processor_data);
}
CSRC
cat > plugin.c <<'CSRC'
#include <stddef.h>
#include "probe.h"
/* The parameter struct: the args in order, processor_id and processor_data
 * last, where IREE's sample plugins read them. */
typedef struct {
  const int64_t *x;
  int64_t *result;
  size_t row;
  uint32_t processor_id;
  const uint64_t *processor_data;
} params_t;
static int probe(void *p, void *context, void *reserved) {
  const params_t *params = (const params_t *)p;
  probe_row(params->result, (int64_t)params->row, (int32_t)params->processor_id,
            params->processor_data);
  return 0;
}
#define FIXED_PLUGIN_NAME "processor_probe"
#define FIXED_PLUGIN_FUNCTIONS FIXED_PLUGIN_FUNCTION(probe)
#include "fixed_plugin.h"
CSRC

kernels=()
for t in "${TARGETS[@]}"; do kernels+=("$t: {source: static.c}"); done
rule static "kernels: {$(IFS=,; echo "${kernels[*]}")}" > static.yaml
"$GRAFT" build p.graph --spec static.yaml --target "$ALL_TARGETS" -o static.graft
rule import > import.yaml
"$GRAFT" build p.graph --spec import.yaml --target "$ALL_TARGETS" -o import.graft
"$GRAFT" plugin plugin.c -I "$SRC/tests/plugins" --target "$ALL_TARGETS" -o probe.sos
"$CLANG" -shared -fPIC -O2 -I"$SRC/runtime/include" -I"$SRC/tests/plugins" plugin.c -o probe.so

# The prototype graft expects for the static kernel names the pointer.
"$GRAFT" spec --header static.yaml --target x86_64 | check --check-prefix=HEADER "$C"
# HEADER: void probe(const int64_t *x, int64_t *result, size_t arg2 /* workgroup_id(0) */, int32_t arg3 /* processor_id() : i32 */, const uint64_t *processor_data);

rows=40
input="${rows}x2xi64=0"
# check_rows <out> <threads> <word>: every row is "worker word", the worker
# below <threads>, the word <word> (decimal, as graft-run prints i64).
check_rows() {
  python3 - "$@" <<'PY'
import re, sys
text, threads, word = open(sys.argv[1]).read(), int(sys.argv[2]), int(sys.argv[3])
pairs = re.findall(r'\[(-?\d+) (-?\d+)\]', text)
assert len(pairs) == 40, f"expected 40 rows, got {len(pairs)}: {text}"
for worker, got in pairs:
    assert 0 <= int(worker) < threads, f"processor_id {worker} outside [0, {threads})"
    assert int(got) == word, f"processor_data[0] {got}, the runtime reports {word}"
PY
}
for target in "${TARGETS[@]}"; do
  if [[ $target == "$HOST_TARGET" ]]; then
    print=("$BIN/runtime/src/loader/graft_cpu_data_print")
  else
    print=("${TARGET_QEMU[$target]}" "$BIN/cross/$target/build/runtime/src/loader/graft_cpu_data_print")
  fi
  word0=$("${print[@]}" | awk '$1 == "cpu_data" { print $2 }')
  [[ -n $word0 ]] || { echo "error: no cpu_data line from ${print[*]}" >&2; exit 1; }
  word=$(python3 -c "w = int('$word0', 16); print(w - (1 << 64) if w >= 1 << 63 else w)")
  echo "$target: processor_data[0] = $word0"
  runs=("static.graft" "import.graft --plugin probe.sos")
  [[ $target == "$HOST_TARGET" ]] && runs+=("import.graft --plugin ./probe.so")
  for run in "${runs[@]}"; do
    for threads in 1 3; do
      # shellcheck disable=SC2086
      run_on "$target" $run --threads $threads --input "$input" > out.txt
      check_rows out.txt "$threads" "$word"
    done
  done
done

# processor_data() takes no argument.
rule static "kernels: {x86_64: {source: static.c}}" | sed 's/"processor_data()"/"processor_data(x)"/' > bad.yaml
expect_fail "$GRAFT" build p.graph --spec bad.yaml --target x86_64 -o bad.graft
check --check-prefix=BAD "$C" < "$T/out"
# BAD: bad.yaml:16:84: error: expected ')', found 'x'
# BAD-NEXT: {{^}}      args: [x, result, "workgroup_id(0)", "processor_id() : i32", "processor_data(x)"]
# BAD-NEXT: {{^}}                                                                                   ^
