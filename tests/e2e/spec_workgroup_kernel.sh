# specs/workgroup_kernel on every target at 8, 200 and 1000 elements (none a
# multiple of the workgroup size 64): IREE-style per-workgroup kernels with
# (ptr, offset) pairs, dim and tid = workgroup_offset(0), and the in-place
# variant, agree with the reference evaluator. Then the in-place rule on a
# function argument (the input is copied, the caller's buffer untouched),
# and the errors of workgroup expressions.
EX=$SRC/specs/workgroup_kernel
"$GRAFT" build "$EX/simple_mul.graph" --spec "$EX/simple_mul.yaml" --target "$ALL_TARGETS" \
  -o wk.graft --explain > explain.txt
check --check-prefix=EXPLAIN "$TEST_DIR/spec_workgroup_kernel.sh" < explain.txt
# EXPLAIN: rule 'simple_mul_inplace' matched at %q = map
# EXPLAIN: rule 'simple_mul' matched at %p = map

for n in 8 200 1000; do
  random_f32_inputs $n > in.$n
  mapfile -t IN < in.$n
  "$GRAFT" eval "$EX/simple_mul.graph" --input "${IN[0]}" --input "${IN[1]}" > want.$n
  for target in "${TARGETS[@]}"; do
    run_on "$target" wk.graft --input "${IN[0]}" --input "${IN[1]}" --trace \
      > got.$n.$target 2> trace.$n.$target
    diff -u want.$n got.$n.$target
    # Both kernels ran, on ceildiv(n, 64) workgroups.
    grid=$(( (n + 63) / 64 ))
    grep -q "dispatch_0_simple_mul (.*) grid ${grid}x1x1" trace.$n.$target
    grep -q "dispatch_1_simple_mul_inplace (.*) grid ${grid}x1x1" trace.$n.$target
  done
done

# In place on an argument: %b is the caller's, so the output gets a copy.
cat > arg.graph <<'G'
func @f(%a: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %q = map %a, %b : tensor<?xf32> {
  ^bb0(%x: f32, %y: f32):
    %0 = mul %y, %x : f32
    yield %0
  }
  return %q, %b
}
G
"$GRAFT" build arg.graph --spec "$EX/simple_mul.yaml" --target x86_64 -o arg.graft
"$GRAFT_RUN" arg.graft --input "3xf32=[1 2 3]" --input "3xf32=[4 5 6]" --trace > arg.out 2> arg.trace
grep -q "f_dispatch_0_simple_mul_inplace" arg.trace
check --check-prefix=ARG "$TEST_DIR/spec_workgroup_kernel.sh" < arg.out
# ARG: 3xf32=4 10 18
# ARG-NEXT: 3xf32=4 5 6

# Rules around one pattern: a per-element kernel, args and grid vary.
rule() {
  cat <<YAML
graft-spec: 1
rules:
  - name: r
    match: |
      pattern @mul(%lhs: tensor<?xf32>, %rhs: tensor<?xf32>) -> tensor<?xf32> {
        %r = map %lhs, %rhs : tensor<?xf32> {
        ^bb0(%x: f32, %y: f32):
          %0 = mul %x, %y : f32
          yield %0
        }
        return %r
      }
    replace:
      call: simple_mul_workgroup
$1
      kernels:
        x86_64: {source: $EX/simple_mul.c}
YAML
}
G=$EX/simple_mul.graph

# A per-workgroup value in the grid cannot be: the host computes the grid.
rule '      grid: ["workgroup_id(0)"]
      args: [lhs, "0", rhs, "0", result, "0", "dim(lhs, 0)", "workgroup_id(0) * 64"]' > wg_grid.yaml
expect_fail "$GRAFT" build "$G" --spec wg_grid.yaml --target x86_64 -o x.graft
check --check-prefix=WGGRID "$TEST_DIR/spec_workgroup_kernel.sh" < "$T/out"
# WGGRID: wg_grid.yaml:15:15: error: workgroup_id() differs per workgroup; it may only be used in kernel arguments ('args'), not in grids, constants or constraints

# workgroup_offset needs workgroup_size.
rule '      grid: ["ceildiv(dim(lhs, 0), 64)"]
      args: [lhs, "0", rhs, "0", result, "0", "dim(lhs, 0)", "workgroup_offset(0)"]' > no_size.yaml
expect_fail "$GRAFT" build "$G" --spec no_size.yaml --target x86_64 -o x.graft
check --check-prefix=NOSIZE "$TEST_DIR/spec_workgroup_kernel.sh" < "$T/out"
# NOSIZE: no_size.yaml:16:63: error: workgroup_offset(0) needs 'workgroup_size' in the rule's 'replace'
# NOSIZE-NEXT: {{^}}      args: [lhs, "0", rhs, "0", result, "0", "dim(lhs, 0)", "workgroup_offset(0)"]
# NOSIZE-NEXT: {{^}}                                                              ^

