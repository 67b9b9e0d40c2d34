# Match/replace specs end to end: the seed MLP with fill+matmul+relu replaced
# by the hand-written kernel of specs/mlp (x86_64 natively, aarch64 under
# qemu), --explain output, a deliberately different kernel that proves the
# user code runs, per-target fallback, and spec errors with file:line:col.
G=$TEST_DIR/inputs/mlp.graph
LHS="2x2xf32=[[2 2][-2 -2]]"
RHS="2x2xf32=[[3 -3][3 -3]]"

"$GRAFT" build "$G" --spec "$SRC/specs/mlp/mlp.yaml" --target x86_64,aarch64 \
  -o mlp.graft --explain > explain.txt
check --check-prefix=EXPLAIN "$TEST_DIR/spec_mlp.sh" < explain.txt
# EXPLAIN: rule 'mlp_relu' did not match at %neg = map ({{.*}}mlp.graph:16:10): op kind mismatch at %relu: expected matmul, found map
# EXPLAIN: rule 'mlp_relu' matched at %relu = map ({{.*}}mlp.graph:11:11)
# EXPLAIN: %mm = matmul ({{.*}}mlp.graph:10:9)
# EXPLAIN: inputs: %lhs = %lhs, %rhs = %rhs, %init = %empty

cat >run.check <<'CHECK'
CHECK: {{^}}2x2xf32=[-12 0][0 -12]{{$}}
CHECK-NOT: {{.}}
CHECK
"$GRAFT_RUN" mlp.graft --function mlp --input "$LHS" --input "$RHS" | check run.check
# 10 rows: two workgroups of the kernel's 8-row blocks; compare with the
# reference evaluator.
A="10x3xf32=[[1 2 3][-1 0 2][4 -5 6][0 0 1][2 2 2][-3 1 0][1 1 1][5 -2 0][0 3 -1][2 -4 1]]"
B="3x4xf32=[[1 0 -1 2][0 1 2 -1][3 -2 0 1]]"
"$GRAFT" eval "$G" --function mlp --input "$A" --input "$B" > want.txt
"$GRAFT_RUN" mlp.graft --function mlp --input "$A" --input "$B" > got.txt
cmp want.txt got.txt
run_on aarch64 mlp.graft --function mlp --input "$LHS" --input "$RHS" | check run.check
run_on aarch64 mlp.graft --function mlp --input "$A" --input "$B" > got_aarch64.txt
cmp want.txt got_aarch64.txt

# A kernel that doubles the product: the result shows the user code ran. Only
# x86_64 has it, so aarch64 falls back to graft's own code.
cp "$SRC/specs/mlp/mlp.yaml" double.yaml
sed -i -e 's/mlp_kernel.c}/double.c}/' -e '/aarch64:/d' -e '/riscv64:/d' double.yaml
sed 's/acc < 0.0f ? 0.0f : acc/acc < 0.0f ? 0.0f : 2.0f * acc/' \
  "$SRC/specs/mlp/mlp_kernel.c" > double.c
"$GRAFT" build "$G" --spec double.yaml --target x86_64,aarch64 -o double.graft
"$GRAFT_RUN" double.graft --function mlp --input "$LHS" --input "$RHS" \
  | check --check-prefix=DOUBLE "$TEST_DIR/spec_mlp.sh"
# DOUBLE: {{^}}2x2xf32=[-24 0][0 -24]{{$}}
run_on aarch64 double.graft --function mlp --input "$LHS" --input "$RHS" | check run.check

# Spec errors: several in one run, each at its line:col with a caret.
cat > bad.yaml <<'YAML'
graft-spec: 1
rules:
  - name: bad
    match: |
      pattern @p(%x: tensor<?xf32>) -> tensor<?xf32> {
        %r = map %y : tensor<?xf32> {
        ^bb0(%v: f32):
          yield %v
        }
        return %r
      }
    replace:
      call: k
      args: [x]
      kernels: {x86_64: {source: k.c}}
  - name: bad2
    match: |
      pattern @q(%x: tensor<?xf32>) -> tensor<?xf32> {
        %r = map %x : tensor<?xf32> {
        ^bb0(%v: f32):
          yield %v
        }
        return %r
      }
    replace:
      call: k
      args: [x, "dim(x, 1) : i32", nope]
      grd: [1]
      kernels: {x86_64: {source: missing.c}}
YAML
expect_fail "$GRAFT" build "$G" --spec bad.yaml -o bad.graft
check --check-prefix=BAD "$TEST_DIR/spec_mlp.sh" < "$T/out"
# BAD: bad.yaml:6:18: error: {{.*}}%y
# BAD-NEXT: {{^}}          %r = map %y : tensor<?xf32> {
# BAD-NEXT: {{^}}                   ^
# BAD: bad.yaml:28:7: error: unknown key 'grd' in replace; expected one of: call, dispatch, link, returns, outputs, args, constants, grid, workgroup_size, kernels
# BAD: bad.yaml:27:25: error: axis 1 out of range for 'x' of rank 1
# BAD: bad.yaml:27:36: error: unknown name 'nope'; expected a pattern argument or output name
# BAD: bad.yaml:29:34: error: kernel source 'missing.c' not found
