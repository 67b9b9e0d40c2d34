# Cross-compiling graft's runtime for aarch64 Linux with Debian's gcc cross
# compiler (gcc-aarch64-linux-gnu). Binaries are linked statically so that
# qemu-aarch64 runs them without a target sysroot.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
# The runtime is C only, but the root project() also enables C++; Debian's
# g++-aarch64-linux-gnu is not required, so clang stands in. It is only identified
# (compile-only), never used: nothing C++ is built in a runtime-only build.
set(CMAKE_CXX_COMPILER clang++-19)
set(CMAKE_CXX_COMPILER_TARGET aarch64-linux-gnu)
set(CMAKE_CXX_COMPILER_WORKS TRUE)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
# Test binaries run under qemu-user (ctest and try_run use this).
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
