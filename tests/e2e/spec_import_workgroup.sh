# An import (`link: import`) with per-workgroup arguments: the packed params
# struct carries `workgroup_offset(0)` (a different value in every
# workgroup) and `workgroup_size` sets the grid, as for a static kernel. The
# plugin multiplies its workgroup's 64 elements; the result is the
# workgroup_kernel example's, on 1 and 3 threads. `graft spec --header`
# prints the import's params struct and its signature.
C=$TEST_DIR/spec_import_workgroup.sh
EX=$SRC/specs/workgroup_kernel
sed -n '1,/- name: simple_mul_inplace/p' "$EX/simple_mul.yaml" | sed '$d' |
  sed '/kernels:/,$d; s/call: simple_mul_workgroup/&\n      link: import/' > import.yaml
"$GRAFT" build "$EX/simple_mul.graph" --spec import.yaml --target x86_64 -o mul.graft

"$GRAFT" spec --header import.yaml --target x86_64 | check --check-prefix=HEADER "$C"
# HEADER: // rule 'simple_mul' ({{.*}}), for x86_64
# HEADER-NEXT: struct simple_mul_workgroup_params {
# HEADER-NEXT:   const float *lhs;
# HEADER-NEXT:   size_t arg1; /* 0 */
# HEADER:   size_t arg7; /* workgroup_offset(0) */
# HEADER-NEXT: };
# HEADER-NEXT: int simple_mul_workgroup(void *params, void *context, void *reserved); /* import */

# The plugin provides both kernels (tests/plugins/mul_plugin.c).
"$CLANG" -shared -fPIC -O2 -I"$SRC/runtime/include" -I"$SRC/tests/plugins" \
  "$SRC/tests/plugins/mul_plugin.c" -o wg.so
read_run_args "$EX/run.args"
for threads in 1 3; do
  # 200 elements: four workgroups (ceildiv(200, 64)), the last one partial.
  "$GRAFT_RUN" mul.graft --plugin ./wg.so --threads $threads --trace "${RUN_ARGS[@]}" \
    > out.txt 2> trace.txt
  diff out.txt "$EX/expected.txt"
  check --check-prefix=TRACE "$C" < trace.txt
done
# TRACE: simple_mul_dispatch_0_simple_mul ({{.*}}) grid 4x1x1

# The in-place rule as an optional import: the output starts as a copy of
# %acc (it is not the only use of %acc's buffer: the fallback writes there
# too), a copy guarded like the call. With no plugin graft's fallback runs;
# with one the import updates the copy in place, per workgroup.
awk '/- name: simple_mul_inplace/ { x = 1 } x' "$EX/simple_mul.yaml" |
  sed '/kernels:/,$d; s/call: simple_mul_inplace_workgroup/&\n      link: optional/' |
  { printf 'graft-spec: 1\nrules:\n'; cat; } > optional.yaml
"$GRAFT" build "$EX/simple_mul.graph" --spec optional.yaml --target x86_64 -o optional.graft
"$GRAFT_RUN" optional.graft --trace "${RUN_ARGS[@]}" > out.txt 2> trace.txt
diff out.txt "$EX/expected.txt"
check --check-prefix=FALLBACK "$C" < trace.txt
# FALLBACK-NOT: simple_mul_inplace
for threads in 1 3; do
  "$GRAFT_RUN" optional.graft --plugin ./wg.so --threads $threads --trace "${RUN_ARGS[@]}" \
    > out.txt 2> trace.txt
  diff out.txt "$EX/expected.txt"
  check --check-prefix=INPLACE "$C" < trace.txt
done
# INPLACE: simple_mul_dispatch_{{[0-9]+}}_simple_mul_inplace ({{.*}}) grid 4x1x1
