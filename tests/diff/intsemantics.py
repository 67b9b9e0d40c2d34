#!/usr/bin/env python3
"""Integer semantics, end to end, against Python's exact integers.

graft divides integers one way everywhere (runtime/include/graft/expr.h):
floor division, remainder with the sign of the divisor. Index arithmetic at
function level (the host program) is checked: a result outside int64 or a
zero divisor is an error. Tensor elements wrap in their width and never fail:
x / 0 = 0, x % 0 = x. This script checks, for boundary values (INT_MIN, -1,
0, ...) and every op:

  index   graft eval and the compiled bundle (runtime host expressions) on
          index arguments: same value, or both refuse with the same reason
  folded  the same ops on constants, folded at compile time: the bundle
          returns the value, or `graft build` reports the overflow / zero
          divisor at the op
  tensor  element-wise integer maps in i8, i32 and i64: bundle == eval ==
          Python, bit for bit, on every --runner given (natively, qemu)

usage: intsemantics.py --graft G --graft-run R [--runner "qemu-aarch64 R"]...
       --workdir DIR
"""

import argparse
import os
import shlex
import subprocess
import sys

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
VALUES = [INT64_MIN, INT64_MIN + 1, -7, -2, -1, 0, 1, 2, 7, INT64_MAX - 1, INT64_MAX]

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def floor_div(a, b):
    return a // b  # Python floors


def floor_rem(a, b):
    return a % b  # sign of the divisor


# Function-level ops: graph op -> (arity, exact result or an error word).
def index_op(op, a, b):
    if op in ("div", "rem") and b == 0:
        return "by zero"
    r = {
        "add": lambda: a + b,
        "sub": lambda: a - b,
        "mul": lambda: a * b,
        "div": lambda: floor_div(a, b),
        "rem": lambda: floor_rem(a, b),
        "max": lambda: max(a, b),
        "min": lambda: min(a, b),
        "neg": lambda: -a,
        "abs": lambda: abs(a),
    }[op]()
    return r if INT64_MIN <= r <= INT64_MAX else "overflows 64 bits"


BINARY = ["add", "sub", "mul", "div", "rem", "max", "min"]
UNARY = ["neg", "abs"]


def pairs(op):
    if op in UNARY:
        return [(a, 0) for a in VALUES]
    return [(a, b) for a in VALUES for b in VALUES]


def op_line(op, res, a, b):
    if op in UNARY:
        return f"  {res} = {op} {a} : index"
    return f"  {res} = {op} {a}, {b} : index"


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def scalars(text):
    """'index=5' lines -> [5, ...]."""
    return [int(line.split("=", 1)[1]) for line in text.split("\n") if "=" in line]


