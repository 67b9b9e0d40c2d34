# Cross-built runtimes: graft-run (and the runtime's C unit tests) for every
# registered target other than the host that has its gcc cross compiler and
# qemu-user installed, built from this same source tree as a runtime-only
# ExternalProject with a toolchain file generated from the target's data
# (cmake/GraftToolchain.cmake.in, cmake/GraftTargets.cmake). Results:
#   ${PROJECT_BINARY_DIR}/cross/<arch>/graft-run   (what e2e tests run in qemu)
#   ${PROJECT_BINARY_DIR}/cross/<arch>/build/      (the cross build itself)
#   ${PROJECT_BINARY_DIR}/cross/<arch>/install/    (its runtime-only package,
#       installed with graft's as <prefix>/lib/graft/<arch>/; the global
#       property GRAFT_CROSS_RUNTIME_ARCHS lists the architectures)
# and CTest tests unit/<arch>/<name> running the cross unit tests under qemu.
include(ExternalProject)

foreach(arch ${GRAFT_TARGETS})
  if(arch STREQUAL GRAFT_HOST_TARGET)
    continue()
  endif()
  find_program(GRAFT_CROSS_CC_${arch} ${GRAFT_TARGET_${arch}_CROSS_CC})
  find_program(GRAFT_QEMU_${arch} ${GRAFT_TARGET_${arch}_QEMU})
  if(NOT GRAFT_CROSS_CC_${arch} OR NOT GRAFT_QEMU_${arch})
    message(STATUS "graft: no ${GRAFT_TARGET_${arch}_CROSS_CC} or ${GRAFT_TARGET_${arch}_QEMU}; "
                   "not cross-building the ${arch} runtime (cmake/install-deps.sh installs them)")
    continue()
  endif()
  set(dir ${PROJECT_BINARY_DIR}/cross/${arch})
  set(GRAFT_CROSS_ARCH ${arch})
  foreach(key QEMU SYSROOT CROSS_CC PROCESSOR CLANG_TRIPLE)
    string(REPLACE "CROSS_" "" short ${key})
    set(GRAFT_CROSS_${short} ${GRAFT_TARGET_${arch}_${key}})
  endforeach()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/GraftToolchain.cmake.in
                 ${dir}/toolchain.cmake @ONLY)
  string(REPLACE ";" "|" processors "${GRAFT_TARGET_${arch}_PROCESSORS}")
  ExternalProject_Add(graft-run-${arch}
    SOURCE_DIR ${PROJECT_SOURCE_DIR}
    PREFIX ${dir}/ep
    BINARY_DIR ${dir}/build
    CMAKE_ARGS
      -DCMAKE_TOOLCHAIN_FILE=${dir}/toolchain.cmake
      -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
      -DGRAFT_BUILD_COMPILER=OFF
      -DGRAFT_CROSS_RUNTIMES=OFF
      -DGRAFT_BUILD_TESTS=${GRAFT_BUILD_TESTS}
      -DGRAFT_WERROR=${GRAFT_WERROR}
      -DGRAFT_RUNTIME_ARCH=${arch}
      -DGRAFT_RUNTIME_PROCESSORS=${processors}
    LIST_SEPARATOR |
    # The sources are this tree: let the inner build decide what changed.
    BUILD_ALWAYS ON
    INSTALL_COMMAND ${CMAKE_COMMAND} -E copy_if_different
      ${dir}/build/cmd/graft-run/graft-run ${dir}/graft-run
    COMMAND ${CMAKE_COMMAND} --install ${dir}/build --prefix ${dir}/install)
  set_property(GLOBAL APPEND PROPERTY GRAFT_CROSS_RUNTIME_ARCHS ${arch})
  install(DIRECTORY ${dir}/install/ DESTINATION lib/graft/${arch} USE_SOURCE_PERMISSIONS)

  if(GRAFT_BUILD_TESTS)
    set(GRAFT_CROSS_BUILD_DIR ${dir}/build)
    configure_file(${PROJECT_SOURCE_DIR}/cmake/GraftCrossTests.cmake.in
                   ${dir}/tests.cmake @ONLY)
    # On the root directory: that is where ctest starts reading.
    set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY
                 TEST_INCLUDE_FILES ${dir}/tests.cmake)
  endif()
endforeach()
