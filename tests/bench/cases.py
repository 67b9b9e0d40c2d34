"""The benchmark cases of run_bench.py: which graph and function, input
shapes (full and --quick), the numpy reference, the work done (for GFLOP/s
or GB/s), the tolerance of the result check, and the peers each case is
compared with.

Each graph in graphs/ has dynamic shapes, so one bundle serves every size of
a case family. The quick sizes are odd on purpose (not multiples of a tile or
vector width) so the smoke test walks the remainder paths too.

References are computed in float64 from the same f32 inputs, so every
implementation (graft and each peer) is checked against something none of
them computed.
"""
import numpy as np

F32 = 4

# The installable peers (run_bench.py --peers), and how each implementation
# is named in the table.
LIBRARIES = ("onednn", "openblas", "torch", "stream")
LABELS = {"graft": "graft", "onednn-sgemm": "oneDNN sgemm", "onednn-matmul": "oneDNN matmul",
          "onednn-gemm-s8": "oneDNN gemm s8s8s32",
          "openblas-sgemm": "OpenBLAS sgemm", "torch": "PyTorch eager",
          "stream-copy": "STREAM copy", "stream-triad": "STREAM triad"}


class Peer:
    """One peer of a case: an implementation (a graft_bench mode, or "torch"
    with |torch| the eager expression over torch tensors), its extra
    graft_bench arguments, and, for a peer that computes something other
    than the case (STREAM), the inputs it reads, its own reference and its
    own bytes moved."""

    def __init__(self, impl, args=(), torch=None, inputs=None, reference=None, bytes=None):
        self.impl = impl
        self.args = list(args)
        self.torch = torch
        self.inputs = inputs        # indices into the case's inputs; None: all
        self.reference = reference  # None: the case's
        self.bytes = bytes          # None: the case's work

    @property
    def library(self):
        """The installable peer it belongs to: onednn, openblas, torch, stream."""
        return self.impl.split("-")[0]


class Case:
    def __init__(self, name, graph, function, shapes, reference, peers, flops=0, bytes=0,
                 tol=1e-5, latency=False, dtype="f32"):
        self.name = name
        self.graph = graph          # graphs/<graph>.graph
        self.function = function
        self.shapes = shapes        # one shape per input, all of |dtype|
        self.dtype = dtype          # "f32", or "i8" (the result i32, checked exactly)
        self.reference = reference  # numpy function of the inputs (computes in f64)
        self.peers = peers
        self.flops = flops          # floating-point ops of one call (0: memory-bound)
        self.bytes = bytes          # minimum bytes moved by one call
        self.tol = tol              # |got - want| <= tol * (max|want| + 1)
        self.latency = latency      # per-call time is the figure (no rate)
        self.size = " ".join("x".join(str(d) for d in s) for s in shapes)

    def work(self):
        """(amount, unit) that rates divide by time: flops (integer ops for
        i8), bytes, or calls."""
        if self.latency:
            return 1, "call"
        if self.flops:
            return self.flops, "flop" if self.dtype == "f32" else "op"
        return self.bytes, "byte"


def f64(*xs):
    return [x.astype(np.float64) for x in xs]


_products = {}


def product(a, b):
    """a @ b in float64, kept for the life of the inputs: the matmul and MLP
    cases of one size share their inputs, and a 2048^3 product in float64
    on a reference BLAS takes seconds."""
    key = (id(a), id(b))
    if key not in _products:
        _products[key] = (a, b, np.matmul(*f64(a, b)))
    return _products[key][2]


def matmul_ref(a, b):
    return product(a, b)


def int_matmul_ref(a, b):
    """An i8 matmul's exact i32 sums (no wrap at these sizes)."""
    return np.matmul(a.astype(np.int64), b.astype(np.int64))


