# A C kernel that computes in _Float16, spliced in for every registered
# target: every one of the 65536 f16 inputs must give the evaluator's exact
# bits on each target, natively or under qemu (targets without half
# conversion instructions, such as x86-64-v2 and rv64gc, call the slice's
# own conversion routines).
D=$TEST_DIR/inputs/half_kernel
"$GRAFT" build "$D/square.graph" --spec "$D/square.yaml" --target "$ALL_TARGETS" -o sq.graft
"$PYTHON" - "$GRAFT" "$GRAFT_RUN" "$BIN/cross" "$SRC/tests/diff" "$D/square.graph" <<'PY'
import subprocess, sys
import numpy as np
graft, graft_run, cross_dir, diff_dir, graph = sys.argv[1:]
sys.path.insert(0, diff_dir)
from difftargets import runner, targets
x = np.arange(65536, dtype=np.uint16).view(np.float16)
np.save("x.npy", x)
subprocess.run([graft, "eval", graph, "--input", "@x.npy", "--output=@e.npy"], check=True)
e = np.load("e.npy")
bad = 0
for name in [t.name for t in targets(graft)]:
    cmd = runner(graft, graft_run, cross_dir, name)
    trace = subprocess.run(cmd + ["sq.graft", "--input", "@x.npy", "--output", "@o.npy",
                                  "--trace"], check=True, capture_output=True, text=True).stderr
    assert "square_half" in trace, f"{name}: the kernel's dispatch did not run:\n{trace}"
    o = np.load("o.npy")
    same = (o.view(np.uint16) == e.view(np.uint16)) | (np.isnan(o) & np.isnan(e))
    n = int((~same).sum())
    print(f"{name}: {n} of 65536 differ")
    bad += n
sys.exit(1 if bad else 0)
PY
