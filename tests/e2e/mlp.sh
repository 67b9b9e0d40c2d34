# The seed MLP end to end: one bundle for x86_64 and aarch64 (and one with
# riscv64 too), run natively
# and under qemu-aarch64 with the cross-built graft-run; thread counts,
# --list and `graft inspect` of the two slices.
G=$TEST_DIR/inputs/mlp.graph
LHS="2x2xf32=[[2 2][-2 -2]]"
RHS="2x2xf32=[[3 -3][3 -3]]"

"$GRAFT" build "$G" --target x86_64,aarch64 -o mlp.graft

cat >run.check <<'CHECK'
CHECK: {{^}}2x2xf32=[-12 0][0 -12]{{$}}
CHECK-EMPTY:
CHECK-NOT: {{.}}
CHECK
"$GRAFT_RUN" mlp.graft --function mlp --input "$LHS" --input "$RHS" | check run.check
"$GRAFT_RUN" mlp.graft --function mlp --threads 1 --input "$LHS" --input "$RHS" | check run.check
"$GRAFT_RUN" mlp.graft --function mlp --threads 2 --input "$LHS" --input "$RHS" | check run.check
require_aarch64
run_aarch64 mlp.graft --function mlp --input "$LHS" --input "$RHS" | check run.check
run_aarch64 mlp.graft --function mlp --threads 1 --input "$LHS" --input "$RHS" | check run.check

# The third architecture: a bundle with all three slices, riscv64 under qemu.
"$GRAFT" build "$G" --target riscv64,x86_64,aarch64 -o mlp3.graft
require_riscv64
run_riscv64 mlp3.graft --function mlp --input "$LHS" --input "$RHS" | check run.check
"$GRAFT_RUN" mlp3.graft --function mlp --input "$LHS" --input "$RHS" | check run.check

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

cat >inspect.check <<'CHECK'
CHECK: mlp.graft: 2 slice(s)
CHECK-NEXT: {{^ +}}x86_64 {{.*}}offset {{[0-9]+}} {{.*}}size {{[0-9]+}}
CHECK-NEXT: {{^ +}}aarch64 {{.*}}offset {{[0-9]+}} {{.*}}size {{[0-9]+}}
CHECK-NOT: {{.}}
CHECK
"$GRAFT" inspect mlp.graft | check inspect.check
