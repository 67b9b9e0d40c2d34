# LLVM 19 and lld 19 from Debian's packages (llvm-19-dev, liblld-19-dev).
find_package(LLVM 19.1 REQUIRED CONFIG HINTS /usr/lib/llvm-19/lib/cmake/llvm)
find_package(LLD REQUIRED CONFIG HINTS /usr/lib/llvm-19/lib/cmake/lld)
message(STATUS "graft: LLVM ${LLVM_PACKAGE_VERSION} at ${LLVM_DIR}")

add_library(graft_llvm INTERFACE)
target_include_directories(graft_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS} ${LLD_INCLUDE_DIRS})
separate_arguments(_llvm_defs NATIVE_COMMAND ${LLVM_DEFINITIONS})
target_compile_definitions(graft_llvm INTERFACE ${_llvm_defs})
# Link the shared libLLVM: much faster links than the static components.
target_link_libraries(graft_llvm INTERFACE lldELF lldCommon LLVM)

# Tools the compiler runs and the tests use.
find_program(GRAFT_CLANG NAMES clang-19 clang HINTS ${LLVM_TOOLS_BINARY_DIR} REQUIRED)
find_program(GRAFT_FILECHECK NAMES FileCheck HINTS ${LLVM_TOOLS_BINARY_DIR} REQUIRED)
find_program(GRAFT_LLVM_READELF NAMES llvm-readelf HINTS ${LLVM_TOOLS_BINARY_DIR})
find_program(GRAFT_LLVM_OBJDUMP NAMES llvm-objdump HINTS ${LLVM_TOOLS_BINARY_DIR})
