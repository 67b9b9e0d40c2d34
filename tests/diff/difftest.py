#!/usr/bin/env python3
"""Differential tests: compiled bundles against the reference evaluator.

For every graph in tests/diff/graphs/*.graph this builds one bundle (all
--build-targets in one FatELF), then for several rounds picks random sizes
for the symbolic dimensions declared in the graph's header, writes random
inputs as .npy files, runs `graft eval` (the reference) and `graft-run` on
the bundle (natively, or under qemu through --runner), and compares the
results: integers exactly, floats within atol + rtol * |expected|.

Header comments of a graph (all optional except `diff:` for tensor args):
  // diff: lhs=MxK rhs=KxN      shapes of tensor arguments, in symbols or
                                numbers ('?' dims of the signature must be
                                covered; static dims are checked)
  // diff @fn: x=N              shapes for one function only
  // diff-range: x=0.1..10      value range of an argument (default by dtype)
  // diff-size: M=1..8          size range of a symbol (default 1..70)
  // diff-tol: atol=1e-4 rtol=1e-5   float tolerance for this graph
  // diff-special: x y          also put NaN, +-inf, +-0, denormals and huge
                                values into these float arguments
  // diff-xfail[ @fn]: reason   a known bug: a failure is reported as XFAIL,
                                a pass as XPASS (an error: remove the line)
Every function of the graph is tested. Scalar arguments get one random
value in their range, passed as `--input f32=1.5`.

The run is reproducible: one seed (--seed, default fixed; "random" picks
one) determines every size and value; a failure prints the command line
that repeats exactly that graph and round, and keeps its files.
"""

import argparse
import concurrent.futures
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

import numpy as np

DEFAULT_SEED = 20251122

NP_DTYPES = {
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
    "i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32,
    "i64": np.int64, "index": np.int64,
}
DEFAULT_RANGES = {
    "f16": (-2.0, 2.0), "f32": (-2.0, 2.0), "f64": (-2.0, 2.0),
    "i1": (0, 1), "i8": (-128, 127), "i16": (-1000, 1000),
    "i32": (-100, 100), "i64": (-1000, 1000), "index": (0, 100),
}
# Default float tolerances: |got - ref| <= atol + rtol * |ref|.
DEFAULT_TOL = {"f16": (1e-2, 1e-2), "f32": (1e-5, 1e-5), "f64": (1e-12, 1e-12)}

# Sizes that catch vector-width and tail bugs: 1, primes, around powers of 2;
# 0 only where a graph allows it (diff-size: M=0..N).
INTERESTING_SIZES = [0, 1, 2, 3, 4, 5, 7, 8, 9, 13, 15, 16, 17, 23, 31, 32, 33,
                     47, 63, 64, 65, 67, 70]
PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67]
# Largest element count of one argument; sizes are redrawn above it so that
# the reference evaluator (and qemu) stay fast.
MAX_ELEMENTS = 60000


class GraphError(Exception):
    """A malformed graph header or signature (a bug in the test itself)."""


# ---------------------------------------------------------------- parsing


class Arg:
    def __init__(self, name, elem, dims):
        self.name = name      # without '%'
        self.elem = elem      # "f32"
        self.dims = dims      # None for a scalar; list of int or None ('?')

    @property
    def is_scalar(self):
        return self.dims is None


class Function:
    def __init__(self, name, args, num_results):
        self.name = name
        self.args = args
        self.num_results = num_results


def parse_type(text, where):
    text = text.strip()
    m = re.fullmatch(r"tensor<(.*)>", text)
    if not m:
        if text not in NP_DTYPES:
            raise GraphError(f"{where}: unsupported type '{text}'")
        return text, None
    parts = m.group(1).split("x")
    elem = parts[-1]
    if elem not in NP_DTYPES:
        raise GraphError(f"{where}: unsupported element type '{elem}'")
    dims = [None if p == "?" else int(p) for p in parts[:-1]]
    return elem, dims


