# Splat tensor constants stay one element (issue 11, item 6): a 16384x16384
# splat builds a small bundle (it was 1 GiB) and is read as a scalar; a
# 100000x100000 splat (40 GB) builds, and running it fails with graft-run's
# allocation error instead of graft aborting on std::bad_alloc; the
# evaluator names the size limit it hit.
cat >mid.graph <<'G'
func @f(%x: tensor<16384x16384xf32>) -> tensor<16384x16384xf32> {
  %c = constant 1.5 : tensor<16384x16384xf32>
  %r = map %x, %c : tensor<16384x16384xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = add %a, %b : f32
    yield %s
  }
  return %r
}
G
"$GRAFT" build mid.graph -o mid.graft
size=$(stat -c %s mid.graft)
(( size < 65536 )) || { echo "error: the splat bundle is $size bytes" >&2; exit 1; }

cat >big.graph <<'G'
func @f(%x: tensor<4xf32>) -> tensor<100000x100000xf32> {
  %c = constant 1.0 : tensor<100000x100000xf32>
  return %c
}
G
"$GRAFT" build big.graph -o big.graft
expect_fail "$GRAFT_RUN" big.graft --input 4xf32=0
check "$TEST_DIR/splat_constants.sh" --check-prefix=RUNNER <"$T/out"
# RUNNER: graft-run: error: function 'f': buffer {{[0-9]+}}: cannot allocate 40000000000 bytes

expect_fail "$GRAFT" eval big.graph --input 4xf32=0
check "$TEST_DIR/splat_constants.sh" --check-prefix=EVAL <"$T/out"
# EVAL: big.graph: 'constant' at line 2:8: result of shape [100000, 100000] is too large

# A small splat runs: returned twice and as a matmul accumulator.
cat >small.graph <<'G'
func @g(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %c = constant 0.5 : tensor<2x2xf32>
  %r = matmul %a, %b, %c : tensor<2x2xf32>
  return %r, %c
}
G
"$GRAFT" build small.graph -o small.graft
"$GRAFT_RUN" small.graft --input "2x3xf32=1" --input "3x2xf32=2" | check "$TEST_DIR/splat_constants.sh" --check-prefix=SMALL
# SMALL: 2x2xf32=[6.5 6.5][6.5 6.5]
# SMALL-NEXT: 2x2xf32=[0.5 0.5][0.5 0.5]
