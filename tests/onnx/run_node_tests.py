#!/usr/bin/env python3
"""ONNX conformance runner: the ONNX backend node tests through graft.

Each test directory (data/node/test_*: model.onnx, test_data_set_N/
input_K.pb and output_K.pb) goes through `graft build model.onnx` and
`graft-run --input @input_K.pb --expected_output @output_K.pb` at the ONNX
backend tests' tolerances (rtol 1e-3, atol 1e-7). A test ends as

  passed        built, and every data set's outputs matched
  failed        built but a result differed or the run failed, or graft
                failed in a way that is not an "unsupported" error
  unsupported   graft refused the model with a reason (an op graft lacks, an
                opset outside 13-17, a dtype...): the reason is tallied

An input graft needs at build time (a Reshape's shape, a ReduceSum's axes)
is bound from the test's data with --constant NAME=@input_K.pb, as graft's
own error suggests, and the model is then built once per data set.

The table (per op: passed / failed / unsupported with reasons, then the
missing graft ops ranked by the tests they block) goes to stdout, and
optionally as markdown to --markdown FILE (docs/onnx.md's table).

  run_node_tests.py --graft G --graft-run R [--data DIR] [--jobs N]
      [--expect FILE] [--update FILE] [--markdown FILE] [--filter RE]
      [--qemu-sample N --cross-run aarch64=QEMU:GRAFT_RUN]

--expect FILE: the tests listed there must pass (one name a line); one that
does not fails the run (exit 1), one that passes without being listed is
reported as newly passing. --update FILE writes the list of passing tests.
Work files go to a temporary directory that is removed at the end.
"""
import argparse
import collections
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

RTOL, ATOL = "1e-3", "1e-7"

# The bar: every node test of these op types passes or is listed as
# unsupported with its reason.
BAR_OPS = """Abs Add And ArgMax ArgMin AveragePool BatchNormalization Cast Ceil Clip
Concat Constant ConstantOfShape Conv Cos Div Dropout Elu Equal Erf Exp Expand
Flatten Floor Gather Gemm GlobalAveragePool Greater HardSigmoid Identity
LayerNormalization LeakyRelu Less Log LogSoftmax MatMul Max MaxPool Mean Min Mul
Neg Not Or Pad Pow PRelu Reciprocal ReduceMax ReduceMean ReduceMin ReduceProd
ReduceSum Relu Reshape Round Selu Shape Sigmoid Sign Sin Slice Softmax Softplus
Split Sqrt Squeeze Sub Sum Tanh Tile Transpose Unsqueeze Where""".split()


# ---- a minimal protobuf wire-format reader (no onnx package needed) ------

def fields(buf):
    """Yields (field number, wire type, value) of a protobuf message."""
    i, n = 0, len(buf)

    def varint():
        nonlocal i
        v, shift = 0, 0
        while True:
            b = buf[i]
            i += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return v

    while i < n:
        key = varint()
        num, wire = key >> 3, key & 7
        if wire == 0:
            yield num, wire, varint()
        elif wire == 1:
            yield num, wire, buf[i:i + 8]
            i += 8
        elif wire == 2:
            length = varint()
            yield num, wire, buf[i:i + length]
            i += length
        elif wire == 5:
            yield num, wire, buf[i:i + 4]
            i += 4
        else:
            raise ValueError("unsupported wire type %d" % wire)


