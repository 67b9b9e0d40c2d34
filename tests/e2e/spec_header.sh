# graft spec --header prints the C prototype each rule expects of its kernel
# (one declaration for all targets: widths follow size_t); a kernel that
# includes it and defines the functions compiles for every target. A kernel
# whose definition disagrees is an error naming the parameter.
EX=$SRC/specs/workgroup_kernel
"$GRAFT" spec --header "$EX/simple_mul.yaml" "$SRC/specs/whole_dispatch/scaled_add.yaml" \
  > kernels.h
check --check-prefix=H "$TEST_DIR/spec_header.sh" < kernels.h
# H: // Kernel prototypes of graft spec rules: graft spec --header
# H-NEXT: #pragma once
# H: #include <graft/abi.h>
# H: #include <stdint.h>
# H: // rule 'simple_mul' (simple_mul.yaml:{{[0-9]+}}:{{[0-9]+}}), for x86_64, aarch64, riscv64{{.*}}
# H-NEXT: void simple_mul_workgroup(const float *lhs, size_t arg1 /* 0 */, const float *rhs, size_t arg3 /* 0 */, float *result, size_t arg5 /* 0 */, size_t arg6 /* dim(lhs, 0) */, size_t arg7 /* workgroup_offset(0) */);
# H: // rule 'simple_mul_inplace'
# H-NEXT: void simple_mul_inplace_workgroup(const float *lhs, size_t arg1 /* 0 */, float *result, size_t arg3 /* 0 */, size_t arg4 /* dim(lhs, 0) */, size_t arg5 /* workgroup_offset(0) */);
# H: // rule 'scaled_add'
# H-NEXT: int scaled_add_dispatch(const graft_dispatch_state_v1_t *dispatch_state, const graft_workgroup_state_v1_t *workgroup_state);
{ echo '#include "kernels.h"'; grep -v '#include' "$EX/simple_mul.c"; } > with_header.c
while IFS=$'\t' read -r kind name _ _ _ triple flags _; do
  [[ $kind == target ]] || continue
  # shellcheck disable=SC2086
  "$CLANG" --target="$triple" $flags -ffreestanding -fsyntax-only -Werror \
    -I"$SRC/runtime/include" -I. with_header.c
done < <("$GRAFT" targets --format=tsv)

# --target keeps the rules with kernels for those targets (an alias works).
"$GRAFT" spec --header "$SRC/specs/fallback/rowsum.yaml" --target arm64 > none.h
if grep -q "rowsum_kernel(" none.h; then echo "error: rowsum has no aarch64 kernel" >&2; exit 1; fi
expect_fail "$GRAFT" spec "$EX/simple_mul.yaml"
check --check-prefix=NOHEADER "$TEST_DIR/spec_header.sh" < "$T/out"
# NOHEADER: graft spec: error: nothing to do; expected --header

# Definitions that disagree with the prototype: a pointer where the rule
# passes an integer, a narrower integer, a non-void return.
cat > bad.c <<'C'
#include <stddef.h>
#include <stdint.h>
int simple_mul_workgroup(const float *a, const float *a_offset, const float *b, size_t b_offset,
                         float *c, size_t c_offset, uint32_t dim, size_t tid) {
  return 0;
}
C
sed "s|{source: simple_mul.c}|{source: $PWD/bad.c}|" "$EX/simple_mul.yaml" |
  sed '/- name: simple_mul_inplace/,$d' > bad.yaml
expect_fail "$GRAFT" build "$EX/simple_mul.graph" --spec bad.yaml --target x86_64 -o x.graft
check --check-prefix=BAD "$TEST_DIR/spec_header.sh" < "$T/out"
# BAD: bad.c: error: kernel 'simple_mul_workgroup' parameter 2 is a pointer, but rule 'simple_mul' passes a 64-bit integer ('size_t arg1' from '0')
# BAD: bad.c: error: kernel 'simple_mul_workgroup' parameter 7 is a 32-bit integer, but rule 'simple_mul' passes a 64-bit integer ('size_t arg6' from 'dim(lhs, 0)')
# BAD: bad.c: error: kernel 'simple_mul_workgroup' must return void (rule 'simple_mul' says returns: void)
