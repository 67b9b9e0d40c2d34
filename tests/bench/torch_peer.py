#!/usr/bin/env python3
"""The PyTorch peer of run_bench.py: a worker process that imports torch
once and answers one JSON request per line on stdin with one JSON line on
stdout. run_bench.py starts it with the Python that has torch
(/usr/bin/python3 on Debian) and with OpenBLAS's directory first on
LD_LIBRARY_PATH, so that torch's libblas.so.3 is OpenBLAS whatever Debian's
alternatives say (torch's float32 matmul is a BLAS sgemm call; with
Debian's reference BLAS it would measure netlib, not PyTorch).

Requests:
  {"op": "info"}
      -> versions, default thread counts, build flags, the BLAS loaded
  {"op": "run", "case": NAME, "quick": BOOL, "inputs": [NPY...],
   "threads": N, "samples": N, "budget_ms": MS, "min_sample_ms": MS,
   "run_only": BOOL, "save": PREFIX or null}
      -> one measurement, timed like graft_bench (harness/timing.h)
Errors come back as {"error": "..."}.
"""
import ctypes
import json
import os
import re
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from cases import all_cases  # noqa: E402

MAX_CALLS_PER_SAMPLE = 1 << 24
DEFAULT_THREADS = torch.get_num_threads()  # before anything sets it


def loaded_blas():
    """(path, ctypes handle or None) of the BLAS mapped into this process."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            name = os.path.basename(path)
            if re.match(r"lib(open)?blas", name):
                try:
                    lib = ctypes.CDLL(path)
                    lib.openblas_get_corename.restype = ctypes.c_char_p
                    return os.path.realpath(path), lib
                except (OSError, AttributeError):
                    return os.path.realpath(path), None
    return "none", None


BLAS_PATH, OPENBLAS = loaded_blas()


def set_threads(n):
    """torch's intra-op threads, and OpenBLAS's: torch does not pass its
    thread count on to OpenBLAS, whose pthreads pool would otherwise use
    every CPU in the 1-thread rows."""
    torch.set_num_threads(n)
    blas_threads = None
    if OPENBLAS is not None:
        OPENBLAS.openblas_set_num_threads(n)
        blas_threads = OPENBLAS.openblas_get_num_threads()
    return {"threads": torch.get_num_threads(), "blas_threads": blas_threads}


def info():
    config = torch.__config__.show()
    capability = re.search(r"CPU capability usage: (\S+)", config)
    blas = BLAS_PATH
    if OPENBLAS is not None:
        blas += " (OpenBLAS kernel %s)" % OPENBLAS.openblas_get_corename().decode()
    elif "/blas/" in BLAS_PATH:
        blas += " (netlib reference BLAS)"
    return {"version": torch.__version__, "default_threads": DEFAULT_THREADS,
            "interop_threads": torch.get_num_interop_threads(),
            "cpu_capability": capability.group(1) if capability else "unknown",
            "mkldnn_available": torch.backends.mkldnn.is_available(),
            "mkldnn_enabled": torch.backends.mkldnn.enabled,
            "openmp": "OpenMP" in torch.__config__.parallel_info(),
            "blas": blas, "python": sys.executable}


def time_calls(fn, samples, budget_ms, min_sample_ms, threads):
    """Batches calls until one batch lasts min_sample_ms, then samples.
    CPU time as graft_bench takes it (harness/timing.h): at 1 thread the
    calling thread's, else the process's."""
    cpu = []  # CPU time of the last batch
    cpu_clock = time.thread_time if threads == 1 else time.process_time

    def batch_ms(count):
        start, cpu_start = time.perf_counter(), cpu_clock()
        for _ in range(count):
            fn()
        cpu[:] = [(cpu_clock() - cpu_start) * 1e3]
        return (time.perf_counter() - start) * 1e3

    batch = 1
    elapsed = batch_ms(batch)
    while elapsed < min_sample_ms and batch < MAX_CALLS_PER_SAMPLE:
        batch *= 2
        elapsed = batch_ms(batch)
    per_call, cpu_per_call, total = [], [], 0.0
    while len(per_call) < max(samples, 1):
        elapsed = batch_ms(batch)
        per_call.append(elapsed / batch)
        cpu_per_call.append(cpu[0] / batch)
        total += elapsed
        if total >= budget_ms and len(per_call) >= 3:
            break
    per_call.sort()
    n = len(per_call)
    median = per_call[n // 2] if n % 2 else 0.5 * (per_call[n // 2 - 1] + per_call[n // 2])
    return {"samples": n, "calls_per_sample": batch, "min_ms": per_call[0],
            "median_ms": median, "max_ms": per_call[-1], "mean_ms": total / batch / n,
            "cpu_min_ms": min(cpu_per_call),
            "cpu_clock": "thread" if threads == 1 else "process"}


def torch_peers(quick):
    return {case.name: p for case in all_cases(quick) for p in case.peers
            if p.impl == "torch"}


def run(request, peers):
    peer = peers[request["quick"]].get(request["case"])
    if peer is None:
        raise KeyError("no PyTorch peer for case '%s'" % request["case"])
    inputs = [torch.from_numpy(np.load(p)) for p in request["inputs"]]
    result = dict(impl="torch", **set_threads(request["threads"]))
    with torch.inference_mode():
        def call():
            return peer.torch(torch, *inputs)
        out = call()  # warm-up; its result is the one checked
        if request.get("save"):
            np.save(request["save"] + "0.npy", out.numpy())
        if not request.get("run_only"):
            result.update(time_calls(call, request["samples"], request["budget_ms"],
                                     request["min_sample_ms"], result["threads"]))
    return result


def main():
    peers = {quick: torch_peers(quick) for quick in (False, True)}
    for line in sys.stdin:
        request = json.loads(line)
        try:
            reply = info() if request["op"] == "info" else run(request, peers)
        except Exception as e:  # reported to the driver, which fails the peer
            reply = {"error": "%s: %s" % (type(e).__name__, e)}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
