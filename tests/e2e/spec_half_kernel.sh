# A C kernel that computes in _Float16, spliced in for all three targets:
# every one of the 65536 f16 inputs must give the evaluator's exact bits,
# natively and under qemu-aarch64 / qemu-riscv64 (x86_64 and riscv64 call the
# slice's own half conversion routines).
D=$TEST_DIR/inputs/half_kernel
"$GRAFT" build "$D/square.graph" --spec "$D/square.yaml" --target x86_64,aarch64,riscv64 -o sq.graft
require_aarch64
require_riscv64
"$PYTHON" - "$GRAFT" "$GRAFT_RUN" "$GRAFT_RUN_AARCH64" "$GRAFT_RUN_RISCV64" "$D/square.graph" <<'PY'
import subprocess, sys
import numpy as np
graft, run, run_a64, run_rv, graph = sys.argv[1:]
x = np.arange(65536, dtype=np.uint16).view(np.float16)
np.save("x.npy", x)
subprocess.run([graft, "eval", graph, "--input", "@x.npy", "--output=@e.npy"], check=True)
e = np.load("e.npy")
bad = 0
for name, cmd in [("x86_64", [run]), ("aarch64", ["qemu-aarch64", run_a64]),
                  ("riscv64", ["qemu-riscv64", run_rv])]:
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
