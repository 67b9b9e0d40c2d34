# x86_64's AMX level and the kernel's permission for the tile state
# (runtime/src/loader/arch/x86_64.c, variant.c): Linux hands a process the
# AMX tile state only on request (arch_prctl(ARCH_REQ_XCOMP_PERM)), and a
# granted request lasts for the process. The loader asks only when it is
# about to choose a variant that needs AMX: never for another level, forced
# or by default. A refused request makes the default choice fall back to
# the next level, and a forced x86-64-v4+amx, or a slice whose only variant
# is AMX's, fail naming the refusal. inputs/amx_permission/deny_amx runs
# graft-run with the request refused (EPERM) or forbidden (the process
# killed if it asks) by a seccomp filter. On an x86_64 CPU without AMX, a
# forced AMX level fails naming the features it lacks, and nothing asks.
[[ $HOST_TARGET == x86_64 ]] || { echo "note: AMX is x86_64's; this host is $HOST_TARGET"; exit 0; }
"$CLANG" -O1 -o deny_amx "$TEST_DIR/inputs/amx_permission/deny_amx.c"
"$GRAFT" build "$SRC/tests/bench/graphs/matmul_i8.graph" --target x86_64 -o all.graft
"$GRAFT" build "$SRC/tests/bench/graphs/matmul_i8.graph" --target x86_64 --levels x86-64-v2,x86-64-v4+vnni -o noamx.graft
"$GRAFT" build "$SRC/tests/bench/graphs/matmul_i8.graph" --target x86_64 --levels x86-64-v4+amx -o onlyamx.graft
A="2x5xi8=[[1 -2 3 -128 127][4 5 -6 7 8]]"
B="5x3xi8=[[1 2 3][-4 5 6][7 -8 9][1 1 1][-1 -1 -1]]"
WANT="2x3xi32=[-225 -287 -237][-59 80 -13]"
# which_level <command...>: the level graft-run chose (its benchmark line).
which_level() {
  "$@" --function matmul_i8 --input "$A" --input "$B" --benchmark 1 2>&1 | sed -n 's/.*, isa \([^ ]*\)$/\1/p'
}
# run <command...>: graft-run's product of A and B (the command runs it).
run() { "$@" --function matmul_i8 --input "$A" --input "$B"; }
expect_product() { # <what> <command...>
  local what=$1 got
  shift
  got=$("$@") || { echo "error: $what failed" >&2; exit 1; }
  [[ $got == "$WANT" ]] || { echo "error: $what gave $got, expected $WANT" >&2; exit 1; }
}
# Another level, forced or the bundle's best, never asks (forbid kills a
# process that does).
expect_product "x86-64-v2 forced" run ./deny_amx forbid "$GRAFT_RUN" all.graft --isa x86-64-v2
if grep -qw avx512_vnni /proc/cpuinfo; then
  expect_product "x86-64-v4+vnni forced" run ./deny_amx forbid "$GRAFT_RUN" all.graft --isa x86-64-v4+vnni
fi
expect_product "a bundle without AMX" run ./deny_amx forbid "$GRAFT_RUN" noamx.graft

if ! { grep -qw amx_tile /proc/cpuinfo && grep -qw amx_int8 /proc/cpuinfo; }; then
  echo "note: this CPU has no AMX: a forced AMX level must name what it lacks"
  expect_product "the default choice" run ./deny_amx forbid "$GRAFT_RUN" all.graft
  expect_fail run "$GRAFT_RUN" all.graft --isa x86-64-v4+amx
  check_out LACKS
  exit 0
fi
# LACKS: error: all.graft: x86_64 slice: ISA level 'x86-64-v4+amx' cannot run on this CPU: it lacks {{.*}}amx-tile, amx-int8

# Granted: the default choice is AMX's, and right.
[[ $(which_level "$GRAFT_RUN" all.graft) == x86-64-v4+amx ]] || { echo "error: AMX was not chosen" >&2; exit 1; }
expect_product "x86-64-v4+amx" run "$GRAFT_RUN" all.graft
# Refused: the default choice falls back, right; forced, it fails.
[[ $(which_level ./deny_amx refuse "$GRAFT_RUN" all.graft) == x86-64-v4+vnni ]] ||
  { echo "error: a refusal did not fall back to x86-64-v4+vnni" >&2; exit 1; }
expect_product "the fallback" run ./deny_amx refuse "$GRAFT_RUN" all.graft
expect_fail run ./deny_amx refuse "$GRAFT_RUN" all.graft --isa x86-64-v4+amx
check_out FORCED
# FORCED: error: all.graft: x86_64 slice: ISA level 'x86-64-v4+amx' cannot run: the kernel did not grant this process the AMX tile state (arch_prctl ARCH_REQ_XCOMP_PERM)
expect_fail run ./deny_amx refuse "$GRAFT_RUN" onlyamx.graft
check_out ONLY
# ONLY: error: onlyamx.graft: x86_64 slice: no ISA variant of the slice runs here: its lowest, x86-64-v4+amx, needs amx-tile, amx-int8: the kernel did not grant this process the AMX tile state (arch_prctl ARCH_REQ_XCOMP_PERM)
