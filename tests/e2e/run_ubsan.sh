# graft build --sanitize=undefined: C kernels with undefined behaviour (in
# inputs/bad_kernels/k.c: a signed overflow, an out-of-range shift, a
# misaligned load, an unreachable point reached) built with UBSan's minimal
# runtime in the slice. Each check that fires fails the invocation with a
# message naming the check, its offset in the slice, the dispatch and the
# workgroup, and graft-run exits 1 (no crash), natively and under qemu for
# aarch64 and riscv64 (and arm for two of them). The unreachable one cannot
# continue and ends its workgroup at once. Inputs that do no UB run unchanged, the same kernels
# built without the option run, graft-fatelf info shows which slices are
# instrumented, and an object or bitcode kernel gets a warning naming it.
C=$TEST_DIR/run_ubsan.sh
KERNELS="add_overflow shift misaligned unreachable"
for K in $KERNELS; do
  bad_kernel $K
  "$GRAFT" build f.graph --spec $K.yaml --target x86_64,aarch64,riscv64 \
    --sanitize=undefined -o $K.ubsan.graft
done

# run_bad <target> <kernel> <input>: the instrumented bundle must fail with
# exit code 1; its output is left in out.
run_bad() {
  set +e
  run_on "$1" "$2.ubsan.graft" --input "$3" > out 2>&1
  local rc=$?
  set -e
  [[ $rc == 1 ]] || { echo "$1 $2: expected exit code 1, got $rc"; cat out; exit 1; }
}

require_targets aarch64 riscv64
for T in x86_64 aarch64 riscv64; do
  run_bad $T add_overflow "2xf32=[0 1]"
  check -DT=$T --check-prefix=ADD "$C" <out
  run_bad $T shift "3xf32=[1 2 40]"
  check -DT=$T --check-prefix=SHIFT "$C" <out
  run_bad $T misaligned "2xf32=[1 2]"
  check -DT=$T --check-prefix=ALIGN "$C" <out
  run_bad $T unreachable "3xf32=[1 -1 2]"
  check -DT=$T --check-prefix=UNREACHABLE "$C" <out

  # Inputs that do no undefined behaviour give the same results as the
  # bundles built without the option.
  while read -r K IN; do
    run_on $T $K.graft --input "$IN" > plain.out
    run_on $T $K.ubsan.graft --input "$IN" > ubsan.out
    diff -u plain.out ubsan.out
  done <<'OK'
add_overflow 2xf32=[-1 -2]
shift 2xf32=[0 31]
misaligned 2xf32=[0 2]
unreachable 2xf32=[1 2]
OK

  # Built without the option, the same kernels run on the bad inputs
  # (what they compute is undefined, so only that they ran is checked).
  run_on $T add_overflow.graft --input "2xf32=[0 1]" | grep -q '^2xf32='
  run_on $T shift.graft --input "3xf32=[1 2 40]" | grep -q '^3xf32='
  run_on $T misaligned.graft --input "2xf32=[1 2]" | grep -q '^2xf32='
done
# ADD: graft-run: error: dispatch 'f_dispatch_0_add_overflow' (f.graph:2:8) of function 'f' in workgroup (0,0,0): undefined behaviour: add-overflow, called from offset 0x{{[0-9a-f]+}} of the [[T]] slice (--sanitize=undefined)
# SHIFT: graft-run: error: dispatch 'f_dispatch_0_shift' (f.graph:2:8) of function 'f' in workgroup (0,0,0): undefined behaviour: shift-out-of-bounds, called from offset 0x{{[0-9a-f]+}} of the [[T]] slice (--sanitize=undefined)
# ALIGN: graft-run: error: dispatch 'f_dispatch_0_misaligned' (f.graph:2:8) of function 'f' in workgroup (0,0,0): undefined behaviour: type-mismatch, called from offset 0x{{[0-9a-f]+}} of the [[T]] slice (--sanitize=undefined)
# UNREACHABLE: graft-run: error: dispatch 'f_dispatch_0_unreachable' (f.graph:2:8) of function 'f' in workgroup (0,0,0): undefined behaviour: builtin-unreachable, called from offset 0x{{[0-9a-f]+}} of the [[T]] slice (--sanitize=undefined)

