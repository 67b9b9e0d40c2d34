#!/usr/bin/env python3
"""Round trips between graft's .npy code and numpy itself.

Usage: npy_numpy_test.py path/to/graft_io_test
numpy writes arrays that graft must read and print; graft writes arrays
that numpy must load bit-exactly. Prints one line per case and
"N passed, M failed"."""
import os
import subprocess
import sys
import tempfile

import numpy as np

tool = sys.argv[1]
passed = failed = 0


def report(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name}: {detail}")


def graft(*args):
    return subprocess.run([tool, *args], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as d:
    # numpy -> graft: (array, expected printed form)
    reads = [
        ("f32_2x2", np.array([[2, 2], [-2, -2]], np.float32), "2x2xf32=[2 2][-2 -2]"),
        ("f64_vec", np.array([0.5, -1e10, np.inf], np.float64), "3xf64=0.5 -1e+10 inf"),
        ("f16_vec", np.array([1.5, -2], np.float16), "2xf16=1.5 -2"),
        ("i32_3d", np.arange(8, dtype=np.int32).reshape(2, 2, 2), "2x2x2xi32=[[0 1][2 3]][[4 5][6 7]]"),
        ("i64_scalar", np.array(-7, np.int64), "i64=-7"),
        ("i16_vec", np.array([-300, 300], np.int16), "2xi16=-300 300"),
        ("i8_vec", np.array([-1, 1], np.int8), "2xi8=-1 1"),
        ("bool_vec", np.array([True, False, True]), "3xi1=1 0 1"),
        ("empty", np.zeros((0, 3), np.float32), "0x3xf32="),
    ]
    for name, arr, expected in reads:
        path = os.path.join(d, name + ".npy")
        np.save(path, arr)
        r = graft("print", "@" + path)
        report("read_" + name, r.returncode == 0 and r.stdout.strip() == expected,
               f"got {r.stdout.strip()!r} {r.stderr.strip()!r}, expected {expected!r}")

    # Version 2.0 headers are accepted too.
    path = os.path.join(d, "v2.npy")
    with open(path, "wb") as f:
        np.lib.format.write_array(f, np.array([1, 2], np.float32), version=(2, 0))
    r = graft("print", "@" + path)
    report("read_v2", r.stdout.strip() == "2xf32=1 2", r.stdout + r.stderr)

    # Fortran order is refused with a clear message.
    path = os.path.join(d, "fortran.npy")
    np.save(path, np.asfortranarray(np.ones((2, 3), np.float32)))
    r = graft("print", "@" + path)
    report("read_fortran_refused",
           r.returncode == 1 and "fortran_order arrays are not supported" in r.stderr,
           r.stderr)

    # Unsupported dtypes name the descr.
    path = os.path.join(d, "u32.npy")
    np.save(path, np.ones(2, np.uint32))
    r = graft("print", "@" + path)
    report("read_u32_refused", r.returncode == 1 and "'<u4'" in r.stderr, r.stderr)

    # graft -> numpy
    writes = [
        ("f32", "2x3xf32=1 2 3 4 5.5 -6", np.array([[1, 2, 3], [4, 5.5, -6]], np.float32)),
        ("f64_scalar", "f64=0.1", np.array(0.1, np.float64)),
        ("i64", "3xi64=-9223372036854775808 0 9223372036854775807",
         np.array([-2**63, 0, 2**63 - 1], np.int64)),
        ("i1", "2x2xi1=1 0 0 1", np.array([[True, False], [False, True]])),
        ("f16", "2xf16=0.5 -65504", np.array([0.5, -65504], np.float16)),
        ("vec1", "1xi32=5", np.array([5], np.int32)),
    ]
    for name, text, expected in writes:
        path = os.path.join(d, "w_" + name + ".npy")
        r = graft("write", text, path)
        ok = r.returncode == 0
        detail = r.stderr
        if ok:
            got = np.load(path)
            ok = (got.dtype == expected.dtype and got.shape == expected.shape
                  and np.array_equal(got, expected))
            detail = f"got {got!r}, expected {expected!r}"
            with open(path, "rb") as f:
                head = f.read(10)
                ok = ok and (10 + head[8] + 256 * head[9]) % 64 == 0
        report("write_" + name, ok, detail)

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
