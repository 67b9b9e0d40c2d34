# An empty input whose other dims multiply past 64 bits is an empty
# computation, not an overflow: the grid of a row sum counts the reduced
# points only up to what it needs (lib/dispatch/Tiling.cpp, reductionRows),
# so 0 x 2^32 x 2^32 summed over its last two dims gives 0 sums.
cat >rows.graph <<'GRAPH'
func @r(%x: tensor<?x?x?xf32>) -> tensor<?xf32> {
  %r = reduce %x {dims = [1, 2], kind = sum} : tensor<?xf32>
  return %r
}
GRAPH
"$GRAFT" build rows.graph -o rows.graft
"$GRAFT_RUN" rows.graft --function r --input "0x4294967296x4294967296xf32=[]" >out.txt
check "$TEST_DIR/empty_sizes.sh" <out.txt
# CHECK: 0xf32=
