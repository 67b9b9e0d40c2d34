#!/usr/bin/env python3
"""The reference evaluator's gather, slice, concat and iota against numpy
(np.take, Python slicing, np.concatenate, np.arange), on random shapes, indices and bounds
(slice bounds as literals and as run-time index operands): graft eval runs
tests/e2e/inputs/data_movement.graph and a generated slice graph per case.

usage: data_movement_numpy.py GRAFT GRAPH WORKDIR"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from graft_eval import GraftEval, same  # noqa: E402

graft, graph, work = sys.argv[1:4]
rng = np.random.default_rng(20261123)
INT64_MAX, INT64_MIN = 2**63 - 1, -2**63


graft_eval = GraftEval(graft, work)
run = graft_eval.run


def evaluate(graph_path, fn, inputs):
    return graft_eval.evaluate(graph_path, inputs, function=fn)


cases = 0
for _ in range(12):
    x = rng.standard_normal(tuple(rng.integers(1, 6, size=3))).astype(np.float32)
    n = x.shape[1]
    i = rng.integers(-n, n, size=tuple(rng.integers(1, 4, size=2)))
    same(evaluate(graph, "take", [x, i]), np.take(x, i, axis=1), "take %s %s" % (x.shape, i.tolist()))
    cases += 1

# Slices: random bounds (past either end too), steps of both signs.
for _ in range(30):
    shape = tuple(int(d) for d in rng.integers(1, 7, size=2))
    x = rng.standard_normal(shape).astype(np.float32)
    starts, ends, steps, index = [], [], [], []
    for d in shape:
        s, e = (int(v) for v in rng.integers(-d - 3, d + 3, size=2))
        st = int(rng.choice([-3, -2, -1, 1, 2, 3]))
        if rng.random() < 0.2:
            e = INT64_MAX if st > 0 else INT64_MIN
        starts.append(s); ends.append(e); steps.append(st)
        index.append(slice(s, e, st))
    want = x[tuple(index)]
    if 0 in want.shape:
        continue
    res = "tensor<%sxf32>" % "x".join(str(d) for d in want.shape)
    text = ("func @f(%%x: tensor<?x?xf32>) -> %s {\n"
            "  %%s = slice %%x {starts = %s, ends = %s, steps = %s} : %s\n"
            "  return %%s\n}\n" % (res, starts, ends, steps, res))
    path = "%s/slice.graph" % work
    with open(path, "w") as f:
        f.write(text)
    same(evaluate(path, "f", [x]), want, "x%s[%s]" % (shape, index))
    cases += 1

# The same with some bounds given when the graph runs ('?' and an index
# operand each): Python's rules apply to the run-time value.
for _ in range(30):
    shape = tuple(int(d) for d in rng.integers(1, 7, size=2))
    x = rng.standard_normal(shape).astype(np.float32)
    lists = {"starts": [], "ends": []}
    values = {"starts": [], "ends": []}
    steps, index = [], []
    for d in shape:
        s, e = (int(v) for v in rng.integers(-d - 3, d + 3, size=2))
        st = int(rng.choice([-3, -2, -1, 1, 2, 3]))
        for key, v in (("starts", s), ("ends", e)):
            dynamic = rng.random() < 0.6
            lists[key].append("?" if dynamic else str(v))
            if dynamic:
                values[key].append(v)
        steps.append(st)
        index.append(slice(s, e, st))
    want = x[tuple(index)]
    bounds = values["starts"] + values["ends"]
    params = "".join(", %%b%d: index" % k for k in range(len(bounds)))
    operands = "".join(", %%b%d" % k for k in range(len(bounds)))
    text = ("func @f(%%x: tensor<?x?xf32>%s) -> tensor<?x?xf32> {\n"
            "  %%s = slice %%x%s {starts = [%s], ends = [%s], steps = %s} : tensor<?x?xf32>\n"
            "  return %%s\n}\n" % (params, operands, ", ".join(lists["starts"]),
                                   ", ".join(lists["ends"]), steps))
    path = "%s/dslice.graph" % work
    with open(path, "w") as f:
        f.write(text)
    np.save("%s/x.npy" % work, x)
    run([path, "--function", "f", "--input", "@%s/x.npy" % work] +
        [a for b in bounds for a in ("--input", "index=%d" % b)] +
        ["--output", "@%s/out.npy" % work])
    same(np.load("%s/out.npy" % work), want, "x%s[%s] with run-time bounds" % (shape, index))
    cases += 1

for _ in range(8):
    outer = tuple(int(d) for d in rng.integers(1, 4, size=2))
    parts = [rng.integers(-50, 50, size=outer + (int(rng.integers(0, 4)),)).astype(np.int32)
             for _ in range(3)]
    if sum(p.shape[2] for p in parts) == 0:
        continue
    same(evaluate(graph, "join", parts), np.concatenate(parts, axis=2), "join")
    cases += 1

n = int(rng.integers(1, 40))
args = [graph, "--function", "count", "--input", "index=%d" % n, "--output", "@%s/out.npy" % work]
run(args)
same(np.load("%s/out.npy" % work), np.tile(np.arange(n, dtype=np.float32), (3, 1)), "iota")
cases += 1

x = rng.standard_normal((5, 6, 9)).astype(np.float32)
same(evaluate(graph, "window", [x]), x[-2::-1, 1::2, 7:-8:-3], "window")
print("numpy agrees on %d cases" % (cases + 1))