# 32-bit Arm too (bad_kernels' spec has no arm kernel: add one).
require_targets arm
for K in add_overflow unreachable; do
  sed -e "s/KERNEL/$K/g" -e 's/^\( *\)riscv64: {source: k.c}/&\n\1arm: {source: k.c}/' \
    "$TEST_DIR/inputs/bad_kernels/call.yaml.in" > $K.arm.yaml
  grep -q 'arm: {source: k.c}' $K.arm.yaml
  "$GRAFT" build f.graph --spec $K.arm.yaml --target arm --sanitize=undefined -o $K.arm.graft
done
set +e
run_on arm add_overflow.arm.graft --input "2xf32=[0 1]" > out 2>&1; rc1=$?
run_on arm unreachable.arm.graft --input "3xf32=[1 -1 2]" >> out 2>&1; rc2=$?
set -e
[[ $rc1 == 1 && $rc2 == 1 ]] || { echo "arm: expected exit codes 1, got $rc1 $rc2"; cat out; exit 1; }
check -DT=arm --check-prefixes=ADD,UNREACHABLE "$C" <out

# The offset is a return address in the slice's code: the instruction
# before it is a call (to the handler).
"$GRAFT_RUN" add_overflow.ubsan.graft --input "1xf32=1" > out 2>&1 && exit 1
off=$(sed -n 's/.*called from offset 0x\([0-9a-f]*\) of.*/\1/p' out)
[[ -n $off ]] || { echo "no offset in:"; cat out; exit 1; }
"$GRAFT_FATELF" extract add_overflow.ubsan.graft --target x86_64 -o slice.so
"$LLVM_OBJDUMP" -d --no-show-raw-insn slice.so > slice.s
awk -v want="$off" '
  $1 ~ /^[0-9a-f]+:$/ { if ($1 == want ":") { found = 1; exit } prev = $0 }
  END { if (!found || prev !~ /call/) { print "offset 0x" want " does not follow a call: " prev; exit 1 } }' slice.s

"$GRAFT_FATELF" info add_overflow.ubsan.graft > info
check --check-prefix=INFO "$C" <info
# INFO: {{.*}}x86_64{{.*}}
# INFO: instrumented: --sanitize=undefined (UBSan checks in its C kernels)
# INFO: {{.*}}aarch64{{.*}}
# INFO: instrumented: --sanitize=undefined (UBSan checks in its C kernels)
"$GRAFT_FATELF" info add_overflow.graft > info
if grep -q instrumented info; then echo "plain bundle listed as instrumented"; cat info; exit 1; fi

# Object and bitcode kernels cannot be instrumented: a warning names each,
# and the build links them as they are.
"$CLANG" --target=x86_64-unknown-linux-gnu -O2 -ffreestanding -fPIC -c k.c -o k.o
"$CLANG" --target=x86_64-unknown-linux-gnu -O2 -ffreestanding -fPIC -emit-llvm -c k.c -o k.bc
for KIND in object bitcode; do
  sed -e 's/KERNEL/add_overflow/g' \
      -e "s/{source: k.c}/{$KIND: k.$([[ $KIND == object ]] && echo o || echo bc)}/" \
    "$TEST_DIR/inputs/bad_kernels/call.yaml.in" | grep -v 'aarch64:\|riscv64:' > $KIND.yaml
  "$GRAFT" build f.graph --spec $KIND.yaml --target x86_64 --sanitize=undefined \
    -o $KIND.graft 2> warn
  check -DKIND=$KIND --check-prefix=WARN "$C" <warn
  "$GRAFT_RUN" $KIND.graft --input "2xf32=[0 1]" | grep -q '^2xf32='
done
# WARN: {{.*}}.yaml:{{[0-9]+}}:{{[0-9]+}}: warning: [[KIND]] kernel '{{.*}}' is not instrumented by --sanitize=undefined (graft can only instrument C sources); compile it with -fsanitize=undefined -fsanitize-minimal-runtime to check it
