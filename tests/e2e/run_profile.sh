# graft-run --profile FILE: a Chrome trace-event file of every call (the
# first and --benchmark's), checked by run_profile_check.py against the
# dispatches --trace lists (each per call, spans nested, chunks covering
# every grid exactly once), at 1 and 4 threads and under qemu for
# aarch64; the per-dispatch summary on stderr; results unchanged; and the
# errors.
C=$TEST_DIR/run_profile.sh
"$GRAFT" build "$SRC/tests/bench/graphs/attention.graph" -o att.graft
IN=(--input 512x64xf32=1 --input @k.npy --input 512x64xf32=0.25)
"$PYTHON" -c "
import numpy as np
np.save('k.npy', (np.arange(512 * 64, dtype=np.float32) % 7 / 7).reshape(512, 64))"

"$GRAFT_RUN" att.graft "${IN[@]}" --threads 4 --trace --output @plain.npy 2> trace.txt
for threads in 1 4; do
  "$GRAFT_RUN" att.graft "${IN[@]}" --threads $threads --benchmark 3 \
    --profile p$threads.json --output @profiled$threads.npy 2> summary$threads.txt
  "$PYTHON" "$TEST_DIR/run_profile_check.py" p$threads.json trace.txt $threads 4
  cmp plain.npy profiled$threads.npy
  check --check-prefix=SUMMARY "$C" < summary$threads.txt
done
# SUMMARY: profile: 4 calls of 'attention', {{1 thread|4 threads}}
# SUMMARY-NEXT: dispatch{{ +}}runs total ms min us med us share thr setup us wake us imbal us end us
# SUMMARY-NEXT: attention_dispatch_0_matmul_pack{{ +}}4 {{.*%}}
# SUMMARY: attention_dispatch_2_matmul{{ +}}4
# SUMMARY-NEXT: (call){{ +}}4 {{.*}} 100.0%
# SUMMARY-NEXT: (outside dispatches)

# The same under qemu for aarch64 (2 threads, 2 calls): the profile does
# not depend on the architecture.
require_targets aarch64
"$GRAFT" build "$SRC/tests/bench/graphs/attention.graph" --target aarch64 -o att-a64.graft
IN64=(--input 64x16xf32=1 --input 64x16xf32=0.5 --input 64x16xf32=0.25)
run_on aarch64 att-a64.graft "${IN64[@]}" --threads 2 --trace --output @a64.npy 2> trace-a64.txt
run_on aarch64 att-a64.graft "${IN64[@]}" --threads 2 --benchmark 1 \
  --profile a64.json --output @a64-profiled.npy 2> /dev/null
"$PYTHON" "$TEST_DIR/run_profile_check.py" a64.json trace-a64.txt 2 2
cmp a64.npy a64-profiled.npy

expect_fail "$GRAFT_RUN" att.graft "${IN[@]}" --profile "$T/no/such/dir/p.json"
check_out NO-DIR
# It fails before any call runs: no summary, no result.
not grep -q '^profile:' "$T/out"
# NO-DIR: graft-run: error: --profile '{{.*}}/no/such/dir/p.json': cannot write '{{.*}}/no/such/dir/p.json': No such file or directory
expect_fail "$GRAFT_RUN" att.graft "${IN[@]}" --profile=
check_out EMPTY
# EMPTY: graft-run: error: --profile '': expected a file name
expect_fail "$GRAFT_RUN" att.graft "${IN[@]}" --profile p.json --trace
check_out WITH-TRACE
# WITH-TRACE: graft-run: error: --trace and --profile 'p.json' cannot be combined
