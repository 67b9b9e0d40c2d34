# The error corpus (tests/errors/, see its README): every case is an input
# with its RUN lines and the exact messages it must produce. Each RUN line
# must fail (exit 1 or 2, never a crash) and its output must match the
# case's CHECK lines; a case that builds something must not leave it behind.
corpus=$TEST_DIR/../errors
"$GRAFT" build "$TEST_DIR/inputs/mlp.graph" --target x86_64 -o mlp.graft
mlp=$T/mlp.graft
cases=0
while IFS= read -r -d '' case_file; do
  name=${case_file#"$corpus"/}
  scratch=$T/case/${name//\//_}
  mkdir -p "$scratch"
  runs=0
  while IFS= read -r run_line; do
    cmd=${run_line#*RUN: }
    cmd=${cmd//%%/$'\x01'}
    cmd=${cmd//%S/\"$(dirname "$case_file")\"}
    cmd=${cmd//%graft-run/\"$GRAFT_RUN\"}
    cmd=${cmd//%graft/\"$GRAFT\"}
    cmd=${cmd//%mlp/\"$mlp\"}
    cmd=${cmd//%s/\"$case_file\"}
    cmd=${cmd//%t/$scratch\/t}
    cmd=${cmd//$'\x01'/%}
    rc=0
    (cd "$scratch" && bash -c "$cmd") >"$T/out" 2>&1 || rc=$?
    if [[ $rc != 1 && $rc != 2 ]]; then
      echo "error corpus: $name: expected exit code 1 or 2, got $rc from: $cmd" >&2
      cat "$T/out" >&2
      exit 1
    fi
    check --match-full-lines "$case_file" <"$T/out" ||
      { echo "error corpus: $name: output differs for: $cmd" >&2; exit 1; }
    runs=$((runs + 1))
  done < <(grep -E '^(#|//) RUN: ' "$case_file")
  if [[ $runs == 0 ]]; then
    echo "error corpus: $name has no RUN line" >&2
    exit 1
  fi
  cases=$((cases + 1))
done < <(find "$corpus" -type f ! -name README.md -print0 | sort -z)
echo "error corpus: $cases cases"
[[ $cases -gt 0 ]]
