# Run-time guards (issue 13 item 8): a `where` constraint on a dynamic size
# makes the match hold under a guard. specs/guarded's kernels only handle
# whole blocks of 16 elements; one bundle takes them at 64 elements and
# graft's own code at 63, on every target (natively and under qemu). The
# in-place rule is also limited to 1024 elements (a range guard): at 2048 the
# multiply takes its kernel and the add graft's code. --trace tells which
# ran (a kernel call's dispatch is named after its rule).
EX=$SRC/specs/guarded
"$GRAFT" build "$EX/blocks16.graph" --spec "$EX/blocks16.yaml" --target "$ALL_TARGETS" \
  -o g.graft --explain > explain.txt
check --check-prefix=EXPLAIN "$TEST_DIR/spec_guard.sh" < explain.txt
# EXPLAIN: @blocks: rule 'add16_inplace' matched at %q = map
# EXPLAIN: guarded: the kernel runs when these hold, graft's own code for the same ops otherwise (checked per invocation):
# EXPLAIN-NEXT: {{^}}    divisible(dim(acc, 0), 16) ({{.*}}blocks16.yaml:41:9): dim(acc, 0) is dynamic (tensor<?xf32>)
# EXPLAIN-NEXT: {{^}}    range(dim(acc, 0), 0..1024) ({{.*}}blocks16.yaml:42:9): dim(acc, 0) is dynamic (tensor<?xf32>)
# EXPLAIN: @blocks: rule 'mul16' matched at %p = map
# EXPLAIN: guarded:
# EXPLAIN-NEXT: {{^}}    divisible(dim(lhs, 0), 16) ({{.*}}blocks16.yaml:18:9): dim(lhs, 0) is dynamic (tensor<?xf32>)

inputs() {
  python3 -c "
for base in (1, 2, 3):
    print('$1xf32=[' + ' '.join(str((i * base) % 7 - 3) for i in range($1)) + ']')
" > in.$1
  mapfile -t IN < in.$1
}
for n in 64 63 2048; do
  inputs $n
  "$GRAFT" eval "$EX/blocks16.graph" --input "${IN[0]}" --input "${IN[1]}" --input "${IN[2]}" \
    > want.$n
  for target in "${TARGETS[@]}"; do
    run_on "$target" g.graft --input "${IN[0]}" --input "${IN[1]}" --input "${IN[2]}" \
      --trace > got.$n.$target 2> trace.$n.$target
    diff -u want.$n got.$n.$target
    kernels=$(grep -o 'dispatch_[0-9]*_[a-z0-9_]*' trace.$n.$target | sed 's/dispatch_[0-9]*_//' |
              paste -sd' ')
    case $n in
      64) want="mul16 add16_inplace" ;;   # both guards hold
      63) want="map map" ;;               # neither: graft's own code for both maps
      2048) want="mul16 map" ;;           # a multiple of 16, but above 1024
    esac
    if [[ $kernels != "$want" ]]; then
      echo "error: $target at $n elements ran '$kernels', expected '$want'" >&2
      cat trace.$n.$target >&2
      exit 1
    fi
  done
done

# A statically known size decides at build time: no guard, no fallback.
cat > static.graph <<'G'
func @f(%a: tensor<32xf32>, %b: tensor<32xf32>) -> tensor<32xf32> {
  %p = map %a, %b : tensor<32xf32> {
  ^bb0(%x: f32, %y: f32):
    %0 = mul %x, %y : f32
    yield %0
  }
  return %p
}
G
"$GRAFT" build static.graph --spec "$EX/blocks16.yaml" --target x86_64 -o s.graft --explain > s.txt
check --check-prefix=STATIC "$TEST_DIR/spec_guard.sh" < s.txt
# STATIC: rule 'mul16' matched at %p = map
# STATIC-NOT: guarded:
sed 's/32xf32/33xf32/g' static.graph > static33.graph
"$GRAFT" build static33.graph --spec "$EX/blocks16.yaml" --target x86_64 -o s33.graft --explain > s33.txt
check --check-prefix=STATIC33 "$TEST_DIR/spec_guard.sh" < s33.txt
# STATIC33: rule 'mul16' did not match at %p = map {{.*}}: constraint divisible(dim(lhs, 0), 16) failed: dim(lhs, 0) = 33

