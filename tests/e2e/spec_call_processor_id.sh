# processor_id() as a kernel argument: the worker running the workgroup,
# 0 <= id < threads. The kernel writes it into every element of its
# workgroup; with one thread every element is 0, with three each is 0, 1 or
# 2 (which worker takes which workgroup is up to the pool). Every target,
# natively and under qemu.
cat > pid.c <<'C'
#include <stddef.h>
#include <stdint.h>
void write_pid(const float *x, float *out, size_t n, size_t offset, int32_t pid) {
  size_t end = offset + 16 < n ? offset + 16 : n;
  for (size_t i = offset; i < end; ++i)
    out[i] = (float)pid;
}
C
kernels=$(for t in "${TARGETS[@]}"; do echo "        $t: {source: pid.c}"; done)
cat > pid.yaml <<YAML
graft-spec: 1
rules:
  - name: pid
    match: |
      pattern @neg(%x: tensor<?xf32>) -> tensor<?xf32> {
        %r = map %x : tensor<?xf32> {
        ^bb0(%v: f32):
          %0 = neg %v : f32
          yield %0
        }
        return %r
      }
    replace:
      call: write_pid
      workgroup_size: [16]
      args: [x, result, "dim(x, 0)", "workgroup_offset(0)", "processor_id() : i32"]
      kernels:
$kernels
YAML
cat > pid.graph <<'G'
func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = map %x : tensor<?xf32> {
  ^bb0(%v: f32):
    %0 = neg %v : f32
    yield %0
  }
  return %r
}
G
"$GRAFT" build pid.graph --spec pid.yaml --target "$ALL_TARGETS" -o pid.graft
for target in "${TARGETS[@]}"; do
  run_on "$target" pid.graft --input "200xf32=1" --threads 1 > one.$target
  [[ $(tr ' ' '\n' < one.$target | sed 1d | sort -u | paste -sd,) == 0 ]] || {
    echo "error: $target, 1 thread: processor ids $(cat one.$target)" >&2; exit 1; }
  run_on "$target" pid.graft --input "200xf32=1" --threads 3 > three.$target
  ids=$(tr ' ' '\n' < three.$target | sed 1d | sort -u | paste -sd,)
  [[ $ids =~ ^[012](,[012])*$ ]] || {
    echo "error: $target, 3 threads: processor ids $ids, expected some of 0,1,2" >&2; exit 1; }
done
