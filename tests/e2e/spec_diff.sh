# Differential test of the worked spec examples on random shapes and data:
# each example's graph is built with and without its spec, both bundles run
# on the same random .npy inputs, and both must agree with `graft eval` on
# the graph (the oracle) within a float tolerance. The host runs every
# round natively; every third round also runs on one other registered
# target under qemu, in turn. Shapes are picked so that the
# kernels' tiling has partial tiles (M not a multiple of 8, element counts
# not multiples of 64 or 256). Reproducible: fixed seed, override with
# SPEC_DIFF_SEED; SPEC_DIFF_ROUNDS sets the rounds per example.
cat > spec_diff.py <<'PY'
import os, subprocess, sys
import numpy as np

graft, graft_run, cross_dir, src = sys.argv[1:5]
sys.path.insert(0, os.path.join(src, "tests", "diff"))
from difftargets import runner as runner_for, targets
host = next(t.name for t in targets(graft) if t.host)
others = [t.name for t in targets(graft) if not t.host]
all_targets = ",".join(t.name for t in targets(graft))
rounds = int(os.environ.get("SPEC_DIFF_ROUNDS", "15"))
seed = int(os.environ.get("SPEC_DIFF_SEED", "20261122"))

# name: (graph, spec, function, rule names, shape maker)
def mlp_shapes(r):
    m, k, n = (int(r.integers(1, hi)) for hi in (41, 34, 38))
    return [(m, k), (k, n)]
def ew_shapes(count, hi):
    def make(r):
        rows = int(r.integers(1, 6))
        cols = int(r.integers(1, hi))
        return [(rows, cols)] * count
    return make
def vec_shapes(count, hi):
    return lambda r: [(int(r.integers(1, hi)),)] * count
def blocks_shapes(r):
    # Half the rounds a multiple of 16 (the guarded kernels run), a few of
    # those above 1024 (the in-place rule's range guard fails).
    n = int(r.integers(1, 90)) * 16 if r.integers(0, 2) else int(r.integers(1, 1500))
    return [(n,)] * 3
def blocks_ran(shapes):
    n = shapes[0][0]
    return (["mul16"] if n % 16 == 0 else []) + (["add16_inplace"] if n % 16 == 0 and n <= 1024 else [])
# Cases with run-time guards: which of their rules' kernels run on given
# shapes (elsewhere: all of them).
RAN = {"guarded": blocks_ran}
S = src + "/specs/"
CASES = [
    ("mlp", S + "mlp/mlp.graph", S + "mlp/mlp.yaml", "mlp", ["mlp_relu"], mlp_shapes),
    ("mlp_external", S + "mlp_external/mlp.graph", S + "mlp_external/mlp_external.yaml",
     "mlp", ["mlp_external"], mlp_shapes),
    ("whole_dispatch", S + "whole_dispatch/scaled_add.graph",
     S + "whole_dispatch/scaled_add.yaml", "scaled_add", ["scaled_add"], ew_shapes(2, 150)),
    ("bitcode_inline", S + "bitcode_inline/fma.graph", S + "bitcode_inline/fma.yaml",
     "fma", ["fma_tiles"], vec_shapes(3, 700)),
    # workgroup_size and an in-place output that takes over a dead input.
    ("workgroup_kernel", S + "workgroup_kernel/simple_mul.graph",
     S + "workgroup_kernel/simple_mul.yaml", "simple_mul",
     ["simple_mul", "simple_mul_inplace"], vec_shapes(2, 1500)),
    # Run-time guards: the kernels run only where the dynamic length
    # satisfies the rules' `where`, graft's own code elsewhere.
    ("guarded", S + "guarded/blocks16.graph", S + "guarded/blocks16.yaml", "blocks",
     ["mul16", "add16_inplace"], blocks_shapes),
]

def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        sys.exit("error: command failed (exit %d): %s\n%s" % (p.returncode, " ".join(cmd), p.stdout))
    return p.stdout

def close(ref, got, what):
    if ref.shape != got.shape or ref.dtype != got.dtype:
        sys.exit("error: %s: got %s %s, expected %s %s" % (what, got.shape, got.dtype, ref.shape, ref.dtype))
    # Kernels may contract a*b+c into an fma and sum in another order than the
    # evaluator; the tolerance allows for that, not for wrong elements.
    err = np.abs(got.astype(np.float64) - ref.astype(np.float64))
    tol = 1e-5 + 1e-4 * np.abs(ref.astype(np.float64))
    if not np.all(err <= tol):
        i = np.unravel_index(int(np.argmax(err - tol)), ref.shape)
        sys.exit("error: %s: element %s is %r, expected %r (|diff| %g)" %
                 (what, tuple(int(x) for x in i), float(got[i]), float(ref[i]), float(err[i])))

checked = 0
for name, graph, spec, fn, rules, shapes in CASES:
    with_spec, without = name + ".spec.graft", name + ".plain.graft"
    run([graft, "build", graph, "--spec", spec, "--target", all_targets, "-o", with_spec])
    run([graft, "build", graph, "--target", all_targets, "-o", without])
    r = np.random.default_rng([seed, sum(map(ord, name))])
    for rnd in range(rounds):
        ins = []
        shapes_now = shapes(r)
        for i, shape in enumerate(shapes_now):
            path = "%s.r%d.in%d.npy" % (name, rnd, i)
            # Small integers and halves keep products exact; the sign mix
            # exercises relu.
            np.save(path, (r.integers(-8, 9, size=shape) * 0.5).astype(np.float32)
                    if rnd % 2 else r.uniform(-2, 2, size=shape).astype(np.float32))
            ins.append(path)
        in_args = [x for p in ins for x in ("--input", "@" + p)]
        desc = "%s round %d shapes %s" % (name, rnd, [np.load(p).shape for p in ins])
        ref = "%s.r%d.ref.npy" % (name, rnd)
        run([graft, "eval", graph, "--function", fn] + in_args + ["--output=@" + ref])
        want = np.load(ref)
        runners = [(host, [graft_run])]
        if rnd % 3 == 0 and others:
            other = others[(rnd // 3) % len(others)]
            runners.append((other, runner_for(graft, graft_run, cross_dir, other)))
        for arch, runner in runners:
            for kind, bundle in (("spec", with_spec), ("plain", without)):
                out = "%s.r%d.%s.%s.npy" % (name, rnd, arch, kind)
                threads = str(1 + rnd % 3)
                log = run(runner + [bundle, "--function", fn, "--threads", threads,
                                    "--trace", "--output", "@" + out] + in_args)
                # The spec bundle must really run the rules' kernels (a
                # guarded case: those whose guards hold on these shapes),
                # the plain one none.
                ran = RAN[name](shapes_now) if name in RAN else rules
                want_used = set(ran) if kind == "spec" else set()
                used = set(rule for rule in rules if "_%s " % rule in log)
                if used != want_used:
                    sys.exit("error: %s %s %s: rule kernels %s ran, expected %s:\n%s" %
                             (desc, arch, kind, sorted(used), sorted(want_used), log))
                close(want, np.load(out), "%s %s %s bundle" % (desc, arch, kind))
                checked += 1
        print("ok", desc)
print("%d runs agree with graft eval" % checked)
PY
"$PYTHON" spec_diff.py "$GRAFT" "$GRAFT_RUN" "$BIN/cross" "$SRC"