def count_results(text):
    text = text.strip()
    if not text:
        return 0
    if text.startswith("("):
        inner = text[1:text.rindex(")")]
        return len([t for t in re.split(r",(?![^<]*>)", inner) if t.strip()])
    return 1


def parse_graph(path):
    """Returns (functions, header) for one graph file."""
    text = open(path).read()
    name = os.path.basename(path)
    functions = []
    for m in re.finditer(r"^\s*func\s+@(\w+)\s*\(([^)]*)\)\s*(->\s*(\([^{]*\)|[^{]*))?\{",
                         text, re.M):
        args = []
        for a in filter(None, (s.strip() for s in re.split(r",(?![^<]*>)", m.group(2)))):
            am = re.fullmatch(r"%(\w+)\s*:\s*(.+)", a)
            if not am:
                raise GraphError(f"{name}: cannot read argument '{a}' of @{m.group(1)}")
            elem, dims = parse_type(am.group(2), f"{name}: @{m.group(1)} %{am.group(1)}")
            args.append(Arg(am.group(1), elem, dims))
        results = m.group(4) or ""
        functions.append(Function(m.group(1), args, count_results(results)))
    if not functions:
        raise GraphError(f"{name}: no functions found")

    header = {"shapes": {}, "ranges": {}, "sizes": {}, "tol": {}, "special": set(), "xfail": {}}
    for line in text.splitlines():
        hm = re.match(r"\s*//\s*(diff(?:-\w+)?)(\s+@\w+)?\s*:(.*)", line)
        if not hm:
            continue
        key, fn, rest = hm.group(1), (hm.group(2) or "").strip()[1:], hm.group(3)
        pairs = [p.split("=", 1) for p in rest.split()]
        if key not in ("diff-special", "diff-xfail") and any(len(p) != 2 for p in pairs):
            raise GraphError(f"{name}: bad header line '{line.strip()}' (expected name=value ...)")
        if key == "diff":
            header["shapes"].setdefault(fn, {}).update(dict(pairs))
        elif key == "diff-range":
            for k, v in pairs:
                lo, _, hi = v.partition("..")
                header["ranges"][k] = (float(lo), float(hi))
        elif key == "diff-size":
            for k, v in pairs:
                lo, _, hi = v.partition("..")
                header["sizes"][k] = (int(lo), int(hi))
        elif key == "diff-special":
            header["special"].update(rest.split())
        elif key == "diff-xfail":
            header["xfail"][fn] = rest.strip()
        elif key == "diff-tol":
            header["tol"].update({k: float(v) for k, v in pairs})
        else:
            raise GraphError(f"{name}: unknown header '{key}'")
    return functions, header


def arg_shape_spec(fn, arg, header, gname):
    """The shape of a tensor argument as a list of int or symbol names."""
    spec = header["shapes"].get(fn.name, {}).get(arg.name) or \
        header["shapes"].get("", {}).get(arg.name)
    if spec is None:
        if all(d is not None for d in arg.dims):
            return list(arg.dims)
        raise GraphError(f"{gname}: @{fn.name} %{arg.name} has dynamic dims but no "
                         f"'// diff: {arg.name}=...' shape")
    if spec in ("scalar", "0") and not arg.dims:
        return []
    parts = spec.split("x")
    if len(parts) != len(arg.dims):
        raise GraphError(f"{gname}: shape '{spec}' of %{arg.name} has rank {len(parts)}, "
                         f"the signature has rank {len(arg.dims)}")
    out = []
    for p, d in zip(parts, arg.dims):
        v = int(p) if p.isdigit() else p
        if d is not None and v != d:
            raise GraphError(f"{gname}: shape '{spec}' of %{arg.name} disagrees with the "
                             f"static size {d}")
        out.append(v)
    return out


# ---------------------------------------------------------------- inputs


