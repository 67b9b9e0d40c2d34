# Kernel errors of spec rules: each names the kernel file, what was expected
# and what was found, with a note at the rule's kernel entry (file:line:col
# and a caret); argument-name errors point into the args list.
G=$TEST_DIR/inputs/mlp.graph
INC=$SRC/runtime/include

cat > k.c <<'C'
#include "graft/kernel.h"
GRAFT_KERNEL_EXPORT void k(const float *lhs, const float *rhs, float *out,
                           int32_t m, int32_t n, int32_t kk) {
  for (int32_t i = 0; i < m; ++i)
    for (int32_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int32_t p = 0; p < kk; ++p)
        acc += lhs[i * kk + p] * rhs[p * n + j];
      out[i * n + j] = acc < 0.0f ? 0.0f : acc;
    }
}
C
"$CLANG" --target=aarch64-linux-gnu -ffreestanding -fPIC -O2 -c -I"$INC" k.c -o k_aarch64.o
"$CLANG" --target=x86_64-linux-gnu -ffreestanding -fPIC -O2 -c -I"$INC" k.c -o k_x86_64.o
"$CLANG" --target=aarch64-linux-gnu -ffreestanding -fPIC -O2 -c -emit-llvm -I"$INC" k.c -o k_aarch64.bc

# rule.yaml <kernels line> <args line> [call symbol]: the seed's
# fill+matmul+relu with the given kernel entry (line 20) and args (line 18).
rule() {
  cat <<YAML
graft-spec: 1
rules:
  - name: r
    match: |
      pattern @mlp(%lhs: tensor<?x?xf32>, %rhs: tensor<?x?xf32>, %init: tensor<?x?xf32>) -> tensor<?x?xf32> {
        %cst = constant 0.0 : f32
        %fill = fill %cst, %init : tensor<?x?xf32>
        %mm = matmul %lhs, %rhs, %fill : tensor<?x?xf32>
        %relu = map %mm : tensor<?x?xf32> {
        ^bb0(%x: f32):
          %0 = max %x, %cst : f32
          yield %0
        }
        return %relu
      }
    replace:
      call: ${3:-k}
      args: $2
      kernels:
        $1
YAML
}
ARGS='[lhs, rhs, result, "dim(lhs, 0) : i32", "dim(rhs, 1) : i32", "dim(lhs, 1) : i32"]'

# The rule is correct: the object kernel runs.
rule "x86_64: {object: k_x86_64.o}" "$ARGS" > good.yaml
"$GRAFT" build "$G" --spec good.yaml --target x86_64 -o good.graft
"$GRAFT_RUN" good.graft --function mlp --input "2x2xf32=[[2 2][-2 -2]]" \
  --input "2x2xf32=[[3 -3][3 -3]]" | check --check-prefix=GOOD "$TEST_DIR/spec_errors.sh"
# GOOD: 2x2xf32=[-12 0][0 -12]

# An object of the wrong architecture: names the file, its arch, the target.
rule "x86_64: {object: k_aarch64.o}" "$ARGS" > arch.yaml
expect_fail "$GRAFT" build "$G" --spec arch.yaml --target x86_64 -o x.graft
check --check-prefix=ARCH "$TEST_DIR/spec_errors.sh" < "$T/out"
# ARCH: k_aarch64.o: error: object is for aarch64, expected target x86_64
# ARCH-NEXT: arch.yaml:20:26: note: kernel object for target x86_64 of rule 'r'
# ARCH-NEXT: {{^}}        x86_64: {object: k_aarch64.o}
# ARCH-NEXT: {{^}}                         ^

# Bitcode of the wrong architecture.
rule "x86_64: {bitcode: k_aarch64.bc}" "$ARGS" > bc.yaml
expect_fail "$GRAFT" build "$G" --spec bc.yaml --target x86_64 -o x.graft
check --check-prefix=BC "$TEST_DIR/spec_errors.sh" < "$T/out"
# BC: k_aarch64.bc: error: bitcode is for aarch64 (triple 'aarch64-{{.*}}'), expected target x86_64
# BC-NEXT: bc.yaml:20:27: note: kernel bitcode for target x86_64 of rule 'r'

