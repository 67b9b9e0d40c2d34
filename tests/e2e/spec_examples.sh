# Every worked example in specs/*/ builds for every registered target and
# prints exactly its expected.txt on each one, natively on the host and
# under qemu for the others (with a kernel where the spec has one for that
# target, else with graft's generated code); expected.txt itself must agree
# with the reference evaluator. An example folder holds one *.graph, one
# *.yaml, run.args (graft-run arguments, one "--flag value" per line) and
# expected.txt; a graph that calls an external kernel directly comes with
# NAME.reference.graph, the same computation in graft ops, for the
# reference evaluator.
#
# An example whose kernels come from plugins also has a `plugins` file, one
# plugin per line: `system SRC.c` (built with the host's clang as a shared
# library, the way docs/plugins.md tells users; graft-run dlopens it, so it
# runs natively only: the cross-built graft-runs are static) or `embedded
# SRC.c` (built by `graft plugin` for every target into one .sos, run on
# every target). SRC is relative to the example's folder; what follows it
# on a `system` line goes to the link (`-lopenblas`). `requires HEADER
# PACKAGE` skips the example, saying so, when the host's clang cannot find
# HEADER (a vendor library that is not installed). Lines of
# expected.txt that start with '[' are what the plugins print; the
# reference evaluator prints the rest.
count=0
for dir in "$SRC"/specs/*/; do
  name=$(basename "$dir")
  shopt -s nullglob
  graphs=() specs=("$dir"*.yaml)
  for g in "$dir"*.graph "$dir"*.onnx; do
    [[ $g == *.reference.graph ]] || graphs+=("$g")
  done
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
  PLUGIN_ARGS=() run_targets=("${TARGETS[@]}") skipped=
  if [[ -f $dir/plugins ]]; then
    while read -r kind src flags; do
      [[ -z $kind || $kind == \#* ]] && continue
      so=$name.$(basename "$src" .c)
      case $kind in
        requires)
          if ! echo "#include <$src>" | "$CLANG" -E -x c - > /dev/null 2>&1; then
            skipped="<$src> is not installed (Debian package $flags)"
            break
          fi ;;
        system)
          # shellcheck disable=SC2086
          "$CLANG" -shared -fPIC -O2 -I"$SRC/runtime/include" "$dir/$src" $flags -o "$so.so"
          PLUGIN_ARGS+=(--plugin "./$so.so") run_targets=("$HOST_TARGET") ;;
        embedded)
          "$GRAFT" plugin "$dir/$src" --target "$ALL_TARGETS" -o "$so.sos"
          PLUGIN_ARGS+=(--plugin "$so.sos") ;;
        *) echo "error: specs/$name/plugins: unknown plugin kind '$kind'" >&2; exit 1 ;;
      esac
    done < "$dir/plugins"
  fi
  if [[ -n $skipped ]]; then
    echo "SKIPPED specs/$name: $skipped"
    continue
  fi
  for target in "${run_targets[@]}"; do
    run_on "$target" "$name.graft" "${RUN_ARGS[@]}" "${PLUGIN_ARGS[@]}" --trace \
      > "$name.$target.out" 2> "$name.$target.trace"
    diff -u "$dir/expected.txt" "$name.$target.out"
    # Where the spec has a kernel for the target (its own, the default one
    # or a plugin's), the kernel must really be called: at least one
    # dispatch is named after one of the spec's rules.
    if [[ -f $dir/plugins ]] || grep -Eq "^ +($target|default): *\{" "${specs[0]}"; then
      grep -Eq "dispatch_[0-9]+_($rules) " "$name.$target.trace" || {
        echo "error: specs/$name: no dispatch of rules '$rules' ran on $target:" >&2
        cat "$name.$target.trace" >&2; exit 1; }
    fi
  done
  # expected.txt is not just whatever the kernels print: the reference
  # evaluator of the unreplaced graph agrees (of NAME.reference.graph, the
  # same graph in graft ops, where the graph calls an external kernel).
  reference=${graphs[0]%.graph}.reference.graph
  [[ -f $reference ]] || reference=${graphs[0]}
  "$GRAFT" eval "$reference" "${RUN_ARGS[@]}" > "$name.eval.out"
  grep -v '^\[' "$dir/expected.txt" | diff -u - "$name.eval.out"
  count=$((count + 1))
done
[[ $count -ge 5 ]] || { echo "error: only $count examples under specs/" >&2; exit 1; }