def rng_for(seed, *parts):
    key = [seed] + [zlib.crc32(str(p).encode()) for p in parts]
    return np.random.default_rng(key)


def pick_sizes(rng, symbols, header, rnd):
    """Round 0: every symbol 1; round 1: primes; then interesting or random."""
    out = {}
    for s in sorted(symbols):
        lo, hi = header["sizes"].get(s, (1, 70))
        if rnd == 0:
            v = lo
        elif rnd == 1:
            cands = [p for p in PRIMES if lo <= p <= hi] or [hi]
            v = int(rng.choice(cands))
        elif rng.random() < 0.6:
            cands = [x for x in INTERESTING_SIZES if lo <= x <= hi] or [hi]
            v = int(rng.choice(cands))
        else:
            v = int(rng.integers(lo, hi + 1))
        out[s] = v
    return out


def random_values(rng, elem, shape, rng_range):
    lo, hi = rng_range
    dt = NP_DTYPES[elem]
    if elem == "i1":
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(dt, np.integer):
        return rng.integers(int(lo), int(hi) + 1, size=shape, dtype=np.int64).astype(dt)
    return rng.uniform(lo, hi, size=shape).astype(dt)


def add_special_values(rng, values):
    """Replaces about a quarter of the elements by IEEE special cases."""
    finfo = np.finfo(values.dtype)
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, finfo.tiny / 4,
                        -finfo.tiny / 4, finfo.max, -finfo.max, 1.0, -1.0], dtype=values.dtype)
    flat = values.reshape(-1)
    pick = rng.random(flat.size) < 0.25
    flat[pick] = rng.choice(special, size=int(pick.sum()))
    return flat.reshape(values.shape)


def scalar_text(elem, value):
    if elem in ("f16", "f32", "f64"):
        return f"{elem}={float(value)!r}"
    if elem == "i1":
        return f"i1={int(bool(value))}"
    # index arguments are passed as i64 (the runtime's rule)
    return f"{'i64' if elem == 'index' else elem}={int(value)}"


def make_inputs(fn, header, gname, rng, rnd, workdir):
    """Writes the inputs of one round; returns (--input values, sizes)."""
    specs = {a.name: arg_shape_spec(fn, a, header, gname) for a in fn.args if not a.is_scalar}
    symbols = {d for sp in specs.values() for d in sp if isinstance(d, str)}
    for attempt in range(50):
        sizes = pick_sizes(rng, symbols, header, rnd)
        shapes = {n: [sizes[d] if isinstance(d, str) else d for d in sp]
                  for n, sp in specs.items()}
        if all(int(np.prod(s)) <= MAX_ELEMENTS for s in shapes.values()):
            break
        if rnd == 0 or attempt == 49:  # the small rounds always fit
            while any(int(np.prod(s)) > MAX_ELEMENTS for s in shapes.values()):
                big = max(sizes, key=sizes.get)
                sizes[big] = max(1, sizes[big] // 2)
                shapes = {n: [sizes[d] if isinstance(d, str) else d for d in sp]
                          for n, sp in specs.items()}
            break
    inputs = []
    for i, a in enumerate(fn.args):
        r = header["ranges"].get(a.name, DEFAULT_RANGES[a.elem])
        if a.is_scalar:
            inputs.append(scalar_text(a.elem, random_values(rng, a.elem, (), r)))
            continue
        path = os.path.join(workdir, f"in{i}.npy")
        values = random_values(rng, a.elem, tuple(shapes[a.name]), r)
        if a.name in header["special"]:
            values = add_special_values(rng, values)
        np.save(path, values)
        inputs.append("@" + path)
    return inputs, sizes


# ---------------------------------------------------------------- running


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, text=True, errors="replace")
    except OSError as e:  # e.g. the binary is being relinked
        return 126, f"cannot run {cmd[0]}: {e}"
    return p.returncode, p.stdout


