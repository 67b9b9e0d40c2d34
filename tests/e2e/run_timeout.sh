# graft-run --timeout: a C kernel that never returns is reported with the
# dispatch that was running and its graph location, and the process ends
# with exit code 1 (the stuck kernel thread cannot be stopped, so graft-run
# ends the process from the watchdog's thread). A call that finishes in
# time is unaffected. The same under qemu for aarch64 and riscv64.
# spin_k of inputs/bad_kernels/k.c never returns.
bad_kernel spin
"$GRAFT" build f.graph --target x86_64 -o good.graft
C=$TEST_DIR/run_timeout.sh

set +e
"$GRAFT_RUN" spin.graft --input 4xf32=1 --timeout 0.2 > out 2>&1
rc=$?
set -e
[[ $rc == 1 ]] || { echo "expected exit code 1, got $rc"; cat out; exit 1; }
check --check-prefix=SPIN "$C" <out
# SPIN: graft-run: error: function 'f' ran past its deadline of 200 ms in dispatch 'f_dispatch_0_spin' (f.graph:2:8)

require_targets aarch64 riscv64
for RUN in "run_on aarch64" "run_on riscv64"; do
  set +e
  $RUN spin.graft --input 4xf32=1 --timeout 0.5 > out 2>&1
  rc=$?
  set -e
  [[ $rc == 1 ]] || { echo "$RUN: expected exit code 1, got $rc"; cat out; exit 1; }
  check --check-prefix=SPIN-QEMU "$C" <out
done
# SPIN-QEMU: graft-run: error: function 'f' ran past its deadline of 500 ms in dispatch 'f_dispatch_0_spin' (f.graph:2:8)

"$GRAFT_RUN" good.graft --input "2xf32=[1 -2]" --timeout 60 > good.out
echo "2xf32=-1 2" | diff -u - good.out

expect_fail "$GRAFT_RUN" good.graft --input 2xf32=1 --timeout 0
check --check-prefix=USAGE "$C" <out
# USAGE: graft-run: error: --timeout '0': expected seconds between 0.001 and 4294967
