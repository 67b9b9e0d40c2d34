# specs/fallback: a rule whose kernel exists for x86_64 only. --explain shows
# it matched on x86_64 and was skipped on aarch64 (and why); the emitted LLVM
# IR has the kernel only in the x86_64 slice; both slices compute the same.
EX=$SRC/specs/fallback
"$GRAFT" build "$EX/rowsum.graph" --spec "$EX/rowsum.yaml" --target x86_64,aarch64 \
  -o rowsum.graft --explain --emit=llvm --emit-dir ir > explain.txt
check --check-prefix=EXPLAIN "$TEST_DIR/spec_fallback.sh" < explain.txt
# EXPLAIN: == x86_64 ==
# EXPLAIN: @rowsum: rule 'rowsum_x86' matched at %sum = reduce ({{.*}}rowsum.graph:5:10)
# EXPLAIN: outputs: result = %sum
# EXPLAIN: == aarch64 ==
# EXPLAIN-NOT: matched at
# EXPLAIN: @rowsum: rule 'rowsum_x86' skipped: no kernel for target aarch64 ({{.*}}rowsum.yaml:6:11)
# EXPLAIN-NEXT: no rule matched
# EXPLAIN-NOT: matched at

# x86_64: the dispatch is the rule's, and it calls the kernel (or has its
# body inlined, which leaves the kernel's exit block name behind).
check --check-prefix=IRX86 "$TEST_DIR/spec_fallback.sh" < ir/rowsum.x86_64.ll
# IRX86: define internal {{.*}}i32 @rowsum_dispatch_0_rowsum_x86(
# IRX86: {{call void @rowsum_kernel\(|rowsum_kernel.exit}}
# IRX86: define internal void @rowsum_kernel{{(\.x86-64-v[34])?}}(
# aarch64: graft's own reduce, no trace of the kernel.
check --check-prefix=IRA64 "$TEST_DIR/spec_fallback.sh" < ir/rowsum.aarch64.ll
# IRA64-NOT: rowsum_kernel
# IRA64-NOT: rowsum_x86
# IRA64: define internal {{.*}}i32 @rowsum_dispatch_0_reduce(
# IRA64-NOT: rowsum_kernel
# IRA64-NOT: rowsum_x86

# Same results on both: the README's input, and a bigger one checked
# against the reference evaluator.
read_run_args "$EX/run.args"
"$GRAFT_RUN" rowsum.graft "${RUN_ARGS[@]}" --trace > x86.txt 2> trace.txt
grep -q 'rowsum_dispatch_0_rowsum_x86' trace.txt
diff -u "$EX/expected.txt" x86.txt
run_on aarch64 rowsum.graft "${RUN_ARGS[@]}" > a64.txt
diff -u "$EX/expected.txt" a64.txt
X="4x9xf32=[[1.5 -2 3 0.25 9 -7 1 1 2][0 0 0 0 0 0 0 0 0][-1 -1 -1 -1 -1 -1 -1 -1 -1][100 0.125 -3 7 7 7 -0.5 2 1]]"
"$GRAFT" eval "$EX/rowsum.graph" --function rowsum --input "$X" > want.txt
"$GRAFT_RUN" rowsum.graft --function rowsum --input "$X" > got_x86.txt
run_on aarch64 rowsum.graft --function rowsum --input "$X" > got_a64.txt
diff -u want.txt got_x86.txt
diff -u want.txt got_a64.txt
