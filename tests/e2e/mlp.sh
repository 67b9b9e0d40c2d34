# The seed MLP end to end: one bundle with a slice for every registered
# target (asked for in reverse order: slices still come in registry order),
# run for each target (natively on the host, under qemu for the others) at
# several thread counts; --list, .npy files, --expected_output and
# `graft inspect` of the slices.
G=$TEST_DIR/inputs/mlp.graph
LHS="2x2xf32=[[2 2][-2 -2]]"
RHS="2x2xf32=[[3 -3][3 -3]]"

reversed=$(printf '%s\n' "${TARGETS[@]}" | tac | paste -sd,)
"$GRAFT" build "$G" --target "$reversed" -o mlp.graft

cat >run.check <<'CHECK'
CHECK: {{^}}2x2xf32=[-12 0][0 -12]{{$}}
CHECK-EMPTY:
CHECK-NOT: {{.}}
CHECK
for target in "${TARGETS[@]}"; do
  for threads in 1 2; do
    run_on "$target" mlp.graft --function mlp --threads "$threads" \
      --input "$LHS" --input "$RHS" | check run.check
  done
done
"$GRAFT_RUN" mlp.graft --function mlp --input "$LHS" --input "$RHS" | check run.check

# The reference evaluator agrees.
"$GRAFT" eval "$G" --function mlp --input "$LHS" --input "$RHS" | check run.check

# Results through .npy files and --expected_output.
"$PYTHON" - <<'PY'
import numpy as np
np.save("lhs.npy", np.array([[2, 2], [-2, -2]], dtype=np.float32))
np.save("rhs.npy", np.array([[3, -3], [3, -3]], dtype=np.float32))
PY
"$GRAFT_RUN" mlp.graft --function mlp --input @lhs.npy --input @rhs.npy --output @out.npy
"$PYTHON" -c 'import numpy as np; r = np.load("out.npy"); assert r.dtype == np.float32 and r.tolist() == [[-12, 0], [0, -12]], r'
"$GRAFT_RUN" mlp.graft --function mlp --input @lhs.npy --input @rhs.npy \
  --expected_output "2x2xf32=[[-12 0][0 -12]]"
expect_fail "$GRAFT_RUN" mlp.graft --function mlp --input @lhs.npy --input @rhs.npy \
  --expected_output "2x2xf32=[[-12 0][0 -11]]"
check --check-prefix=MISMATCH "$TEST_DIR/mlp.sh" <out
# MISMATCH: result 1 of 'mlp': element [1, 1] differs: got -12, expected -11

cat >list.check <<'CHECK'
CHECK: {{^}}mlp(tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>{{$}}
CHECK-NOT: {{.}}
CHECK
"$GRAFT_RUN" mlp.graft --list | check list.check

{
  echo "CHECK: mlp.graft: ${#TARGETS[@]} slice(s)"
  for target in "${TARGETS[@]}"; do
    echo "CHECK-NEXT: {{^ +}}$target {{.*}}offset {{[0-9]+}} {{.*}}size {{[0-9]+}}"
  done
  echo "CHECK-NOT: {{.}}"
} >inspect.check
"$GRAFT" inspect mlp.graft | check inspect.check
