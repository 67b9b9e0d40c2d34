#!/usr/bin/env python3
"""graft benchmarks: time graft bundles against numpy (and, for matmul, a
naive C loop) in the same run, after checking that the results agree.

For each case: build the case's graph once (`graft build --target <host>`),
write random inputs as .npy, run graft_bench (in-process timing through the
C API) with 1 thread and with all threads, time the numpy reference in this
process, and compare graft's output with numpy's before any number is
reported. Prints a table and writes JSON. Nothing here asserts anything about
speed: a failed case is one that did not build, did not run or disagreed.

    run_bench.py [--quick] [--filter REGEX] [--reps N] [--json PATH]

See tests/bench/README.md for how to read the output.
"""
import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# OpenBLAS reads these when numpy loads it; a value tuned for another CPU (or
# a debugging override) would distort the reference, so they are dropped for
# this process only, before numpy is imported. What was dropped is recorded.
DROPPED_ENV = {k: os.environ.pop(k) for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
               if k in os.environ}

try:
    import numpy as np
except ImportError:
    sys.exit("error: run_bench.py needs numpy; %s cannot import it (try /usr/bin/python3)"
             % sys.executable)

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from cases import all_cases  # noqa: E402  (after the environment is fixed)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="tiny sizes and 2 repetitions (the bench/smoke test)")
    p.add_argument("--filter", default="",
                   help="only cases whose name matches this regular expression")
    p.add_argument("--reps", type=int, default=None,
                   help="timed calls per measurement (default 20, --quick 2)")
    p.add_argument("--budget-ms", type=int, default=3000,
                   help="stop a measurement early once its calls add up to this "
                        "(after at least 3 calls; default 3000)")
    p.add_argument("--threads", type=int, default=0,
                   help="threads of the multi-threaded graft run (0 = all CPUs)")
    p.add_argument("--json", default=os.path.join(HERE, "results.json"),
                   help="where to write the results (default tests/bench/results.json)")
    p.add_argument("--graft", default=os.environ.get("GRAFT") or
                   os.path.join(REPO, "build", "cmd", "graft", "graft"),
                   help="graft binary (default $GRAFT or build/cmd/graft/graft)")
    p.add_argument("--graft-bench", default=os.environ.get("GRAFT_BENCH") or
                   os.path.join(REPO, "build", "tests", "bench", "graft_bench"),
                   help="graft_bench binary (default $GRAFT_BENCH or "
                        "build/tests/bench/graft_bench)")
    p.add_argument("--work-dir", default=None,
                   help="bundles, inputs and outputs go here (default: a temporary "
                        "directory, removed afterwards)")
    args = p.parse_args()
    if args.reps is None:
        args.reps = 2 if args.quick else 20
    if args.reps < 1:
        p.error("--reps must be at least 1, found %d" % args.reps)
    try:
        re.compile(args.filter)
    except re.error as e:
        p.error("--filter '%s' is not a regular expression: %s" % (args.filter, e))
    for flag, path in (("--graft", args.graft), ("--graft-bench", args.graft_bench)):
        if not os.access(path, os.X_OK):
            p.error("%s: '%s' is not an executable (build it first: "
                    "ninja -C build graft graft_bench)" % (flag, path))
    return args


def host_target():
    machine = platform.machine()
    return {"x86_64": "x86_64", "AMD64": "x86_64", "aarch64": "aarch64",
            "arm64": "aarch64", "riscv64": "riscv64"}.get(machine, machine)


def blas_info():
    """Which BLAS numpy's matmul calls: threadpoolctl if installed, else the
    shared libraries mapped into this process after a small matmul."""
    a = np.ones((64, 64), np.float32)
    _ = a @ a
    try:
        import threadpoolctl
        infos = threadpoolctl.threadpool_info()
        blas = [i for i in infos if i.get("user_api") == "blas"]
        if blas:
            return ", ".join("%s %s (%s, %s threads)" % (
                i.get("internal_api"), i.get("version"), i.get("architecture"),
                i.get("num_threads")) for i in blas)
    except ImportError:
        pass
    libs = set()
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1]
                if re.search(r"blas|blis|mkl", os.path.basename(path)):
                    libs.add(os.path.realpath(path))
    except OSError:
        pass
    described = []
    for path in sorted(libs):
        text = path
        if "openblas" in os.path.basename(path):
            # OpenBLAS names the kernel it picked for this CPU (what
            # OPENBLAS_CORETYPE would override) and its thread count.
            try:
                import ctypes
                lib = ctypes.CDLL(path)
                lib.openblas_get_corename.restype = ctypes.c_char_p
                text += " (OpenBLAS kernel %s, %d threads)" % (
                    lib.openblas_get_corename().decode(), lib.openblas_get_num_threads())
            except (OSError, AttributeError):
                pass
        elif re.search(r"/blas/libblas\.so", path):
            text += " (netlib reference BLAS: unoptimized, 1 thread)"
        described.append(text)
    return ", ".join(described) or "unknown"