def compare(ref, got, elem_tol):
    """Returns (ok, message, max_abs_err, max_rel_err)."""
    if ref.shape != got.shape:
        return False, f"shape differs: got {got.shape}, expected {ref.shape}", 0, 0
    if ref.dtype != got.dtype:
        return False, f"dtype differs: got {got.dtype}, expected {ref.dtype}", 0, 0
    if ref.size == 0:
        return True, "", 0, 0
    if not np.issubdtype(ref.dtype, np.floating):
        bad = np.argwhere(ref != got)
        if len(bad):
            i = tuple(bad[0])
            return (False, f"{len(bad)} of {ref.size} elements differ; first at "
                    f"{list(i)}: got {got[i]}, expected {ref[i]}", 0, 0)
        return True, "", 0, 0
    atol, rtol = elem_tol
    r, g = ref.astype(np.float64), got.astype(np.float64)
    nan_r, nan_g = np.isnan(r), np.isnan(g)
    same_inf = np.isinf(r) & (r == g)
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf, inf / inf
        err = np.where(nan_r | nan_g | same_inf, 0.0, np.abs(g - r))
        rel = err / np.maximum(np.abs(r), np.finfo(np.float64).tiny)
        bad = (nan_r != nan_g) | (np.isinf(r) & ~same_inf) | (err > atol + rtol * np.abs(r))
        # The sign of an exact zero is part of the result (max/min order -0
        # below +0; neg and mul produce -0).
        bad |= (r == 0) & (g == 0) & (np.signbit(r) != np.signbit(g))
    bad &= ~(nan_r & nan_g)
    max_abs = float(np.max(err))
    max_rel = float(np.max(np.where(np.abs(r) > atol, rel, 0.0)))
    if bad.any():
        i = tuple(np.argwhere(bad)[0])
        return (False, f"{int(bad.sum())} of {ref.size} elements differ; first at "
                f"{list(i)}: got {g[i]!r}, expected {r[i]!r} (atol {atol}, rtol {rtol}); "
                f"max abs error {max_abs:.3g}", max_abs, max_rel)
    return True, "", max_abs, max_rel


class Case:
    """One function of one graph, with its bundle."""

    def __init__(self, graph, fn, header, bundle):
        self.graph, self.fn, self.header, self.bundle = graph, fn, header, bundle
        self.gname = os.path.basename(graph)


def run_round(opts, case, rnd, workdir):
    """Runs one round; returns (ok, report lines, max abs err, max rel err)."""
    fn, header = case.fn, case.header
    rng = rng_for(opts.seed, case.gname, fn.name, rnd)
    inputs, sizes = make_inputs(fn, header, case.gname, rng, rnd, workdir)
    threads = int(rng.integers(1, 5))
    in_args = [x for i in inputs for x in ("--input", i)]
    refs = [os.path.join(workdir, f"ref{i}.npy") for i in range(fn.num_results)]
    outs = [os.path.join(workdir, f"out{i}.npy") for i in range(fn.num_results)]
    what = f"{case.gname} @{fn.name} round {rnd} sizes {sizes}"

    ref_cmd = [opts.graft, "eval", case.graph, "--function", fn.name] + in_args + \
        [x for r in refs for x in ("--output", "@" + r)]
    rc, out = run(ref_cmd, opts.timeout)
    if rc != 0:
        return False, [f"{what}: graft eval failed (exit {rc}):", out.rstrip(),
                       "  " + shlex.join(ref_cmd)], 0, 0
    run_cmd = opts.runner + [case.bundle, "--function", fn.name, "--threads", str(threads)] + \
        in_args + [x for o in outs for x in ("--output", "@" + o)]
    rc, out = run(run_cmd, opts.timeout)
    if rc != 0:
        return False, [f"{what}: graft-run failed (exit {rc}):", out.rstrip(),
                       "  " + shlex.join(run_cmd)], 0, 0
    max_abs = max_rel = 0.0
    for i, (r, o) in enumerate(zip(refs, outs)):
        ref, got = np.load(r), np.load(o)
        elem = {np.dtype(v): k for k, v in NP_DTYPES.items() if k != "index"}.get(ref.dtype, "f32")
        atol, rtol = DEFAULT_TOL.get(elem, (0, 0))
        tol = (header["tol"].get("atol", atol), header["tol"].get("rtol", rtol))
        ok, msg, a, rl = compare(ref, got, tol)
        max_abs, max_rel = max(max_abs, a), max(max_rel, rl)
        if not ok:
            return False, [f"{what}: result {i}: {msg}", "  reference: " + shlex.join(ref_cmd),
                           "  compiled:  " + shlex.join(run_cmd)], max_abs, max_rel
    return True, [f"{what}, {threads} threads"] if opts.verbose else [], max_abs, max_rel


