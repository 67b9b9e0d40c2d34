# `graft check --print` stays linear in the size of the graph: 100k ops
# (50k maps, each with a one-op body) parse, verify and print back. The old
# printer copied the set of taken names for every body, which took over ten
# minutes at this size; `timeout` turns a regression into a failure instead
# of a hang (this is not a speed claim: the bound is 20x what a contended
# machine needs).
awk 'BEGIN {
  n = 50000
  print "func @chain(%x0: tensor<8xf32>) -> tensor<8xf32> {"
  for (i = 1; i <= n; ++i) {
    printf "  %%x%d = map %%x%d : tensor<8xf32> {\n", i, i - 1
    print "  ^bb0(%v: f32):"
    print "    %w = neg %v : f32"
    print "    yield %w"
    print "  }"
  }
  printf "  return %%x%d\n}\n", n
}' >chain.graph
timeout 300 "$GRAFT" check --print chain.graph >printed.graph
timeout 300 "$GRAFT" check --print printed.graph >printed2.graph
cmp printed.graph printed2.graph
# Every body reuses the same local names.
[[ $(grep -c '^  \^bb0(%v: f32):$' printed.graph) -eq 50000 ]]
tail -2 printed.graph | check "$TEST_DIR/check_print_large.sh"
# CHECK: return %x50000
# CHECK-NEXT: }
