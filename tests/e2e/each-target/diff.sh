# Differential test of one target ($TARGET; CTest runs this script once per
# registered target as e2e/diff/<target>): every graph of tests/diff/graphs
# built for the target, each function run on random sizes and values by
# graft-run (natively on the host, else the cross-built graft-run under the
# target's qemu) and compared with `graft eval` (tests/diff/difftest.py; a
# failure prints the seed and a command that reproduces it). Six rounds
# natively, three under qemu (slow): one per feature level of the target,
# forced, natively or under the first qemu model that runs it
# (tests/e2e/lib/levels.sh), the rest (at least one) at the ISA variant the
# CPU picks. GRAFT_DIFF_ROUNDS overrides the count of the latter, and
# GRAFT_DIFF_SEED=random explores new sizes.
total=3
[[ $TARGET == "$HOST_TARGET" ]] && total=6
variants=()
for level in ${TARGET_LEVELS[$TARGET]}; do
  if model=$(cpu_for_level "$TARGET" "$level"); then
    variants+=(--variant "$level${model:+@$model}")
  else
    echo "note: nothing on this machine runs $TARGET $level; no forced round"
  fi
done
rounds=$((total - ${#variants[@]} / 2))
[[ $rounds -ge 1 ]] || rounds=1
"$PYTHON" "$SRC/tests/diff/difftest.py" --graft "$GRAFT" --graft-run "$GRAFT_RUN" \
  --target "$TARGET" --cross-dir "$BIN/cross" --rounds "${GRAFT_DIFF_ROUNDS:-$rounds}" \
  "${variants[@]}" --keep-dir "$BIN/difftest-failures/$TARGET"
