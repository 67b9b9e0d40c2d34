# The float functions of map bodies measured against references: numpy and
# PyTorch in f64 for f32 results, mpmath for f64 results. The compiled code
# (the host's slice) must stay within the ulp bounds docs/graph-format.md
# documents ("Accuracy of the float functions"), the reference evaluator
# within 4 ulp; both must get every special value (NaN, +-inf, +-0,
# subnormals) exactly. Prints the measured maxima.
cat >math.graph <<'GRAPH'
func @f(%x: tensor<?xT>) -> tensor<?xT> {
  %r = map %x : tensor<?xT> {
  ^bb0(%a: T):
    %0 = OP %a : T
    yield %0
  }
  return %r
}
GRAPH
cat >pow.graph <<'GRAPH'
func @f(%x: tensor<?xT>, %y: tensor<?xT>) -> tensor<?xT> {
  %r = map %x, %y : tensor<?xT> {
  ^bb0(%a: T, %b: T):
    %0 = pow %a, %b : T
    yield %0
  }
  return %r
}
GRAPH

"$PYTHON" - "$GRAFT" "$GRAFT_RUN" <<'PY'
import math, subprocess, sys
import numpy as np
import torch
import mpmath as mp

graft, graft_run = sys.argv[1], sys.argv[2]
mp.mp.dps = 40
rng = np.random.default_rng(20251123)
# Documented bounds (docs/graph-format.md), in ulps of the result type.
BOUND = {"f32": 1.0, "f64": 3.0}
EVAL_BOUND = 4.0

def log_uniform(n, lo, hi):
    """Random signs and magnitudes spread over [10^lo, 10^hi]."""
    return rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(lo, hi, n)

SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40, 1.0, -1.0, 0.5, -0.5]