# The kernel symbol is missing from the object: names symbol and target.
rule "aarch64: {object: k_aarch64.o}" "$ARGS" k_v2 > sym.yaml
expect_fail "$GRAFT" build "$G" --spec sym.yaml --target aarch64 -o x.graft
check --check-prefix=SYM "$TEST_DIR/spec_errors.sh" < "$T/out"
# SYM: k_aarch64.o: error: does not define kernel symbol 'k_v2' (target aarch64)
# SYM-NEXT: sym.yaml:20:27: note: kernel object for target aarch64 of rule 'r'

# Arity: the C kernel takes 6 parameters; the rule passes 7, or 5.
rule "x86_64: {source: k.c}" '[lhs, rhs, result, "dim(lhs, 0) : i32", "dim(rhs, 1) : i32", "dim(lhs, 1) : i32", "workgroup_id(0) : i32"]' > arity.yaml
expect_fail "$GRAFT" build "$G" --spec arity.yaml --target x86_64 -o x.graft
check --check-prefix=ARITY "$TEST_DIR/spec_errors.sh" < "$T/out"
# ARITY: k.c: error: kernel 'k' takes 6 parameter(s), but rule 'r' passes 7
# ARITY-NEXT: arity.yaml:20:26: note: kernel source for target x86_64 of rule 'r'
# A memref argument counts 3 + 2*rank parameters.
rule "x86_64: {source: k.c}" '[memref(lhs), rhs, result, "dim(lhs, 0) : i32", "dim(rhs, 1) : i32"]' > arity2.yaml
expect_fail "$GRAFT" build "$G" --spec arity2.yaml --target x86_64 -o x.graft
check --check-prefix=ARITY2 "$TEST_DIR/spec_errors.sh" < "$T/out"
# ARITY2: k.c: error: kernel 'k' takes 6 parameter(s), but rule 'r' passes 11

# Unknown argument names, as a tensor argument and inside an expression:
# both reported in one run at their line:col.
rule "x86_64: {source: k.c}" '[lhs, rhz, result, "dim(lhs, 0) : i32", "dim(rhs, 1) : i32", "dim(lhq, 1) : i32"]' > name.yaml
expect_fail "$GRAFT" build "$G" --spec name.yaml --target x86_64 -o x.graft
check --check-prefix=NAME "$TEST_DIR/spec_errors.sh" < "$T/out"
# NAME: name.yaml:18:19: error: unknown name 'rhz'; expected a pattern argument or output name
# NAME-NEXT: {{^}}      args: [lhs, rhz,
# NAME-NEXT: {{^}}                  ^
# NAME: name.yaml:18:79: error: unknown name 'lhq'; expected a pattern argument or output name

# A source kernel must be C: another extension (clang would take kern.txt as
# a linker input) is refused at spec load, at the path, naming what works.
cp k.c kern.txt
rule "x86_64: {source: kern.txt}" "$ARGS" > ext.yaml
expect_fail "$GRAFT" build "$G" --spec ext.yaml --target x86_64 -o x.graft
check --check-prefix=EXT "$TEST_DIR/spec_errors.sh" < "$T/out"
# EXT: ext.yaml:20:26: error: kernel source 'kern.txt' has extension '.txt'; a 'source' kernel is C and must end in '.c' (compiled objects go under 'object:', LLVM bitcode under 'bitcode:')
# EXT-NEXT: {{^}}        x86_64: {source: kern.txt}
# EXT-NEXT: {{^}}                         ^
cp k.c kern
rule "x86_64: {source: kern}" "$ARGS" > noext.yaml
expect_fail "$GRAFT" build "$G" --spec noext.yaml --target x86_64 -o x.graft
check --check-prefix=NOEXT "$TEST_DIR/spec_errors.sh" < "$T/out"
# NOEXT: noext.yaml:20:26: error: kernel source 'kern' has no extension; a 'source' kernel is C

# An `: i32` argument whose value does not fit is a failed invocation, not a
# truncated size: 3000000000 rows (of zero columns, so nothing is allocated).
expect_fail "$GRAFT_RUN" good.graft --function mlp --input "3000000000x0xf32=[]" \
  --input "0x2xf32=[]"
check --check-prefix=I32 "$TEST_DIR/spec_errors.sh" < "$T/out"
# I32: graft-run: error: mlp.graph:11:11: rule 'r' matched here, but good.yaml:18:33: kernel argument 'dim(lhs, 0) : i32' of rule 'r' does not fit in i32: 2147483647 != 3000000000