def int_matmul(name, m, k, n):
    """i8 x i8 summed in i32 (ONNX MatMulInteger) against oneDNN's
    dnnl_gemm_s8s8s32. PyTorch has no CPU matmul of int8 tensors into
    int32 (torch.mm of int8 sums in int8), so it is not a peer."""
    return Case(name, "matmul_i8", "matmul_i8", [(m, k), (k, n)], int_matmul_ref,
                [Peer("onednn-gemm-s8")], flops=2 * m * n * k, tol=0.0, dtype="i8")


def mlp_ref(a, b):
    return -np.maximum(product(a, b), 0.0)


def ffn_ref(a, b, bias):
    x = product(a, b) + bias.astype(np.float64)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


def chain4_ref(x, y):
    x, y = f64(x, y)
    return np.maximum(x * y + x, 0.0) * 0.5


def softmax_ref(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def layernorm_ref(x, gamma, beta):
    x, gamma, beta = f64(x, gamma, beta)
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5) * gamma + beta


def attention_ref(q, k, v):
    q, k, v = f64(q, k, v)
    return softmax_ref(q @ k.T / np.sqrt(q.shape[1])) @ v


def conv_ref(x, w, pad, stride=1):
    """NCHW conv in float64: one matmul per window position (a grouped
    one, depthwise too, one conv per group)."""
    x, w = f64(x, w)
    groups = x.shape[1] // w.shape[1]
    if groups > 1:
        cg, fg = w.shape[1], w.shape[0] // groups
        return np.concatenate([conv_ref(x[:, g * cg:(g + 1) * cg], w[g * fg:(g + 1) * fg], pad,
                                        stride) for g in range(groups)], axis=1)
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    out = np.zeros((n, f, oh, ow))
    for i in range(kh):
        for j in range(kw):
            window = xp[:, :, i:i + stride * (oh - 1) + 1:stride, j:j + stride * (ow - 1) + 1:stride]
            out += np.einsum("fc,nchw->nfhw", w[:, :, i, j], window)
    return out


def conv(name, fn, n, c, h, w, f, k, groups=1, stride=1):
    pad = k // 2
    cg = c // groups
    oh, ow = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
    return Case(name, "conv", fn, [(n, c, h, w), (f, cg, k, k)],
                lambda x, wt: conv_ref(x, wt, pad, stride),
                [Peer("torch", torch=lambda t, x, wt: t.nn.functional.conv2d(
                    x, wt, padding=pad, groups=groups, stride=stride))],
                flops=2 * n * f * oh * ow * cg * k * k, tol=1e-6 * cg * k * k)


def resnet_block(name, n, h, w):
    """relu(conv(relu(conv(x) + b1)) + b2 + x), 64 channels, 3x3 convs."""
    c = 64

    def ref(x, w1, b1, w2, b2):
        x, b1, b2 = f64(x, b1, b2)
        a = np.maximum(conv_ref(x, w1, 1) + b1[None, :, None, None], 0)
        return np.maximum(conv_ref(a, w2, 1) + b2[None, :, None, None] + x, 0)

    def torch_block(t, x, w1, b1, w2, b2):
        F = t.nn.functional
        a = F.relu(F.conv2d(x, w1, b1, padding=1))
        return F.relu(F.conv2d(a, w2, b2, padding=1) + x)

    return Case(name, "conv", "resnet_block", [(n, c, h, w), (c, c, 3, 3), (c,), (c, c, 3, 3), (c,)],
                ref, [Peer("torch", torch=torch_block)],
                flops=2 * 2 * n * c * h * w * c * 9, tol=1e-5 * c * 9)


# The peers. The torch expressions are what a PyTorch user writes in eager
# mode; each allocates its result, as graft does today.
def matmul_peers():
    return [Peer("onednn-sgemm"), Peer("onednn-matmul"), Peer("openblas-sgemm"),
            Peer("torch", torch=lambda t, a, b: a @ b)]


