# A kernel that breaks a rule of graft's slices is the user's error, named
# by its file: a section both writable and executable in a kernel object
# (checked when the kernel is), the same section reaching the slice through
# a C kernel's file-scope assembly (checked on the linked slice, naming the
# kernels inlined into the dispatches), assembly LLVM rejects, and bitcode
# that is not valid IR.
EX=$SRC/specs/mlp
sed -e '/^GRAFT_KERNEL_EXPORT void mlp_kernel/i\
__asm__(".section .wxdata,\\"awx\\",@progbits\\n.globl wx_word\\nwx_word: .long 0\\n.text\\n");\
extern int wx_word;' \
    -e 's/int32_t begin = block \* 8;/int32_t begin = block * 8 + wx_word;/' \
    "$EX/mlp_kernel.c" > wx.c
grep -F 'wx_word;' wx.c >/dev/null
cp "$EX/mlp_kernel.c" .

"$CLANG" --target=x86_64-linux-gnu -ffreestanding -fPIC -O2 -I"$SRC/runtime/include" -c wx.c -o wx.o
sed 's|x86_64: {source: mlp_kernel.c}|x86_64: {object: wx.o}|' "$EX/mlp.yaml" > object.yaml
expect_fail "$GRAFT" build "$EX/mlp.graph" --spec object.yaml --target x86_64 -o o.graft
check --check-prefix=OBJECT "$TEST_DIR/kernel_slice_rules.sh" < "$T/out"
# OBJECT: wx.o: error: section '.wxdata' is both writable and executable (graft slices are W^X)
# OBJECT: object.yaml:{{[0-9]+}}:{{[0-9]+}}: note: kernel object for target x86_64 of rule 'mlp_relu'
[[ ! -e o.graft ]]

sed 's|x86_64: {source: mlp_kernel.c}|x86_64: {source: wx.c}|' "$EX/mlp.yaml" > source.yaml
expect_fail "$GRAFT" build "$EX/mlp.graph" --spec source.yaml --target x86_64 --levels baseline -o s.graft
check --check-prefix=SOURCE "$TEST_DIR/kernel_slice_rules.sh" < "$T/out"
# SOURCE: x86_64 slice: error: the linked slice breaks a rule of graft's loader: PT_LOAD segment at vaddr 0x{{[0-9a-f]+}} is both writable and executable; check the code linked from mlp (x86_64 dispatches) with {{.*}}wx.c (rule 'mlp_relu')
# SOURCE-NOT: internal error
[[ ! -e s.graft ]]

# With every x86_64 level, each variant links its own copy of the kernel, so
# its file-scope assembly defines wx_word three times: LLVM's error on the
# kernel's assembly fails the build (it used to leave a broken slice).
expect_fail "$GRAFT" build "$EX/mlp.graph" --spec source.yaml --target x86_64 -o l.graft
check --check-prefix=LEVELS "$TEST_DIR/kernel_slice_rules.sh" < "$T/out"
# LEVELS: x86_64 slice: error: LLVM failed to compile the kernels linked into it ({{.*}}wx.c (rule 'mlp_relu')): <inline asm>:{{[0-9]+}}:{{[0-9]+}}: symbol 'wx_word' is already defined
# LEVELS-NOT: internal error
[[ ! -e l.graft ]]

# Bitcode LLVM's verifier rejects (%y used before it is defined), written
# without verifying.
cat > bad.ll <<'LL'
target triple = "x86_64-unknown-linux-gnu"
define void @mlp_kernel(ptr %lhs, ptr %rhs, ptr %result, i32 %m, i32 %n, i32 %k, i32 %block) {
entry:
  %x = add i32 %y, 1
  %y = add i32 %m, 1
  ret void
}
LL
"$(dirname "$FILECHECK")/llvm-as" --disable-verify bad.ll -o bad.bc
sed 's|x86_64: {source: mlp_kernel.c}|x86_64: {bitcode: bad.bc}|' "$EX/mlp.yaml" > bitcode.yaml
expect_fail "$GRAFT" build "$EX/mlp.graph" --spec bitcode.yaml --target x86_64 -o b.graft
check --check-prefix=BITCODE "$TEST_DIR/kernel_slice_rules.sh" < "$T/out"
# BITCODE: bad.bc: error: bitcode is not valid LLVM IR: Instruction does not dominate all uses!
# BITCODE: bitcode.yaml:{{[0-9]+}}:{{[0-9]+}}: note: kernel bitcode for target x86_64 of rule 'mlp_relu'
# BITCODE-NOT: internal error
[[ ! -e b.graft ]]
