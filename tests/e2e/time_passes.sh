# `graft build --time-passes` prints every pass of the build, per target and
# feature level where it runs per level, with its wall and CPU time (the
# times themselves are not checked: they vary). Timing leaves the bundle's
# bytes as they are.
EX=$SRC/specs/mlp
"$GRAFT" build "$EX/mlp.graph" --spec "$EX/mlp.yaml" --target x86_64,aarch64 \
  --levels baseline -o plain.graft
"$GRAFT" build "$EX/mlp.graph" --spec "$EX/mlp.yaml" --target x86_64,aarch64 \
  --levels baseline -o timed.graft --time-passes 2> times.txt
cmp plain.graft timed.graft
check --check-prefix=PASSES "$TEST_DIR/time_passes.sh" < times.txt
# PASSES: graft: pass times of timed.graft
# PASSES-NEXT: wall (s) CPU (s) pass
# PASSES-NEXT: {{[0-9]+\.[0-9]+}} {{[0-9]+\.[0-9]+}} parse
# PASSES-NEXT: verify
# PASSES-NEXT: load specs
# PASSES-NEXT: x86_64 x86-64-v2: clone
# PASSES-NEXT: x86_64 x86-64-v2: match specs
# PASSES-NEXT: x86_64 x86-64-v2: lower
# PASSES-NEXT: x86_64 x86-64-v2: kernels
# PASSES-NEXT: aarch64 armv8-a: clone
# PASSES-NEXT: aarch64 armv8-a: match specs
# PASSES-NEXT: aarch64 armv8-a: lower
# PASSES-NEXT: aarch64 armv8-a: kernels
# PASSES-NEXT: x86_64: codegen
# PASSES-NEXT: x86_64: LLVM opt
# PASSES-NEXT: x86_64: object emission
# PASSES-NEXT: x86_64: builtins
# PASSES-NEXT: aarch64: codegen
# PASSES-NEXT: aarch64: LLVM opt
# PASSES-NEXT: aarch64: object emission
# PASSES-NEXT: aarch64: builtins
# PASSES-NEXT: x86_64: link
# PASSES-NEXT: aarch64: link
# PASSES-NEXT: bundle
# PASSES-NEXT: {{[0-9]+\.[0-9]+}} {{[0-9]+\.[0-9]+}} total
# PASSES-EMPTY:

# Without the option nothing is printed.
"$GRAFT" build "$EX/mlp.graph" --target x86_64 --levels baseline -o quiet.graft 2> quiet.txt
[[ ! -s quiet.txt ]] || { echo "unexpected output without --time-passes:" >&2; cat quiet.txt >&2; exit 1; }
