# The CMake package as users see it: install this build into a prefix,
# configure the example project tests/cmake/ against it with find_package(graft),
# build its bundle (graft_add_bundle, x86_64 + aarch64, a spec with a C
# kernel) and its app (graft::runtime), run both, and check that the depfile
# makes kernel edits rebuild the bundle and nothing else.
CMAKE=${CMAKE:-cmake}
P=$T/prefix

# Installing copies the already-built binaries; it never builds.
"$CMAKE" --install "$BIN" --prefix "$P" >"$T/install.log"
for f in bin/graft bin/graft-run bin/graft-fatelf lib/pkgconfig/graft-runtime.pc share/doc/graft/LICENSE lib/libgraft_runtime.a lib/libgraft_runtime_io.a \
         include/graft/runtime.h include/graft/kernel.h \
         lib/cmake/graft/graftConfig.cmake lib/cmake/graft/graftConfigVersion.cmake \
         lib/cmake/graft/graftToolTargets.cmake lib/cmake/graft/graftRuntimeTargets.cmake lib/cmake/graft/GraftBundle.cmake; do
  [[ -e $P/$f ]] || { echo "error: '$f' not installed under $P" >&2; exit 1; }
done

# The installed graft compiles kernels against the installed headers
# (<exe>/../include), not the source tree: mark the installed kernel.h and
# build a kernel that refuses any other copy.
unset GRAFT_INCLUDE_DIR
echo '#define GRAFT_INSTALLED_HEADER_MARK 1' >>"$P/include/graft/kernel.h"
mkdir hdr
sed 's/#include "graft\/kernel.h"/&\n#ifndef GRAFT_INSTALLED_HEADER_MARK\n#error not the installed graft\/kernel.h\n#endif/' \
  "$SRC/tests/cmake/saxpy_kernel.c" >hdr/saxpy_kernel.c
cp "$SRC/tests/cmake/saxpy.graph" "$SRC/tests/cmake/saxpy.yaml" hdr/
"$P/bin/graft" build hdr/saxpy.graph --spec hdr/saxpy.yaml -o hdr/saxpy.graft

# A copy of the project, so the test can edit its kernel.
cp -r "$SRC/tests/cmake" src
"$CMAKE" -S src -B build -G Ninja -DCMAKE_PREFIX_PATH="$P" >"$T/configure.log"
ninja -C build >"$T/build1.log"
grep -q "Building graft bundle saxpy" "$T/build1.log"

build/saxpy_app | check "$TEST_DIR/cmake_package.sh" --check-prefix=APP
# APP: saxpy: 5xf32=0 12 24 36 48

# The same bundle with the installed graft-run, and its aarch64 slice.
run=(--function saxpy --input "5xf32=[0 1 2 3 4]" --input "5xf32=[0 10 20 30 40]")
"$P/bin/graft-run" build/saxpy.graft "${run[@]}" | check "$TEST_DIR/cmake_package.sh" --check-prefix=RUNNER
run_on aarch64 build/saxpy.graft "${run[@]}" | check "$TEST_DIR/cmake_package.sh" --check-prefix=RUNNER
# RUNNER: 5xf32=0 12 24 36 48
"$P/bin/graft" inspect build/saxpy.graft | check "$TEST_DIR/cmake_package.sh" --check-prefix=SLICES
# SLICES: 2 slice(s)
# SLICES: x86_64
# SLICES: aarch64

# SANITIZE undefined: the same results, from slices that say they are checked.
"$P/bin/graft-run" build/saxpy_ubsan.graft "${run[@]}" | check "$TEST_DIR/cmake_package.sh" --check-prefix=RUNNER
run_on aarch64 build/saxpy_ubsan.graft "${run[@]}" | check "$TEST_DIR/cmake_package.sh" --check-prefix=RUNNER
"$P/bin/graft-fatelf" info build/saxpy_ubsan.graft | check "$TEST_DIR/cmake_package.sh" --check-prefix=UBSAN
# UBSAN: instrumented: --sanitize=undefined
# UBSAN: instrumented: --sanitize=undefined

# Without CMake: the app built with pkg-config against a moved copy of the
# prefix (the .pc file's paths are relative to it) runs the same bundle.
cp -r "$P" moved
cc -o pc_app "$SRC/tests/cmake/app.c" -DSAXPY_BUNDLE='"build/saxpy.graft"' \
  $(PKG_CONFIG_PATH=moved/lib/pkgconfig pkg-config --cflags --libs graft-runtime)
./pc_app | check "$TEST_DIR/cmake_package.sh" --check-prefix=APP