# workgroup_size: positive integers, at most one per output dim.
rule '      workgroup_size: [64, 0]
      args: [lhs, "0", rhs, "0", result, "0", "dim(lhs, 0)", "workgroup_offset(0)"]' > zero.yaml
expect_fail "$GRAFT" build "$G" --spec zero.yaml --target x86_64 -o x.graft
check --check-prefix=ZERO "$TEST_DIR/spec_workgroup_kernel.sh" < "$T/out"
# ZERO: zero.yaml:15:28: error: expected a workgroup size between 1 and 4294967295, found '0'
rule '      workgroup_size: [64, 2]
      args: [lhs, "0", rhs, "0", result, "0", "dim(lhs, 0)", "workgroup_offset(0)"]' > rank.yaml
expect_fail "$GRAFT" build "$G" --spec rank.yaml --target x86_64 -o x.graft
check --check-prefix=RANK "$TEST_DIR/spec_workgroup_kernel.sh" < "$T/out"
# RANK: rank.yaml:15:23: error: 'workgroup_size' has 2 entries but output 'result' has rank 1; give 'grid' explicitly

# An output the kernel never receives would be returned unwritten.
rule '      workgroup_size: [64]
      args: [lhs, "0", rhs, "0", "dim(lhs, 0)", "workgroup_offset(0)"]' > unused.yaml
expect_fail "$GRAFT" build "$G" --spec unused.yaml --target x86_64 -o x.graft
check --check-prefix=UNUSED "$TEST_DIR/spec_workgroup_kernel.sh" < "$T/out"
# UNUSED: unused.yaml:16:13: error: output 'result' is never passed to kernel 'simple_mul_workgroup'; add 'result' or 'memref(result)' to 'args'

# 'init' must name a tensor argument of the output's type.
rule '      outputs: [{name: result, init: nope}]
      args: [lhs, "0", rhs, "0", result, "0", "dim(lhs, 0)", "0"]' > init.yaml
expect_fail "$GRAFT" build "$G" --spec init.yaml --target x86_64 -o x.graft
check --check-prefix=INIT "$TEST_DIR/spec_workgroup_kernel.sh" < "$T/out"
# INIT: init.yaml:15:38: error: unknown pattern argument 'nope' in 'init' of output 'result'

# The kernel takes size_t: passing an i32 is an error naming the parameter.
rule '      workgroup_size: [64]
      args: [lhs, "0", rhs, "0", result, "0", "dim(lhs, 0)", "workgroup_offset(0) : i32"]' > i32.yaml
expect_fail "$GRAFT" build "$G" --spec i32.yaml --target x86_64 -o x.graft
check --check-prefix=I32 "$TEST_DIR/spec_workgroup_kernel.sh" < "$T/out"
# I32: simple_mul.c: error: kernel 'simple_mul_workgroup' parameter 8 is a 64-bit integer, but rule 'r' passes a 32-bit integer ('int32_t arg7' from 'workgroup_offset(0) : i32')
# I32-NEXT: i32.yaml:{{[0-9]+}}:{{[0-9]+}}: note: kernel source for target x86_64 of rule 'r'

# A value that does not fit its type fails the invocation, never truncated:
# tid = workgroup_offset(0) * 2^25 as an int32_t is 2^31 in workgroup 1.
sed 's/#include <stddef.h>/#include <stddef.h>\n#include <stdint.h>/; s/size_t tid/int32_t tid/; s/size_t end = tid + 64;/size_t end = (size_t)tid + 64;/; s/size_t i = tid;/size_t i = (size_t)tid;/' \
  "$EX/simple_mul.c" > k32.c
rule '      workgroup_size: [64]
      args: [lhs, "0", rhs, "0", result, "0", "dim(lhs, 0)", "workgroup_offset(0) * 33554432 : i32"]' |
  sed "s|$EX/simple_mul.c|k32.c|" > fit.yaml
"$GRAFT" build "$G" --spec fit.yaml --target x86_64 -o fit.graft
"$GRAFT_RUN" fit.graft --input "64xf32=1" --input "64xf32=2" --output - | grep "64xf32=4" >/dev/null
expect_fail "$GRAFT_RUN" fit.graft --input "65xf32=1" --input "65xf32=2"
check --check-prefix=FIT "$TEST_DIR/spec_workgroup_kernel.sh" < "$T/out"
# FIT: dispatch 'simple_mul_dispatch_0_r' (simple_mul.graph:5:8): in workgroup (1,0,0) a kernel argument overflowed, divided by zero or does not fit its type; the kernel was not called
