# Kernels per feature level (tests/e2e/inputs/level_kernels): a rule's
# kernels map names a level, which serves that level and the ones above it
# until the next named level; the target's own entry serves the levels
# below. The kernel reports which entry it was built from; every variant
# is forced (natively or under qemu, tests/e2e/lib/levels.sh).
IN=$TEST_DIR/inputs/level_kernels
"$GRAFT" build "$IN/rowsum.graph" --spec "$IN/level_kernels.yaml" --target x86_64,aarch64 \
  -o rowsum.graft --explain > explain.txt
check --check-prefix=EXPLAIN "$TEST_DIR/spec_level_kernels.sh" < explain.txt
# EXPLAIN: == x86_64 ==
# EXPLAIN: @rowsum: rule 'which' matched at %sum = reduce
# EXPLAIN: == x86_64 variants ==
# EXPLAIN-NEXT: x86-64-v2 {{.*}}
# EXPLAIN-NEXT:   rowsum_dispatch_0_which: calls which_kernel
# EXPLAIN: == aarch64 ==
# EXPLAIN: @rowsum: rule 'which' skipped: no kernel for target aarch64
# EXPLAIN: == aarch64 armv8.2-a+dotprod ==
# EXPLAIN: @rowsum: rule 'which' matched at %sum = reduce
# EXPLAIN: == aarch64 variants ==
# EXPLAIN-NEXT: armv8-a {{.*}}
# EXPLAIN-NEXT:   rowsum_dispatch_0_reduce: tile {{.*}}
# EXPLAIN-NEXT: armv8.2-a+dotprod {{.*}}
# EXPLAIN-NEXT:   rowsum_dispatch_0_which: calls which_kernel

X="2x3xf32=[[1 2 3][4 5 6]]"
declare -A want=([x86-64-v2]="2xf32=2 2" [x86-64-v3]="2xf32=3 3" [x86-64-v3+avxvnni]="2xf32=3 3" [x86-64-v4]="2xf32=3 3" [x86-64-v4+vnni]="2xf32=3 3"
  [x86-64-v4+amx]="2xf32=3 3"
  [armv8-a]="2xf32=6 15" [armv8.2-a+dotprod]="2xf32=82 82")
for target in x86_64 aarch64; do
  for level in ${TARGET_LEVELS[$target]}; do
    model=$(cpu_for_level "$target" "$level") || { echo "note: cannot run $level here"; continue; }
    echo "$target $level: ${model:-native}"
    got=$(run_cpu "$target" "$model" rowsum.graft --isa="$level" --input "$X")
    [[ $got == "${want[$level]}" ]] || { echo "error: $level gave '$got', expected '${want[$level]}'" >&2; exit 1; }
  done
done

# A level name that belongs to no target is an error listing the levels.
sed 's/x86-64-v3:/x86-64-v9:/' "$IN/level_kernels.yaml" > bad.yaml
cp "$IN/which.c" .
expect_fail "$GRAFT" build "$IN/rowsum.graph" --spec bad.yaml -o bad.graft
check --check-prefix=BAD "$TEST_DIR/spec_level_kernels.sh" < "$T/out"
# BAD: bad.yaml:{{[0-9]+}}:9: error: unknown target 'x86-64-v9'; expected one of: x86_64, {{.*}}, or a feature level: x86-64-v2, x86-64-v3, x86-64-v3+avxvnni, x86-64-v4, x86-64-v4+vnni, x86-64-v4+amx, armv8-a, {{.*}}
# BAD-NEXT: {{ *}}x86-64-v9: {source: which.c, flags: [-DWHICH=3]}
# BAD-NEXT: {{ *}}^
