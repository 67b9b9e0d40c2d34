"""The benchmark cases of run_bench.py: which graph and function, input
shapes (full and --quick), the numpy reference, the work done (for GFLOP/s
or GB/s) and the tolerance of the result check.

Each graph in graphs/ has dynamic shapes, so one bundle serves every size of
a case family. The quick sizes are odd on purpose (not multiples of a tile or
vector width) so the smoke test walks the remainder paths too.
"""
import numpy as np


class Case:
    def __init__(self, name, graph, function, shapes, reference, flops=0, bytes=0,
                 tol=1e-5, naive_matmul=False):
        self.name = name
        self.graph = graph          # graphs/<graph>.graph
        self.function = function
        self.shapes = shapes        # one shape per input, all f32
        self.reference = reference  # numpy function of the inputs
        self.flops = flops          # floating-point ops of one call (0: memory-bound)
        self.bytes = bytes          # minimum bytes moved by one call
        self.tol = tol              # |got - want| <= tol * (max|want| + 1)
        self.naive_matmul = naive_matmul
        self.size = ", ".join("x".join(str(d) for d in s) for s in shapes)

    def make_inputs(self, rng):
        return [rng.uniform(-1.0, 1.0, s).astype(np.float32) for s in self.shapes]


F32 = 4
ZERO = np.float32(0.0)
HALF = np.float32(0.5)


def mlp_ref(a, b):
    return np.maximum(a @ b, ZERO)


def chain4_ref(x, y):
    return np.maximum(x * y + x, ZERO) * HALF


def softmax_ref(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def transpose_ref(x):
    return np.ascontiguousarray(x.T)  # x.T alone is a view: no work to time


def mlp(name, m, k, n):
    # matmul sums K products in f32: tolerance grows with K (both sides
    # round, in different orders).
    return Case(name, "mlp", "mlp", [(m, k), (k, n)], mlp_ref, flops=2 * m * n * k,
                tol=1e-6 * k, naive_matmul=True)


def all_cases(quick):
    """The case list; |quick| gives tiny sizes for the smoke test."""
    if quick:
        mm = [("mlp_sq", 19, 23, 17), ("mlp_tall", 67, 9, 5)]
        n_elem, rows, cols, bmm = 1001, 37, 53, (3, 9, 7, 5)
        t_rows, t_cols, npot = 31, 47, 45
    else:
        mm = [("mlp_64", 64, 64, 64), ("mlp_256", 256, 256, 256),
              ("mlp_512", 512, 512, 512), ("mlp_1024", 1024, 1024, 1024),
              ("mlp_tall", 8192, 512, 32)]
        n_elem, rows, cols, bmm = 4 << 20, 2048, 2048, (16, 128, 128, 128)
        t_rows, t_cols, npot = 2048, 2048, 2000
    b, m, k, n = bmm
    cases = [mlp(*c) for c in mm]
    cases += [
        Case("elementwise4", "elementwise", "chain4", [(n_elem,), (n_elem,)], chain4_ref,
             bytes=3 * n_elem * F32),
        Case("sum_rows", "reduce", "sum_rows", [(rows, cols)],
             lambda x: x.sum(axis=1), bytes=rows * cols * F32, tol=1e-7 * cols),
        Case("sum_cols", "reduce", "sum_cols", [(rows, cols)],
             lambda x: x.sum(axis=0), bytes=rows * cols * F32, tol=1e-7 * rows),
        Case("softmax_rows", "softmax", "softmax", [(rows, cols // 2)], softmax_ref,
             bytes=2 * rows * (cols // 2) * F32, tol=1e-5),
        Case("transpose", "transpose", "transpose", [(t_rows, t_cols)], transpose_ref,
             bytes=2 * t_rows * t_cols * F32, tol=0.0),
        # Same work at a row length that is not a power of two: the strided
        # access of these loops then spreads over the L1 sets instead of
        # thrashing one (see README.md, "What the numbers say").
        Case("sum_rows_npot", "reduce", "sum_rows", [(rows, npot)],
             lambda x: x.sum(axis=1), bytes=rows * npot * F32, tol=1e-7 * npot),
        Case("transpose_npot", "transpose", "transpose", [(npot, npot)], transpose_ref,
             bytes=2 * npot * npot * F32, tol=0.0),
        Case("batch_matmul", "batch_matmul", "batch_matmul", [(b, m, k), (b, k, n)],
             np.matmul, flops=2 * b * m * n * k, tol=1e-6 * k, naive_matmul=True),
    ]
    return cases