class Runner:
    """Builds bundles (once per graph), runs graft_bench and numpy, checks."""

    def __init__(self, args, work):
        self.args = args
        self.work = work
        self.bundles = {}     # graph -> (bundle path, build seconds)
        self.errors = []

    def bundle(self, graph):
        if graph not in self.bundles:
            src = os.path.join(HERE, "graphs", graph + ".graph")
            out = os.path.join(self.work, graph + ".graft")
            start = time.perf_counter()
            proc = subprocess.run([self.args.graft, "build", src, "--target", host_target(),
                                   "-o", out], capture_output=True, text=True)
            seconds = time.perf_counter() - start
            if proc.returncode != 0:
                raise RuntimeError("graft build %s failed (exit %d):\n%s"
                                   % (src, proc.returncode, proc.stderr.strip()))
            self.bundles[graph] = (out, seconds)
        return self.bundles[graph]

    def graft_bench(self, argv, reps=None):
        """Runs graft_bench; |reps| 0 only runs (and --saves) once, untimed."""
        reps = self.args.reps if reps is None else reps
        cmd = [self.args.graft_bench] + argv + ["--reps", str(reps),
                                                "--budget-ms", str(self.args.budget_ms)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError("%s failed (exit %d): %s"
                               % (" ".join(cmd), proc.returncode, proc.stderr.strip()))
        return json.loads(proc.stdout.strip().splitlines()[-1])

    def time_numpy(self, fn, inputs):
        fn(*inputs)  # warm-up, as graft_bench does
        samples, total = [], 0.0
        while len(samples) < self.args.reps:
            start = time.perf_counter()
            fn(*inputs)
            elapsed = (time.perf_counter() - start) * 1e3
            samples.append(elapsed)
            total += elapsed
            if total >= self.args.budget_ms and len(samples) >= 3:
                break
        samples.sort()
        n = len(samples)
        median = samples[n // 2] if n % 2 else 0.5 * (samples[n // 2 - 1] + samples[n // 2])
        return {"reps": n, "min_ms": samples[0], "median_ms": median, "mean_ms": total / n}

    @staticmethod
    def check(what, got, want, tol):
        """Raises if |got - want| > tol * (max|want| + 1) anywhere."""
        if got.shape != want.shape or got.dtype != want.dtype:
            raise RuntimeError("%s: got %s %s, expected %s %s"
                               % (what, got.dtype, got.shape, want.dtype, want.shape))
        if got.size == 0:
            return 0.0
        scale = float(np.max(np.abs(want.astype(np.float64)))) + 1.0
        err = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64))))
        if not err <= tol * scale:  # also catches NaN
            idx = np.unravel_index(int(np.argmax(np.abs(got.astype(np.float64)
                                                        - want.astype(np.float64)))), got.shape)
            raise RuntimeError("%s: max |error| %.3g exceeds %.3g at index %s: got %r, "
                               "expected %r" % (what, err, tol * scale, list(idx),
                                                got[idx].item(), want[idx].item()))
        return err / scale

    def run_case(self, case, rng):
        bundle, build_s = self.bundle(case.graph)
        inputs = case.make_inputs(rng)
        paths = []
        for i, x in enumerate(inputs):
            paths.append(os.path.join(self.work, "%s_in%d.npy" % (case.name, i)))
            np.save(paths[-1], x)
        want = case.reference(*inputs)
        want = list(want) if isinstance(want, tuple) else [want]

        # Check first, with one thread and with all: nothing is timed until
        # both agree with numpy.
        errors = []
        run = {}
        for label, threads in (("1t", 1), ("nt", self.args.threads)):
            prefix = os.path.join(self.work, "%s_out_%s_" % (case.name, label))
            run[label] = ["graft", bundle, case.function, "--threads", str(threads)] + paths
            self.graft_bench(run[label] + ["--save", prefix], reps=0)
            errors += [self.check("%s result %d (%s threads)" % (case.name, i, threads or "all"),
                                  np.load("%s%d.npy" % (prefix, i)), w, case.tol)
                       for i, w in enumerate(want)]
        if case.naive_matmul:
            naive_out = os.path.join(self.work, case.name + "_naive.npy")
            naive = ["naive-matmul", paths[0], paths[1]]
            self.graft_bench(naive + ["--save", naive_out], reps=0)
            self.check(case.name + " naive C", np.load(naive_out),
                       np.matmul(inputs[0], inputs[1]), case.tol)

        row = {"case": case.name, "size": case.size, "graph": case.graph + ".graph",
               "function": case.function, "build_s": build_s,
               "max_rel_error": max(errors) if errors else 0.0,
               "graft_1t": self.graft_bench(run["1t"]),
               "graft_nt": self.graft_bench(run["nt"]),
               "numpy": self.time_numpy(case.reference, inputs),
               "flops": case.flops, "bytes": case.bytes}
        if case.naive_matmul:
            row["naive_c"] = self.graft_bench(naive)
        return row


