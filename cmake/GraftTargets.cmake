# The target registry, for cmake. targets/Targets.def lists the
# architectures; targets/<arch>.cpp describes each one.
#
# graft_registered_targets(<var>): the names in Targets.def, in order (what
# the compiler's and the loader's source lists are made of).
#
# graft_load_target_info(): compiles the registry (targets/*.cpp, no LLVM)
# with the host C++ compiler into a small program, runs it and includes what
# it prints (targets/Describe.h, CMake format): GRAFT_TARGETS,
# GRAFT_HOST_TARGET and GRAFT_TARGET_<arch>_{QEMU,SYSROOT,CROSS_CC,
# PROCESSOR,PROCESSORS,ALIASES,CLANG_TRIPLE}. Reruns whenever a target file
# changes. The file it includes is also the global property
# GRAFT_TARGET_TABLE_FILE, which graft_add_bundle() reads in this build.

set(GRAFT_TARGETS_DIR ${CMAKE_CURRENT_LIST_DIR}/../targets)
get_filename_component(GRAFT_TARGETS_DIR ${GRAFT_TARGETS_DIR} ABSOLUTE)

function(graft_registered_targets var)
  # Source lists are made of these names: a new line must reconfigure (the
  # cross-built runtimes included, which never run graft_load_target_info).
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${GRAFT_TARGETS_DIR}/Targets.def)
  file(STRINGS ${GRAFT_TARGETS_DIR}/Targets.def lines REGEX "^GRAFT_TARGET\\(")
  set(names "")
  foreach(line ${lines})
    string(REGEX REPLACE "^GRAFT_TARGET\\(([A-Za-z0-9_]+)\\).*" "\\1" name "${line}")
    list(APPEND names ${name})
  endforeach()
  set(${var} ${names} PARENT_SCOPE)
endfunction()

function(graft_load_target_info)
  graft_registered_targets(names)
  set(sources ${GRAFT_TARGETS_DIR}/Registry.cpp ${GRAFT_TARGETS_DIR}/Describe.cpp
              ${GRAFT_TARGETS_DIR}/TargetsTool.cpp)
  foreach(name ${names})
    list(APPEND sources ${GRAFT_TARGETS_DIR}/${name}.cpp)
  endforeach()
  set(dir ${PROJECT_BINARY_DIR}/targets-info)
  file(MAKE_DIRECTORY ${dir})
  execute_process(
    COMMAND ${CMAKE_CXX_COMPILER} -std=c++17 -O0 ${sources} -o ${dir}/graft-targets-info
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "graft: cannot compile the target registry (targets/*.cpp):\n${out}")
  endif()
  execute_process(COMMAND ${dir}/graft-targets-info
    RESULT_VARIABLE rc OUTPUT_FILE ${dir}/targets.cmake ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "graft: the target registry program failed:\n${out}")
  endif()
  file(GLOB inputs ${GRAFT_TARGETS_DIR}/*.cpp ${GRAFT_TARGETS_DIR}/*.h
                   ${GRAFT_TARGETS_DIR}/Targets.def)
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${inputs})
  include(${dir}/targets.cmake)
  set_property(GLOBAL PROPERTY GRAFT_TARGET_TABLE_FILE ${dir}/targets.cmake)
  foreach(var GRAFT_TARGETS GRAFT_HOST_TARGET)
    set(${var} "${${var}}" PARENT_SCOPE)
  endforeach()
  foreach(t ${GRAFT_TARGETS})
    foreach(key QEMU SYSROOT CROSS_CC PROCESSOR PROCESSORS ALIASES CLANG_TRIPLE)
      set(GRAFT_TARGET_${t}_${key} "${GRAFT_TARGET_${t}_${key}}" PARENT_SCOPE)
    endforeach()
  endforeach()
endfunction()
