# ISA variants that share code (lib/codegen/VariantSharing.h): aarch64's
# armv8.2-a+dotprod changes only atomics, narrow-integer and target-intrinsic
# code, x86_64's x86-64-v3+avxvnni, v4+vnni and v4+amx only narrow-integer code, so a slice whose
# IR has none of them and is the same at both levels lists the lower
# level's functions for it instead of compiling a copy (the MLP: no
# function of its own); one with i8 arithmetic compiles its own. Both
# variants still run, each at its level (under qemu, or natively where the
# host has the level; else noted). The claim behind it is checked on every
# graph of tests/e2e/inputs, tests/bench/graphs and tests/diff/graphs:
# where the two-level slice shares, the two levels' code compiled alone is
# the same instructions.
require_targets aarch64 x86_64

# own_functions <dir> <target> <level>: how many functions <target>'s
# object in <dir> has for <level> (suffixed with its name).
own_functions() {
  "$LLVM_OBJDUMP" -t "$1"/*."$2".o | grep -c -F ".$3" || true
}

# run_level <target> <level> <graft-run args...>: runs at <level> where
# something here can; else says so and succeeds.
run_level() {
  local target=$1 level=$2 model
  shift 2
  model=$(cpu_for_level "$target" "$level") || { echo "note: nothing here runs $target $level"; return 0; }
  run_cpu "$target" "$model" "$@" --isa "$level"
}

# code <graph> <target> <level> <dir>: the disassembly of <graph>'s
# <target> slice compiled for <level> alone.
code() {
  rm -rf "$4" && mkdir "$4"
  "$GRAFT" build "$1" -q --target "$2" --levels "$3" --emit obj --emit-dir "$4" -o "$4/b.graft"
  "$LLVM_OBJDUMP" -d --no-show-raw-insn "$4"/*."$2".o | tail -n +4
}

for pair in aarch64:armv8-a:armv8.2-a+dotprod x86_64:x86-64-v3:x86-64-v3+avxvnni x86_64:x86-64-v4:x86-64-v4+vnni \
  x86_64:x86-64-v4+vnni:x86-64-v4+amx; do
  IFS=: read -r target base level <<<"$pair"
  rm -rf mlp && mkdir mlp
  "$GRAFT" build "$SRC/tests/e2e/inputs/mlp.graph" --target "$target" --emit obj --emit-dir mlp -o mlp.graft
  [[ $(own_functions mlp "$target" "$level") == 0 ]] ||
    { echo "error: the MLP's $level variant was compiled" >&2; exit 1; }
  # A variant that shares its code also shares its tables (host programs,
  # dispatch attributes: LibraryEmitter's arrays, one global per value):
  # it costs the bundle its record (its CPU features' names the most, with
  # their relocations), not a copy of the level's (4 KiB on x86_64).
  others=$(tr ' ' '\n' <<<"${TARGET_LEVELS[$target]}" | grep -v -x -F "$level" | paste -s -d,)
  "$GRAFT" build "$SRC/tests/e2e/inputs/mlp.graph" -q --target "$target" --levels "$others" -o without.graft
  grew=$(( $(stat -c %s mlp.graft) - $(stat -c %s without.graft) ))
  echo "$level adds $grew bytes to the MLP's bundle"
  (( grew < 2048 )) || { echo "error: the shared $level variant adds $grew bytes" >&2; exit 1; }
  "$GRAFT_FATELF" info mlp.graft >info.txt
  grep -q "isa variant $base: 2 dispatch(es)" info.txt && grep -q "isa variant $level: 2 dispatch(es)" info.txt ||
    { echo "error: the MLP's variants:" >&2; cat info.txt >&2; exit 1; }
  for l in "$base" "$level"; do
    run_level "$target" "$l" mlp.graft --function mlp --trace \
      --input "2x2xf32=[[2 2][-2 -2]]" --input "2x2xf32=[[3 -3][3 -3]]" >"run_$l.txt" 2>&1
    grep -q "^note:" "run_$l.txt" ||
      check "$TEST_DIR/shared_variants.sh" --check-prefix=LEVEL_RUN -DLEVEL="$l" <"run_$l.txt"
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
  rm -rf narrow && mkdir narrow
  "$GRAFT" build narrow.graph --target "$target" --emit obj --emit-dir narrow -o narrow.graft
  [[ $(own_functions narrow "$target" "$level") != 0 ]] ||
    { echo "error: the i8 graph's $level variant was shared" >&2; exit 1; }
  for l in "$base" "$level"; do
    run_level "$target" "$l" narrow.graft --input "3xi8=[2 -3 100]" --input "3xi8=[5 7 2]" >out.txt
    grep -q "^note:" out.txt || check "$TEST_DIR/shared_variants.sh" --check-prefix=NARROW <out.txt
  done
# NARROW: 3xi8=10 -21 -56

  shared=0 graphs=0
  for g in "$SRC"/tests/e2e/inputs/*.graph "$SRC"/tests/bench/graphs/*.graph "$SRC"/tests/diff/graphs/*.graph; do
    graphs=$((graphs + 1))
    rm -rf both && mkdir both
    "$GRAFT" build "$g" -q --target "$target" --levels "$base,$level" --emit obj --emit-dir both -o both/b.graft
    [[ $(own_functions both "$target" "$level") == 0 ]] || continue
    shared=$((shared + 1))
    code "$g" "$target" "$base" base >base.s
    code "$g" "$target" "$level" lvl >lvl.s
    diff base.s lvl.s >/dev/null || {
      echo "error: $g: $level shares $base's code, but compiled alone its code differs:" >&2
      diff base.s lvl.s | head -20 >&2
      exit 1
    }
  done
  echo "$shared of $graphs graphs share the $level variant"
  (( shared >= 10 )) || { echo "error: only $shared graphs share $level" >&2; exit 1; }
done
