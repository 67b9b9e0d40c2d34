# ISA variants that share code (lib/codegen/VariantSharing.h): aarch64's
# armv8.2-a+dotprod changes only atomics, narrow-integer and target-intrinsic
# code, so a slice whose IR has none of them and is the same at both levels
# lists armv8-a's functions for it instead of compiling a copy (the MLP:
# no function of its own); one with i8 arithmetic compiles its own. Both
# variants still run, each at its level under qemu. The claim behind it is
# checked on every graph of tests/e2e/inputs, tests/bench/graphs and
# tests/diff/graphs: where the two-level slice shares, armv8-a's and
# armv8.2-a+dotprod's code compiled alone are the same instructions.
require_targets aarch64
dot=armv8.2-a+dotprod
# own_functions <dir>: how many functions the aarch64 object in <dir> has
# for the dotprod level (suffixed with its name).
own_functions() {
  "$LLVM_OBJDUMP" -t "$1"/*.aarch64.o | grep -c -F ".$dot" || true
}

mkdir mlp
"$GRAFT" build "$SRC/tests/e2e/inputs/mlp.graph" --target aarch64 --emit obj --emit-dir mlp -o mlp.graft
[[ $(own_functions mlp) == 0 ]] || { echo "error: the MLP's $dot variant was compiled" >&2; exit 1; }
"$GRAFT_FATELF" info mlp.graft >info.txt
check "$TEST_DIR/shared_variants.sh" --check-prefix=INFO <info.txt
# INFO: isa variant armv8-a: 2 dispatch(es)
# INFO: isa variant armv8.2-a+dotprod: 2 dispatch(es)
for level in armv8-a "$dot"; do
  run_on aarch64 mlp.graft --isa "$level" --function mlp --trace \
    --input "2x2xf32=[[2 2][-2 -2]]" --input "2x2xf32=[[3 -3][3 -3]]" >"run_$level.txt" 2>&1
  check "$TEST_DIR/shared_variants.sh" --check-prefix=LEVEL_RUN -DLEVEL="$level" <"run_$level.txt"
done
# LEVEL_RUN: [trace] isa [[LEVEL]]
# LEVEL_RUN: 2x2xf32=[-12 0][0 -12]

cat >narrow.graph <<'G'
func @f(%a: tensor<?xi8>, %b: tensor<?xi8>) -> tensor<?xi8> {
  %r = map %a, %b : tensor<?xi8> {
  ^bb0(%x: i8, %y: i8):
    %p = mul %x, %y : i8
    yield %p
  }
  return %r
}
G
mkdir narrow
"$GRAFT" build narrow.graph --target aarch64 --emit obj --emit-dir narrow -o narrow.graft
[[ $(own_functions narrow) != 0 ]] || { echo "error: the i8 graph's $dot variant was shared" >&2; exit 1; }
for level in armv8-a "$dot"; do
  run_on aarch64 narrow.graft --isa "$level" --input "3xi8=[2 -3 100]" --input "3xi8=[5 7 2]" >out.txt
  check "$TEST_DIR/shared_variants.sh" --check-prefix=NARROW <out.txt
done
# NARROW: 3xi8=10 -21 -56

# code <graph> <level> <dir>: the disassembly of <graph>'s aarch64 slice
# compiled for <level> alone.
code() {
  rm -rf "$3" && mkdir "$3"
  "$GRAFT" build "$1" -q --target aarch64 --levels "$2" --emit obj --emit-dir "$3" -o "$3/b.graft"
  "$LLVM_OBJDUMP" -d --no-show-raw-insn "$3"/*.aarch64.o | tail -n +4
}
shared=0 graphs=0
for g in "$SRC"/tests/e2e/inputs/*.graph "$SRC"/tests/bench/graphs/*.graph "$SRC"/tests/diff/graphs/*.graph; do
  graphs=$((graphs + 1))
  rm -rf both && mkdir both
  "$GRAFT" build "$g" -q --target aarch64 --emit obj --emit-dir both -o both/b.graft
  [[ $(own_functions both) == 0 ]] || continue
  shared=$((shared + 1))
  code "$g" armv8-a base >base.s
  code "$g" "$dot" dot >dot.s
  diff base.s dot.s >/dev/null || {
    echo "error: $g: $dot shares armv8-a's code, but compiled alone its code differs:" >&2
    diff base.s dot.s | head -20 >&2
    exit 1
  }
done
echo "$shared of $graphs graphs share the $dot variant"
(( shared >= 10 )) || { echo "error: only $shared graphs share" >&2; exit 1; }
