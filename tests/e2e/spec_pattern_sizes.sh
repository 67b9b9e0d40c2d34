# A match replaces the graph's ops, so the size checks of its pattern (map
# operands of one shape, matmul's K) replace theirs: a size that breaks one
# names the graph op the rule matched as well as the rule's pattern. Known
# when building, it is an error at both places (each line with a caret);
# known only at run time, the invocation fails naming both.
EX=$SRC/specs/workgroup_kernel
cat > static.graph <<'G'
func @f(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c4 = constant 4 : index
  %c5 = constant 5 : index
  %x = empty %c4 : tensor<?xf32>
  %y = empty %c5 : tensor<?xf32>
  %p = map %x, %y : tensor<?xf32> {
  ^bb0(%u: f32, %v: f32):
    %0 = mul %u, %v : f32
    yield %0
  }
  return %p
}
G
expect_fail "$GRAFT" build static.graph --spec "$EX/simple_mul.yaml" --target x86_64 -o s.graft
check --check-prefix=STATIC "$TEST_DIR/spec_pattern_sizes.sh" < "$T/out"
# STATIC: static.graph:6:8: error: rule 'simple_mul' matched here, but map: operand 1 dim 0 differs from operand 0: 5 != 4
# STATIC-NEXT: {{^}}  %p = map %x, %y : tensor<?xf32> {
# STATIC-NEXT: {{^}}       ^
# STATIC-NEXT: {{.*}}simple_mul.yaml:9:14: note: required by rule 'simple_mul' here
# STATIC-NEXT: {{^}}        %r = map %lhs, %rhs : tensor<?xf32> {
# STATIC-NEXT: {{^}}               ^

cat > dyn.graph <<'G'
func @f(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %p = map %a, %b : tensor<?xf32> {
  ^bb0(%u: f32, %v: f32):
    %0 = mul %u, %v : f32
    yield %0
  }
  return %p
}
G
"$GRAFT" build dyn.graph --spec "$EX/simple_mul.yaml" --target x86_64 -o d.graft
"$GRAFT_RUN" d.graft --input "3xf32=[1 2 3]" --input "3xf32=[4 5 6]" | grep "3xf32=4 10 18" >/dev/null
expect_fail "$GRAFT_RUN" d.graft --input "3xf32=[1 2 3]" --input "4xf32=[4 5 6 7]"
check --check-prefix=DYN "$TEST_DIR/spec_pattern_sizes.sh" < "$T/out"
# DYN: dyn.graph:2:8: rule 'simple_mul' matched here, but {{.*}}simple_mul.yaml:9:14: map: operand 1 dim 0 differs from operand 0: 4 != 3
