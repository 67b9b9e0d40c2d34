#!/usr/bin/env python3
"""A graft_bench that lies, for errors.sh: runs the real one ($GRAFT_BENCH)
and then spoils what run_bench.py relies on, as BENCH_SABOTAGE says:

  result   stream-copy's saved result gets one wrong element
  intresult  graft's saved i32 result (an i8 case) gets one wrong element
  threads  graft's measurement claims one thread more than it was given
  cpu      graft's CPU time per call is twice its wall time (what the
           process clock read at 1 thread while OpenBLAS's workers spun)
  cpulow   graft's CPU time per call is a tenth of its wall time (at N
           threads, what the process clock's least sample can read)

run_bench.py must notice each of the first four and fail, and take no
N-thread rate from the last; nothing else changes."""
import os
import subprocess
import sys

import numpy as np

argv = sys.argv[1:]
proc = subprocess.run([os.environ["GRAFT_BENCH"]] + argv, capture_output=True, text=True)
sys.stderr.write(proc.stderr)
out = proc.stdout
how = os.environ.get("BENCH_SABOTAGE")
if how == "result" and argv[0] == "stream-copy" and "--save" in argv:
    path = argv[argv.index("--save") + 1] + "0.npy"
    spoilt = np.load(path)
    spoilt[3] += 1
    np.save(path, spoilt)
if how == "intresult" and argv[0] == "graft" and "--save" in argv:
    path = argv[argv.index("--save") + 1] + "0.npy"
    spoilt = np.load(path)
    spoilt.flat[3] += 1
    np.save(path, spoilt)
if how == "threads" and argv[0] == "graft" and "--save" not in argv:
    threads = int(argv[argv.index("--threads") + 1])
    out = out.replace('"threads": %d' % threads, '"threads": %d' % (threads + 1))
if how == "cpu" and argv[0] == "graft" and "--save" not in argv:
    import json
    m = json.loads(out.strip().splitlines()[-1])
    m["cpu_min_ms"] = 2 * m["min_ms"]
    out = json.dumps(m) + "\n"
if how == "cpulow" and argv[0] == "graft" and "--save" not in argv:
    import json
    m = json.loads(out.strip().splitlines()[-1])
    m["cpu_min_ms"] = m["min_ms"] / 10
    out = json.dumps(m) + "\n"
sys.stdout.write(out)
sys.exit(proc.returncode)
