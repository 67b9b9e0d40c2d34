# specs/bitcode_inline: a C kernel becomes bitcode that graft links before
# optimizing, so on x86_64 the call disappears into the generated dispatch
# and its loop is vectorized. The same kernel as a prebuilt aarch64 object is
# linked by lld instead and stays a real call. Both bundles compute
# expected.txt, natively and under qemu.
EX=$SRC/specs/bitcode_inline
read_run_args "$EX/run.args"

# body_of <function> <file.ll>: the lines of one function definition.
body_of() { awk -v f="@$1(" 'index($0, "define") == 1 && index($0, f) { on = 1 } on { print } on && /^}/ { exit }' "$2"; }

"$GRAFT" build "$EX/fma.graph" --spec "$EX/fma.yaml" --target x86_64,aarch64 \
  -o fma.graft --emit=llvm,asm --emit-dir src
body_of fma_dispatch_0_fma_tiles src/fma.x86_64.ll > dispatch_x86.ll
check --check-prefix=INLINED "$TEST_DIR/spec_bitcode_inline.sh" < dispatch_x86.ll
# INLINED: define internal {{.*}}@fma_dispatch_0_fma_tiles(
# INLINED-NOT: call {{.*}}@fma_tile(
# INLINED: load <4 x float>
# INLINED-NOT: call {{.*}}@fma_tile(
# INLINED: {{^}}}
# Nothing in the x86_64 slice calls the kernel, in IR or in assembly.
if grep -E 'call .*@fma_tile\(' src/fma.x86_64.ll || grep -E 'call[a-z]*[[:space:]]+fma_tile' src/fma.x86_64.s; then
  echo "error: fma_tile is still called on x86_64" >&2; exit 1
fi
"$GRAFT_RUN" fma.graft "${RUN_ARGS[@]}" > x86.txt
diff -u "$EX/expected.txt" x86.txt
run_on aarch64 fma.graft "${RUN_ARGS[@]}" > a64.txt
diff -u "$EX/expected.txt" a64.txt

# The aarch64 kernel as an object compiled outside graft.
"$CLANG" --target=aarch64-linux-gnu -ffreestanding -fPIC -O2 -c \
  -I"$SRC/runtime/include" "$EX/fma_tile.c" -o fma_tile_aarch64.o
cp "$EX/fma.graph" "$EX/fma_tile.c" .
sed 's|aarch64: {source: fma_tile.c}|aarch64: {object: fma_tile_aarch64.o}|' "$EX/fma.yaml" > obj.yaml
grep -q 'object: fma_tile_aarch64.o' obj.yaml
"$GRAFT" build fma.graph --spec obj.yaml --target x86_64,aarch64 \
  -o obj.graft --emit=llvm,asm --emit-dir obj
check --check-prefix=OBJ-IR "$TEST_DIR/spec_bitcode_inline.sh" < obj/fma.aarch64.ll
# OBJ-IR: define internal {{.*}}@fma_dispatch_0_fma_tiles(
# OBJ-IR: call void @fma_tile(ptr
# OBJ-IR: declare void @fma_tile(
check --check-prefix=OBJ-ASM "$TEST_DIR/spec_bitcode_inline.sh" < obj/fma.aarch64.s
# OBJ-ASM: fma_dispatch_0_fma_tiles:
# OBJ-ASM: {{b|bl}} fma_tile
run_on aarch64 obj.graft "${RUN_ARGS[@]}" > obj_a64.txt
diff -u "$EX/expected.txt" obj_a64.txt
"$GRAFT_RUN" obj.graft "${RUN_ARGS[@]}" > obj_x86.txt
diff -u "$EX/expected.txt" obj_x86.txt
