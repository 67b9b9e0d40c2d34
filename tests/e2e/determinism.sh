# Builds are reproducible: the same graph built twice, from different
# working directories into different output paths, gives byte-identical
# bundles, and no build-machine path (temp dir, source dir) leaks into them.
mkdir -p one/work two/deeper/work
cp "$TEST_DIR/inputs/mlp.graph" one/work/mlp.graph
cp "$TEST_DIR/inputs/mlp.graph" two/deeper/work/mlp.graph
(cd one/work && "$GRAFT" build mlp.graph --target x86_64,aarch64 -o ../first.graft)
(cd two/deeper/work && "$GRAFT" build mlp.graph --target x86_64,aarch64 -o "$T/second.graft")
cmp one/first.graft second.graft

# A rebuild over an existing output gives the same bytes too.
(cd one/work && "$GRAFT" build mlp.graph --target x86_64,aarch64 -o ../first.graft)
cmp one/first.graft second.graft

# Each slice is compiled on its own: the aarch64 slice of the fat bundle is
# the same ELF as the one of an aarch64-only build.
(cd one/work && "$GRAFT" build mlp.graph --target aarch64 -o ../a64.graft)
(cd two/deeper/work && "$GRAFT" build mlp.graph --target aarch64 -o ../a64.graft)
cmp one/a64.graft two/deeper/a64.graft
# slice <bundle> <arch> > file: the bytes of one slice, as `graft inspect` places it.
slice() {
  local off size
  read -r off size < <("$GRAFT" inspect "$1" |
    awk -v a="$2" '$1 == a { for (i = 2; i < NF; i++) { if ($i == "offset") o = $(i+1); if ($i == "size") s = $(i+1) } print o, s }')
  [[ -n "$off" && -n "$size" ]] || { echo "no $2 slice in $1" >&2; return 1; }
  # head stops reading after the slice: tail may die of SIGPIPE (pipefail).
  { tail -c +$((off + 1)) "$1" || true; } | head -c "$size"
}
slice one/first.graft aarch64 >fat.a64.elf
slice one/a64.graft aarch64 >thin.a64.elf
[[ "$(head -c 4 fat.a64.elf | tail -c 3)" == ELF ]] || { echo "aarch64 slice is not an ELF file" >&2; exit 1; }
cmp fat.a64.elf thin.a64.elf

for b in one/first.graft one/a64.graft; do
  for needle in "$T" "$(basename "$T")" "$SRC" "$BIN" /tmp/ "$HOME/"; do
    if grep -aF -- "$needle" "$b" >/dev/null; then
      echo "bundle $b contains the build-machine path '$needle':" >&2
      strings -n 6 "$b" | grep -F -- "$needle" >&2
      exit 1
    fi
  done
done