def rate(row, key):
    """GFLOP/s for compute-bound cases, GB/s (minimum traffic) otherwise."""
    ms = row[key]["min_ms"]
    if ms <= 0:
        return ""
    if row["flops"]:
        return "%.1f GF/s" % (row["flops"] / ms / 1e6)
    return "%.1f GB/s" % (row["bytes"] / ms / 1e6)


def print_table(rows, threads):
    head = ["case", "size", "graft 1T ms", "graft %sT ms" % (threads or "N"), "numpy ms",
            "graft/numpy", "naive C ms", "graft rate", "numpy rate"]
    lines = []
    for r in rows:
        best = min(r["graft_1t"]["min_ms"], r["graft_nt"]["min_ms"])
        lines.append([r["case"], r["size"], "%.3f" % r["graft_1t"]["min_ms"],
                      "%.3f" % r["graft_nt"]["min_ms"], "%.3f" % r["numpy"]["min_ms"],
                      "%.2fx" % (best / r["numpy"]["min_ms"]) if r["numpy"]["min_ms"] > 0 else "",
                      "%.3f" % r["naive_c"]["min_ms"] if "naive_c" in r else "-",
                      rate(r, "graft_nt" if r["graft_nt"]["min_ms"] <= r["graft_1t"]["min_ms"]
                           else "graft_1t"),
                      rate(r, "numpy")])
    widths = [max(len(h), *(len(l[i]) for l in lines)) if lines else len(h)
              for i, h in enumerate(head)]
    fmt = "  ".join("%%-%ds" % w if i < 2 else "%%%ds" % w for i, w in enumerate(widths))
    print(fmt % tuple(head))
    print(fmt % tuple("-" * w for w in widths))
    for l in lines:
        print(fmt % tuple(l))


def main():
    args = parse_args()
    load_start = os.getloadavg()
    cases = [c for c in all_cases(args.quick) if re.search(args.filter, c.name)]
    if not cases:
        sys.exit("error: --filter '%s' matches no case" % args.filter)
    work_ctx = tempfile.TemporaryDirectory(prefix="graft-bench.") if not args.work_dir else None
    work = args.work_dir or work_ctx.name
    os.makedirs(work, exist_ok=True)

    runner = Runner(args, work)
    rng = np.random.default_rng(20240601)
    rows = []
    for case in cases:
        try:
            rows.append(runner.run_case(case, rng))
            print("ran %-14s %s" % (case.name, case.size), file=sys.stderr)
        except (RuntimeError, OSError, ValueError) as e:
            runner.errors.append(str(e))
            print("FAILED %s: %s" % (case.name, e), file=sys.stderr)

    threads = rows[0]["graft_nt"]["threads"] if rows else args.threads
    print_table(rows, threads)
    meta = {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "host": platform.node(),
            "machine": platform.machine(), "cpus": os.cpu_count(),
            "loadavg_start": load_start, "loadavg_end": os.getloadavg(),
            "quick": args.quick, "reps": args.reps, "budget_ms": args.budget_ms, "numpy": np.__version__, "numpy_blas": blas_info(),
            "dropped_env": DROPPED_ENV, "python": sys.executable,
            "bundles_build_s": {g: s for g, (_, s) in runner.bundles.items()},
            "note": "times are per call; min is the headline, median shows the spread"}
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump({"meta": meta, "results": rows, "errors": runner.errors}, f, indent=2)
    print("numpy %s, BLAS: %s" % (np.__version__, meta["numpy_blas"]))
    if DROPPED_ENV:
        print("dropped for numpy: %s" % ", ".join("%s=%s" % kv for kv in DROPPED_ENV.items()))
    print("json: %s" % args.json)
    if runner.errors:
        print("%d passed, %d failed" % (len(rows), len(runner.errors)))
        return 1
    print("%d passed, 0 failed" % len(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
