# graft_bench's and run_bench.py's error paths: bad command lines, bad
# inputs, a missing peer (oneDNN/OpenBLAS when graft_bench was built without
# them, a Python without torch), and the two ways a wrong setup could pass
# for a result: a peer whose result disagrees with the reference, and an
# implementation that ran another thread count than its row's
# (test/sabotage.py fakes both). Run by CTest as bench/errors with
# GRAFT_BENCH, GRAFT, PYTHON, FILECHECK and SRC set.
set -euo pipefail
source "$SRC/tests/e2e/lib/common.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/graft-bench-errors.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
C=$SRC/tests/bench/test/errors.sh
RUN=("$PYTHON" "$SRC/tests/bench/run_bench.py" --graft "$GRAFT" --graft-bench "$GRAFT_BENCH"
     --quick --json "$T/results.json")
"$PYTHON" -c "
import numpy as np
np.save('a.npy', np.ones((3, 4), np.float32))
np.save('b.npy', np.ones((5, 2), np.float32))
np.save('w.npy', np.ones((4, 2), np.float32))
np.save('i.npy', np.ones(7, np.int32))
np.save('a8.npy', np.ones((3, 4), np.int8))
np.save('w8.npy', np.ones((4, 2), np.int8))"

# ---- graft_bench -----------------------------------------------------------
expect_fail "$GRAFT_BENCH" bogus
check --check-prefix=MODE "$C" <out
# MODE: graft_bench: error: unknown mode 'bogus' (graft_bench --help lists them)
expect_fail "$GRAFT_BENCH" graft --threads x
check --check-prefix=NUMBER "$C" <out
# NUMBER: graft_bench: error: --threads expects a number from 0 to 4096, found 'x'
expect_fail "$GRAFT_BENCH" graft --reps
check --check-prefix=VALUE "$C" <out
# VALUE: graft_bench: error: --reps: missing value
expect_fail "$GRAFT_BENCH" graft --outputs heap
check --check-prefix=OUTPUTS "$C" <out
# OUTPUTS: graft_bench: error: --outputs expects 'runtime' or 'caller', found 'heap'
expect_fail "$GRAFT_BENCH" stream-copy a.npy --profile
check --check-prefix=PROFILEMODE "$C" <out
# PROFILEMODE: graft_bench: error: --profile: only the graft mode records a runtime profile, not 'stream-copy'
# --profile's summary (docs/runtime-profile.md) follows graft's row.
"$GRAFT" build "$SRC/tests/bench/graphs/mlp.graph" -o mlp.graft
"$GRAFT_BENCH" graft mlp.graft mlp a.npy w.npy --threads 2 --reps 3 --profile > out 2>&1
check --check-prefix=PROFILE "$C" <out
# PROFILE: {"impl": "graft", "threads": 2,
# PROFILE: profile: {{[0-9]+}} calls of 'mlp' after the warm-up, 2 threads
# PROFILE-NEXT: dispatch {{.*}} share thr setup us wake us imbal us end us
# PROFILE-NEXT: mlp_dispatch_0_matmul {{.*%}}
# PROFILE-NEXT: (call) {{.*}} 100.0%
# graft-ab: two builds in one process, timed in alternation; the warm-up
# results compared byte for byte (no timing is asserted).
expect_fail "$GRAFT_BENCH" graft-ab mlp.graft mlp
check --check-prefix=ABARGS "$C" <out
# ABARGS: graft_bench: error: graft-ab: needs BUNDLE_A, BUNDLE_B and FUNCTION, found 2 argument(s)
expect_fail "$GRAFT_BENCH" graft-ab mlp.graft missing.graft mlp a.npy w.npy
check --check-prefix=ABOPEN "$C" <out
# ABOPEN: graft_bench: error: graft-ab: B: cannot open 'missing.graft': No such file or directory
expect_fail "$GRAFT_BENCH" graft-ab mlp.graft mlp.graft mlp a.npy w.npy --save r
check --check-prefix=ABSAVE "$C" <out
# ABSAVE: graft_bench: error: graft-ab: takes no --save (the graft mode saves one bundle's results)
sed 's/neg %x/abs %x/' "$SRC/tests/bench/graphs/mlp.graph" >abs.graph
"$GRAFT" build abs.graph -o abs.graft
"$GRAFT_BENCH" graft-ab mlp.graft mlp.graft mlp a.npy w.npy --threads 1 --reps 3 >ab.json
"$GRAFT_BENCH" graft-ab mlp.graft abs.graft mlp a.npy w.npy --threads 2 --reps 3 \
  --outputs caller >>ab.json