# link: optional cannot also be guarded: the rule does not match, and
# --explain says why.
sed -n '1,/^  # In place/p' "$EX/blocks16.yaml" | sed -e '/kernels:/,$d' \
  -e 's/call: mul_blocks16/call: mul_blocks16\n      link: optional/' > optional.yaml
"$GRAFT" build "$EX/blocks16.graph" --spec optional.yaml --target x86_64 -o o.graft --explain > o.txt
check --check-prefix=OPTIONAL "$TEST_DIR/spec_guard.sh" < o.txt
# OPTIONAL: rule 'mul16' did not match at %p = map {{.*}}: constraint divisible(dim(lhs, 0), 16) cannot be proven: dim(lhs, 0) is dynamic (tensor<?xf32>); a run-time guard is not supported on a link: optional rule

# What the kernel's arguments need is checked only where the kernel runs:
# `dim(lhs, 0) * 2^21 : i32` does not fit at 1024 elements (2^31), which the
# guard (a multiple of 16, at most 1024) lets through: the invocation fails
# there. At 2048 it does not fit either, but the guard sends that size to
# graft's code, which needs no such argument.
cat > k32.c <<'C'
#include <stddef.h>
#include <stdint.h>
void mul32(const float *a, const float *b, float *out, size_t offset, int32_t scaled) {
  for (size_t i = offset; i < offset + 16; ++i)
    out[i] = a[i] * b[i];
}
C
cat > i32.yaml <<YAML
graft-spec: 1
rules:
  - name: mul32
    match: |
      pattern @mul(%lhs: tensor<?xf32>, %rhs: tensor<?xf32>) -> tensor<?xf32> {
        %r = map %lhs, %rhs : tensor<?xf32> {
        ^bb0(%x: f32, %y: f32):
          %0 = mul %x, %y : f32
          yield %0
        }
        return %r
      }
    where:
      - divisible: {value: "dim(lhs, 0)", by: 16}
      - range: {value: "dim(lhs, 0)", max: 1024}
    replace:
      call: mul32
      workgroup_size: [16]
      args: [lhs, rhs, result, "workgroup_offset(0)", "dim(lhs, 0) * 2097152 : i32"]
      kernels:
        x86_64: {source: k32.c}
YAML
"$GRAFT" build "$SRC/specs/workgroup_kernel/simple_mul.graph" --spec i32.yaml --target x86_64 \
  -o i32.graft
"$GRAFT_RUN" i32.graft --input "16xf32=2" --input "16xf32=3" --trace > i32.16.out 2> i32.16.trace
grep -q "^16xf32=18 " i32.16.out
grep -q "dispatch_[0-9]*_mul32 " i32.16.trace
"$GRAFT_RUN" i32.graft --input "2048xf32=2" --input "2048xf32=3" --trace > i32.2048.out \
  2> i32.2048.trace
grep -q "^2048xf32=18 " i32.2048.out
if grep -q "mul32" i32.2048.trace; then
  echo "error: the guarded kernel ran at 2048 elements" >&2
  exit 1
fi
expect_fail "$GRAFT_RUN" i32.graft --input "1024xf32=2" --input "1024xf32=3"
check --check-prefix=I32 "$TEST_DIR/spec_guard.sh" < "$T/out"
# I32: simple_mul.graph:5:8: rule 'mul32' matched here, but i32.yaml:19:56: kernel argument 'dim(lhs, 0) * 2097152 : i32' of rule 'mul32' does not fit in i32: 2147483647 != 2147483648
