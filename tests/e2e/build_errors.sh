# `graft build` error paths: bad command lines, unknown targets, missing
# files, and graph errors reported with file:line:col, the source line and
# a caret. No bundle may be left behind by a failed build.
MLP=$TEST_DIR/inputs/mlp.graph

expect_fail "$GRAFT" build "$MLP" --target x86_64,sparc -o x.graft
known=$(printf '%s\n' "${TARGETS[@]}" | paste -sd, | sed 's/,/, /g')
echo "CHECK: error: unknown target 'sparc'; known targets: $known{{$}}" > target.check
check target.check <out
[[ ! -e x.graft ]]

expect_fail "$GRAFT" build missing.graph -o x.graft
check --check-prefix=MISSING "$TEST_DIR/build_errors.sh" <out
# MISSING: missing.graph: error: cannot read graph file: No such file or directory
[[ ! -e x.graft ]]

expect_fail "$GRAFT" build
check --check-prefix=NOGRAPH "$TEST_DIR/build_errors.sh" <out
# NOGRAPH: error: no graph file given

# --help after a command prints that command's help instead of an
# unknown-option error (tests/e2e/cli.sh checks the pages).
"$GRAFT" build --frobnicate --help >out 2>&1
check --check-prefix=HELP "$TEST_DIR/build_errors.sh" <out
# HELP: usage: graft build GRAPH [options]
# HELP: --depfile FILE

expect_fail "$GRAFT" build "$MLP" --frobnicate
check --check-prefix=OPTION "$TEST_DIR/build_errors.sh" <out
# OPTION: error: unknown option '--frobnicate'

expect_fail "$GRAFT" build "$MLP" -o
check --check-prefix=NOVALUE "$TEST_DIR/build_errors.sh" <out
# NOVALUE: error: option '-o' needs a value

expect_fail "$GRAFT" build "$MLP" -o no/such/dir/x.graft
check --check-prefix=WRITE "$TEST_DIR/build_errors.sh" <out
# WRITE: no/such/dir/x.graft: error: cannot write

expect_fail "$GRAFT" build "$MLP" --spec missing.yaml -o x.graft
check --check-prefix=SPEC "$TEST_DIR/build_errors.sh" <out
# SPEC: missing.yaml: error: cannot open spec file
[[ ! -e x.graft ]]

# A shape error the verifier finds: the caret is under the op name.
cat >bad.graph <<'GRAPH'
func @f(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>, %c: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %x = matmul %a, %b, %c : tensor<2x5xf32>
  return %x
}
GRAPH
expect_fail "$GRAFT" build bad.graph --target x86_64,aarch64 -o bad.graft
check --check-prefix=SHAPE --strict-whitespace --match-full-lines "$TEST_DIR/build_errors.sh" <out
# SHAPE:bad.graph:2:8: error: matmul inner dimensions differ: lhs has K = 3, rhs has K = 4
# SHAPE-NEXT:    %x = matmul %a, %b, %c : tensor<2x5xf32>
# SHAPE-NEXT:         ^
[[ ! -e bad.graft ]]

# Several errors in one run (parse errors, then verifier errors), each with
# its location; an unknown op and a use of the value it would have defined
# give one error, not two.
cat >several.graph <<'GRAPH'
func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %x = frobnicate %a : tensor<4xf32>
  %y = map %x : tensor<4xf32> {
  ^bb0(%v: f32):
    %0 = neg %v : f32
    yield %0
  }
  %z = reduce %a {dims = [1], kind = sum} : tensor<f32>
  %w = map %a : tensor<4xf32> {
  ^bb0(%v: f32):
    %0 = neg %q : f32
    yield %0
  }
  return %y
}
GRAPH
expect_fail "$GRAFT" build several.graph -o several.graft
check --check-prefix=SEVERAL "$TEST_DIR/build_errors.sh" <out
# SEVERAL: several.graph:2:8: error: unknown op 'frobnicate'
# SEVERAL-NEXT: {{^}}  %x = frobnicate %a : tensor<4xf32>
# SEVERAL-NEXT: {{^}}       ^
# SEVERAL-NOT: '%x'
# SEVERAL: several.graph:11:14: error: use of undefined value '%q'
# SEVERAL: several.graph:8:26: error: 'reduce' dims must be non-empty, increasing and less than the input rank 1, found [1]
[[ ! -e several.graft ]]

# Every malformed graph of the error corpus (tests/errors/graph/) fails in
# `graft build` with the same messages as in `graft check`: each has both
# RUN lines (error_corpus.sh).
