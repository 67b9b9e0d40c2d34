# graft-run --guard: C kernels that write one element past the end of their
# result, one before its start and one into their (read-only) input are
# each named in the message: the dispatch with its graph location, the
# workgroup and the buffer. Without --guard the same bundles run silently
# (the overrun lands in heap padding), which is why the mode exists. The
# fault and the canary are also checked under qemu for aarch64 and riscv64.
# The kernels are in inputs/bad_kernels/k.c.
for K in past_end before_start into_input; do
  bad_kernel $K
done
C=$TEST_DIR/run_guard.sh

# A correct run under either guard gives the same result as without one.
"$GRAFT" build f.graph --target x86_64 -o good.graft
for G in --guard --guard=overflow --guard=underflow; do
  "$GRAFT_RUN" good.graft --input "3xf32=[1 2 3]" $G > good.out
  echo "3xf32=-1 -2 -3" | diff -u - good.out
done

# 16 floats fill 64 bytes: the element past the end is on the guard page.
expect_fail "$GRAFT_RUN" past_end.graft --input 16xf32=1 --guard
check --check-prefix=OVER "$C" <out
# OVER: graft: guard: dispatch 'f_dispatch_0_past_end' (f.graph:2:8) of function 'f' workgroup (0,0,0) accessed byte 64 of buffer 1 (result 0, 64 bytes), past its end
expect_fail "$GRAFT_RUN" before_start.graft --input 3xf32=1 --guard=underflow
check --check-prefix=UNDER "$C" <out
# UNDER: graft: guard: dispatch 'f_dispatch_0_before_start' (f.graph:2:8) of function 'f' workgroup (0,0,0) accessed byte -4 of buffer 1 (result 0, 12 bytes), before its start
expect_fail "$GRAFT_RUN" into_input.graft --input 3xf32=1 --guard
check --check-prefix=READONLY "$C" <out
# READONLY: graft: guard: dispatch 'f_dispatch_0_into_input' (f.graph:2:8) of function 'f' workgroup (0,0,0) wrote byte 0 of buffer 0 (argument 0 %x, 12 bytes), which is read-only

# 3 floats leave 52 bytes of alignment padding before the overflow guard
# (and the whole rest of the page after an underflow-guarded buffer): the
# canary there catches the overrun after the dispatch, without a workgroup.
expect_fail "$GRAFT_RUN" past_end.graft --input 3xf32=1 --guard
check --check-prefix=PAD-END "$C" <out
# PAD-END: graft-run: error: guard: dispatch 'f_dispatch_0_past_end' (f.graph:2:8) of function 'f' wrote byte 12 of buffer 1 (result 0, 12 bytes), past its end (found in the padding after the dispatch, so the workgroup is unknown; 4 bytes changed)
expect_fail "$GRAFT_RUN" before_start.graft --input 16xf32=1 --guard=overflow
check --check-prefix=PAD-START "$C" <out
# PAD-START: graft-run: error: guard: dispatch 'f_dispatch_0_before_start' (f.graph:2:8) of function 'f' wrote byte -4 of buffer 1 (result 0, 64 bytes), before its start (found in the padding after the dispatch, so the workgroup is unknown; 4 bytes changed)

# Without --guard nothing notices (the reason for the mode).
"$GRAFT_RUN" past_end.graft --input 3xf32=1 > /dev/null

require_targets aarch64 riscv64
for RUN in "run_on aarch64" "run_on riscv64"; do
  expect_fail $RUN past_end.graft --input 16xf32=1 --guard
  check --check-prefix=OVER "$C" <out
  expect_fail $RUN before_start.graft --input 3xf32=1 --guard=underflow
  check --check-prefix=UNDER "$C" <out
  expect_fail $RUN past_end.graft --input 3xf32=1 --guard
  check --check-prefix=PAD-END "$C" <out
done

expect_fail "$GRAFT_RUN" good.graft --input 3xf32=1 --guard=sideways
check --check-prefix=USAGE "$C" <out
# USAGE: graft-run: error: --guard 'sideways': expected 'overflow' or 'underflow'