def check_index(opts, work):
    """Runtime host expressions vs the evaluator, on arguments."""
    lines = []
    cases = {}
    for op in BINARY + UNARY:
        ok = [(a, b) for a, b in pairs(op) if isinstance(index_op(op, a, b), int)]
        bad = [(a, b) for a, b in pairs(op) if not isinstance(index_op(op, a, b), int)]
        cases[op] = (ok, bad)
        # One function over every pair that has a value ...
        args = ", ".join(f"%a{i}: index, %b{i}: index" for i in range(len(ok)))
        lines.append(f"func @{op}_ok({args}) -> ({', '.join(['index'] * len(ok))}) {{")
        for i in range(len(ok)):
            lines.append(op_line(op, f"%r{i}", f"%a{i}", f"%b{i}"))
        lines.append("  return " + ", ".join(f"%r{i}" for i in range(len(ok))))
        lines.append("}")
        # ... and one over a single pair for the ones that fail.
        lines.append(f"func @{op}_one(%a: index, %b: index) -> index {{")
        lines.append(op_line(op, "%r", "%a", "%b"))
        lines.append("  return %r")
        lines.append("}")
    graph = os.path.join(work, "index.graph")
    bundle = os.path.join(work, "index.graft")
    with open(graph, "w") as f:
        f.write("\n".join(lines) + "\n")
    rc, out = run([opts.graft, "build", graph, "-o", bundle, "--target", opts.targets])
    if rc:
        fail("index: build failed:\n" + out)
        return
    for op, (ok, bad) in cases.items():
        inputs = []
        for a, b in ok:
            # index arguments given as index and as i64 (both are accepted)
            inputs += ["--input", f"index={a}", "--input", f"i64={b}"]
        want = [index_op(op, a, b) for a, b in ok]
        rc, ev = run([opts.graft, "eval", graph, "--function", f"{op}_ok"] + inputs)
        if rc or scalars(ev) != want:
            fail(f"index {op}: graft eval gives {ev.strip()[:300]}, want {want}")
        for runner in opts.runners:
            rc, rn = run(runner + [bundle, "--function", f"{op}_ok"] + inputs)
            if rc or scalars(rn) != want:
                fail(f"index {op} ({runner[0]}): bundle gives {rn.strip()[:300]}, want {want}")
        for a, b in bad:
            why = index_op(op, a, b)
            args = ["--input", f"index={a}", "--input", f"index={b}"]
            rc, ev = run([opts.graft, "eval", graph, "--function", f"{op}_one"] + args)
            if rc == 0 or why not in ev:
                fail(f"index {op} {a} {b}: graft eval should fail with '{why}': {ev.strip()}")
            rc, rn = run(opts.runners[0] + [bundle, "--function", f"{op}_one"] + args)
            if rc == 0 or why not in rn:
                fail(f"index {op} {a} {b}: bundle should fail with '{why}': {rn.strip()}")


def check_folded(opts, work):
    """The same arithmetic on constants, folded by graft build."""
    lines, bad_lines, bad_want = [], [], []
    ok_cases = {}
    for op in BINARY + UNARY:
        ok = [(a, b) for a, b in pairs(op) if isinstance(index_op(op, a, b), int)]
        ok_cases[op] = ok
        lines.append(f"func @{op}() -> ({', '.join(['index'] * len(ok))}) {{")
        for i, (a, b) in enumerate(ok):
            lines.append(f"  %a{i} = constant {a} : index")
            lines.append(f"  %b{i} = constant {b} : index")
            lines.append(op_line(op, f"%r{i}", f"%a{i}", f"%b{i}"))
        lines.append("  return " + ", ".join(f"%r{i}" for i in range(len(ok))))
        lines.append("}")
    # Every failing pair in one function: each is reported at its op.
    bad_lines.append("func @bad() -> index {")
    k = 0
    for op in BINARY + UNARY:
        for a, b in pairs(op):
            why = index_op(op, a, b)
            if isinstance(why, int):
                continue
            bad_lines.append(f"  %a{k} = constant {a} : index")
            bad_lines.append(f"  %b{k} = constant {b} : index")
            bad_lines.append(op_line(op, f"%r{k}", f"%a{k}", f"%b{k}"))
            bad_want.append((len(bad_lines), op, why))
            k += 1
    bad_lines.append("  %z = constant 0 : index")
    bad_lines.append("  return %z")
    bad_lines.append("}")

    graph = os.path.join(work, "folded.graph")
    bundle = os.path.join(work, "folded.graft")
    with open(graph, "w") as f:
        f.write("\n".join(lines) + "\n")
    rc, out = run([opts.graft, "build", graph, "-o", bundle])
    if rc:
        fail("folded: build failed:\n" + out)
    else:
        for op, ok in ok_cases.items():
            want = [index_op(op, a, b) for a, b in ok]
            rc, rn = run(opts.runners[0] + [bundle, "--function", op])
            if rc or scalars(rn) != want:
                fail(f"folded {op}: bundle gives {rn.strip()[:300]}, want {want}")
    bad = os.path.join(work, "folded_bad.graph")
    with open(bad, "w") as f:
        f.write("\n".join(bad_lines) + "\n")
    rc, out = run([opts.graft, "build", bad, "-o", os.path.join(work, "bad.graft")])
    if rc == 0:
        fail("folded: overflowing constants built without an error")
    for line, op, why in bad_want:
        needle = f"folded_bad.graph:{line}:"
        found = [l for l in out.split("\n") if needle in l and f"'{op}':" in l and why in l]
        if not found:
            fail(f"folded: no error '{why}' at {needle} ('{op}')")
    if out.count(": error: ") != len(bad_want):
        fail(f"folded: {out.count(': error: ')} errors for {len(bad_want)} failing folds")


