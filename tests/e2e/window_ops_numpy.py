#!/usr/bin/env python3
"""The reference evaluator's conv and pool against numpy, on random shapes
and windows (strides, asymmetric pads, dilations, groups, 1-D to 3-D, max
and avg both ways): one generated f64 graph per case through graft eval,
against a numpy loop over window positions written from the definition in
docs/graph-format.md ("Windows").

usage: window_ops_numpy.py GRAFT WORKDIR"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from graft_eval import GraftEval, lst  # noqa: E402

graft, work = sys.argv[1:3]
rng = np.random.default_rng(20261123)


def ty(shape):
    return "tensor<" + "x".join(str(d) for d in shape) + "xf64>"


evaluate = GraftEval(graft, work).evaluate_text


def window(rank):
    k = rng.integers(1, 4, size=rank)
    s = rng.integers(1, 3, size=rank)
    d = rng.integers(1, 3, size=rank)
    pads = rng.integers(0, 3, size=2 * rank)
    spatial = [int(d_ * (k_ - 1) + 1 + rng.integers(0, 6)) for k_, d_ in zip(k, d)]
    return k, s, d, pads, spatial


def positions(shape, k, s, d, pads):
    """Per window position (row-major): the padded input's strided slice."""
    rank = len(k)
    out = [(shape[i] + pads[i] + pads[i + rank] - d[i] * (k[i] - 1) - 1) // s[i] + 1
           for i in range(rank)]
    for kk in np.ndindex(*k):
        yield out, tuple(slice(kk[i] * d[i], kk[i] * d[i] + (out[i] - 1) * s[i] + 1, s[i])
                         for i in range(rank))


def pad_width(rank, pads):
    return [(0, 0), (0, 0)] + [(int(pads[i]), int(pads[i + rank])) for i in range(rank)]


def conv_ref(x, w, s, d, pads, g):
    rank = x.ndim - 2
    xp = np.pad(x, pad_width(rank, pads))
    n, c = x.shape[:2]
    f = w.shape[0]
    o = next(positions(x.shape[2:], w.shape[2:], s, d, pads))[0]
    out = np.zeros((n, f) + tuple(o))
    for kk, (o, sl) in zip(np.ndindex(*w.shape[2:]), positions(x.shape[2:], w.shape[2:], s, d, pads)):
        cols = xp[(slice(None), slice(None)) + sl]
        for grp in range(g):
            cg, fg = c // g, f // g
            wk = w[(slice(grp * fg, (grp + 1) * fg), slice(None)) + kk]
            out[:, grp * fg:(grp + 1) * fg] += np.einsum("fc,nc...->nf...", wk,
                                                         cols[:, grp * cg:(grp + 1) * cg])
    return out


def pool_ref(x, kind, k, s, d, pads, include):
    rank = x.ndim - 2
    fill = -np.inf if kind == "max" else 0.0
    xp = np.pad(x, pad_width(rank, pads), constant_values=fill)
    ones = np.pad(np.ones(x.shape), pad_width(rank, pads))
    acc = count = None
    for o, sl in positions(x.shape[2:], k, s, d, pads):
        v = xp[(slice(None), slice(None)) + sl]
        c = ones[(slice(None), slice(None)) + sl]
        if acc is None:
            acc, count = v.copy(), c.copy()
        else:
            acc = np.maximum(acc, v) if kind == "max" else acc + v
            count = count + c
    if kind == "max":
        return acc
    with np.errstate(invalid="ignore"):  # a window all padding: 0 / 0
        return acc / (np.prod(k) if include else count)


def close(got, want, what):
    if got.shape != want.shape or not np.allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True):
        sys.exit("%s: graft %s, numpy %s\n%s\n%s" % (what, got.shape, want.shape, got, want))


cases = 0
for _ in range(25):
    rank = int(rng.integers(1, 4))
    k, s, d, pads, spatial = window(rank)
    g = int(rng.choice([1, 2, 3]))
    c, f, n = g * int(rng.integers(1, 3)), g * int(rng.integers(1, 3)), int(rng.integers(1, 3))
    x = rng.standard_normal((n, c) + tuple(spatial))
    w = rng.standard_normal((f, c // g) + tuple(int(v) for v in k))
    want = conv_ref(x, w, s, d, pads, g)
    text = ("func @f(%%x: %s, %%w: %s) -> %s {\n"
            "  %%y = conv %%x, %%w {strides = %s, pads = %s, dilations = %s, group = %d} : %s\n"
            "  return %%y\n}\n" % (ty(x.shape), ty(w.shape), ty(want.shape), lst(s), lst(pads),
                                   lst(d), g, ty(want.shape)))
    close(evaluate(text, [x, w]), want, "conv\n" + text)
    cases += 1

for _ in range(25):
    rank = int(rng.integers(1, 4))
    k, s, d, pads, spatial = window(rank)
    kind = str(rng.choice(["max", "avg"]))
    include = kind == "avg" and bool(rng.integers(0, 2))
    x = rng.standard_normal((int(rng.integers(1, 3)), int(rng.integers(1, 4))) + tuple(spatial))
    want = pool_ref(x, kind, k, s, d, pads, include)
    extra = ", count_include_pad = 1" if include else ""
    text = ("func @f(%%x: %s) -> %s {\n"
            "  %%y = pool %%x {kind = %s, window = %s, strides = %s, pads = %s, dilations = %s%s} : %s\n"
            "  return %%y\n}\n" % (ty(x.shape), ty(want.shape), kind, lst(k), lst(s), lst(pads),
                                   lst(d), extra, ty(want.shape)))
    close(evaluate(text, [x]), want, "pool\n" + text)
    cases += 1

print("numpy agrees on %d cases" % cases)
