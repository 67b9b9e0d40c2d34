# Scalar pattern arguments reach a `call:` kernel with their value: a graph
# constant of each float type (f16 and bf16 are passed as their 16-bit
# pattern and widened to float for the kernel) and a scalar function
# argument. The kernel's output also feeds a generated map.
cat > k.c <<'C'
#include <stdint.h>
void scale_k(const float *x, float *r, float alpha, int64_t n) {
  for (int64_t i = 0; i < n; ++i) r[i] = x[i] * alpha;
}
C
for TY in f16 bf16 f32; do
  cat > $TY.yaml <<YAML
graft-spec: 1
rules:
  - name: scale
    match: |
      pattern @scale(%x: tensor<?xf32>, %alpha: $TY) -> tensor<?xf32> {
        %r = map %x : tensor<?xf32> {
        ^bb0(%v: f32):
          %0 = cast %alpha : f32
          %1 = mul %v, %0 : f32
          yield %1
        }
        return %r
      }
    replace:
      call: scale_k
      args: [x, result, alpha, "dim(x, 0) : i64"]
      grid: [1]
      kernels:
        x86_64: {source: k.c}
YAML
  cat > $TY.graph <<GRAPH
func @constant(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = constant 1.5 : $TY
  %r = map %x : tensor<?xf32> {
  ^bb0(%v: f32):
    %0 = cast %a : f32
    %1 = mul %v, %0 : f32
    yield %1
  }
  %n = map %r : tensor<?xf32> {
  ^bb0(%v: f32):
    %0 = neg %v : f32
    yield %0
  }
  return %n
}

func @argument(%x: tensor<?xf32>, %a: $TY) -> tensor<?xf32> {
  %r = map %x : tensor<?xf32> {
  ^bb0(%v: f32):
    %0 = cast %a : f32
    %1 = mul %v, %0 : f32
    yield %1
  }
  return %r
}
GRAPH
  "$GRAFT" build $TY.graph --spec $TY.yaml --target x86_64 -o $TY.graft
  "$GRAFT_RUN" $TY.graft --function constant --input "3xf32=[1 2 -4]" --trace \
    > $TY.out 2> $TY.trace
  grep -q constant_dispatch_0_scale $TY.trace
  echo "3xf32=-1.5 -3 6" | diff -u - $TY.out
  "$GRAFT_RUN" $TY.graft --function argument --input "3xf32=[1 2 -4]" --input "$TY=-2.5" \
    --trace > $TY.arg.out 2> $TY.arg.trace
  grep -q "argument_dispatch_[0-9]*_scale" $TY.arg.trace
  echo "3xf32=-2.5 -5 10" | diff -u - $TY.arg.out
done
