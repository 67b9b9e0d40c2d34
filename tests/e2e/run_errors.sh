# graft-run error paths: wrong argument count, dtype and shape (the message
# names the argument), a shape check failing at run time (the message names
# the graph location, natively and under qemu), a bundle without a slice
# for the CPU under qemu, and malformed --input text. Broken bundles, special
# files and unreadable inputs are in the error corpus (tests/errors/).
cp "$TEST_DIR/inputs/mlp.graph" mlp.graph
"$GRAFT" build mlp.graph --target x86_64,aarch64 -o mlp.graft
A="2x2xf32=[[2 2][-2 -2]]"
B="2x2xf32=[[3 -3][3 -3]]"
C=$TEST_DIR/run_errors.sh

expect_fail "$GRAFT_RUN" mlp.graft --function mlp --input "$A"
check --check-prefix=COUNT "$C" <out
# COUNT: graft-run: error: function 'mlp' takes 2 arguments, got 1
expect_fail "$GRAFT_RUN" mlp.graft --function mlp --input "$A" --input "$B" --input "$B"
check --check-prefix=COUNT3 "$C" <out
# COUNT3: graft-run: error: function 'mlp' takes 2 arguments, got 3

expect_fail "$GRAFT_RUN" mlp.graft --function mlp --input "2x2xi32=[[1 2][3 4]]" --input "$B"
check --check-prefix=DTYPE "$C" <out
# DTYPE: graft-run: error: argument 1 (%lhs): expected tensor<?x?xf32>, got 2x2xi32
expect_fail "$GRAFT_RUN" mlp.graft --function mlp --input "$A" --input "2x2x1xf32=0"
check --check-prefix=RANK "$C" <out
# RANK: graft-run: error: argument 2 (%rhs): expected tensor<?x?xf32>, got 2x2x1xf32
expect_fail "$GRAFT_RUN" mlp.graft --function mlp --input "f32=1" --input "$B"
check --check-prefix=SCALAR "$C" <out
# SCALAR: graft-run: error: argument 1 (%lhs): expected tensor<?x?xf32>, got f32

# Static shapes and scalar arguments are checked before running.
cat >scale.graph <<'GRAPH'
func @scale(%x: tensor<3xf32>, %s: f32) -> tensor<3xf32> {
  %r = map %x : tensor<3xf32> {
  ^bb0(%v: f32):
    %0 = mul %v, %s : f32
    yield %0
  }
  return %r
}
GRAPH
"$GRAFT" build scale.graph -o scale.graft
"$GRAFT_RUN" scale.graft --function scale --input "3xf32=[1 2 3]" --input f32=2.5 \
  --expected_output "3xf32=[2.5 5 7.5]"
expect_fail "$GRAFT_RUN" scale.graft --function scale --input "4xf32=0" --input f32=2
check --check-prefix=STATIC "$C" <out
# STATIC: graft-run: error: argument 1 (%x): expected tensor<3xf32>, got 4xf32
expect_fail "$GRAFT_RUN" scale.graft --function scale --input "3xf32=0" --input 1xf32=2
check --check-prefix=SCALARARG "$C" <out
# SCALARARG: graft-run: error: argument 2 (%s): expected f32, got 1xf32

# Sizes given as index arguments are checked before anything is allocated.
cat >bcast.graph <<'GRAPH'
func @col(%u: tensor<?xi32>, %n: index) -> tensor<?x?xi32> {
  %b = broadcast %u, %n {dims = [0]} : tensor<?x?xi32>
  return %b
}
GRAPH
"$GRAFT" build bcast.graph -o bcast.graft
"$GRAFT_RUN" bcast.graft --function col --input "2xi32=[1 2]" --input index=3 \
  --expected_output "2x3xi32=[[1 1 1][2 2 2]]"
expect_fail "$GRAFT_RUN" bcast.graft --function col --input "2xi32=[1 2]" --input index=-1
check --check-prefix=NEGATIVE "$C" <out
# NEGATIVE: graft-run: error: function 'col': {{.*}}negative dimension -1
expect_fail "$GRAFT_RUN" bcast.graft --function col --input "2xi32=[1 2]" --input index=4000000000000
check --check-prefix=HUGE "$C" <out
# HUGE: graft-run: error: function 'col': {{.*}}cannot allocate 32000000000000 bytes

# Dynamic K mismatch: found by the host program's shape check, which names
# the matmul in the graph (as given to graft build: a relative path).
expect_fail "$GRAFT_RUN" mlp.graft --function mlp --input "2x3xf32=0" --input "$B"
check --check-prefix=KCHECK "$C" <out
# KCHECK: graft-run: error: mlp.graph:10:9: matmul: inner dimensions (K) of lhs and rhs differ: 3 != 2
expect_fail run_on aarch64 mlp.graft --function mlp --input "2x3xf32=0" --input "$B"
check --check-prefix=KCHECK "$C" <out

expect_fail "$GRAFT_RUN" mlp.graft --function nope --input "$A" --input "$B"
check --check-prefix=FUNC "$C" <out
# FUNC: graft-run: error: no function 'nope' in module 'mlp' (available: mlp)
# Without --function the bundle's only function runs.
expect_fail "$GRAFT_RUN" mlp.graft --input "$A"
check --check-prefix=NOFUNC "$C" <out
# NOFUNC: graft-run: error: function 'mlp' takes 2 arguments, got 1

# Malformed --input text: the message quotes the input and says where.
expect_fail "$GRAFT_RUN" mlp.graft --function mlp --input "2x2xf32=[[2 2][-2 -2]" --input "$B"
check --check-prefix=BRACKET "$C" <out
# BRACKET: graft-run: error: --input '2x2xf32={{\[\[}}2 2][-2 -2]': missing ']' for the '[' at column 9
expect_fail "$GRAFT_RUN" mlp.graft --function mlp --input "2x2xf32=[1 2 3]" --input "$B"
check --check-prefix=ELEMS "$C" <out
# ELEMS: graft-run: error: --input '2x2xf32=[1 2 3]': expected 4 elements, found 3
expect_fail "$GRAFT_RUN" mlp.graft --function mlp --input "2x2xf32=[[1 x][3 4]]" --input "$B"
check --check-prefix=VALUE "$C" <out
# VALUE: graft-run: error: --input '2x2xf32={{\[\[}}1 x][3 4]]': invalid f32 value 'x' at column 13
expect_fail "$GRAFT_RUN" mlp.graft --function mlp --threads abc --input "$A" --input "$B"
check --check-prefix=THREADS "$C" <out
# THREADS: graft-run: error: --threads 'abc': expected a whole number

# Broken bundles, special files and unreadable inputs are cases of the
# error corpus (tests/errors/bundle, tests/errors/input). A bundle without
# a slice for the CPU, under qemu:
"$GRAFT" build mlp.graph --target x86_64 -o x64.graft
expect_fail run_on aarch64 x64.graft --function mlp --input "$A" --input "$B"
check --check-prefix=NOSLICE64 "$C" <out
# NOSLICE64: graft-run: error: x64.graft: no slice for this CPU (aarch64); the file has: x86_64

