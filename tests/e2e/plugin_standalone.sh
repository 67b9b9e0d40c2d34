# A bare-metal plugin written like IREE's standalone sample (no libc, only
# the header's helpers), built by `graft plugin` into one FatELF .sos with
# x86_64, aarch64 and riscv64 slices, serves the same library natively and
# under qemu for the two others: the runtime picks the slice for its CPU
# and maps it with graft's own loader.
require_targets aarch64 riscv64
"$GRAFT" plugin "$SRC/runtime/examples/plugins/standalone_plugin.c" \
  --target riscv64,x86_64,aarch64 -o standalone.sos
"$GRAFT" inspect standalone.sos | check "$TEST_DIR/plugin_standalone.sh" --check-prefix=INSPECT
# INSPECT: standalone.sos: 3 slice(s)
# INSPECT-NEXT: x86_64
# INSPECT-NEXT: aarch64
# INSPECT-NEXT: riscv64

# Each slice exports only the query function and needs nothing.
for arch in x86_64 aarch64 riscv64; do
  build_slice $arch "$SRC/tests/plugins/mul_slice.c" mul_$arch.so
done
python3 "$SRC/tests/fixtures/abi/make_fatelf.py" mul.graft mul_x86_64.so \
  mul_aarch64.so mul_riscv64.so

# 150 elements: three workgroups of 64, the last one partial.
args=(--function mul --plugin standalone.sos --input "150xf32=3" --input "150xf32=0.5")
"$GRAFT_RUN" mul.graft "${args[@]}" --threads 3 > x86_64.txt
run_on aarch64 mul.graft "${args[@]}" > aarch64.txt
run_on riscv64 mul.graft "${args[@]}" > riscv64.txt
check "$TEST_DIR/plugin_standalone.sh" --check-prefix=MUL < x86_64.txt
# MUL: 150xf32=1.5 1.5 1.5 1.5
diff x86_64.txt aarch64.txt
diff x86_64.txt riscv64.txt
[[ $(tr ' ' '\n' < x86_64.txt | grep -c '^1\.5$') -eq 149 ]]

# A plain ELF (no FatELF wrapper) is a one-slice plugin; "embedded:" (as in
# IREE) sends a file without the .sos suffix to graft's loader.
build_slice x86_64 "$SRC/runtime/examples/plugins/standalone_plugin.c" plain.so
"$GRAFT_RUN" mul.graft --function mul --plugin embedded:plain.so \
  --input "2xf32=[1 2]" --input "2xf32=[3 4]" | check "$TEST_DIR/plugin_standalone.sh" --check-prefix=SMALL
# SMALL: 2xf32=3 8
