# graft-fatelf: info, split/join round trip (byte-identical), extract and
# remove, and verify rejecting corrupted bundles, each with its message;
# graft-run refuses the same files with the runtime's reader.

"$GRAFT" build "$SRC/tests/cmake_embed/affine.graph" --target x86_64,aarch64,riscv64 -o aff.graft

"$GRAFT_FATELF" info aff.graft | check "$TEST_DIR/fatelf_tool.sh" --check-prefix=INFO
# INFO: aff.graft: FatELF version 1, 3 slice(s), {{[0-9]+}} bytes
# INFO-NEXT: x86_64 machine 62, 64-bit, little-endian, OS ABI 0 version 0, offset 4096, size {{[0-9]+}}
# INFO-NEXT: graft ABI version {{[0-9]+}}, module 'affine', produced by graft {{.*}}
# INFO-NEXT: affine(tensor<?xf32>, f32) -> (tensor<?xf32>, index)
# INFO-NEXT: count.up(tensor<4xi32>) -> tensor<4xi32>
# INFO-NEXT: isa variant x86-64-v2: 3 dispatch(es), needs sse3 {{.*}} sahf
# INFO-NEXT: isa variant x86-64-v3: 3 dispatch(es), needs {{.*}} xsave
# INFO-NEXT: isa variant x86-64-v3+avxvnni: 3 dispatch(es), needs {{.*}} xsave avxvnni
# INFO-NEXT: isa variant x86-64-v4: 3 dispatch(es), needs {{.*}} avx512vl
# INFO-NEXT: isa variant x86-64-v4+vnni: 3 dispatch(es), needs {{.*}} avx512vl avx512vnni
# INFO-NEXT: isa variant x86-64-v4+amx: 3 dispatch(es), needs {{.*}} avx512vnni amx-tile amx-int8
# INFO-NEXT: aarch64 machine 183, 64-bit, little-endian
# INFO: affine(tensor<?xf32>, f32) -> (tensor<?xf32>, index)
# INFO: riscv64 machine 243, 64-bit, little-endian
# INFO: count.up(tensor<4xi32>) -> tensor<4xi32>

# Split, then join in the same order: the same bytes.
"$GRAFT_FATELF" split aff.graft -o slices | check "$TEST_DIR/fatelf_tool.sh" --check-prefix=SPLIT
# SPLIT: slices/aff.x86_64.so
# SPLIT-NEXT: slices/aff.aarch64.so
# SPLIT-NEXT: slices/aff.riscv64.so
"$LLVM_READELF" -h slices/aff.aarch64.so >aarch64.txt
grep -q AArch64 aarch64.txt
"$GRAFT_FATELF" join -o joined.graft slices/aff.x86_64.so slices/aff.aarch64.so slices/aff.riscv64.so
cmp aff.graft joined.graft

# extract gives the split slice; remove leaves a bundle that still runs.
"$GRAFT_FATELF" extract aff.graft --target aarch64 -o a64.so
cmp a64.so slices/aff.aarch64.so
"$GRAFT_FATELF" remove aff.graft --target=riscv64 -o two.graft
"$GRAFT_FATELF" verify two.graft | check "$TEST_DIR/fatelf_tool.sh" --check-prefix=TWO
# TWO: two.graft: ok, 2 slice(s)
"$GRAFT_RUN" two.graft --function count.up --input "4xi32=[1 2 3 4]" | check "$TEST_DIR/fatelf_tool.sh" --check-prefix=RUNS
# RUNS: 4xi32=2 3 4 5
"$GRAFT_FATELF" join -o x86.graft slices/aff.x86_64.so
"$GRAFT_RUN" x86.graft --function count.up --input "4xi32=[1 2 3 4]" | check "$TEST_DIR/fatelf_tool.sh" --check-prefix=RUNS

