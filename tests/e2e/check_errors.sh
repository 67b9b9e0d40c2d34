# `graft check` on valid graphs passes, and --print must round-trip. The
# malformed graphs, each with its exact messages (file:line:col, text,
# source line, caret), are in the error corpus (tests/errors/graph/, run by
# error_corpus.sh through `graft check` and `graft build`).

for g in "$TEST_DIR"/inputs/*.graph; do
  "$GRAFT" check "$g"
  "$GRAFT" check --print "$g" > "$T/printed.graph"
  "$GRAFT" check --print "$T/printed.graph" > "$T/printed2.graph"
  cmp "$T/printed.graph" "$T/printed2.graph"
done