check --check-prefix=AB "$C" <ab.json
# AB: {"impl": "graft-ab", "threads": 1, "outputs": "runtime", "same_results": true, "pairs": 3, "calls_per_sample": {{[0-9]+}}, "a_min_ms": {{.*}}, "ratio_median": {{[0-9.]+}}, "ratio_max": {{[0-9.]+}}, "b_faster": {{[0-3]}}}
# AB-NEXT: {"impl": "graft-ab", "threads": 2, "outputs": "caller", "same_results": false, "pairs": 3,
expect_fail "$GRAFT_BENCH" graft --warp 9
check --check-prefix=OPTION "$C" <out
# OPTION: graft_bench: error: unknown option '--warp'
expect_fail "$GRAFT_BENCH" graft only.graft
check --check-prefix=GRAFTARGS "$C" <out
# GRAFTARGS: graft_bench: error: graft: needs BUNDLE and FUNCTION, found 1 argument(s)
expect_fail "$GRAFT_BENCH" graft missing.graft f
check --check-prefix=BUNDLE "$C" <out
# BUNDLE: graft_bench: error: graft: cannot open 'missing.graft': No such file or directory
expect_fail "$GRAFT_BENCH" stream-triad a.npy
check --check-prefix=STREAMARGS "$C" <out
# STREAMARGS: graft_bench: error: stream-triad: needs X.npy and Y.npy, found 1 path(s)
expect_fail "$GRAFT_BENCH" stream-triad a.npy i.npy
check --check-prefix=STREAMTYPE "$C" <out
# STREAMTYPE: graft_bench: error: stream-triad: expects f32 inputs of one size
expect_fail "$GRAFT_BENCH" wake --threads 1
check --check-prefix=WAKETHREADS "$C" <out
# WAKETHREADS: graft_bench: error: wake: needs at least 2 threads (a pool of one wakes nobody), found --threads 1
expect_fail "$GRAFT_BENCH" wake --threads 2 a.npy
check --check-prefix=WAKEARGS "$C" <out
# WAKEARGS: graft_bench: error: wake: takes no inputs, found 'a.npy'
# The mode itself (no timing is asserted): both summaries, every worker.
"$GRAFT_BENCH" wake --threads 2 --reps 3 >wake.json
check --check-prefix=WAKE "$C" <wake.json
# WAKE: {"impl": "graft wake", "threads": 2, "samples": 3, "parked_us": {"min": {{[0-9.]+}}, "median": {{[0-9.]+}}, "max": {{[0-9.]+}}}, "spinning_us": {"min": {{[0-9.]+}}, "median": {{[0-9.]+}}, "max": {{[0-9.]+}}}}

# The matmul peers: their input errors where they are linked, the reason
# they are not where they are missing.
for peer in onednn openblas; do
  mode=$([[ $peer == onednn ]] && echo onednn-matmul || echo openblas-sgemm)
  if "$GRAFT_BENCH" info | grep "\"$peer\": {\"available\": true" >/dev/null; then
    expect_fail "$GRAFT_BENCH" "$mode" a.npy b.npy
    check --check-prefix=INNER "$C" <out
    expect_fail "$GRAFT_BENCH" "$mode" a.npy w.npy --post-ops relu,gelu
    check --check-prefix=POSTOP "$C" <out
    expect_fail "$GRAFT_BENCH" "$mode" a.npy
    check --check-prefix=MMARGS "$C" <out
    expect_fail "$GRAFT_BENCH" "$mode" a8.npy w8.npy
    check --check-prefix=MMF32 "$C" <out
    if [[ $peer == onednn ]]; then
      # The i8 peer (dnnl_gemm_s8s8s32): i8 operands, no post-ops.
      expect_fail "$GRAFT_BENCH" onednn-gemm-s8 a.npy w.npy
      check --check-prefix=MMI8 "$C" <out
      expect_fail "$GRAFT_BENCH" onednn-gemm-s8 a8.npy w8.npy --post-ops relu
      check --check-prefix=POSTI8 "$C" <out
    fi
  else
    expect_fail "$GRAFT_BENCH" "$mode" a.npy b.npy
    check --check-prefix=MISSING-$peer "$C" <out
  fi
done
# INNER: graft_bench: error: {{onednn-matmul|openblas-sgemm}}: matmul inner dimensions differ: lhs has K = 4, rhs has K = 5
# POSTOP: graft_bench: error: {{.*}}: --post-ops 'relu,gelu': unknown step 'gelu', expected relu or neg
# MMARGS: graft_bench: error: {{.*}}: needs LHS.npy and RHS.npy, found 1 path(s)
# MMF32: graft_bench: error: {{onednn-matmul|openblas-sgemm}}: this matmul peer expects f32 inputs, found i8 and i8
# MMI8: graft_bench: error: onednn-gemm-s8: this matmul peer expects i8 inputs, found f32 and f32
# POSTI8: graft_bench: error: onednn-gemm-s8: --post-ops: only f32 results take post-ops
# MISSING-onednn: graft_bench: error: onednn-matmul: peer 'onednn' is missing: libdnnl-dev (with OpenMP) was not found when graft_bench was configured (install it with tests/bench/install-peers.sh and reconfigure)
# MISSING-openblas: graft_bench: error: openblas-sgemm: peer 'openblas' is missing: libopenblas-dev was not found when graft_bench was configured (install it with tests/bench/install-peers.sh and reconfigure)

