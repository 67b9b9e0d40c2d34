"""Test graphs of the differential test: their `// diff...` headers and
function signatures (see difftest.py for the header syntax), and the random
sizes and input files of one round."""

import os
import re
import zlib

import numpy as np

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
# Sizes that catch vector-width and tail bugs: 1, primes, around powers of 2;
# 0 only where a graph allows it (diff-size: M=0..N).
INTERESTING_SIZES = [0, 1, 2, 3, 4, 5, 7, 8, 9, 13, 15, 16, 17, 23, 31, 32, 33,
                     47, 63, 64, 65, 67, 70]
PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67]
# Largest element count of one argument; sizes are redrawn above it so that
# the reference evaluator (and qemu) stay fast. A graph that asks for a
# larger size (diff-size: N=1..200000) raises the limit to that size.
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
    return f"{elem}={int(value)}"


def make_inputs(fn, header, gname, rng, rnd, workdir):
    """Writes the inputs of one round; returns (--input values, sizes)."""
    specs = {a.name: arg_shape_spec(fn, a, header, gname) for a in fn.args if not a.is_scalar}
    symbols = {d for sp in specs.values() for d in sp if isinstance(d, str)}
    limit = max([MAX_ELEMENTS] + [hi for _, hi in header["sizes"].values()])
    for attempt in range(50):
        sizes = pick_sizes(rng, symbols, header, rnd)
        shapes = {n: [sizes[d] if isinstance(d, str) else d for d in sp]
                  for n, sp in specs.items()}
        if all(int(np.prod(s)) <= limit for s in shapes.values()):
            break
        if rnd == 0 or attempt == 49:  # the small rounds always fit
            while any(int(np.prod(s)) > limit for s in shapes.values()):
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