# Tensor elements: wrap in the width, never fail.
def wrap(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def element_op(op, a, b, bits):
    if op == "div":
        r = 0 if b == 0 else floor_div(a, b)
    elif op == "rem":
        r = a if b == 0 else floor_rem(a, b)
    else:
        r = {"add": a + b, "sub": a - b, "mul": a * b, "max": max(a, b), "min": min(a, b),
             "neg": -a, "abs": abs(a)}[op]
    return wrap(r, bits)


def elements(text):
    body = text.split("=", 1)[1]
    return [int(x) for x in body.replace("[", " ").replace("]", " ").split()]


def check_tensor(opts, work):
    for bits in (8, 32, 64):
        t = f"i{bits}"
        lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
        vals = [lo, lo + 1, -7, -2, -1, 0, 1, 2, 7, hi - 1, hi]
        a = [x for x in vals for _ in vals]
        b = [y for _ in vals for y in vals]
        n = len(a)
        lines = []
        for op in BINARY + UNARY:
            operands = "%a" if op in UNARY else "%a, %b"
            body = f"%0 = {op} %x : {t}" if op in UNARY else f"%0 = {op} %x, %y : {t}"
            lines += [
                f"func @{op}(%a: tensor<?x{t}>, %b: tensor<?x{t}>) -> tensor<?x{t}> {{",
                f"  %r = map {operands} : tensor<?x{t}> {{",
                f"  ^bb0(%x: {t}" + ("" if op in UNARY else f", %y: {t}") + "):",
                f"    {body}",
                "    yield %0",
                "  }",
                "  return %r",
                "}",
            ]
        graph = os.path.join(work, f"tensor_{t}.graph")
        bundle = os.path.join(work, f"tensor_{t}.graft")
        with open(graph, "w") as f:
            f.write("\n".join(lines) + "\n")
        rc, out = run([opts.graft, "build", graph, "-o", bundle, "--target", opts.targets])
        if rc:
            fail(f"tensor {t}: build failed:\n{out}")
            continue
        inputs = ["--input", f"{n}x{t}=[{' '.join(map(str, a))}]",
                  "--input", f"{n}x{t}=[{' '.join(map(str, b))}]"]
        for op in BINARY + UNARY:
            want = [element_op(op, x, y, bits) for x, y in zip(a, b)]
            rc, ev = run([opts.graft, "eval", graph, "--function", op] + inputs)
            if rc or elements(ev) != want:
                fail(f"tensor {t} {op}: graft eval gives {ev.strip()[:300]}")
            for runner in opts.runners:
                rc, rn = run(runner + [bundle, "--function", op] + inputs)
                if rc or rn != ev:
                    fail(f"tensor {t} {op} ({runner[0]}): bundle gives {rn.strip()[:300]}, "
                         f"graft eval {ev.strip()[:300]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graft", required=True)
    ap.add_argument("--graft-run", required=True)
    ap.add_argument("--runner", action="append", default=[],
                    help="a command that runs graft-run for another target, e.g. "
                         "'qemu-aarch64 path/to/graft-run'")
    ap.add_argument("--targets", default="x86_64",
                    help="targets the tensor bundles are built for (one per --runner)")
    ap.add_argument("--workdir", required=True)
    opts = ap.parse_args()
    opts.runners = [[opts.graft_run]] + [shlex.split(r) for r in opts.runner]
    check_index(opts, opts.workdir)
    check_folded(opts, opts.workdir)
    check_tensor(opts, opts.workdir)
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("integer semantics agree: evaluator, bundle (host program, folding, elements)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
