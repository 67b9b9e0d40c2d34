# One integer semantics (runtime/include/graft/expr.h): floor division and a
# remainder with the sign of the divisor, in graft eval, in the host program
# of a bundle (index arithmetic, checked) and in compiled integer maps
# (wrapping, x / 0 = 0, x % 0 = x), natively and under qemu.
require_targets aarch64 riscv64
runners=()
for t in aarch64 riscv64; do
  runner_of $t
  runners+=(--runner "${RUNNER[*]}")
done

# Regression: `div -7, 2` was -3 in graft eval (truncation) and -4 in the
# bundle (floor); `rem` -1 and 1.
cat > divrem.graph <<'G'
func @divrem(%a: index, %b: index) -> (index, index) {
  %q = div %a, %b : index
  %r = rem %a, %b : index
  return %q, %r
}
G
"$GRAFT" eval divrem.graph --input index=-7 --input i64=2 > eval.txt
"$GRAFT" build divrem.graph -o divrem.graft
"$GRAFT_RUN" divrem.graft --input index=-7 --input index=2 > run.txt
check "$TEST_DIR/int_semantics.sh" --check-prefix=DIVREM < eval.txt
check "$TEST_DIR/int_semantics.sh" --check-prefix=DIVREM < run.txt
# DIVREM: index=-4
# DIVREM-NEXT: index=1

# Every op over boundary values (INT_MIN, -1, 0, ...) against Python's
# integers: index arithmetic (eval, bundle, compile-time folding) and i8,
# i32, i64 element-wise maps on all three targets.
"$PYTHON" "$SRC/tests/diff/intsemantics.py" --graft "$GRAFT" --graft-run "$GRAFT_RUN" \
  "${runners[@]}" \
  --targets x86_64,aarch64,riscv64 --workdir "$T"
