#!/usr/bin/env python3
"""graft benchmarks: time graft bundles side by side with oneDNN, OpenBLAS,
PyTorch eager and STREAM in the same run, after checking every result.

For each case and each thread count (1 and all CPUs): build the case's
graph once (`graft build --target <host>`), write random inputs as .npy,
check graft and every peer against a float64 numpy reference, then time
them one after the other: graft and the C peers in graft_bench processes
(in-process timing through their C APIs), PyTorch in one worker process
(torch_peer.py). Prints a table and writes JSON. Nothing here asserts
anything about speed: a failed case is one that did not build, did not run
or disagreed with the reference.

    run_bench.py [--quick] [--filter REGEX] [--peers LIST] [--json PATH]

See tests/bench/README.md for how to read the output.
"""
import argparse
import glob
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

# Variables that would silently change what a peer does: OpenBLAS's kernel
# and cache-size overrides (meant for another CPU) and thread counts that
# would fight the ones set per row. Dropped from this process and every
# child before anything loads a library; what was dropped is recorded.
DROPPED_ENV = {k: os.environ.pop(k) for k in (
    "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS",
    "OMP_NUM_THREADS", "MKL_NUM_THREADS") if k in os.environ}

try:
    import numpy as np
except ImportError:
    sys.exit("error: run_bench.py needs numpy; %s cannot import it (try /usr/bin/python3)"
             % sys.executable)

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import build_time  # noqa: E402
from cases import LABELS, LIBRARIES, all_cases  # noqa: E402  (after the environment is fixed)
from machine import cpu_info, git_revision, graft_target_line, host_target  # noqa: E402
from report import clock_key, header, print_table, summarize, table_lines  # noqa: E402

def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="tiny sizes, 2 samples (the bench/smoke test)")
    p.add_argument("--filter", default="",
                   help="only cases whose name matches this regular expression")
    p.add_argument("--peers", default=",".join(LIBRARIES),
                   help="peers to run, comma-separated, from %s (default: all); "
                        "'none' runs graft alone" % ", ".join(LIBRARIES))
    p.add_argument("--threads", default="1,0",
                   help="thread counts, comma-separated; 0 = all CPUs (default 1,0)")
    p.add_argument("--reps", type=int, default=None,
                   help="timed samples per measurement (default 20, --quick 2)")
    p.add_argument("--budget-ms", type=float, default=3000,
                   help="stop sampling once the samples add up to this (after at "
                        "least 3; default 3000)")
    p.add_argument("--min-sample-ms", type=float, default=1.0,
                   help="batch calls so that one sample lasts at least this "
                        "(default 1)")
    p.add_argument("--graft-outputs", choices=("runtime", "caller"), default="runtime",
                   help="where graft writes results: allocated by the runtime per call "
                        "(how the C API is used today; default) or caller storage")
    p.add_argument("--rounds", type=int, default=1,
                   help="time every implementation of a row this many times, the "
                        "implementations taking turns, and keep each one's fastest "
                        "round (by --clock): a slow spell of a shared machine then "
                        "spoils one round, not the row (default 1)")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="rates from the min wall time per call (default) or, "
                        "for 1-thread rows, the min CPU time of the calling "
                        "thread: on a shared machine it leaves out other jobs' "
                        "time slices (rows at N threads keep the wall time)")
    p.add_argument("--json", default=os.path.join(HERE, "results.json"),
                   help="where to write the results (default tests/bench/results.json)")
    p.add_argument("--graft", default=os.environ.get("GRAFT") or
                   os.path.join(REPO, "build", "cmd", "graft", "graft"),
                   help="graft binary (default $GRAFT or build/cmd/graft/graft)")
    p.add_argument("--graft-bench", default=os.environ.get("GRAFT_BENCH") or
                   os.path.join(REPO, "build", "tests", "bench", "graft_bench"),
                   help="graft_bench binary (default $GRAFT_BENCH or "
                        "build/tests/bench/graft_bench)")
    p.add_argument("--torch-python", default="/usr/bin/python3",
                   help="the Python that imports torch (default /usr/bin/python3)")
    p.add_argument("--torch-blas-dir", default=None,
                   help="directory put first on the PyTorch worker's LD_LIBRARY_PATH "
                        "(default: Debian's OpenBLAS, /usr/lib/*/openblas-pthread; "
                        "'' keeps the system's libblas.so.3)")
    p.add_argument("--work-dir", default=None,
                   help="bundles, inputs and outputs go here (default: a temporary "
                        "directory, removed afterwards)")
    args = p.parse_args()
    if args.reps is None:
        args.reps = 2 if args.quick else 20
    if args.reps < 1:
        p.error("--reps must be at least 1, found %d" % args.reps)
    if args.rounds < 1:
        p.error("--rounds must be at least 1, found %d" % args.rounds)
    try:
        re.compile(args.filter)
    except re.error as e:
        p.error("--filter '%s' is not a regular expression: %s" % (args.filter, e))
    args.peers = [] if args.peers == "none" else args.peers.split(",")
    for peer in args.peers:
        if peer not in LIBRARIES:
            p.error("--peers: unknown peer '%s', expected one of %s or none"
                    % (peer, ", ".join(LIBRARIES)))
    cpus = len(os.sched_getaffinity(0))
    try:
        args.threads = [int(t) or cpus for t in args.threads.split(",")]
    except ValueError:
        p.error("--threads expects comma-separated integers, found '%s'" % args.threads)
    if any(t < 0 for t in args.threads):
        p.error("--threads: counts must not be negative, found '%s'" % args.threads)
    args.threads = sorted(set(args.threads))
    for flag, path in (("--graft", args.graft), ("--graft-bench", args.graft_bench)):
        if not os.access(path, os.X_OK):
            p.error("%s: '%s' is not an executable (build it first: "
                    "ninja -C build graft graft_bench)" % (flag, path))
    return args


