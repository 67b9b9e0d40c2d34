# Mixed-precision matmul (docs/graph-format.md): bf16 inputs accumulate in
# f32 (256 + 1 + 0.25 is not a bf16 value, so a bf16 sum would round it),
# i8 x i8 accumulates in i32 without wrapping, in graft eval and a bundle.
# tests/diff/graphs/mm_mixed.graph runs i8 and f16 on every target.
cat > "$T/mm.graph" <<'GRAPH'
func @bf16(%h: tensor<2x3xbf16>, %g: tensor<3x2xbf16>, %c: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = matmul %h, %g, %c : tensor<2x2xf32>
  return %r
}
func @i8(%a: tensor<1x3xi8>, %b: tensor<3x1xi8>, %c: tensor<1x1xi32>) -> tensor<1x1xi32> {
  %r = matmul %a, %b, %c : tensor<1x1xi32>
  return %r
}
GRAPH
"$GRAFT" build "$T/mm.graph" --target "$HOST_TARGET" -o "$T/mm.graft"
BF=(--input "2x3xbf16=[[1 2 3][256 1 0.5]]" --input "3x2xbf16=[[1 0][1 1][0.5 2]]" --input "2x2xf32=[[0.25 0][0 0]]")
I8=(--input "1x3xi8=[[-128 -128 127]]" --input "3x1xi8=[[-128][-128][127]]" --input "1x1xi32=[[1]]")
"$GRAFT" eval "$T/mm.graph" --function bf16 "${BF[@]}" > "$T/out.log"
"$GRAFT_RUN" "$T/mm.graft" --function bf16 "${BF[@]}" >> "$T/out.log"
"$GRAFT" eval "$T/mm.graph" --function i8 "${I8[@]}" >> "$T/out.log"
"$GRAFT_RUN" "$T/mm.graft" --function i8 "${I8[@]}" >> "$T/out.log"
check "$TEST_DIR/mixed_matmul.sh" --check-prefix=MM < "$T/out.log"
# MM: 2x2xf32=[4.75 8][257.25 2]
# MM-NEXT: 2x2xf32=[4.75 8][257.25 2]
# MM-NEXT: 1x1xi32=[48898]
# MM-NEXT: 1x1xi32=[48898]