def mlp_peers():
    post = ["--post-ops", "relu,neg"]
    return [Peer("onednn-matmul", post), Peer("onednn-sgemm", post),
            Peer("openblas-sgemm", post),
            Peer("torch", torch=lambda t, a, b: t.neg(t.relu(a @ b)))]


def matmul(name, m, k, n):
    # matmul sums K products in f32: the tolerance grows with K.
    return Case(name, "matmul", "matmul", [(m, k), (k, n)], matmul_ref, matmul_peers(),
                flops=2 * m * n * k, tol=1e-6 * k)


def mlp(name, m, k, n, latency=False):
    return Case(name, "mlp", "mlp", [(m, k), (k, n)], mlp_ref, mlp_peers(),
                flops=2 * m * n * k, tol=1e-6 * k, latency=latency)


def all_cases(quick):
    """The case list; |quick| gives tiny sizes for the smoke test."""
    if quick:
        mm = [("19x23x17", 19, 23, 17), ("67x9x5", 67, 9, 5)]
        n_elem, ln, sm, att = 1001, (7, 37), (37, 53), (13, 9)
        red, tr, bmm = (37, 53), (31, 47), (3, 9, 7, 5)
        cv = (1, 7, 9)
    else:
        mm = [("256", 256, 256, 256), ("512", 512, 512, 512), ("1024", 1024, 1024, 1024),
              ("2048", 2048, 2048, 2048), ("64x1024x1024", 64, 1024, 1024),
              # A BERT-base layer's matmuls at 128 tokens (M x K x N): the
              # attention projections and the feed-forward pair.
              ("128x768x768", 128, 768, 768), ("128x768x3072", 128, 768, 3072),
              ("128x3072x768", 128, 3072, 768)]
        n_elem, ln, sm, att = 1 << 24, (128, 768), (2048, 1024), (128, 64)
        red, tr, bmm = (2048, 2048), (2048, 2048), (16, 128, 128, 128)
        cv = (1, 56, 56)
    cases = [matmul("matmul_" + s, m, k, n) for s, m, k, n in mm]
    cases += [mlp("mlp_" + s, m, k, n) for s, m, k, n in mm]
    cases.append(mlp("mlp_2x2_latency", 2, 2, 2, latency=True))
    # A BERT-base feed-forward layer's first matmul with its bias and
    # GELU (the epilogue on the matmul's tiles).
    for s, m, k, n in ([("19x23x17", 19, 23, 17)] if quick else [("128x768x3072", 128, 768, 3072)]):
        cases.append(Case(
            "ffn_" + s, "ffn", "ffn", [(m, k), (k, n), (n,)], ffn_ref,
            [Peer("torch", torch=lambda t, a, b, bias: t.nn.functional.gelu(
                a @ b + bias, approximate="tanh"))],
            flops=2 * m * n * k, tol=1e-6 * k))
    # Quantized layers: i8 operands, i32 sums.
    im = [("19x23x17", 19, 23, 17)] if quick else [
        ("1024", 1024, 1024, 1024), ("128x768x3072", 128, 768, 3072)]
    cases += [int_matmul("matmul_i8_" + s, m, k, n) for s, m, k, n in im]

    m, n = ln
    cases.append(Case(
        "layernorm", "layernorm", "layernorm", [(m, n), (n,), (n,)], layernorm_ref,
        [Peer("torch", torch=lambda t, x, g, b: t.nn.functional.layer_norm(
            x, (x.shape[1],), g, b, 1e-5))],
        bytes=(2 * m * n + 2 * n) * F32, tol=1e-5))
    m, n = sm
    cases.append(Case(
        "softmax", "softmax", "softmax", [(m, n)], softmax_ref,
        [Peer("torch", torch=lambda t, x: t.softmax(x, 1))],
        bytes=2 * m * n * F32, tol=1e-5))
    s, d = att
    cases.append(Case(
        "attention", "attention", "attention", [(s, d)] * 3, attention_ref,
        [Peer("torch", torch=lambda t, q, k, v: t.softmax(
            (q @ k.T) * (q.shape[1] ** -0.5), -1) @ v)],
        flops=4 * s * s * d, tol=1e-5 * s))
    cases.append(Case(
        "elementwise4", "elementwise", "chain4", [(n_elem,), (n_elem,)], chain4_ref,
        [Peer("stream-copy", inputs=[0], reference=lambda x: x.astype(np.float64),
              bytes=2 * n_elem * F32),
         Peer("stream-triad", reference=lambda x, y: x.astype(np.float64) + 3.0 * y,
              bytes=3 * n_elem * F32),
         Peer("torch", torch=lambda t, x, y: t.relu(x * y + x) * 0.5)],
        bytes=3 * n_elem * F32, tol=1e-6))

    # Beyond issue 8's list: reductions, transpose and batch_matmul, with
    # PyTorch as their peer.
    r, c = red
    cases.append(Case("sum_rows", "reduce", "sum_rows", [(r, c)], lambda x: f64(x)[0].sum(1),
                      [Peer("torch", torch=lambda t, x: x.sum(1))],
                      bytes=r * c * F32, tol=1e-7 * c))
    cases.append(Case("sum_cols", "reduce", "sum_cols", [(r, c)], lambda x: f64(x)[0].sum(0),
                      [Peer("torch", torch=lambda t, x: x.sum(0))],
                      bytes=r * c * F32, tol=1e-7 * r))
    r, c = tr
    cases.append(Case("transpose", "transpose", "transpose", [(r, c)],
                      lambda x: np.ascontiguousarray(x.T),
                      [Peer("torch", torch=lambda t, x: x.t().contiguous())],
                      bytes=2 * r * c * F32, tol=0.0))
    b, m, k, n = bmm
    cases.append(Case("batch_matmul", "batch_matmul", "batch_matmul", [(b, m, k), (b, k, n)],
                      lambda x, y: np.matmul(*f64(x, y)),
                      [Peer("torch", torch=lambda t, x, y: t.bmm(x, y))],
                      flops=2 * b * m * n * k, tol=1e-6 * k))
    # ResNet's convolutions (issue 10), with PyTorch as their peer.
    n, h, w = cv
    # (conv3x3's rows are 56 long in the graph, at every size.)
    cases.append(conv("conv3x3", "conv3x3", n, 64, h, 56, 64, 3))
    cases.append(conv("conv1x1", "conv1x1", n, 256, h, w, 64, 1))
    # MobileNet's depthwise 3x3 (a filter per channel) at 112x112.
    dn, dh, dw = (1, 9, 11) if quick else (1, 112, 112)
    cases.append(conv("conv_dw3x3", "dw3x3", dn, 32, dh, dw, 32, 3, groups=32))
    # ResNet's basic block at 56x56: two 3x3 convs, biases, activations
    # and the residual add (a model layer, not one op).
    cases.append(resnet_block("resnet_block", n, h, 56))
    # ResNeXt-50 32x4d's first grouped 3x3 (4 channels and 4 filters per
    # group) at 56x56.
    cases.append(conv("conv_g32x4", "g32x4", n, 128, h, w, 128, 3, groups=32))
    # ResNet-18's first stride-2 3x3 (64 -> 128 channels, 56x56 -> 28x28).
    cases.append(conv("conv3x3_s2", "conv3x3_s2", n, 64, h, w, 128, 3, stride=2))
    # The matmuls of the same FLOPs (the im2col shapes, F x C*K*K by C*K*K x
    # N*H*W), so a conv's rate reads against a plain matmul's (issue 10: a
    # conv must not be much slower than a matmul of the same FLOPs).
    cases.append(matmul("matmul_conv3x3", 64, 64 * 9, n * h * 56))
    cases.append(matmul("matmul_conv1x1", 64, 256, n * h * w))
    return cases
