# Scalar kernel arguments of type i1 (C bool), i8 and i16, and integer
# expressions cast to them, on every target: as C source (linked as bitcode
# and inlined) and as an object compiled outside graft, which relies on the
# caller extending narrow integers the way clang declares them. The spec
# names aarch64 by its alias arm64.
cat > sc.c <<'C'
#include <stdbool.h>
#include <stdint.h>
void sc(const float *x, float *r, bool flip, int8_t a, int16_t b, int64_t n, int8_t c,
        bool odd) {
  for (int64_t i = 0; i < n; ++i)
    r[i] = (flip ? -x[i] : x[i]) * a + b + (odd ? c : 0);
}
C
cat > sc.graph <<'G'
func @f(%x: tensor<?xf32>, %flip: i1, %a: i8, %b: i16) -> tensor<?xf32> {
  %r = map %x : tensor<?xf32> {
  ^bb0(%v: f32):
    %n = neg %v : f32
    %s = select %flip, %n, %v : f32
    %af = cast %a : f32
    %bf = cast %b : f32
    %m = mul %s, %af : f32
    %0 = add %m, %bf : f32
    yield %0
  }
  return %r
}
G
# c = a - 1 (i8) and odd = n % 2 (i1): zero for these inputs' n of 4, so the
# result is the graph's, but both reach the kernel through the casts.
spec() {
  cat <<YAML
graft-spec: 1
rules:
  - name: sc
    match: |
      pattern @p(%x: tensor<?xf32>, %flip: i1, %a: i8, %b: i16) -> tensor<?xf32> {
        %r = map %x : tensor<?xf32> {
        ^bb0(%v: f32):
          %n = neg %v : f32
          %s = select %flip, %n, %v : f32
          %af = cast %a : f32
          %bf = cast %b : f32
          %m = mul %s, %af : f32
          %0 = add %m, %bf : f32
          yield %0
        }
        return %r
      }
    replace:
      call: sc
      args: [x, result, flip, a, b, "dim(x, 0) : i64", "a - 1 : i8", "dim(x, 0) % 2 : i1"]
      kernels:
YAML
  for t in "${TARGETS[@]}"; do
    [[ $t == aarch64 ]] && name=arm64 || name=$t
    echo "        $name: {$1: sc$2}"
  done
}
spec source .c > src.yaml
grep -q "arm64: {source: sc.c}" src.yaml
"$GRAFT" eval sc.graph --input "4xf32=[1 2 -3 0.5]" --input i1=1 --input i8=-3 \
  --input i16=-300 > want.txt
"$GRAFT" build sc.graph --spec src.yaml --target "$ALL_TARGETS" -o src.graft
while IFS=$'\t' read -r kind name _ _ _ triple flags _; do
  [[ $kind == target ]] || continue
  # shellcheck disable=SC2086
  "$CLANG" --target="$triple" $flags -ffreestanding -fPIC -O2 -c sc.c -o "sc.$name.o"
done < <("$GRAFT" targets --format=tsv)
for t in "${TARGETS[@]}"; do
  [[ $t == aarch64 ]] && name=arm64 || name=$t
  sed "s|$name: {source: sc.c}|$name: {object: sc.$t.o}|" src.yaml > obj.yaml
  "$GRAFT" build sc.graph --spec obj.yaml --target "$t" -o "obj.$t.graft"
  for b in src.graft "obj.$t.graft"; do
    run_on "$t" "$b" --input "4xf32=[1 2 -3 0.5]" --input i1=1 --input i8=-3 \
      --input i16=-300 --trace > out.txt 2> trace.txt
    diff -u want.txt out.txt
    grep -q "f_dispatch_0_sc " trace.txt
  done
done

# The alias is the target: giving both is a duplicate.
spec source .c | sed 's|^\(        aarch64: .*\)$|\1\n        arm64: {source: sc.c}|' > dup.yaml
printf '        aarch64: {source: sc.c}\n' >> dup.yaml
expect_fail "$GRAFT" build sc.graph --spec dup.yaml --target x86_64 -o x.graft
check --check-prefix=DUP "$TEST_DIR/spec_small_ints.sh" < "$T/out"
# DUP: dup.yaml:{{[0-9]+}}:9: error: duplicate kernel for target 'aarch64'
