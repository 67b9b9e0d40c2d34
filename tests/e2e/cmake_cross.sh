# Cross-compiling an application, as users do it: the installed package
# carries a runtime for every architecture graft cross-builds
# (<prefix>/lib/graft/<arch>/), and a project configured with a toolchain
# file gets the host's graft::graft with the target's graft::runtime. The
# sample project tests/cmake_embed/ is built for aarch64 with the toolchain
# file of graft's own aarch64 cross build and its one binary runs under
# qemu; its bundle without TARGETS gets the toolchain's architecture.
# Also: GRAFT_EXECUTABLE, and the configure-time errors for an unknown
# target name and a processor graft has no runtime or target for.
CMAKE=${CMAKE:-cmake}
P=$T/prefix
"$CMAKE" --install "$BIN" --prefix "$P" >"$T/install.log"

# A runtime-only package per cross-built architecture.
cross=()
for t in "${TARGETS[@]}"; do
  [[ $t == "$HOST_TARGET" || ! -d $BIN/cross/$t ]] && continue
  cross+=("$t")
  for f in lib/libgraft_runtime.a lib/libgraft_runtime_io.a bin/graft-run include/graft/runtime.h \
           lib/cmake/graft/graftConfig.cmake lib/cmake/graft/graftRuntimeTargets.cmake; do
    [[ -e $P/lib/graft/$t/$f ]] || { echo "error: '$t/$f' not installed under $P/lib/graft" >&2; exit 1; }
  done
done
[[ " ${cross[*]} " == *" aarch64 "* ]] || { echo "error: no aarch64 cross runtime in $BIN/cross" >&2; exit 1; }

cp -r "$SRC/tests/cmake_embed" src
# The toolchain file's find-root mode is ONLY (packages from the sysroot):
# graft_DIR names the host package directly, as docs/cmake.md says.
"$CMAKE" -S src -B build -G Ninja -DCMAKE_TOOLCHAIN_FILE="$BIN/cross/aarch64/toolchain.cmake" \
  -Dgraft_DIR="$P/lib/cmake/graft" \
  -DMLP_GRAPH="$SRC/tests/e2e/inputs/mlp.graph" -DMLP_SPEC="$SRC/specs/mlp/mlp.yaml" \
  >"$T/configure.log"
ninja -C build >"$T/build.log"
readelf -h build/embed_app | check "$TEST_DIR/cmake_cross.sh" --check-prefix=ELF
# ELF: Machine: AArch64
"$P/bin/graft-fatelf" info build/affine.graft | check "$TEST_DIR/cmake_cross.sh" --check-prefix=SLICES
# SLICES: aarch64
# SLICES-NOT: x86_64

mkdir ship
cp build/embed_app ship/
rm build/*.graft
(cd ship && "${TARGET_QEMU[aarch64]}" ./embed_app) | check "$TEST_DIR/cmake_cross.sh" --check-prefix=APP
# APP: mlp: 2x2xf32=[-12 0][0 -12]
# APP-NEXT: affine: 3xf32=1.5 2 2.5
# APP-NEXT: twice: 6
# APP-NEXT: count.up: 2 3 4 5

# GRAFT_EXECUTABLE: another graft builds the bundles (here: the build tree's).
"$CMAKE" -S src -B build2 -G Ninja -DCMAKE_TOOLCHAIN_FILE="$BIN/cross/aarch64/toolchain.cmake" \
  -Dgraft_DIR="$P/lib/cmake/graft" -DGRAFT_EXECUTABLE="$GRAFT" \
  -DMLP_GRAPH="$SRC/tests/e2e/inputs/mlp.graph" -DMLP_SPEC="$SRC/specs/mlp/mlp.yaml" \
  >"$T/configure2.log"
ninja -C build2 -t commands affine >commands2.txt
grep -F -q "$GRAFT build" commands2.txt

# Configure-time errors.
mkdir bad
cat >bad/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.20)
project(bad LANGUAGES NONE)
find_package(graft CONFIG REQUIRED COMPONENTS ${COMPONENTS})
graft_add_bundle(odd GRAPH "${GRAPH}" ${TARGETS})
CM
cat >sparc.cmake <<'TC'
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR sparc64)
TC
graph=$SRC/tests/cmake_embed/affine.graph
expect_fail "$CMAKE" -S bad -B bad/b1 -G Ninja -Dgraft_DIR="$P/lib/cmake/graft" \
  -DGRAPH="$graph" -DCOMPONENTS=compiler "-DTARGETS=TARGETS;x86_64;sparc"
check "$TEST_DIR/cmake_cross.sh" --check-prefix=UNKNOWN <"$T/out"
# UNKNOWN: graft_add_bundle(odd): unknown target 'sparc' in TARGETS; graft's targets
# UNKNOWN-NEXT: are x86_64, aarch64, riscv64, arm

expect_fail "$CMAKE" -S bad -B bad/b2 -G Ninja -Dgraft_DIR="$P/lib/cmake/graft" \
  -DCMAKE_TOOLCHAIN_FILE="$PWD/sparc.cmake" -DGRAPH="$graph" -DCOMPONENTS=compiler
check "$TEST_DIR/cmake_cross.sh" --check-prefix=PROCESSOR <"$T/out"
# PROCESSOR: graft_add_bundle(odd): no TARGETS, and CMAKE_SYSTEM_PROCESSOR 'sparc64' is
# PROCESSOR-NEXT: not an architecture graft targets (x86_64, aarch64, riscv64, arm); name
# PROCESSOR-NEXT: them with TARGETS <arch>...

expect_fail "$CMAKE" -S bad -B bad/b3 -G Ninja -Dgraft_DIR="$P/lib/cmake/graft" \
  -DCMAKE_TOOLCHAIN_FILE="$PWD/sparc.cmake" -DGRAPH="$graph" -DCOMPONENTS=runtime
check "$TEST_DIR/cmake_cross.sh" --check-prefix=NORUNTIME <"$T/out"
# NORUNTIME: this graft package has no runtime for CMAKE_SYSTEM_PROCESSOR 'sparc64' (it
# NORUNTIME-NEXT: has runtimes for: x86_64, aarch64, riscv64, arm)

# An alias is accepted, and the bundle is built for the named target.
"$CMAKE" -S bad -B bad/b4 -G Ninja -Dgraft_DIR="$P/lib/cmake/graft" \
  -DGRAPH="$graph" -DCOMPONENTS=compiler "-DTARGETS=TARGETS;arm64" >"$T/configure4.log"
ninja -C bad/b4 >/dev/null
"$P/bin/graft-fatelf" info bad/b4/odd.graft | check "$TEST_DIR/cmake_cross.sh" --check-prefix=ALIAS
# ALIAS: aarch64
# ALIAS-NOT: x86_64