# ---- run_bench.py ----------------------------------------------------------
expect_fail "${RUN[@]}" --peers mkl
check --check-prefix=PEERS "$C" <out
# PEERS: run_bench.py: error: --peers: unknown peer 'mkl', expected one of onednn, openblas, torch, stream or none
expect_fail "${RUN[@]}" --threads 1,two
check --check-prefix=THREADS "$C" <out
# THREADS: run_bench.py: error: --threads expects comma-separated integers, found '1,two'
expect_fail "${RUN[@]}" --rounds 0
check --check-prefix=ROUNDS "$C" <out
# ROUNDS: run_bench.py: error: --rounds must be at least 1, found 0
# --rounds 2: each implementation timed twice, in turn, its fastest kept.
"${RUN[@]}" --filter softmax --peers none --threads 1 --rounds 2 >out
check --check-prefix=TWOROUNDS "$C" <out
# TWOROUNDS: times per call; rate from the min of each implementation's fastest of 2 rounds (taking turns)
"$PYTHON" -c "
import json
r = json.load(open('results.json'))['results'][0]
times = r['graft']['round_times_ms']
assert len(times) == 2 and r['graft']['min_ms'] == min(times), times
"
expect_fail "${RUN[@]}" --filter zzz
check --check-prefix=FILTER "$C" <out
# FILTER: error: --filter 'zzz' matches no case

# A Python without torch: PyTorch is reported missing, the run passes.
printf '#!/bin/sh\nexit 1\n' >no-torch
chmod +x no-torch
"${RUN[@]}" --filter softmax --peers torch --torch-python "$T/no-torch" >out
check --check-prefix=NOTORCH "$C" <out
# NOTORCH: torch: MISSING: {{.*}}/no-torch cannot import torch (exit 1); install python3-torch
# NOTORCH: softmax  37x53  1  graft
# NOTORCH-NEXT:                 PyTorch eager  MISSING: {{.*}}/no-torch cannot import torch
# NOTORCH: 1 of 1 cases passed, 0 failures

# A peer whose result is wrong fails the run, naming the element.
printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$PYTHON" "$SRC/tests/bench/test/sabotage.py" >sabotage
chmod +x sabotage
BENCH_SABOTAGE=result GRAFT_BENCH=$GRAFT_BENCH expect_fail "${RUN[@]}" \
  --graft-bench "$T/sabotage" --filter elementwise4 --peers stream
check --check-prefix=WRONG "$C" <out
# WRONG: STREAM copy  FAILED: elementwise4 STREAM copy (1 threads): max |error| 1 exceeds {{.*}} at index [3]: got {{.*}}, expected {{.*}}
# WRONG: 0 of 1 cases passed, 2 failures

# An integer result (an i8 case, checked exactly) one off in one element.
BENCH_SABOTAGE=intresult GRAFT_BENCH=$GRAFT_BENCH expect_fail "${RUN[@]}" \
  --graft-bench "$T/sabotage" --filter matmul_i8 --peers none --threads 1
check --check-prefix=WRONGINT "$C" <out
# WRONGINT: 0 of 1 cases passed, 1 failures
# WRONGINT: error: matmul_i8_19x23x17 graft (1 threads): 1 results differ, the first at index [0, 3]: got {{-?[0-9]+}}, expected {{-?[0-9]+}}

# So does an implementation that ran another thread count than its row's.
BENCH_SABOTAGE=threads GRAFT_BENCH=$GRAFT_BENCH expect_fail "${RUN[@]}" \
  --graft-bench "$T/sabotage" --filter softmax --peers none --threads 1
check --check-prefix=THREADCOUNT "$C" <out
# THREADCOUNT: FAILED softmax: graft ran 2 threads, asked for 1
# THREADCOUNT: 0 of 1 cases passed, 1 failures

# And a CPU time above the wall time at 1 thread (the clock counted other
# threads).
BENCH_SABOTAGE=cpu GRAFT_BENCH=$GRAFT_BENCH expect_fail "${RUN[@]}" \
  --graft-bench "$T/sabotage" --filter softmax --peers none --threads 1
check --check-prefix=CPUCLOCK "$C" <out
# CPUCLOCK: FAILED softmax: graft: CPU time {{.*}} ms per call > wall time {{.*}} ms at 1 thread (clock thread)
# CPUCLOCK: 0 of 1 cases passed, 1 failures
# --clock cpu: a 1-thread row's rate from its CPU time, a row at 2
# threads' from its wall time (report.py clock_key), however low its
# process CPU time reads.
BENCH_SABOTAGE=cpulow GRAFT_BENCH=$GRAFT_BENCH "${RUN[@]}" --graft-bench "$T/sabotage" \
  --filter softmax --peers none --threads 1,2 --clock cpu >out
check --check-prefix=CPURATE "$C" <out
# CPURATE: rate from the min CPU time at 1 thread (--clock cpu: the calling thread's), the min wall time at N
"$PYTHON" -c "
import json
rows = json.load(open('results.json'))['results']
assert sorted(r['threads'] for r in rows) == [1, 2], rows
for r in rows:
    g = r['graft']
    ms = g['cpu_min_ms'] if r['threads'] == 1 else g['min_ms']
    want = g['work'] / (ms * 1e-3)
    assert abs(g['rate'] - want) <= 1e-9 * want, (r['threads'], g['rate'], want)
"
echo "PASS bench/errors"