def build(opts, graph, outdir):
    bundle = os.path.join(outdir, os.path.basename(graph).replace(".graph", ".graft"))
    cmd = [opts.graft, "build", graph, "--target", opts.build_targets, "-o", bundle]
    rc, out = run(cmd, opts.timeout)
    if rc != 0:
        return None, [f"{os.path.basename(graph)}: graft build failed (exit {rc}):",
                      out.rstrip(), "  " + shlex.join(cmd)]
    return bundle, []


def test_graph(opts, graph, tmp):
    """Builds one graph and runs every function for every round."""
    gname = os.path.basename(graph)
    start = time.monotonic()
    try:
        functions, header = parse_graph(graph)
    except GraphError as e:
        return False, [f"bad test graph: {e}"], f"FAIL {gname:32s} (header)"
    gdir = os.path.join(tmp, gname)
    os.makedirs(gdir, exist_ok=True)
    bundle, lines = build(opts, graph, gdir)
    if bundle is None:
        if "" in header["xfail"]:
            return True, [], f"XFAIL {gname:31s} (build; known bug: {header['xfail']['']})"
        return False, lines, f"FAIL {gname:32s} (build)"
    ok = True
    errs = [0.0, 0.0]
    counts = {"XFAIL": 0, "XPASS": 0}
    for fn in functions:
        if opts.function and fn.name != opts.function:
            continue
        xfail = header["xfail"].get(fn.name, header["xfail"].get(""))
        failed, fn_lines = False, []
        case = Case(graph, fn, header, bundle)
        rounds = [opts.round] if opts.round is not None else range(opts.rounds)
        for rnd in rounds:
            workdir = os.path.join(gdir, f"{fn.name}.{rnd}")
            os.makedirs(workdir, exist_ok=True)
            try:
                good, msgs, a, r = run_round(opts, case, rnd, workdir)
            except (GraphError, subprocess.TimeoutExpired) as e:
                good, msgs, a, r = False, [f"{gname} @{fn.name} round {rnd}: {e}"], 0, 0
            if good:
                errs = [max(errs[0], a), max(errs[1], r)]
                if opts.verbose:
                    fn_lines += [f"{m}: max abs err {a:.2g}, max rel err {r:.2g}" for m in msgs]
                shutil.rmtree(workdir, ignore_errors=True)
                continue
            failed = True
            kept = os.path.join(opts.keep_dir, f"{gname}.{fn.name}.{rnd}")
            shutil.rmtree(kept, ignore_errors=True)
            shutil.copytree(workdir, kept)
            shutil.copy(bundle, kept)
            # Point the printed commands at the kept copies.
            kept_bundle = os.path.join(kept, os.path.basename(bundle))
            msgs = [m.replace(workdir, kept).replace(bundle, kept_bundle) for m in msgs]
            fn_lines += msgs + [
                f"  inputs and outputs kept in {kept}",
                "  reproduce: " + shlex.join(
                    [sys.executable, os.path.abspath(__file__)] + opts.repro_args +
                    ["--seed", str(opts.seed), "--graph", gname, "--function", fn.name,
                     "--round", str(rnd)])]
            break  # one failure per function is enough
        if xfail is None:
            ok &= not failed
            lines += fn_lines
        elif failed:
            counts["XFAIL"] += 1
            lines.append(f"XFAIL @{fn.name} (known bug: {xfail})")
            if opts.verbose:
                lines += fn_lines
        else:
            ok = False
            counts["XPASS"] += 1
            lines.append(f"XPASS @{fn.name}: passes now; remove its diff-xfail line "
                         f"({xfail})")
    took = time.monotonic() - start
    extra = "".join(f"  {n} {k}" for k, n in counts.items() if n)
    summary = (f"{'ok  ' if ok else 'FAIL'} {gname:32s} {took:6.1f}s  "
               f"max abs err {errs[0]:.2g}  max rel err {errs[1]:.2g}{extra}")
    return ok, lines, summary


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graft", default=os.environ.get("GRAFT", "graft"))
    ap.add_argument("--graft-run", default=os.environ.get("GRAFT_RUN", "graft-run"),
                    help="graft-run binary (for another architecture: its cross build)")
    ap.add_argument("--runner", default="",
                    help="command prefix for graft-run, e.g. 'qemu-aarch64'")
    ap.add_argument("--build-targets", default="x86_64,aarch64",
                    help="targets of every bundle (default: %(default)s)")
    ap.add_argument("--graphs", default=os.path.join(here, "graphs"))
    ap.add_argument("--graph", action="append", default=[],
                    help="only this graph file name (repeatable)")
    ap.add_argument("--function", help="only this function")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--round", type=int, help="only this round")
    ap.add_argument("--seed", default=os.environ.get("GRAFT_DIFF_SEED", str(DEFAULT_SEED)),
                    help="seed of every size and value; 'random' picks one")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("-v", "--verbose", action="store_true", help="print every round")
    ap.add_argument("--keep-dir", default=os.path.abspath("difftest-failures"),
                    help="where the files of failing rounds are kept")
    opts = ap.parse_args()
    opts.seed = int(time.time() * 1000) % (1 << 31) if opts.seed == "random" else int(opts.seed)
    # Absolute tool paths, so that printed commands work from anywhere.
    opts.graft, opts.graft_run = (os.path.abspath(t) if os.sep in t else t
                                  for t in (opts.graft, opts.graft_run))
    opts.runner = shlex.split(opts.runner) + [opts.graft_run]
    opts.repro_args = ["--graft", opts.graft, "--graft-run", opts.graft_run,
                       "--build-targets", opts.build_targets]
    if len(opts.runner) > 1:
        opts.repro_args += ["--runner", shlex.join(opts.runner[:-1])]
    for tool in (opts.graft, opts.graft_run):
        if not shutil.which(tool):
            print(f"difftest: error: cannot run '{tool}'", file=sys.stderr)
            return 2

    graphs = sorted(os.path.join(opts.graphs, g) for g in os.listdir(opts.graphs)
                    if g.endswith(".graph") and (not opts.graph or g in opts.graph))
    if not graphs:
        print(f"difftest: error: no graphs matched in {opts.graphs}", file=sys.stderr)
        return 2
    print(f"difftest: seed {opts.seed}, {len(graphs)} graphs, "
          f"{opts.rounds if opts.round is None else 1} rounds, runner {shlex.join(opts.runner)}",
          flush=True)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="graft-diff.") as tmp, \
            concurrent.futures.ThreadPoolExecutor(max(1, opts.jobs)) as pool:
        for ok, lines, summary in pool.map(lambda g: test_graph(opts, g, tmp), graphs):
            print(summary, flush=True)
            for line in lines:
                print("  " + line, flush=True)
            failed += not ok
    if failed:
        print(f"difftest: {failed} of {len(graphs)} graphs FAILED (seed {opts.seed})")
        return 1
    print(f"difftest: all {len(graphs)} graphs passed (seed {opts.seed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
