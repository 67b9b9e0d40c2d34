# Intermediate buffers planned into one arena per call (abi.h
# GRAFT_BUFFER_ARENA), kept by the module across calls, and results written
# into caller storage: the same values as the evaluator, at any thread
# count, on the first call and on every later call, also from two threads
# at once (cmake/sanitize.sh runs the same check under TSan).
graph=$TEST_DIR/inputs/arena.graph
"$GRAFT" build "$graph" -o "$T/arena.graft"

small=(--input "3x5xf32=[[1 2 3 4 5][0 -1 4 2 1][7 7 7 7 6]]" --input "5xf32=[1 0 -1 2 0.5]")
"$GRAFT" eval "$graph" "${small[@]}" > "$T/want"
for threads in 1 3; do
  "$GRAFT_RUN" "$T/arena.graft" --threads $threads "${small[@]}" > "$T/got"
  cmp "$T/want" "$T/got"
done
check "$TEST_DIR/arena_reuse.sh" --check-prefix=SMALL < "$T/got"
# SMALL: 3x5xf32=[-7 -4 -1 6 8.5][-8.408 -17.248 20.952 8.272 -1.068][1.128 0.128 -0.872 2.128 -0.0120003]
# SMALL-NEXT: 3x5xf32=[-2 -1 0 1 2][-1.2 -2.2 2.8 0.8 -0.2][0.2 0.2 0.2 0.2 -0.8]
# SMALL-NEXT: 15xf32=-7 -4 -1 6 8.5 -8.408 -17.248 20.952 8.272 -1.068 1.128 0.128 -0.872 2.128 -0.0120003

# Odd sizes (several workgroups per dispatch, ragged tiles).
x=$(awk 'BEGIN { printf "37x129xf32=["; for (i = 0; i < 37; ++i) { printf "["; for (j = 0; j < 129; ++j) printf "%s%d", (j ? " " : ""), (i * 7 + j * 13) % 17 - 8; printf "]" } printf "]" }')
g=$(awk 'BEGIN { printf "129xf32=["; for (j = 0; j < 129; ++j) printf "%s%d", (j ? " " : ""), j % 5 - 2; printf "]" }')
"$GRAFT" eval "$graph" --input "$x" --input "$g" > "$T/want"
"$GRAFT_RUN" "$T/arena.graft" --threads 3 --input "$x" --input "$g" > "$T/got"
cmp "$T/want" "$T/got"

# A second and later call find the arena of the first: same bytes.
"$GRAFT_REPEAT_CHECK" "$T/arena.graft" arena 3 20 "$x" "$g" > "$T/out"
check "$TEST_DIR/arena_reuse.sh" --check-prefix=REPEAT < "$T/out"
# REPEAT: arena: 40 repeated and 2x20 concurrent calls identical to the first
