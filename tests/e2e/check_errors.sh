# `graft check` on malformed graphs: each file in inputs/errors/ must fail
# with the messages (file:line:col, text, source line, caret) in its
# `// CHECK:` lines. Valid graphs must pass, and --print must round-trip.
for g in "$TEST_DIR"/inputs/errors/*.graph; do
  expect_fail "$GRAFT" check "$g"
  check "$g" < "$T/out"
done

for g in "$TEST_DIR"/inputs/*.graph; do
  "$GRAFT" check "$g"
  "$GRAFT" check --print "$g" > "$T/printed.graph"
  "$GRAFT" check --print "$T/printed.graph" > "$T/printed2.graph"
  cmp "$T/printed.graph" "$T/printed2.graph"
done