# Mistakes in use.
expect_fail "$GRAFT_FATELF" extract aff.graft --target sparc -o x.so
check "$TEST_DIR/fatelf_tool.sh" --check-prefix=NOSLICE <"$T/out"
# NOSLICE: aff.graft: error: no slice for target 'sparc'; the bundle has: x86_64, aarch64, riscv64
expect_fail "$GRAFT_FATELF" remove x86.graft --target x86_64 -o y.graft
check "$TEST_DIR/fatelf_tool.sh" --check-prefix=ONLY <"$T/out"
# ONLY: x86.graft: error: 'x86_64' is the bundle's only slice; a bundle needs at least one
expect_fail "$GRAFT_FATELF" join -o z.graft slices/aff.x86_64.so aff.graft
check "$TEST_DIR/fatelf_tool.sh" --check-prefix=JOINFAT <"$T/out"
# JOINFAT: aff.graft: error: is a FatELF bundle; join takes ELF files (split it first)
expect_fail "$GRAFT_FATELF" join -o z.graft slices/aff.x86_64.so slices/aff.x86_64.so
check "$TEST_DIR/fatelf_tool.sh" --check-prefix=JOINDUP <"$T/out"
# JOINDUP: z.graft: error: slices 0 and 1 are both for x86_64 (same machine, OS ABI, word size and byte order)
expect_fail "$GRAFT_FATELF" join slices/aff.x86_64.so
check "$TEST_DIR/fatelf_tool.sh" --check-prefix=NOOUT <"$T/out"
# NOOUT: graft-fatelf: error: join needs -o OUT
expect_fail "$GRAFT_FATELF" frobnicate aff.graft
check "$TEST_DIR/fatelf_tool.sh" --check-prefix=UNKNOWN <"$T/out"
# UNKNOWN: graft-fatelf: error: unknown command 'frobnicate' (info, verify, split, join, extract, remove)
expect_fail "$GRAFT_FATELF"
check "$TEST_DIR/fatelf_tool.sh" --check-prefix=USAGE <"$T/out"
# USAGE: usage: graft-fatelf <command> [options]
"$GRAFT_FATELF" info --help | check "$TEST_DIR/fatelf_tool.sh" --check-prefix=USAGE

