# Direct calls: a graph declares an external kernel and calls it with
# kernel_call; a spec rule with `kernel:` (no pattern) says where its code
# comes from and how its grid is formed. specs/direct_call (an IREE-style
# per-workgroup kernel between graft's own maps) on every target at 8, 200
# and 1000 elements (none a multiple of the workgroup size 64) agrees with
# the reference evaluator of the same graph written with graft ops. Then
# every link kind (C source, bitcode, object, a plugin import, a host
# command), `graft spec --header --graph`, and the errors.
C=$TEST_DIR/spec_direct_call.sh
EX=$SRC/specs/direct_call
"$GRAFT" build "$EX/direct.graph" --spec "$EX/direct.yaml" --target "$ALL_TARGETS" \
  -o direct.graft --explain > explain.txt
check --check-prefix=EXPLAIN "$C" < explain.txt
# EXPLAIN: @direct: kernel_call @simple_mul ({{.*}}direct.graph:17:8) calls rule 'simple_mul' ({{.*}}direct.yaml:7:11)

for n in 8 200 1000; do
  random_f32_inputs $n > in.$n
  mapfile -t IN < in.$n
  "$GRAFT" eval "$EX/direct.reference.graph" --input "${IN[0]}" --input "${IN[1]}" > want.$n
  for target in "${TARGETS[@]}"; do
    run_on "$target" direct.graft --input "${IN[0]}" --input "${IN[1]}" --trace \
      > got.$n.$target 2> trace.$n.$target
    diff -u want.$n got.$n.$target
    # The kernel ran on ceildiv(n, 64) workgroups, between graft's maps.
    grid=$(( (n + 63) / 64 ))
    grep "direct_dispatch_0_map " trace.$n.$target >/dev/null
    grep "direct_dispatch_1_simple_mul (.*) grid ${grid}x1x1" trace.$n.$target >/dev/null
    grep "direct_dispatch_2_map " trace.$n.$target >/dev/null
  done
done
mapfile -t IN < in.200

# The prototype the kernel is written against needs the graph's declaration.
"$GRAFT" spec --header "$EX/direct.yaml" --graph "$EX/direct.graph" --target x86_64 > header.h
check --check-prefix=HEADER "$C" < header.h
# HEADER: // rule 'simple_mul' ({{.*}}direct.yaml:7:11, kernel @simple_mul), for x86_64
# HEADER-NEXT: void simple_mul_workgroup(const float *lhs, size_t arg1 /* 0 */, const float *rhs, size_t arg3 /* 0 */, float *result, size_t arg5 /* 0 */, size_t arg6 /* dim(lhs, 0) */, size_t arg7 /* workgroup_offset(0) */);
expect_fail "$GRAFT" spec --header "$EX/direct.yaml"
check --check-prefix=NOGRAPH "$C" < "$T/out"
# NOGRAPH: direct.yaml:8:13: error: rule 'simple_mul' provides kernel @simple_mul, whose signature is declared in a graph; give the graph (graft spec --header --graph G)

# spec <replace lines...>: a direct rule for @simple_mul of direct.graph.
spec() {
  printf 'graft-spec: 1\nrules:\n  - name: mul\n    kernel: simple_mul\n    replace:\n'
  printf '      %s\n' "$@"
}
ARGS='args: [lhs, "0", rhs, "0", result, "0", "dim(lhs, 0)", "workgroup_offset(0)"]'
KSRC=$SRC/specs/workgroup_kernel/simple_mul.c

# Bitcode and an object file, for x86_64 and aarch64.
for t in x86_64 aarch64; do
  "$CLANG" --target=$t-linux-gnu -O2 -fPIC -emit-llvm -c "$KSRC" -o k.$t.bc
  "$CLANG" --target=$t-linux-gnu -O2 -fPIC -c "$KSRC" -o k.$t.o
done
for kind in bitcode object; do
  ext=$([[ $kind == bitcode ]] && echo bc || echo o)
  spec "call: simple_mul_workgroup" "workgroup_size: [64]" "$ARGS" \
    "kernels: {x86_64: {$kind: k.x86_64.$ext}, aarch64: {$kind: k.aarch64.$ext}}" > $kind.yaml
  "$GRAFT" build "$EX/direct.graph" --spec $kind.yaml --target x86_64,aarch64 -o $kind.graft
  for target in x86_64 aarch64; do
    run_on $target $kind.graft --input "${IN[0]}" --input "${IN[1]}" > got.$kind.$target
    diff -u want.200 got.$kind.$target
  done
done

