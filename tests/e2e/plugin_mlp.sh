# The seed's mlp_plugin.c, unmodified, built as a system library with the
# user's own toolchain and only the IREE-compatible header, serves
# `mlp_external` to a hand-written library standing in for the compiled
# seed MLP (fill + matmul + relu imported, neg in the bundle).
cp "$SRC/runtime/examples/plugins/mlp_plugin.c" .
# What docs/plugins.md tells users to run for a system plugin.
"$CLANG" -shared -fPIC -O2 -I"$SRC/runtime/include" mlp_plugin.c -o mlp_plugin.so
build_slice x86_64 "$SRC/tests/plugins/mlp_slice.c" mlp.graft

"$GRAFT_RUN" mlp.graft --function mlp --plugin=mlp_plugin.so \
  --input "2x2xf32=[[2 2][-2 -2]]" --input "2x2xf32=[[3 -3][3 -3]]" > out.txt
check "$TEST_DIR/plugin_mlp.sh" --check-prefix=SEED < out.txt
# SEED: [Plugin]: M = 2, N = 2, K = 2
# SEED-NEXT: 2x2xf32=[-12 0][0 -12]

# IREE's flag name, several threads, other shapes: the same results as the
# reference evaluator on the seed graph.
for case in "5x3xf32=1.5|3x4xf32=0.5" "2x3xf32=[[1 -2 3][4 5 -6]]|3x2xf32=[[1 2][3 4][5 6]]"; do
  lhs=${case%%|*} rhs=${case#*|}
  "$GRAFT_RUN" mlp.graft --executable_plugin=./mlp_plugin.so --threads 4 \
    --input "$lhs" --input "$rhs" > got.txt
  "$GRAFT" eval "$SRC/tests/e2e/inputs/mlp.graph" --function mlp \
    --input "$lhs" --input "$rhs" > want.txt
  tail -n +2 got.txt | diff want.txt -
done
check "$TEST_DIR/plugin_mlp.sh" --check-prefix=BIG < got.txt
# BIG: [Plugin]: M = 2, N = 2, K = 3

# Without the plugin the module is refused, naming what is missing.
expect_fail "$GRAFT_RUN" mlp.graft --input "2x2xf32=1" --input "2x2xf32=1"
check "$TEST_DIR/plugin_mlp.sh" --check-prefix=MISSING < "$T/out"
# MISSING: graft-run: error: mlp.graft: library 'mlp' requires 1 import that nothing provides: 'mlp_external' (no plugins registered)
