#!/usr/bin/env python3
"""Differential tests: compiled bundles against the reference evaluator.

For every graph in tests/diff/graphs/*.graph this builds one bundle (all
--build-targets in one FatELF), then for several rounds picks random sizes
for the symbolic dimensions declared in the graph's header, writes random
inputs as .npy files, runs `graft eval` (the reference) and `graft-run` on
the bundle (natively, or for another --target under its qemu), and compares the
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
A rank-0 tensor argument is written `s=scalar`. Every function of the graph
is tested. Scalar arguments (f32, i32, index, ...) get one random value in
their range, passed as `--input f32=1.5`. Sizes: round 0 puts every symbol
at the low end of its range, round 1 uses primes, later rounds mix sizes
around vector widths (15, 16, 17, 31, ...) with uniform draws.

The run is reproducible: one seed (--seed, default fixed; "random" picks
one) determines every size and value; a failure prints the command line
that repeats exactly that graph and round, and keeps its files.
"""


import argparse
import concurrent.futures
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

from diffcompare import compare, tolerance
from difftargets import runner, targets
from diffgraph import GraphError, make_inputs, parse_graph, rng_for

DEFAULT_SEED = 20251122


def run(cmd, timeout):
    # A binary that is being relinked in a shared build directory cannot be
    # started for a moment (EACCES, ETXTBSY): wait for it rather than fail.
    for attempt in range(20):
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=timeout, text=True, errors="replace")
            return p.returncode, p.stdout
        except OSError as e:
            if attempt == 19:
                return 126, f"cannot run {cmd[0]}: {e}"
            time.sleep(3)


class Case:
    """One function of one graph, with its bundle."""

    def __init__(self, graph, fn, header, bundle):
        self.graph, self.fn, self.header, self.bundle = graph, fn, header, bundle
        self.gname = os.path.basename(graph)


def variant_runner(opts, variant):
    """graft-run's command prefix for one round: the target's runner, or for
    a forced ISA variant (LEVEL or LEVEL@QEMU_CPU) the same under that qemu
    CPU model, with --isa LEVEL."""
    if variant is None:
        return opts.runner
    level, _, model = variant.partition("@")
    runner = opts.runner
    if model:
        runner = [opts.qemu, "-cpu", model, opts.runner[-1]]
    return runner + ["--isa", level]


def run_round(opts, case, rnd, workdir, variant=None):
    """Runs one round; returns (ok, report lines, max abs err, max rel err)."""
    fn, header = case.fn, case.header
    rng = rng_for(opts.seed, case.gname, fn.name, rnd)
    inputs, sizes = make_inputs(fn, header, case.gname, rng, rnd, workdir)
    threads = int(rng.integers(1, 5))
    in_args = [x for i in inputs for x in ("--input", i)]
    refs = [os.path.join(workdir, f"ref{i}.npy") for i in range(fn.num_results)]
    outs = [os.path.join(workdir, f"out{i}.npy") for i in range(fn.num_results)]
    what = f"{case.gname} @{fn.name} round {rnd} sizes {sizes}"
    if variant:
        what += f" isa {variant}"

    ref_cmd = [opts.graft, "eval", case.graph, "--function", fn.name] + in_args + \
        [x for r in refs for x in ("--output", "@" + r)]
    rc, out = run(ref_cmd, opts.timeout)
    if rc != 0:
        return False, [f"{what}: graft eval failed (exit {rc}):", out.rstrip(),
                       "  " + shlex.join(ref_cmd)], 0, 0
    run_cmd = variant_runner(opts, variant) + [case.bundle, "--function", fn.name, "--threads", str(threads)] + \
        in_args + [x for o in outs for x in ("--output", "@" + o)]
    rc, out = run(run_cmd, opts.timeout)
    if rc != 0:
        return False, [f"{what}: graft-run failed (exit {rc}):", out.rstrip(),
                       "  " + shlex.join(run_cmd)], 0, 0
    max_abs = max_rel = 0.0
    for i, (r, o) in enumerate(zip(refs, outs)):
        ref, got = np.load(r), np.load(o)
        ok, msg, a, rl = compare(ref, got, tolerance(ref.dtype, header))
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
        # The rounds at the variant the CPU picks, then one round per
        # forced variant (--variant), on sizes of their own.
        rounds = [(r, None) for r in range(opts.rounds)] + \
            [(opts.rounds + i, v) for i, v in enumerate(opts.variant)]
        if opts.round is not None:
            rounds = [r for r in rounds if r[0] == opts.round]
        for rnd, variant in rounds:
            workdir = os.path.join(gdir, f"{fn.name}.{rnd}")
            os.makedirs(workdir, exist_ok=True)
            try:
                good, msgs, a, r = run_round(opts, case, rnd, workdir, variant)
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
                    help="graft-run binary of the host")
    ap.add_argument("--target", help="run the bundles' slices for this target (default: "
                    "the host's): natively, or its cross-built graft-run under its qemu")
    ap.add_argument("--cross-dir", default=os.path.join(os.environ.get("BIN", "build"), "cross"),
                    help="where the cross-built graft-run of each target is "
                    "(<dir>/<target>/graft-run; default: %(default)s)")
    ap.add_argument("--build-targets",
                    help="targets of every bundle (default: the --target)")
    ap.add_argument("--graphs", default=os.path.join(here, "graphs"))
    ap.add_argument("--graph", action="append", default=[],
                    help="only this graph file name (repeatable)")
    ap.add_argument("--function", help="only this function")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--variant", action="append", default=[],
                    help="one more round with this ISA variant forced: LEVEL (graft-run "
                    "--isa) or LEVEL@MODEL (under the target's qemu with -cpu MODEL); "
                    "repeatable")
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
    for tool in (opts.graft, opts.graft_run):
        if not shutil.which(tool):
            print(f"difftest: error: cannot run '{tool}'", file=sys.stderr)
            return 2
    if opts.target is None:
        opts.target = next(t.name for t in targets(opts.graft) if t.host)
    try:
        opts.runner = runner(opts.graft, opts.graft_run, os.path.abspath(opts.cross_dir),
                             opts.target)
    except ValueError as e:
        print(f"difftest: error: {e}", file=sys.stderr)
        return 2
    opts.qemu = next(t.qemu for t in targets(opts.graft) if t.name == opts.target)
    opts.build_targets = opts.build_targets or opts.target
    opts.repro_args = ["--graft", opts.graft, "--graft-run", opts.graft_run,
                       "--target", opts.target, "--cross-dir", os.path.abspath(opts.cross_dir),
                       "--build-targets", opts.build_targets] + \
        [x for v in opts.variant for x in ("--variant", v)]

    graphs = sorted(os.path.join(opts.graphs, g) for g in os.listdir(opts.graphs)
                    if g.endswith(".graph") and (not opts.graph or g in opts.graph))
    if not graphs:
        print(f"difftest: error: no graphs matched in {opts.graphs}", file=sys.stderr)
        return 2
    print(f"difftest: seed {opts.seed}, {len(graphs)} graphs, "
          f"{opts.rounds if opts.round is None else 1} rounds, runner {shlex.join(opts.runner)}"
          + "".join(f", one round at isa {v}" for v in opts.variant),
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