# A plugin import: a bare-metal plugin (one .sos for every target)
# provides the kernel when the bundle is opened, on every target. A host
# command: a system plugin, called on the invoking thread.
PLUGIN=$SRC/tests/plugins/mul_plugin.c
"$GRAFT" plugin "$PLUGIN" -I "$SRC/tests/plugins" --target "$ALL_TARGETS" -o mul.sos
"$CLANG" -shared -fPIC -O2 -I"$SRC/runtime/include" -I"$SRC/tests/plugins" "$PLUGIN" -o mul.so
spec "call: simple_mul_workgroup" "link: import" "workgroup_size: [64]" "$ARGS" > import.yaml
"$GRAFT" build "$EX/direct.graph" --spec import.yaml --target "$ALL_TARGETS" -o import.graft
for target in "${TARGETS[@]}"; do
  run_on "$target" import.graft --plugin mul.sos --input "${IN[0]}" --input "${IN[1]}" \
    --threads 3 --trace > got.import.$target 2> trace.import.$target
  diff -u want.200 got.import.$target
  grep "direct_dispatch_1_mul (.*) grid 4x1x1" trace.import.$target >/dev/null
done
spec "call: simple_mul_workgroup" "link: host" "workgroup_size: [64]" "$ARGS" > host.yaml
"$GRAFT" build "$EX/direct.graph" --spec host.yaml --target x86_64 -o host.graft
"$GRAFT_RUN" host.graft --plugin ./mul.so --input "${IN[0]}" --input "${IN[1]}" \
  --threads 3 --trace > got.host 2> trace.host
diff -u want.200 got.host
grep "direct_dispatch_1_mul (.*) grid 4x1x1" trace.host >/dev/null
expect_fail "$GRAFT_RUN" import.graft --input "${IN[0]}" --input "${IN[1]}"
check --check-prefix=NOPLUGIN "$C" < "$T/out"
# NOPLUGIN: graft-run: error: import.graft: library 'direct' requires 1 import that nothing provides: 'simple_mul_workgroup' (no plugins registered)

# Result sizes given at the call instead of `like %lhs`: one index operand
# per '?' (here a size of its own, n - 1: the kernel writes dim(result, 0)
# elements), as `empty` takes them.
cat > sized.graph <<'G'
kernel @simple_mul(%lhs: tensor<?xf32>, %rhs: tensor<?xf32>) -> tensor<?xf32>
func @f(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %one = constant 1 : index
  %n = dim %a {axis = 0} : index
  %m = sub %n, %one : index
  %p = kernel_call @simple_mul %a, %b, %m : tensor<?xf32>
  return %p
}
G
spec "call: simple_mul_workgroup" "workgroup_size: [64]" \
  'args: [lhs, "0", rhs, "0", result, "0", "dim(result, 0)", "workgroup_offset(0)"]' \
  "kernels: {x86_64: {source: $KSRC}, aarch64: {source: $KSRC}}" > sized.yaml
"$GRAFT" build sized.graph --spec sized.yaml --target x86_64,aarch64 -o sized.graft
for target in x86_64 aarch64; do
  run_on $target sized.graft --input "66xf32=2" --input "66xf32=3" --trace \
    > got.sized.$target 2> trace.sized.$target
  [[ $(cat got.sized.$target) == "65xf32=$(printf '6 %.0s' {1..64})6" ]]
  grep "f_dispatch_0_mul (.*) grid 2x1x1" trace.sized.$target >/dev/null
done

# A called kernel that no rule provides for a target being built: an error
# at the call, naming the target.
spec "call: simple_mul_workgroup" "workgroup_size: [64]" "$ARGS" \
  "kernels: {x86_64: {source: $KSRC}}" > x86only.yaml
expect_fail "$GRAFT" build "$EX/direct.graph" --spec x86only.yaml --target x86_64,riscv64 -o x.graft
check --check-prefix=NOTARGET "$C" < "$T/out"
# NOTARGET: direct.graph:17:8: error: no spec rule provides kernel @simple_mul for target riscv64 (feature level rv64gc); rule 'mul' (x86only.yaml:3:11) has no kernel for it
# NOTARGET-NEXT: {{^}}  %p = kernel_call @simple_mul %a1, %b : tensor<?xf32>
# NOTARGET-NEXT: {{^}}       ^
expect_fail "$GRAFT" build "$EX/direct.graph" --target x86_64 -o x.graft
check --check-prefix=NOSPEC "$C" < "$T/out"
# NOSPEC: direct.graph:17:8: error: no spec rule provides kernel @simple_mul for target x86_64 (feature level x86-64-v2); a spec rule with 'kernel: simple_mul' says where its code comes from