def inputs(op, dt, n):
    if op in ("sin", "cos"):
        x = np.concatenate([log_uniform(n // 2, -8, 2), log_uniform(n // 2, 2, 8.9)])
    elif op == "log1p":
        x = np.concatenate([log_uniform(n // 2, -12, 0) * 0.999, 10.0 ** rng.uniform(-3, 30, n // 2)])
    elif op == "expm1":
        x = np.concatenate([log_uniform(n // 2, -12, 0), rng.uniform(-100, 88 if dt == "f32" else 700, n // 2)])
    else:
        x = np.concatenate([log_uniform(n // 2, -12, 0.3), rng.uniform(-40, 40, n // 2)])
    return np.concatenate([x, SPECIAL]).astype(np.float32 if dt == "f32" else np.float64)

def ref64(op, x, y=None):
    """f64 references for f32 results (numpy, PyTorch)."""
    x = x.astype(np.float64)
    with np.errstate(all="ignore"):
        if op == "erf": return torch.erf(torch.from_numpy(x)).numpy()
        if op == "sigmoid": return torch.sigmoid(torch.from_numpy(x)).numpy()
        if op == "pow": return np.power(x, y.astype(np.float64))
        return getattr(np, op)(x)

def ref_mp(op, x, y=None):
    """mpmath references for f64 results, rounded to f64."""
    out = np.empty_like(x)
    for i, v in enumerate(x):
        # mpmath has no -0: zeros and non-finite values from numpy.
        if not np.isfinite(v) or v == 0 or (y is not None and (not np.isfinite(y[i]) or y[i] == 0)):
            with np.errstate(all="ignore"):
                out[i] = ref64(op, np.array([v]), None if y is None else np.array([y[i]]))[0]
            continue
        a = mp.mpf(float(v))
        if op == "pow":
            b = mp.mpf(float(y[i]))
            if a < 0 and b != int(b):
                out[i] = np.nan
                continue
            r = mp.power(a, b)
        elif op == "log1p":
            r = mp.log1p(a) if a > -1 else (mp.mpf("-inf") if a == -1 else mp.nan)
        else:
            r = {"sigmoid": lambda t: 1 / (1 + mp.exp(-t)), "erf": mp.erf, "sin": mp.sin,
                 "cos": mp.cos, "expm1": mp.expm1}[op](a)
        out[i] = float(r)
    return out

def ulps(got, ref, dt, scale=None):
    """Largest error in ulps (divided by |scale| where given) and the
    special values that are not exact."""
    ft = np.float32 if dt == "f32" else np.float64
    with np.errstate(all="ignore"):
        unit = np.spacing(np.abs(ref).astype(ft)).astype(np.float64)
        err = np.abs(got.astype(np.float64) - ref) / unit
        if scale is not None:
            err = err / scale
    special = ~np.isfinite(ref) | ~np.isfinite(got) | (ref == 0)
    exact = np.where(np.isnan(ref), np.isnan(got),
                     (got.astype(np.float64) == ref) & (np.signbit(got) == np.signbit(ref)))
    bad_special = special & ~exact
    err = np.where(special, 0, err)
    return float(np.max(err)), int(np.argmax(err)), bad_special

def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode:
        sys.exit(f"failed: {' '.join(cmd)}\n{p.stdout}")

failed = False
for dt in ("f32", "f64"):
    n = 20000 if dt == "f32" else 1500
    for op in ("sigmoid", "erf", "sin", "cos", "log1p", "expm1", "pow"):
        src = open("pow.graph" if op == "pow" else "math.graph").read()
        graph = f"{op}_{dt}.graph"
        open(graph, "w").write(src.replace("OP", op).replace("xT", "x" + dt).replace(": T", ": " + dt))
        run([graft, "build", graph, "-o", f"{op}_{dt}.graft"])
        x = inputs(op, dt, n)
        args = ["--input", "@x.npy"]
        y = None
        np.save("x.npy", x)
        if op == "pow":
            x = np.abs(x)
            x[: len(x) // 4] *= -1
            np.save("x.npy", x)
            y = rng.uniform(-30, 30, x.size).astype(x.dtype)
            y[: len(y) // 8] = np.round(y[: len(y) // 8])
            y[-len(SPECIAL):] = SPECIAL[::-1]
            np.save("y.npy", y)
            args += ["--input", "@y.npy"]
        run([graft_run, f"{op}_{dt}.graft", "--function", "f", *args, "--output", "@got.npy"])
        run([graft, "eval", graph, "--function", "f", *args, "--output", "@ev.npy"])
        got, ev = np.load("got.npy"), np.load("ev.npy")
        ref = ref64(op, x, y) if dt == "f32" else ref_mp(op, x, y)
        if dt == "f32":
            with np.errstate(all="ignore"):
                ref = np.where(np.abs(ref) > np.finfo(np.float32).max * (1 + 2**-25), np.sign(ref) * np.inf, ref)
        if op in ("sin", "cos"):  # outside the reduction's range: NaN, documented
            outside = np.abs(x) >= 2**29 * math.pi / 2
            ref = np.where(outside, np.nan, ref)
        # f64 pow is exp(y log|x|) in f64: its bound is 3 (1 + |y ln x|).
        scale = None
        if op == "pow" and dt == "f64":
            with np.errstate(all="ignore"):
                scale = 1 + np.nan_to_num(np.abs(y * np.log(np.abs(x))))
        e_got, worst, bad_got = ulps(got, ref, dt, scale)
        e_ev, _, bad_ev = ulps(ev, ref, dt)
        if op in ("sin", "cos"):
            bad_ev &= ~outside
        ok = e_got <= BOUND[dt] and e_ev <= EVAL_BOUND and not bad_got.any() and not bad_ev.any()
        failed |= not ok
        print(f"{dt} {op:8s} compiled {e_got:6.3f} ulp  evaluator {e_ev:6.3f} ulp  {'ok' if ok else 'FAIL'}")
        if e_got > BOUND[dt]:
            print(f"  worst: {op}({x[worst]!r}{'' if y is None else ', ' + repr(y[worst])}) = {got[worst]!r}, expected {ref[worst]!r}")
        for name, bad in (("compiled", bad_got), ("evaluator", bad_ev)):
            for i in np.argwhere(bad)[:3].ravel():
                print(f"  {name}: {op}({x[i]!r}{'' if y is None else ', ' + repr(y[i])}) = {[got, ev][name == 'evaluator'][i]!r}, expected {ref[i]!r}")
# The exact ones against numpy, bit for bit (the sign of zero too), on
# halfway cases, large and subnormal values and the special values.
EXACT = {"floor": np.floor, "ceil": np.ceil, "round": np.round, "sign": np.sign,
         "isnan": np.isnan, "isinf": np.isinf}
for dt in ("f32", "f64", "f16"):
    ft = {"f32": np.float32, "f64": np.float64, "f16": np.float16}[dt]
    halves = rng.integers(-200, 200, 2000) / 2.0
    x = np.concatenate([halves, log_uniform(2000, -40, 30), SPECIAL]).astype(ft)
    np.save("x.npy", x)
    for op, fn in EXACT.items():
        rt = "i1" if op.startswith("is") else dt
        src = open("math.graph").read().replace("OP", op).replace("xT", "x" + dt).replace(": T", ": " + dt)
        src = src.replace(f"%0 = {op} %a : {dt}", f"%0 = {op} %a : {rt}")
        src = src.replace(f"-> tensor<?x{dt}>", f"-> tensor<?x{rt}>").replace(f"%r = map %x : tensor<?x{dt}>", f"%r = map %x : tensor<?x{rt}>")
        graph = f"{op}_{dt}.graph"
        open(graph, "w").write(src)
        run([graft, "build", graph, "-o", f"{op}_{dt}.graft"])
        run([graft_run, f"{op}_{dt}.graft", "--function", "f", "--input", "@x.npy", "--output", "@got.npy"])
        run([graft, "eval", graph, "--function", "f", "--input", "@x.npy", "--output", "@ev.npy"])
        want = fn(x)
        for name, got in (("compiled", np.load("got.npy")), ("evaluator", np.load("ev.npy"))):
            fl = want.dtype != np.bool_
            sign = (lambda v: np.signbit(v)) if fl else (lambda v: v)
            same = got.dtype == want.dtype and np.array_equal(got, want, equal_nan=fl) and \
                np.array_equal(sign(got), sign(want))
            if not same:
                failed = True
                with np.errstate(invalid="ignore"):
                    diff = ((got != want) & ~(np.isnan(got) & np.isnan(want))) if fl else got != want
                i = np.argwhere(diff | (sign(got) != sign(want)))[0][0]
                print(f"{dt} {op}: {name} differs from numpy: {op}({x[i]!r}) = {got[i]!r}, numpy {want[i]!r}")
    print(f"{dt} floor ceil round sign isnan isinf: exact")
sys.exit(1 if failed else 0)
PY
