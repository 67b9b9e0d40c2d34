# Incremental builds of a bundle with Ninja, CMake's Makefiles generator and
# a plain Makefile: graft's depfile lists the headers C kernels include (and
# an empty rule per input), so touching a kernel header rebuilds the bundle,
# renaming a kernel works, and touching nothing rebuilds nothing. The spec's
# -I flag is relative to the spec's directory, so the same spec works from
# the build tree and by hand; graft_add_bundle adds an include directory and
# a define of its own.
CMAKE=${CMAKE:-cmake}
run=(--input "4xf32=[1 2 3 4]")

# A project: graph/, spec/ (its kernel in kernels/, headers in include/ and
# common/), one bundle for the host.
mkdir -p proj/graph proj/spec/kernels proj/include proj/common
cat >proj/graph/scale.graph <<'G'
func @scale(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = map %x : tensor<?xf32> {
  ^bb0(%v: f32):
    %0 = neg %v : f32
    yield %0
  }
  return %r
}
G
cat >proj/spec/scale.yaml <<'Y'
graft-spec: 1
rules:
  - name: scale
    match: |
      pattern @scale(%x: tensor<?xf32>) -> tensor<?xf32> {
        %r = map %x : tensor<?xf32> {
        ^bb0(%v: f32):
          %0 = neg %v : f32
          yield %0
        }
        return %r
      }
    replace:
      call: scale_kernel
      outputs: [result]
      args: [x, result, "dim(x, 0) : i64"]
      kernels:
        x86_64: {source: kernels/scale.c, flags: [-I../include]}
Y
cat >proj/spec/kernels/scale.c <<'C'
#include "graft/kernel.h"
#include "factor.h"
#include "offset.h"
GRAFT_KERNEL_EXPORT void scale_kernel(const float *x, float *r, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    r[i] = -(FACTOR * x[i] + OFFSET);
}
C
echo '#define FACTOR 1.0f' >proj/include/factor.h
echo '#define OFFSET ((float)EXTRA)' >proj/common/offset.h
cat >proj/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.20)
project(scale LANGUAGES NONE)
find_package(graft CONFIG REQUIRED)
graft_add_bundle(scale GRAPH graph/scale.graph SPECS spec/scale.yaml TARGETS x86_64
                 INCLUDE_DIRECTORIES common DEFINES EXTRA=0)
CM

# rebuild_check <prefix> <build output>: the bundle was (or was not) rebuilt.
rebuilt() { grep -q "Building graft bundle scale" "$1"; }

for gen in Ninja "Unix Makefiles"; do
  b="build-${gen// /-}"
  "$CMAKE" -S proj -B "$b" -G "$gen" -Dgraft_DIR="$BIN" >configure.log
  "$CMAKE" --build "$b" >1.log
  rebuilt 1.log
  "$GRAFT_RUN" "$b/scale.graft" "${run[@]}" | check --check-prefix=FIRST "$TEST_DIR/incremental_build.sh"
  # FIRST: 4xf32=-1 -2 -3 -4

  # Nothing touched: nothing rebuilt.
  "$CMAKE" --build "$b" >2.log
  not rebuilt 2.log

  # A header found through the spec's -I: rebuilds, and the edit is in.
  sleep 1
  echo '#define FACTOR 10.0f' >proj/include/factor.h
  "$CMAKE" --build "$b" >3.log
  rebuilt 3.log
  "$GRAFT_RUN" "$b/scale.graft" "${run[@]}" | check --check-prefix=FACTOR "$TEST_DIR/incremental_build.sh"
  # FACTOR: 4xf32=-10 -20 -30 -40

  # A header found through INCLUDE_DIRECTORIES, using the DEFINES value.
  sleep 1
  echo '#define OFFSET ((float)EXTRA + 0.5f)' >proj/common/offset.h
  "$CMAKE" --build "$b" >4.log
  rebuilt 4.log
  "$GRAFT_RUN" "$b/scale.graft" "${run[@]}" | check --check-prefix=OFFSET "$TEST_DIR/incremental_build.sh"
  # OFFSET: 4xf32=-10.5 -20.5 -30.5 -40.5
  "$CMAKE" --build "$b" >5.log
  not rebuilt 5.log

  # Renaming the kernel (and the header it includes): the old names are in
  # the depfile, which must not stop the build.
  sleep 1
  mv proj/spec/kernels/scale.c proj/spec/kernels/scale2.c
  mv proj/include/factor.h proj/include/factor2.h
  sed -i 's/factor\.h/factor2.h/' proj/spec/kernels/scale2.c
  sed -i 's|kernels/scale\.c|kernels/scale2.c|' proj/spec/scale.yaml
  "$CMAKE" --build "$b" >6.log 2>&1 || { cat 6.log; exit 1; }
  rebuilt 6.log
  "$CMAKE" --build "$b" >7.log
  not rebuilt 7.log

  # Back to the first state for the next generator.
  mv proj/spec/kernels/scale2.c proj/spec/kernels/scale.c
  mv proj/include/factor2.h proj/include/factor.h
  sed -i 's/factor2\.h/factor.h/' proj/spec/kernels/scale.c
  sed -i 's|kernels/scale2\.c|kernels/scale.c|' proj/spec/scale.yaml
  echo '#define FACTOR 1.0f' >proj/include/factor.h
  echo '#define OFFSET ((float)EXTRA)' >proj/common/offset.h
done

# The same with a plain Makefile, graft run by hand from another directory
# (the spec's -I still means proj/include).
mkdir mk
cat >mk/Makefile <<MK
scale.graft: ../proj/graph/scale.graph ../proj/spec/scale.yaml
	"$GRAFT" build \$< --spec ../proj/spec/scale.yaml --target x86_64 -I ../proj/common -D EXTRA=0 -o \$@ --depfile \$@.d
	@echo "Building graft bundle scale"
-include scale.graft.d
MK
make -C mk >1.log
rebuilt 1.log
make -C mk >2.log
not rebuilt 2.log
grep -q "is up to date" 2.log
sleep 1
touch proj/include/factor.h
make -C mk >3.log
rebuilt 3.log
sleep 1
mv proj/spec/kernels/scale.c proj/spec/kernels/scale2.c
mv proj/include/factor.h proj/include/factor2.h
sed -i 's/factor\.h/factor2.h/' proj/spec/kernels/scale2.c
sed -i 's|kernels/scale\.c|kernels/scale2.c|' proj/spec/scale.yaml
make -C mk >4.log 2>&1 || { cat 4.log; exit 1; }
rebuilt 4.log
make -C mk >5.log
not rebuilt 5.log
"$GRAFT_RUN" mk/scale.graft "${run[@]}" | check --check-prefix=FIRST "$TEST_DIR/incremental_build.sh"

# The depfile: one rule, every header, and an empty rule per input.
check --check-prefix=DEP "$TEST_DIR/incremental_build.sh" <mk/scale.graft.d
# DEP: scale.graft: \
# DEP-DAG: {{^}}  ../proj/common/offset.h \
# DEP-DAG: {{^}}  ../proj/graph/scale.graph \
# DEP-DAG: {{^}}  ../proj/include/factor2.h \
# DEP-DAG: {{^}}  ../proj/spec/kernels/scale2.c \
# DEP-DAG: {{^}}  ../proj/spec/scale.yaml \
# DEP-DAG: {{^  .*/graft/kernel.h( \\)?$}}
# DEP: {{^}}../proj/include/factor2.h:{{$}}
