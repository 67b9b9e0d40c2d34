# Kernel files are linked into each ISA variant of a slice once; two files
# that define one symbol are a link error naming the file and its rules.
EX=$SRC/specs/workgroup_kernel
cat > a.c <<'C'
#include <stddef.h>
int helper(int x) { return x + 1; }
void simple_mul_workgroup(const float *a, size_t ao, const float *b, size_t bo, float *c,
                          size_t co, size_t dim, size_t tid) {}
C
cat > b.c <<'C'
#include <stddef.h>
int helper(int x) { return x + 2; }
void simple_mul_inplace_workgroup(const float *a, size_t ao, float *c, size_t co, size_t dim,
                                  size_t tid) {}
C
sed 's|{source: simple_mul.c}|{source: a.c}|' "$EX/simple_mul.yaml" |
  awk '/- name: simple_mul_inplace/ { b = 1 } { if (b) gsub("source: a.c", "source: b.c"); print }' \
  > dup.yaml
expect_fail "$GRAFT" build "$EX/simple_mul.graph" --spec dup.yaml --target x86_64 -o d.graft
check --check-prefix=DUP "$TEST_DIR/spec_kernel_link.sh" < "$T/out"
# DUP: b.c (rule 'simple_mul_inplace'): error: cannot link the kernel into the x86_64 slice: Linking globals named 'helper': symbol multiply defined!