# A spec kernel the graph never calls, or does not declare: warnings.
cat > uncalled.graph <<'G'
kernel @simple_mul(%lhs: tensor<?xf32>, %rhs: tensor<?xf32>) -> tensor<?xf32>
func @f(%a: tensor<?xf32>) -> tensor<?xf32> {
  return %a
}
G
"$GRAFT" build uncalled.graph --spec x86only.yaml --target x86_64 -o x.graft 2> warn.txt
check --check-prefix=UNCALLED "$C" < warn.txt
# UNCALLED: x86only.yaml:4:13: warning: rule 'mul' provides kernel @simple_mul, which the graph never calls
"$GRAFT" build "$TEST_DIR/inputs/mlp.graph" --spec x86only.yaml --target x86_64 -o x.graft 2> warn.txt
check --check-prefix=UNDECLARED "$C" < warn.txt
# UNDECLARED: x86only.yaml:4:13: warning: rule 'mul' provides kernel @simple_mul, which the graph does not declare; the rule is not used

# Spec mistakes: 'match' and 'kernel' together, 'where' on a direct rule,
# an argument name the declaration does not have.
printf 'graft-spec: 1\nrules:\n  - name: both\n    match: "pattern @p() {}"\n    kernel: simple_mul\n    replace: {call: k}\n' > both.yaml
expect_fail "$GRAFT" build "$EX/direct.graph" --spec both.yaml --target x86_64 -o x.graft
check --check-prefix=BOTH "$C" < "$T/out"
# BOTH: both.yaml:5:13: error: rule 'both' has both 'match' and 'kernel'; a rule either matches a pattern or provides a kernel the graph calls directly
printf 'graft-spec: 1\nrules:\n  - name: w\n    kernel: simple_mul\n    where: [{divisible: {value: "dim(lhs, 0)", by: 4}}]\n    replace: {call: k}\n' > where.yaml
expect_fail "$GRAFT" build "$EX/direct.graph" --spec where.yaml --target x86_64 -o x.graft
check --check-prefix=WHERE "$C" < "$T/out"
# WHERE: where.yaml:5:12: error: rule 'w' provides a kernel the graph calls directly: it has no graft code to fall back on, so it takes no 'where'
spec "call: simple_mul_workgroup" "workgroup_size: [64]" \
  'args: [a, "0", rhs, "0", result, "0", "dim(lhs, 0)", "workgroup_offset(0)"]' \
  "kernels: {x86_64: {source: $KSRC}}" > badarg.yaml
expect_fail "$GRAFT" build "$EX/direct.graph" --spec badarg.yaml --target x86_64 -o x.graft
check --check-prefix=BADARG "$C" < "$T/out"
# BADARG: badarg.yaml:8:14: error: unknown name 'a'; expected a pattern argument or output name

# The reference evaluator cannot run an external kernel.
expect_fail "$GRAFT" eval "$EX/direct.graph" --input "${IN[0]}" --input "${IN[1]}"
check --check-prefix=EVAL "$C" < "$T/out"
# EVAL: kernel_call @simple_mul calls an external kernel, which the reference evaluator cannot run: its code comes from a spec rule when the graph is built

# No fallback: a direct rule cannot be an optional import.
spec "call: simple_mul_workgroup" "link: optional" "workgroup_size: [64]" "$ARGS" > optional.yaml
expect_fail "$GRAFT" build "$EX/direct.graph" --spec optional.yaml --target x86_64 -o x.graft
check --check-prefix=OPTIONAL "$C" < "$T/out"
# OPTIONAL: optional.yaml:7:13: error: a kernel the graph calls directly has no graft code to fall back on, so it cannot be 'link: optional'; use 'link: import'

# The graph's own mistakes, at the call, with the declaration as a note.
cat > bad.graph <<'G'
kernel @simple_mul(%lhs: tensor<?xf32>, %rhs: tensor<?xf32>) -> tensor<?xf32>
func @f(%a: tensor<?xf32>, %b: tensor<?xi32>) -> tensor<?xf32> {
  %n = dim %a {axis = 0} : index
  %p = kernel_call @simple_mul %a, %b, %n : tensor<?xf32>
  return %p
}
G
expect_fail "$GRAFT" check bad.graph
check --check-prefix=BADCALL "$C" < "$T/out"
# BADCALL: bad.graph:4:8: error: kernel_call @simple_mul operand 2 ('%b') is tensor<?xi32>, but the kernel declares %rhs: tensor<?xf32>
# BADCALL-NEXT: {{^}}  %p = kernel_call @simple_mul %a, %b, %n : tensor<?xf32>
# BADCALL-NEXT: {{^}}       ^
# BADCALL-NEXT: bad.graph:1:41: note: declared here
sed -i 's/%p = kernel_call @simple_mul %a, %b/%p = kernel_call @simple_muls %a, %a/' bad.graph
expect_fail "$GRAFT" check bad.graph
check --check-prefix=UNDECL "$C" < "$T/out"
# UNDECL: bad.graph:4:20: error: call of undeclared kernel '@simple_muls'; declare it before the function: 'kernel @simple_muls(%a: tensor<?xf32>, ...) -> tensor<?xf32>'
