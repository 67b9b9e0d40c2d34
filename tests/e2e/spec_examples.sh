# Every worked example in specs/*/ builds for every registered target and
# prints exactly its expected.txt on each one, natively on the host and
# under qemu for the others (with a kernel where the spec has one for that
# target, else with graft's generated code); expected.txt itself must agree
# with the reference evaluator. An example folder holds one *.graph, one
# *.yaml, run.args (graft-run arguments, one "--flag value" per line) and
# expected.txt.
count=0
for dir in "$SRC"/specs/*/; do
  name=$(basename "$dir")
  shopt -s nullglob
  graphs=("$dir"*.graph "$dir"*.onnx) specs=("$dir"*.yaml)
  shopt -u nullglob
  if [[ ${#graphs[@]} -ne 1 || ${#specs[@]} -ne 1 ]]; then
    echo "error: specs/$name: expected one .graph or .onnx and one .yaml," \
         "found ${#graphs[@]} and ${#specs[@]}" >&2
    exit 1
  fi
  for f in run.args expected.txt README.md; do
    [[ -f $dir$f ]] || { echo "error: specs/$name: missing $f" >&2; exit 1; }
  done
  read_run_args "$dir/run.args"

  echo "== $name"
  "$GRAFT" build "${graphs[0]}" --spec "${specs[0]}" --target "$ALL_TARGETS" -o "$name.graft"
  rules=$(sed -n 's/^ *- name: *\([A-Za-z0-9_]*\).*/\1/p' "${specs[0]}" | paste -sd'|')
  for target in "${TARGETS[@]}"; do
    run_on "$target" "$name.graft" "${RUN_ARGS[@]}" --trace > "$name.$target.out" 2> "$name.$target.trace"
    diff -u "$dir/expected.txt" "$name.$target.out"
    # Where the spec has a kernel for the target (its own or the default
    # one), the kernel must really be in the slice: at least one dispatch
    # is named after one of the spec's rules.
    if grep -Eq "^ +($target|default): *\{" "${specs[0]}"; then
      grep -Eq "dispatch_[0-9]+_($rules) " "$name.$target.trace" || {
        echo "error: specs/$name: no dispatch of rules '$rules' ran on $target:" >&2
        cat "$name.$target.trace" >&2; exit 1; }
    fi
  done
  # expected.txt is not just whatever the kernels print: the reference
  # evaluator of the unreplaced graph agrees.
  "$GRAFT" eval "${graphs[0]}" "${RUN_ARGS[@]}" > "$name.eval.out"
  diff -u "$dir/expected.txt" "$name.eval.out"
  count=$((count + 1))
done
[[ $count -ge 5 ]] || { echo "error: only $count examples under specs/" >&2; exit 1; }