# Up to date: a second build does nothing.
ninja -C build | check "$TEST_DIR/cmake_package.sh" --check-prefix=NOOP
# NOOP: ninja: no work to do

# Only the depfile names the kernel (CMake sees the graph and spec): touching
# it rebuilds the bundle, and only the bundle.
sleep 1
touch src/saxpy_kernel.c
ninja -C build | check "$TEST_DIR/cmake_package.sh" --check-prefix=REBUILD
# REBUILD: Building graft bundle saxpy
# REBUILD-NOT: saxpy_app
ninja -C build | check "$TEST_DIR/cmake_package.sh" --check-prefix=NOOP

# An edit is compiled in: 3*x + y from now on.
sleep 1
sed -i 's/2\.0f \* x\[i\]/3.0f * x[i]/' src/saxpy_kernel.c
grep -q '3.0f \* x\[i\]' src/saxpy_kernel.c
ninja -C build | check "$TEST_DIR/cmake_package.sh" --check-prefix=REBUILD
build/saxpy_app | check "$TEST_DIR/cmake_package.sh" --check-prefix=EDITED
# EDITED: saxpy: 5xf32=0 13 26 39 52

# The project's own CTest tests run the app, and the import bundle with
# each plugin graft_add_plugin() built (system .so, bare-metal .sos).
(cd build && ctest --output-on-failure >"$T/ctest.log")
check "$TEST_DIR/cmake_package.sh" --check-prefix=CTEST <"$T/ctest.log"
# CTEST: saxpy_app {{.*}} Passed
# CTEST: saxpy_plugin {{.*}} Passed
# CTEST: saxpy_plugin_bare {{.*}} Passed
# CTEST: 100% tests passed
file build/saxpy_plugin.so | grep "ELF 64-bit LSB shared object" >/dev/null
"$P/bin/graft" inspect build/saxpy_plugin_bare.sos | check "$TEST_DIR/cmake_package.sh" --check-prefix=SLICES
# The bare-metal plugin's aarch64 slice serves the aarch64 runtime.
run_on aarch64 build/saxpy_import.graft --plugin build/saxpy_plugin_bare.sos "${run[@]}" \
  | check "$TEST_DIR/cmake_package.sh" --check-prefix=RUNNER

# Mistakes in graft_add_bundle() calls stop the configure with a clear error.
mkdir bad
cat >bad/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(bad LANGUAGES C)
find_package(graft CONFIG REQUIRED)
cmake_language(CALL ${FN} ${CASE})
EOF
bad() { # <prefix> <arguments> [function]
  expect_fail "$CMAKE" -S bad -B "bad/build-$1" -G Ninja -DCMAKE_PREFIX_PATH="$P" "-DCASE=$2" \
    "-DFN=${3:-graft_add_bundle}"
  check "$TEST_DIR/cmake_package.sh" --check-prefix="$1" <"$T/out"
}
bad NOGRAPH "b;SPECS;x.yaml"
# NOGRAPH: graft_add_bundle(b): missing GRAPH <file>; expected
# NOGRAPH: CMakeLists.txt:4 (cmake_language)
bad UNKNOWN "b;GRAPH;g.graph;TARGET;x86_64"
# UNKNOWN: graft_add_bundle(b): unknown argument(s) 'TARGET;x86_64'
# UNKNOWN: CMakeLists.txt:4 (cmake_language)
bad MISSING "b;GRAPH;nope.graph"
# MISSING: graft_add_bundle(b): GRAPH file 'nope.graph' not found (looked
# MISSING-NEXT: {{.*}}/bad/nope.graph)
# MISSING: CMakeLists.txt:4 (cmake_language)
bad SANITIZE "b;GRAPH;$SRC/tests/cmake/saxpy.graph;SANITIZE;address"
# SANITIZE: graft_add_bundle(b): SANITIZE 'address' is not supported (graft build
# SANITIZE-NEXT: supports SANITIZE undefined)

# ... and in graft_add_plugin() calls.
bad NOSOURCES "p;BARE_METAL" graft_add_plugin
# NOSOURCES: graft_add_plugin(p): missing SOURCES <file.c>...; expected
bad SYSTARGETS "p;SOURCES;$SRC/tests/cmake/saxpy_plugin.c;TARGETS;aarch64" graft_add_plugin
# SYSTARGETS: graft_add_plugin(p): TARGETS needs BARE_METAL; a system plugin is built for
bad NOSOURCE "p;SOURCES;nope.c" graft_add_plugin
# NOSOURCE: graft_add_plugin(p): SOURCES file 'nope.c' not found (looked
