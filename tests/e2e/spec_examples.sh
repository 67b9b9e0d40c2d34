# Every worked example in specs/*/ builds for x86_64, aarch64 and riscv64 and
# prints exactly its expected.txt, natively and under qemu-aarch64 and
# qemu-riscv64 (with a kernel where the spec has one for that target, else
# with graft's generated code); expected.txt
# itself must agree with the reference evaluator. An example folder holds
# one *.graph, one *.yaml, run.args (graft-run arguments, one "--flag value"
# per line) and expected.txt.
require_aarch64
require_riscv64
count=0
for dir in "$SRC"/specs/*/; do
  name=$(basename "$dir")
  graphs=("$dir"*.graph) specs=("$dir"*.yaml)
  if [[ ${#graphs[@]} -ne 1 || ${#specs[@]} -ne 1 || ! -f ${graphs[0]} || ! -f ${specs[0]} ]]; then
    echo "error: specs/$name: expected one .graph and one .yaml," \
         "found ${#graphs[@]} and ${#specs[@]}" >&2
    exit 1
  fi
  for f in run.args expected.txt README.md; do
    [[ -f $dir$f ]] || { echo "error: specs/$name: missing $f" >&2; exit 1; }
  done
  read_run_args "$dir/run.args"

  echo "== $name"
  "$GRAFT" build "${graphs[0]}" --spec "${specs[0]}" --target x86_64,aarch64,riscv64 -o "$name.graft"
  # The user kernel must really be in the bundle: at least one dispatch
  # is named after one of the spec's rules.
  "$GRAFT_RUN" "$name.graft" "${RUN_ARGS[@]}" --trace > "$name.x86_64.out" 2> "$name.trace"
  rules=$(sed -n 's/^ *- name: *\([A-Za-z0-9_]*\).*/\1/p' "${specs[0]}" | paste -sd'|')
  grep -Eq "dispatch_[0-9]+_($rules) " "$name.trace" || {
    echo "error: specs/$name: no dispatch of rules '$rules' ran:" >&2; cat "$name.trace" >&2; exit 1; }
  diff -u "$dir/expected.txt" "$name.x86_64.out"
  run_aarch64 "$name.graft" "${RUN_ARGS[@]}" > "$name.aarch64.out"
  diff -u "$dir/expected.txt" "$name.aarch64.out"
  run_riscv64 "$name.graft" "${RUN_ARGS[@]}" > "$name.riscv64.out"
  diff -u "$dir/expected.txt" "$name.riscv64.out"
  # expected.txt is not just whatever the kernels print: the reference
  # evaluator of the unreplaced graph agrees.
  "$GRAFT" eval "${graphs[0]}" "${RUN_ARGS[@]}" > "$name.eval.out"
  diff -u "$dir/expected.txt" "$name.eval.out"
  count=$((count + 1))
done
[[ $count -ge 5 ]] || { echo "error: only $count examples under specs/" >&2; exit 1; }