def varint_bytes(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def encode(items):
    """The inverse of fields(): (field number, wire type, value) -> bytes."""
    out = bytearray()
    for num, wire, v in items:
        out += varint_bytes(num << 3 | wire)
        if wire == 0:
            out += varint_bytes(v)
        elif wire == 2:
            out += varint_bytes(len(v)) + v
        else:
            out += v
    return bytes(out)


def elem_type(value_info):
    """The tensor element type of a ValueInfoProto (0 when not a tensor)."""
    for n, w, t in fields(value_info):
        if n == 2 and w == 2:  # type
            for n2, w2, tt in fields(t):
                if n2 == 1 and w2 == 2:  # tensor_type
                    return next((e for n3, w3, e in fields(tt) if n3 == 1 and w3 == 0), 0)
    return 0


def model_summary(path):
    """(node op types, graph input names without initializers, their
    element types, the graph outputs' element types)."""
    with open(path, "rb") as f:
        model = f.read()
    graph = b"".join(v for num, w, v in fields(model) if num == 7 and w == 2)
    ops, inputs, inits, outputs = [], [], set(), []
    for num, w, v in fields(graph):
        if num == 1 and w == 2:  # node
            ops += [x.decode() for n2, w2, x in fields(v) if n2 == 4 and w2 == 2]
        elif num == 5 and w == 2:  # initializer
            inits |= {x.decode() for n2, w2, x in fields(v) if n2 == 8 and w2 == 2}
        elif num == 11 and w == 2:  # input
            inputs += [(x.decode(), elem_type(v)) for n2, w2, x in fields(v) if n2 == 1 and w2 == 2]
        elif num == 12 and w == 2:  # output
            outputs.append(elem_type(v))
    inputs = [i for i in inputs if i[0] not in inits]
    return ops, [i[0] for i in inputs], [i[1] for i in inputs], outputs


BFLOAT16, UINT16 = 16, 4

# Tests whose expected outputs follow another rule than graft's, checked by
# hand: a failing run of one of them is reported as unsupported with this
# reason (a passing run passes).
DATA_DIVERGES = {
    "test_cast_FLOAT_to_BFLOAT16":
        "float -> bfloat16 by truncation (the ONNX test generator's numpy); "
        "graft's cast rounds to nearest even",
}


def test_data(path, model_type, work):
    """|path|, or where the model's value is BFLOAT16 and the file says
    UINT16, a copy relabelled BFLOAT16: the ONNX test generator stores
    bfloat16 data as its uint16 bits (numpy has no bfloat16)."""
    if model_type != BFLOAT16:
        return path
    with open(path, "rb") as f:
        items = list(fields(f.read()))
    if not any(n == 2 and w == 0 and v == UINT16 for n, w, v in items):
        return path
    items = [(n, w, BFLOAT16 if n == 2 and w == 0 else v) for n, w, v in items]
    out = os.path.join(work, "%s.%s" % (os.path.basename(os.path.dirname(os.path.dirname(path))),
                                        "_".join(path.split(os.sep)[-2:])))
    with open(out, "wb") as f:
        f.write(encode(items))
    return out


def test_op(name, ops, known_ops):
    """The op a test is about: its only op type, or (expanded, multi-node
    tests) the known op whose lowercased name is the longest prefix of the
    test name without underscores; else "(multi-node) " and the test name's
    first word (nllloss, sce)."""
    if len(set(ops)) == 1:
        return ops[0]
    base = name[len("test_"):].replace("_", "")
    best = ""
    for op in known_ops:
        if base.startswith(op.lower()) and len(op) > len(best):
            best = op
    return best or "(multi-node) " + name[len("test_"):].split("_")[0]


# ---- running one test -----------------------------------------------------

Result = collections.namedtuple("Result", "name op status reason")

CONSTANT_RE = re.compile(r"input '([^']+)' \([a-z_]+\) must be a constant")
UNSUPPORTED_RE = re.compile(
    r"not supported|does not support|opset \d+|must be a constant|no shape|"
    r"graft needs|graft has no|only size-1|dynamic|zero-size|zero sizes|graft imports tensor")


def first_error(text):
    for line in text.splitlines():
        if ": error: " in line:
            return line.split(": error: ", 1)[1]
    return text.strip().splitlines()[-1] if text.strip() else "no message"


def reason_of(msg):
    """A short, countable reason for an unsupported model."""
    m = re.search(r"graft has no '([^']+)' op", msg)
    if m:
        return "missing op: " + m.group(1)
    m = re.search(r"opset (\d+) is not supported", msg)
    if m:
        return "opset %s (graft imports 13-17)" % m.group(1)
    msg = re.sub(r"^node \d+ (?:'[^']*' )?\([A-Za-z]+\): ", "", msg)
    msg = re.sub(r" \(it has [A-Z0-9, ]+\)", "", msg)  # graft's element types, the same each time
    msg = re.sub(r"(?<!op type )'[^']*'", "'…'", msg)
    msg = re.sub(r"\b\d+\b", "N", msg)  # numbers, not the 16 of FLOAT16
    return msg[:130]


def run(cmd, timeout=120):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return 124, "timed out after %ds: %s" % (timeout, " ".join(cmd))


def data_sets(test_dir):
    return sorted(d for d in os.listdir(test_dir) if d.startswith("test_data_set_"))


def pb_files(d, prefix):
    files = [f for f in os.listdir(d) if f.startswith(prefix) and f.endswith(".pb")]
    return [os.path.join(d, f) for f in sorted(files, key=lambda f: int(f[len(prefix):-3]))]


def run_test(args, test_dir, op, inputs, in_types, out_types, work, runner):
    """Returns (status, reason)."""
    name = os.path.basename(test_dir)
    model = os.path.join(test_dir, "model.onnx")
    sets = data_sets(test_dir)
    if not sets:
        return "unsupported", "no test data"
    bound = []  # graph input names bound with --constant
    for data_set in sets:
        ds = os.path.join(test_dir, data_set)
        ins = pb_files(ds, "input_")
        outs = pb_files(ds, "output_")
        if len(ins) != len(inputs):
            return "failed", "test data has %d inputs, the model %d" % (len(ins), len(inputs))
        ins = [test_data(p, t, work) for p, t in zip(ins, in_types)]
        outs = [test_data(p, t, work) for p, t in zip(outs, out_types + [0] * len(outs))]
        by_name = dict(zip(inputs, ins))
        bundle = os.path.join(work, "%s.%s.graft" % (name, data_set))
        while True:
            cmd = [args.graft, "build", model, "-o", bundle] + \
                  ["--constant=%s=@%s" % (b, by_name[b]) for b in bound]
            if args.target:
                cmd += ["--target", args.target]
            rc, out = run(cmd)
            if rc == 0:
                break
            msg = first_error(out)
            m = CONSTANT_RE.search(msg)
            if m and m.group(1) in by_name and m.group(1) not in bound:
                bound.append(m.group(1))
                continue
            if "internal error" in msg or not UNSUPPORTED_RE.search(msg):
                return "failed", "build: " + msg
            return "unsupported", reason_of(msg)
        cmd = runner + [bundle, "--threads", "1", "--rtol", RTOL, "--atol", ATOL]
        for inp_name, path in zip(inputs, ins):
            if inp_name not in bound:
                cmd += ["--input", "@" + path]
        for path in outs:
            cmd += ["--expected_output", "@" + path]
        rc, out = run(cmd)
        os.unlink(bundle)
        m = re.search(r"TensorProto data_type (\d+) is not supported", out)
        if rc != 0 and m:
            # The ONNX tests store BFLOAT16 data as UINT16, a type graft lacks.
            return "unsupported", "test data of TensorProto data_type %s" % m.group(1)
        m = re.search(r"argument \d+ \([^)]*\): expected (tensor<[^>]*>), got (\S+)", out)
        if rc != 0 and m:
            # The test feeds data of another shape than the model declares
            # (test_castlike_*: a 1-element 'like' declared 3x4); graft
            # builds for the declared static shapes.
            return "unsupported", "test data of shape %s for an input declared %s" % (
                m.group(2), m.group(1))
        if rc != 0 and name in DATA_DIVERGES:
            return "unsupported", "test data: " + DATA_DIVERGES[name]
        if rc != 0:
            return "failed", "run: " + first_error(out)[:200]
    return "passed", ""


# ---- the table ------------------------------------------------------------

def table(results):
    by_op = collections.defaultdict(list)
    for r in results:
        by_op[r.op].append(r)
    rows = []
    for op in sorted(by_op):
        rs = by_op[op]
        c = collections.Counter(r.status for r in rs)
        reasons = collections.Counter(r.reason for r in rs if r.status != "passed")
        rows.append((op, len(rs), c["passed"], c["failed"], c["unsupported"],
                     "; ".join("%s (%d)" % (k, v) for k, v in reasons.most_common())))
    return rows


def missing_ops(results):
    c = collections.Counter()
    for r in results:
        if r.status == "unsupported" and r.reason.startswith("missing op: "):
            c[r.reason[len("missing op: "):]] += 1
    return c.most_common()


def summary(results, ops=None):
    rs = [r for r in results if ops is None or r.op in ops]
    c = collections.Counter(r.status for r in rs)
    return len(rs), c["passed"], c["failed"], c["unsupported"]


def print_report(results, out):
    rows = table(results)
    w = max([len(r[0]) for r in rows] + [2])
    out.write("%-*s  %5s %6s %6s %11s  reasons\n" % (w, "op", "tests", "passed", "failed", "unsupported"))
    for op, n, p, f, u, why in rows:
        out.write("%-*s  %5d %6d %6d %11d  %s\n" % (w, op, n, p, f, u, why))
    for label, ops in (("all node tests", None), ("the issue's op list", set(BAR_OPS))):
        n, p, f, u = summary(results, ops)
        out.write("total (%s): %d tests, %d passed (%.1f%%), %d failed, %d unsupported\n"
                  % (label, n, p, 100.0 * p / max(n, 1), f, u))
    out.write("missing graft ops, by the node tests each blocks:\n")
    for op, n in missing_ops(results):
        out.write("  %-40s %d\n" % (op, n))


BEGIN = "<!-- BEGIN node-test table: tests/onnx/run_node_tests.py --markdown writes it -->\n"
END = "<!-- END node-test table -->\n"


def write_markdown(results, path):
    """Replaces the text between BEGIN and END in |path| (or writes a new
    file holding only the table)."""
    import io
    f = io.StringIO()
    if True:
        n, p, fl, u = summary(results)
        bn, bp, bf, bu = summary(results, set(BAR_OPS))
        f.write("All %d node tests: %d passed, %d failed, %d unsupported. "
                "Tests of the ops in issue 10's list: %d, %d passed (%.1f%%), %d failed, "
                "%d unsupported.\n\n" % (n, p, fl, u, bn, bp, 100.0 * bp / max(bn, 1), bf, bu))
        f.write("| op | tests | passed | failed | unsupported | reasons |\n")
        f.write("|----|------:|-------:|-------:|------------:|---------|\n")
        for op, n, p, fl, u, why in table(results):
            f.write("| %s | %d | %d | %d | %d | %s |\n" % (op, n, p, fl, u, why.replace("|", "\\|")))
        f.write("\nMissing graft ops, by the node tests each would unlock:\n\n")
        f.write("| graft op | node tests |\n|----|---:|\n")
        for op, n in missing_ops(results):
            f.write("| %s | %d |\n" % (op, n))
    text = f.getvalue()
    old = open(path).read() if os.path.exists(path) else ""
    if BEGIN in old and END in old:
        new = old[:old.index(BEGIN) + len(BEGIN)] + text + old[old.index(END):]
    else:
        new = BEGIN + text + END
    with open(path, "w") as out:
        out.write(new)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graft", required=True)
    ap.add_argument("--graft-run", required=True)
    ap.add_argument("--data", default="/usr/share/libonnx-testdata/data/node")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--filter", default="", help="only tests whose name matches this regex")
    ap.add_argument("--target", default="", help="graft build --target (default: the host)")
    ap.add_argument("--runner", default="", help="run bundles with this command prefix "
                    "(e.g. 'qemu-aarch64 build/cross/aarch64/graft-run')")
    ap.add_argument("--expect", help="tests that must pass")
    ap.add_argument("--update", help="write the passing tests here")
    ap.add_argument("--markdown", help="write the table as markdown into this file "
                    "(between its BEGIN/END node-test table markers: docs/onnx.md)")
    ap.add_argument("--quiet", action="store_true", help="print only the totals and changes")
    ap.add_argument("--expect-only", action="store_true",
                    help="run only the tests --expect lists (a sample on another target)")
    args = ap.parse_args()

    if not os.path.isdir(args.data):
        print("run_node_tests: no ONNX node tests at '%s' (install libonnx-testdata)" % args.data,
              file=sys.stderr)
        return 2
    names = sorted(d for d in os.listdir(args.data) if d.startswith("test_"))
    if args.filter:
        names = [n for n in names if re.search(args.filter, n)]
    if args.expect_only:
        with open(args.expect) as f:
            listed = {l.strip() for l in f if l.strip() and not l.startswith("#")}
        names = [n for n in names if n in listed]
    summaries = {}
    for n in names:
        try:
            summaries[n] = model_summary(os.path.join(args.data, n, "model.onnx"))
        except (OSError, ValueError, IndexError) as e:
            summaries[n] = None
    known = sorted({s[0][0] for s in summaries.values() if s and len(set(s[0])) == 1})
    runner = args.runner.split() if args.runner else [args.graft_run]
    work = tempfile.mkdtemp(prefix="graft-onnx-")
    results = []
    try:
        def one(n):
            s = summaries[n]
            if s is None:
                return Result(n, "(unreadable)", "failed", "model.onnx does not parse")
            op = test_op(n, s[0], known)
            status, reason = run_test(args, os.path.join(args.data, n), op, s[1], s[2], s[3],
                                      work, runner)
            return Result(n, op, status, reason)
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as ex:
            results = list(ex.map(one, names))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    if not args.quiet:
        print_report(results, sys.stdout)
    else:
        n, p, f, u = summary(results)
        print("onnx node tests: %d, %d passed, %d failed, %d unsupported" % (n, p, f, u))
    if args.markdown:
        write_markdown(results, args.markdown)
    passed = {r.name for r in results if r.status == "passed"}
    if args.update:
        with open(args.update, "w") as f:
            f.write("# ONNX node tests that pass (tests/onnx/run_node_tests.py --update)\n")
            for n in sorted(passed):
                f.write(n + "\n")
    rc = 0
    if args.expect:
        with open(args.expect) as f:
            expected = {l.strip() for l in f if l.strip() and not l.startswith("#")}
        expected = {e for e in expected if e in summaries}  # --filter narrows the check
        by_name = {r.name: r for r in results}
        for n in sorted(expected - passed):
            r = by_name[n]
            print("REGRESSION: %s (%s) no longer passes: %s: %s" % (n, r.op, r.status, r.reason))
            rc = 1
        for n in sorted(passed - expected):
            if not args.expect_only:
                print("newly passing: %s (add it to %s)" % (n, args.expect))
    for r in results:
        if r.status == "failed" and not args.quiet:
            print("FAILED %s (%s): %s" % (r.name, r.op, r.reason))
    return rc


if __name__ == "__main__":
    sys.exit(main())
