# Cross-built runtimes: graft-run (and the runtime's C unit tests) for every
# non-host architecture with an installed gcc cross compiler, built from this
# same source tree as a runtime-only ExternalProject with the toolchain file
# of cmake/toolchains/. Results:
#   ${PROJECT_BINARY_DIR}/cross/<arch>/graft-run   (what e2e tests run in qemu)
#   ${PROJECT_BINARY_DIR}/cross/<arch>/build/      (the cross build itself)
# and CTest tests unit/<arch>/<name> running the cross unit tests under qemu.
include(ExternalProject)

set(GRAFT_CROSS_ARCHS aarch64 riscv64)

foreach(arch ${GRAFT_CROSS_ARCHS})
  if(arch STREQUAL CMAKE_SYSTEM_PROCESSOR)
    continue()
  endif()
  find_program(GRAFT_CROSS_CC_${arch} ${arch}-linux-gnu-gcc)
  find_program(GRAFT_QEMU_${arch} qemu-${arch})
  if(NOT GRAFT_CROSS_CC_${arch} OR NOT GRAFT_QEMU_${arch})
    message(STATUS "graft: no ${arch}-linux-gnu-gcc or qemu-${arch}; "
                   "not cross-building the ${arch} runtime (cmake/install-deps.sh installs them)")
    continue()
  endif()
  set(dir ${PROJECT_BINARY_DIR}/cross/${arch})
  ExternalProject_Add(graft-run-${arch}
    SOURCE_DIR ${PROJECT_SOURCE_DIR}
    PREFIX ${dir}/ep
    BINARY_DIR ${dir}/build
    CMAKE_ARGS
      -DCMAKE_TOOLCHAIN_FILE=${PROJECT_SOURCE_DIR}/cmake/toolchains/${arch}-linux-gnu.cmake
      -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
      -DGRAFT_BUILD_COMPILER=OFF
      -DGRAFT_CROSS_RUNTIMES=OFF
      -DGRAFT_BUILD_TESTS=${GRAFT_BUILD_TESTS}
      -DGRAFT_WERROR=${GRAFT_WERROR}
    # The sources are this tree: let the inner build decide what changed.
    BUILD_ALWAYS ON
    INSTALL_COMMAND ${CMAKE_COMMAND} -E copy_if_different
      ${dir}/build/cmd/graft-run/graft-run ${dir}/graft-run)

  if(GRAFT_BUILD_TESTS)
    set(GRAFT_CROSS_ARCH ${arch})
    set(GRAFT_CROSS_BUILD_DIR ${dir}/build)
    configure_file(${PROJECT_SOURCE_DIR}/cmake/GraftCrossTests.cmake.in
                   ${dir}/tests.cmake @ONLY)
    # On the root directory: that is where ctest starts reading.
    set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY
                 TEST_INCLUDE_FILES ${dir}/tests.cmake)
  endif()
endforeach()