class TorchWorker:
    """torch_peer.py, started on first use; |missing| says why it cannot run."""

    def __init__(self, args):
        self.args = args
        self.proc = None
        self.missing = None
        self.info = None

    def start(self):
        if self.proc or self.missing:
            return
        env = dict(os.environ)
        blas_dir = self.args.torch_blas_dir
        if blas_dir is None:
            found = sorted(glob.glob("/usr/lib/*/openblas-pthread"))
            blas_dir = found[0] if found else ""
        if blas_dir:
            env["LD_LIBRARY_PATH"] = blas_dir + (":" + env["LD_LIBRARY_PATH"]
                                                 if env.get("LD_LIBRARY_PATH") else "")
        probe = subprocess.run([self.args.torch_python, "-c", "import torch"],
                               capture_output=True, text=True, env=env)
        if probe.returncode != 0:
            last = (probe.stderr.strip().splitlines() or ["exit %d" % probe.returncode])[-1]
            self.missing = "%s cannot import torch (%s); install python3-torch" % (
                self.args.torch_python, last)
            return
        self.proc = subprocess.Popen(
            [self.args.torch_python, os.path.join(HERE, "torch_peer.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        self.info = self.request({"op": "info"})
        self.info["blas_dir"] = blas_dir

    def request(self, message):
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the PyTorch worker exited (exit %s)" % self.proc.poll())
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError("PyTorch: " + reply["error"])
        return reply

    def close(self):
        if self.proc:
            self.proc.stdin.close()
            self.proc.wait()


class Runner:
    """Builds bundles (once per graph), checks and times graft and the peers."""

    def __init__(self, args, work):
        self.args = args
        self.work = work
        self.bundles = {}   # graph -> (bundle path, build seconds)
        self.inputs = {}    # shapes -> (paths, arrays): cases of one size share inputs
        self.errors = []
        self.torch = TorchWorker(args)
        self.bench_info = self.graft_bench(["info"], timed=False)

    def timing_args(self, timed):
        if not timed:
            return ["--reps", "0"]
        return ["--reps", str(self.args.reps), "--budget-ms", str(self.args.budget_ms),
                "--min-sample-ms", str(self.args.min_sample_ms)]

    def graft_bench(self, argv, timed=True):
        cmd = [self.args.graft_bench] + argv + (self.timing_args(timed) if argv != ["info"]
                                                else [])
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError("%s failed (exit %d): %s"
                               % (" ".join(cmd), proc.returncode, proc.stderr.strip()))
        return json.loads(proc.stdout.strip().splitlines()[-1])

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

    def case_inputs(self, case):
        key = (case.dtype,) + tuple(case.shapes)
        if key not in self.inputs:
            # A seed per shape list: the same inputs whatever --filter selects.
            rng = np.random.default_rng([20240601] + [d for s in case.shapes for d in s])
            if case.dtype == "i8":
                # In [-64, 64): oneDNN's s8 GEMM without VNNI sums pairs
                # of (a + 128) * b products in saturating i16, wrong for
                # larger values (graft's sums are exact at any value:
                # tests/e2e/each-target/i8_matmul.sh).
                arrays = [rng.integers(-64, 64, s, dtype=np.int8) for s in case.shapes]
            else:
                arrays = [rng.uniform(-1.0, 1.0, s).astype(np.float32) for s in case.shapes]
            paths = []
            for i, x in enumerate(arrays):
                paths.append(os.path.join(self.work, "in_%d_%s.npy" % (
                    len(self.inputs), i)))
                np.save(paths[-1], x)
            self.inputs[key] = (paths, arrays)
        return self.inputs[key]

    @staticmethod
    def check(what, got, want, tol):
        """Raises if |got - want| > tol * (max|want| + 1) anywhere; returns the
        largest error relative to that scale. An integer |want| is the
        exact i32 result."""
        if np.issubdtype(np.asarray(want).dtype, np.integer):
            if got.shape != want.shape or got.dtype != np.int32:
                raise RuntimeError("%s: got %s %s, expected int32 %s"
                                   % (what, got.dtype, got.shape, want.shape))
            wrong = np.argwhere(got != want)
            if wrong.size:
                idx = tuple(wrong[0])
                raise RuntimeError("%s: %d results differ, the first at index %s: got %d, "
                                   "expected %d" % (what, len(wrong), list(idx), got[idx],
                                                    want[idx]))
            return 0.0
        want = np.asarray(want, dtype=np.float64)
        if got.shape != want.shape or got.dtype != np.float32:
            raise RuntimeError("%s: got %s %s, expected float32 %s"
                               % (what, got.dtype, got.shape, want.shape))
        if got.size == 0:
            return 0.0
        diff = np.abs(got.astype(np.float64) - want)
        scale = float(np.max(np.abs(want))) + 1.0
        err = float(np.max(diff))
        if not err <= tol * scale:  # also catches NaN
            idx = np.unravel_index(int(np.nanargmax(np.where(np.isnan(diff), np.inf, diff))),
                                   got.shape)
            raise RuntimeError("%s: max |error| %.3g exceeds %.3g at index %s: got %r, "
                               "expected %r" % (what, err, tol * scale, list(idx),
                                                got[idx].item(), want[idx].item()))
        return err / scale

    def missing_reason(self, peer, threads):
        """Why |peer| cannot run here, or None."""
        lib = peer.library
        if lib in ("onednn", "openblas"):
            entry = self.bench_info["peers"][lib]
            return None if entry["available"] else entry["missing"]
        if lib == "stream":
            if threads > 1 and self.bench_info.get("openmp") is None:
                return "graft_bench was built without OpenMP (STREAM runs 1 thread only)"
            return None
        self.torch.start()
        return self.torch.missing

    def measure_peer(self, case, peer, paths, arrays, threads, save):
        """Checks (timed=False) or times one peer; returns its measurement."""
        sel = peer.inputs if peer.inputs is not None else range(len(paths))
        ins = [paths[i] for i in sel]
        if peer.impl == "torch":
            return self.torch.request({
                "op": "run", "case": case.name, "quick": self.args.quick, "inputs": ins, "threads": threads,
                "samples": self.args.reps, "budget_ms": self.args.budget_ms,
                "min_sample_ms": self.args.min_sample_ms, "run_only": save is not None,
                "save": save})
        argv = [peer.impl] + ins + peer.args + ["--threads", str(threads)]
        if save is not None:
            argv += ["--save", save]
        return self.graft_bench(argv, timed=save is None)

    def faster(self, best, new, threads):
        """The faster of two timings of one implementation (by --clock),
        |new| checked as the first was; each round's time is kept in
        round_times_ms."""
        check_threads(new, threads)
        check_cpu_clock(new, threads)
        key = clock_key(self.args.clock, threads)
        rounds = best.get("round_times_ms", [best[key]]) + [new[key]]
        if new[key] < best[key]:
            best.update(new)
        best["round_times_ms"] = rounds
        return best

    def run_peer(self, case, peer, paths, arrays, want, threads):
        reason = self.missing_reason(peer, threads)
        entry = {"impl": peer.impl, "label": LABELS[peer.impl], "args": peer.args}
        if reason:
            entry.update(status="missing", why=reason)
            return entry
        sel = peer.inputs if peer.inputs is not None else range(len(arrays))
        ref = peer.reference(*[arrays[i] for i in sel]) if peer.reference else want
        prefix = os.path.join(self.work, "%s_%s_%dt_" % (case.name, peer.impl, threads))
        try:
            self.measure_peer(case, peer, paths, arrays, threads, prefix)
            entry["max_rel_error"] = self.check(
                "%s %s (%d threads)" % (case.name, LABELS[peer.impl], threads),
                np.load(prefix + "0.npy"), ref, case.tol)
            entry.update(self.measure_peer(case, peer, paths, arrays, threads, None))
            check_threads(entry, threads)
            check_cpu_clock(entry, threads)
            entry["status"] = "ok"
            entry["work"] = peer.bytes if peer.bytes is not None else case.work()[0]
        except (RuntimeError, OSError, ValueError) as e:
            entry.update(status="failed", why=str(e))
            self.errors.append(str(e))
        return entry

    def run_case(self, case):
        bundle, build_s = self.bundle(case.graph)
        paths, arrays = self.case_inputs(case)
        want = case.reference(*arrays)
        rows = []
        for threads in self.args.threads:
            prefix = os.path.join(self.work, "%s_graft_%dt_" % (case.name, threads))
            argv = ["graft", bundle, case.function] + paths + [
                "--threads", str(threads), "--outputs", self.args.graft_outputs]
            # Check first: nothing is timed until graft agrees with numpy.
            self.graft_bench(argv + ["--save", prefix], timed=False)
            err = self.check("%s graft (%d threads)" % (case.name, threads),
                             np.load(prefix + "0.npy"), want, case.tol)
            graft = self.graft_bench(argv)
            check_threads(graft, threads)
            check_cpu_clock(graft, threads)
            graft["work"] = case.work()[0]
            active = [p for p in case.peers if p.library in self.args.peers]
            peers = [self.run_peer(case, p, paths, arrays, want, threads) for p in active]
            # Further rounds: every implementation again, in turn.
            for _ in range(1, self.args.rounds):
                graft = self.faster(graft, self.graft_bench(argv), threads)
                for entry, p in zip(peers, active):
                    if entry["status"] != "ok":
                        continue
                    try:
                        self.faster(entry, self.measure_peer(case, p, paths, arrays, threads, None),
                                    threads)
                    except (RuntimeError, OSError, ValueError) as e:
                        entry.update(status="failed", why=str(e))
                        self.errors.append(str(e))
            rows.append(summarize(clock=self.args.clock, row={
                "case": case.name, "size": case.size, "graph": case.graph + ".graph",
                "function": case.function, "threads": threads, "unit": case.work()[1],
                "build_s": build_s, "max_rel_error": err, "graft": graft, "peers": peers}))
        return rows


def check_cpu_clock(measurement, threads):
    """At 1 thread the CPU time is the calling thread's (harness/timing.h),
    which cannot exceed the wall time: more means the clock counted other
    threads of the process again (OpenBLAS's spinning workers once made it
    2x the wall time). The two minima come from different samples and
    clocks, so a call of a microsecond or two may read a few percent more
    CPU than wall time (OpenBLAS's 67x9x5 MLP sgemm: 1.584 against 1.504 us
    in a CI run): up to 1.25x passes."""
    cpu, wall = measurement.get("cpu_min_ms"), measurement.get("min_ms")
    if measurement.get("threads", threads) == 1 and cpu is not None and wall is not None \
            and cpu > 1.25 * wall + 1e-5:
        raise RuntimeError("%s: CPU time %.4g ms per call > wall time %.4g ms at 1 thread "
                           "(clock %s)" % (LABELS[measurement["impl"]], cpu, wall,
                                          measurement.get("cpu_clock", "?")))


def check_threads(measurement, threads):
    """A row compares implementations at one thread count: one that ran
    another count (a library capped below it, a BLAS ignoring it) fails."""
    used = [measurement["threads"]] + ([measurement["blas_threads"]]
                                       if measurement.get("blas_threads") else [])
    if any(u != threads for u in used):
        raise RuntimeError("%s ran %s threads, asked for %d" % (
            LABELS[measurement["impl"]], "/".join(map(str, used)), threads))


def peer_info(runner):
    info = {}
    for lib in runner.args.peers:
        if lib in ("onednn", "openblas"):
            info[lib] = runner.bench_info["peers"][lib]
        elif lib == "stream":
            info[lib] = {"available": True, "openmp": runner.bench_info.get("openmp")}
        elif runner.torch.missing:
            info[lib] = {"available": False, "missing": runner.torch.missing}
        elif runner.torch.info:
            info[lib] = dict(available=True, **runner.torch.info)
    return info


def main():
    args = parse_args()
    load_start = os.getloadavg()
    cases = [c for c in all_cases(args.quick) if re.search(args.filter, c.name)]
    if not cases:
        sys.exit("error: --filter '%s' matches no case" % args.filter)
    work_ctx = tempfile.TemporaryDirectory(prefix="graft-bench.") if not args.work_dir else None
    work = args.work_dir or work_ctx.name
    os.makedirs(work, exist_ok=True)

    try:
        runner = Runner(args, work)
    except RuntimeError as e:
        sys.exit("error: %s" % e)
    rows = []
    try:
        build = build_time.measure(args.graft, work, 1 if args.quick else 5)
    except (RuntimeError, OSError) as e:
        runner.errors.append(str(e))
        build = {"error": str(e).splitlines()[0]}
    try:
        for case in cases:
            try:
                rows += runner.run_case(case)
                print("ran %-20s %s" % (case.name, case.size), file=sys.stderr, flush=True)
            except (RuntimeError, OSError, ValueError) as e:
                runner.errors.append(str(e))
                print("FAILED %s: %s" % (case.name, e), file=sys.stderr)
        if "torch" in args.peers:
            runner.torch.start()  # so the header says what PyTorch is, or why not
    finally:
        runner.torch.close()

    meta = {"date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "host": platform.node(),
            "machine": platform.machine(), "cpu": cpu_info(), "threads": args.threads,
            "loadavg_start": load_start, "loadavg_end": os.getloadavg(),
            "graft_revision": git_revision(REPO), "graft_target": graft_target_line(args.graft),
            "graft_outputs": args.graft_outputs, "clock": args.clock, "peers": peer_info(runner),
            "quick": args.quick, "reps": args.reps, "rounds": args.rounds,
            "budget_ms": args.budget_ms,
            "min_sample_ms": args.min_sample_ms, "numpy": np.__version__,
            "dropped_env": DROPPED_ENV, "python": sys.executable,
            "bundles_build_s": {g: s for g, (_, s) in runner.bundles.items()},
            "build_time": build}
    for line in header(meta):
        print(line)
    print()
    print_table(*table_lines(rows))
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump({"meta": meta, "results": rows, "errors": runner.errors}, f, indent=1)
    print("json: %s" % args.json)
    failed = {r["case"] for r in rows if any(p["status"] == "failed" for p in r["peers"])}
    passed = len({r["case"] for r in rows} - failed)
    print("%d of %d cases passed, %d failures" % (passed, len(cases), len(runner.errors)))
    for e in runner.errors:
        print("error: " + e)
    return 1 if runner.errors else 0


if __name__ == "__main__":
    sys.exit(main())