# corrupt <name> <offset> <byte>...: a copy of aff.graft with bytes patched.
corrupt() {
  local name=$1 offset=$2
  shift 2
  cp aff.graft "$name.graft"
  "$PYTHON" - "$name.graft" "$offset" "$@" <<'PY'
import sys
path, offset, values = sys.argv[1], int(sys.argv[2], 0), [int(v, 0) for v in sys.argv[3:]]
data = bytearray(open(path, 'rb').read())
data[offset:offset + len(values)] = bytes(values)
open(path, 'wb').write(data)
PY
}
# rejected <name>: verify fails on it (message in $T/out), and so does graft-run.
rejected() {
  expect_fail "$GRAFT_FATELF" verify "$1.graft"
  cp "$T/out" "$1.verify"
  expect_fail "$GRAFT_RUN" "$1.graft" --list
  cp "$T/out" "$1.run"
}
# Header: reserved byte, version, no records, bad magic.
corrupt reserved 7 1;        rejected reserved
corrupt version 4 2;         rejected version
corrupt empty 6 0;           rejected empty
corrupt magic 0 0x12;        rejected magic
# Records (record i at 8 + 24*i): reserved bytes, each key field, offset.
corrupt recres 14 5;         rejected recres
corrupt osabi 34 3;          rejected osabi
corrupt abiver 35 1;         rejected abiver
corrupt class 12 1;          rejected class
corrupt order 13 2;          rejected order
corrupt machine 8 183;       rejected machine
corrupt unaligned 17 0x11;   rejected unaligned
corrupt overlap 40 0 0x10 0 0 0 0 0 0; rejected overlap
corrupt beyond 24 0 0 0 1 0 0 0 0;     rejected beyond
corrupt notelf 4096 0;       rejected notelf
cat *.verify | check "$TEST_DIR/fatelf_tool.sh" --check-prefix=VERIFY
# VERIFY: abiver.graft: error: FatELF record 1 (aarch64) says OS ABI version 1, but its slice's ELF header says 0
# VERIFY: beyond.graft: error: FatELF record 0 (x86_64) covers bytes [4096, +16777216) outside the slice area [80, {{[0-9]+}})
# VERIFY: class.graft: error: FatELF record 0 (x86_64) says word size (ELF class) 1, but its slice's ELF header says 2
# VERIFY: empty.graft: error: FatELF file has no slices
# VERIFY: machine.graft: error: FatELF record 0 (aarch64) says machine aarch64, but its slice's ELF header says x86_64
# VERIFY: magic.graft: error: not a FatELF or ELF file: expected magic 0x1f0e70fa or \x7fELF
# VERIFY: notelf.graft: error: FatELF record 0 (x86_64): the slice is not an ELF file (no \x7fELF magic)
# VERIFY: order.graft: error: FatELF record 0 (x86_64) says byte order (ELF data) 2, but its slice's ELF header says 1
# VERIFY: osabi.graft: error: FatELF record 1 (aarch64) says OS ABI 3, but its slice's ELF header says 0
# VERIFY: overlap.graft: error: FatELF record 1 (aarch64) overlaps record 0 (x86_64)
# VERIFY: recres.graft: error: FatELF record 0 (x86_64): reserved bytes are 5, 0, expected 0
# VERIFY: reserved.graft: error: FatELF header's reserved byte (offset 7) is 1, expected 0
# VERIFY: unaligned.graft: error: FatELF record 0 (x86_64) starts at offset 4352, which is not a multiple of 4096
# VERIFY: version.graft: error: FatELF version 2 is not supported, expected 1
cat *.run | check "$TEST_DIR/fatelf_tool.sh" --check-prefix=RUNTIME
# RUNTIME: graft-run: error: abiver.graft: FatELF slice 1's record (aarch64, OS ABI 0 version 1, class 2, data 1) does not match its ELF header (aarch64, OS ABI 0 version 0, class 2, data 1)
# RUNTIME: graft-run: error: beyond.graft: FatELF slice 0 (x86_64) [4096, +16777216) extends past the end of the file ({{[0-9]+}} bytes)
# RUNTIME: graft-run: error: class.graft: FatELF slice 0's record (x86_64, OS ABI 0 version 0, class 1, data 1) does not match its ELF header (x86_64, OS ABI 0 version 0, class 2, data 1)
# RUNTIME: graft-run: error: empty.graft: FatELF bundle has no slices
# RUNTIME: graft-run: error: machine.graft: FatELF slice 0's record (aarch64, OS ABI 0 version 0, class 2, data 1) does not match its ELF header (x86_64, OS ABI 0 version 0, class 2, data 1)
# RUNTIME: graft-run: error: magic.graft: not a graft bundle: expected FatELF magic 0x1f0e70fa or an ELF header, found 0x1f0e7012
# RUNTIME: graft-run: error: notelf.graft: FatELF slice 0 (x86_64): not an ELF file (no \x7fELF magic, {{[0-9]+}} bytes)
# RUNTIME: graft-run: error: order.graft: FatELF slice 0's record (x86_64, OS ABI 0 version 0, class 2, data 2) does not match its ELF header (x86_64, OS ABI 0 version 0, class 2, data 1)
# RUNTIME: graft-run: error: osabi.graft: FatELF slice 1's record (aarch64, OS ABI 3 version 0, class 2, data 1) does not match its ELF header (aarch64, OS ABI 0 version 0, class 2, data 1)
# RUNTIME: graft-run: error: overlap.graft: FatELF slices 0 and 1 overlap
# RUNTIME: graft-run: error: recres.graft: FatELF slice 0 (x86_64) has reserved bytes 5, 0, expected 0
# RUNTIME: graft-run: error: reserved.graft: FatELF header's reserved byte is 1, expected 0
# RUNTIME: graft-run: error: unaligned.graft: FatELF slice 0 (x86_64) offset 0x1100 is not aligned to 4096
# RUNTIME: graft-run: error: version.graft: FatELF version 2 is not supported (expected 1)
