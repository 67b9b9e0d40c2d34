# Text conventions of graphs and specs: CRLF, CR-only (old Mac) line ends and
# a UTF-8 byte order mark read like plain LF files, with the same line and
# column numbers; a file that defines nothing gets a warning.
MLP=$TEST_DIR/inputs/mlp.graph
SPEC=$SRC/specs/mlp/mlp.yaml
run=(--function mlp --input "2x2xf32=[[2 2][-2 -2]]" --input "2x2xf32=[[3 -3][3 -3]]")

# A leading comment must not swallow a CR-only file: the function is there.
{ printf '// the seed MLP\n'; cat "$MLP"; } >lf.graph
tr '\n' '\r' <lf.graph >cr.graph
sed 's/$/\r/' lf.graph >crlf.graph
{ printf '\xef\xbb\xbf'; cat lf.graph; } >bom.graph
{ printf '\xef\xbb\xbf'; cat cr.graph; } >bomcr.graph
"$GRAFT" check --print lf.graph >lf.printed
for g in cr crlf bom bomcr; do
  "$GRAFT" check --print $g.graph >$g.printed 2>$g.err
  cmp lf.printed $g.printed
  [[ ! -s $g.err ]] || { cat $g.err; exit 1; }
done
"$GRAFT" build cr.graph --spec "$SPEC" --target x86_64 -o cr.graft
"$GRAFT_RUN" cr.graft "${run[@]}" | check --check-prefix=OUT "$TEST_DIR/input_text.sh"
# OUT: 2x2xf32=[-12 0][0 -12]

# Errors in a CR-only file point at the right line and column, with the line.
printf 'func @f(%%a: tensor<2xf32>) -> tensor<2xf32> {\r  %%b = frob %%a : tensor<2xf32>\r  return %%b\r}\r' >bad_cr.graph
{ printf '\xef\xbb\xbf'; cat bad_cr.graph; } >bad_bom.graph
for g in bad_cr bad_bom; do
  expect_fail "$GRAFT" check $g.graph
  check --check-prefix=BADCR --strict-whitespace --match-full-lines "$TEST_DIR/input_text.sh" <out
done
# BADCR:{{.*}}.graph:2:8: error: unknown op 'frob'
# BADCR-NEXT:    %b = frob %a : tensor<2xf32>
# BADCR-NEXT:         ^

# Specs: CR-only, CRLF and a BOM load like the LF original.
mkdir spec
cp "$SRC"/specs/mlp/* spec/
tr '\n' '\r' <"$SPEC" >spec/cr.yaml
{ printf '\xef\xbb\xbf'; sed 's/$/\r/' "$SPEC"; } >spec/bomcrlf.yaml
for s in cr bomcrlf; do
  "$GRAFT" build "$MLP" --spec spec/$s.yaml --target x86_64 -o $s.graft --explain >$s.explain
  grep -q "mlp_relu" $s.explain
  "$GRAFT_RUN" $s.graft "${run[@]}" | check --check-prefix=OUT "$TEST_DIR/input_text.sh"
done
# A spec error in a CR-only file is located as in the LF file.
sed 's/max %x, %cst/maxx %x, %cst/' "$SPEC" | tr '\n' '\r' >spec/bad_cr.yaml
expect_fail "$GRAFT" build "$MLP" --spec spec/bad_cr.yaml --target x86_64 -o x.graft
check --check-prefix=SPECCR "$TEST_DIR/input_text.sh" <out
# SPECCR: bad_cr.yaml:14:16: error: unknown op 'maxx'
# SPECCR-NEXT: {{^}}          %0 = maxx %x, %cst : f32
# SPECCR-NEXT: {{^}}               ^

# Nothing defined: a warning, not a silent success.
printf '// only a comment\n' >empty.graph
"$GRAFT" check empty.graph 2>&1 | check --check-prefix=EMPTY "$TEST_DIR/input_text.sh"
# EMPTY: empty.graph: warning: no function defined; the file is empty or holds only comments
# Patterns alone build nothing either (they belong to spec rules).
printf '// a pattern\npattern @p(%%a: f32) -> f32 {\n  return %%a\n}\n' >patterns.graph
"$GRAFT" check patterns.graph 2>&1 | check --check-prefix=PATTERNS "$TEST_DIR/input_text.sh"
# PATTERNS: patterns.graph:2:9: warning: no function defined, only patterns; a pattern is matched by a spec rule and builds nothing by itself
printf 'graft-spec: 1\nrules: []\n' >empty.yaml
"$GRAFT" build "$MLP" --spec empty.yaml --target x86_64 -o e.graft 2>&1 |
  check --check-prefix=NORULES "$TEST_DIR/input_text.sh"
# NORULES: empty.yaml:2:8: warning: the spec defines no rule ('rules' is empty)
