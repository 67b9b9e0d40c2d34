#!/usr/bin/env python3
"""The reference evaluator's pad, tile and split against numpy (np.pad in
constant, edge and reflect modes, np.tile, np.split) on random shapes, pads,
repeat counts and split sizes: one generated graph per case through
graft eval.

usage: pad_tile_numpy.py GRAFT WORKDIR"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from graft_eval import GraftEval, lst, same  # noqa: E402

graft, work = sys.argv[1:3]
rng = np.random.default_rng(20261126)
TYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i8": np.int8}


def ty(shape, elem):
    return "tensor<" + "".join("%dx" % d for d in shape) + elem + ">"


evaluate = GraftEval(graft, work).evaluate_text


cases = 0
for _ in range(40):
    rank = int(rng.integers(1, 4))
    mode = str(rng.choice(["constant", "edge", "reflect"]))
    elem = str(rng.choice(list(TYPES)))
    shape = tuple(int(d) for d in rng.integers(0 if mode == "constant" else 1, 6, size=rank))
    low = rng.integers(0, 8 if mode == "reflect" else 4, size=rank)
    high = rng.integers(0, 8 if mode == "reflect" else 4, size=rank)
    x = (rng.standard_normal(shape) * 50).astype(TYPES[elem])
    value = TYPES[elem](rng.integers(-9, 9))
    want = (np.pad(x, list(zip(low, high)), mode="constant", constant_values=value)
            if mode == "constant" else np.pad(x, list(zip(low, high)), mode=mode))
    dyn = "tensor<" + "?x" * rank + elem + ">"
    if mode == "constant":
        text = ("func @f(%%x: %s, %%v: %s) -> %s {\n"
                "  %%p = pad %%x, %%v {low = %s, high = %s} : %s\n"
                "  return %%p\n}\n" % (dyn, elem, dyn, lst(low), lst(high), dyn))
        inputs = [x, np.array(value)]
    else:
        text = ("func @f(%%x: %s) -> %s {\n"
                "  %%p = pad %%x {low = %s, high = %s, mode = %s} : %s\n"
                "  return %%p\n}\n" % (dyn, dyn, lst(low), lst(high), mode, dyn))
        inputs = [x]
    same(evaluate(text, inputs), want, "pad %s %s %s %s" % (mode, shape, low, high))
    cases += 1

for _ in range(20):
    rank = int(rng.integers(1, 4))
    shape = tuple(int(d) for d in rng.integers(0, 5, size=rank))
    reps = rng.integers(0, 4, size=rank)
    x = rng.integers(-100, 100, size=shape).astype(np.int32)
    want = np.tile(x, reps)
    text = ("func @f(%%x: %s) -> %s {\n"
            "  %%t = tile %%x {repeats = %s} : %s\n"
            "  return %%t\n}\n" % (ty(shape, "i32"), ty(want.shape, "i32"), lst(reps),
                                  ty(want.shape, "i32")))
    same(evaluate(text, [x]), want, "tile %s %s" % (shape, reps))
    cases += 1

for _ in range(20):
    rank = int(rng.integers(1, 4))
    shape = [int(d) for d in rng.integers(1, 6, size=rank)]
    axis = int(rng.integers(0, rank))
    parts = int(rng.integers(1, 4))
    cuts = sorted(int(c) for c in rng.integers(0, shape[axis] + 1, size=parts - 1))
    sizes = np.diff([0] + cuts + [shape[axis]])
    x = rng.standard_normal(shape).astype(np.float32)
    want = np.split(x, cuts, axis=axis)
    types = []
    for n in sizes:
        s = list(shape)
        s[axis] = int(n)
        types.append(ty(s, "f32"))
    names = ", ".join("%%r%d" % k for k in range(parts))
    text = ("func @f(%%x: %s) -> (%s) {\n"
            "  %s = split %%x {axis = %d, sizes = %s} : %s\n"
            "  return %s\n}\n" % (ty(shape, "f32"), ", ".join(types), names, axis, lst(sizes),
                                   ", ".join(types), names))
    got = evaluate(text, [x], parts)
    for g, w in zip(got if parts > 1 else [got], want):
        same(g, w, "split %s axis %d at %s" % (shape, axis, cuts))
    cases += 1

print("numpy agrees on %d cases" % cases)
