# Warnings, sanitizers and the unit-test helper shared by every target.
set(GRAFT_WARNING_FLAGS -Wall -Wextra -Wno-unused-parameter)
if(GRAFT_WERROR)
  list(APPEND GRAFT_WARNING_FLAGS -Werror)
endif()

if(GRAFT_SANITIZE)
  string(REPLACE ";" "," _san "${GRAFT_SANITIZE}")
  add_compile_options(-fsanitize=${_san} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${_san})
endif()

# libFuzzer builds (cmake/fuzz.sh): every target is compiled with coverage
# instrumentation and ASan+UBSan so that the libraries a fuzzer links are
# instrumented too; only the fuzzers themselves link libFuzzer's main.
option(GRAFT_FUZZ "Build the libFuzzer targets (clang only; see cmake/fuzz.sh)" OFF)
if(GRAFT_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang" OR NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "GRAFT_FUZZ=ON needs clang for C and C++ (libFuzzer): "
      "configure with CC=clang-19 CXX=clang++-19, found ${CMAKE_C_COMPILER_ID} "
      "and ${CMAKE_CXX_COMPILER_ID}")
  endif()
  # UBSan findings must abort, or libFuzzer would not stop on them.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined
    -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
  # `ninja fuzzers` builds every graft_fuzzer(), once all directories have
  # added theirs.
  function(_graft_add_fuzzers_target)
    get_property(fuzzers GLOBAL PROPERTY GRAFT_FUZZERS)
    add_custom_target(fuzzers DEPENDS ${fuzzers})
  endfunction()
  cmake_language(DEFER CALL _graft_add_fuzzers_target)
endif()

# graft_fuzzer(<name> SOURCES ... LIBS ... [INCLUDES ...]): a libFuzzer
# binary (LLVMFuzzerTestOneInput), built only with GRAFT_FUZZ=ON. Fuzzers sit
# next to the code they exercise; their seed corpus is
# tests/fuzz/corpus/<name>/ and cmake/fuzz.sh runs them all.
#
# Without GRAFT_FUZZ, a test build gets <name>_replay instead: the same
# harness with tests/fuzz/replay_main.c for a main, registered as the CTest
# test fuzz-replay/<name> over the seed corpus and tests/fuzz/crashes/<name>/
# (every crash ever found), so CI replays them cheaply on every build.
function(graft_fuzzer name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;INCLUDES" ${ARGN})
  if(NOT GRAFT_FUZZ)
    if(GRAFT_BUILD_TESTS)
      add_executable(${name}_replay ${ARG_SOURCES}
        ${PROJECT_SOURCE_DIR}/tests/fuzz/replay_main.c)
      target_link_libraries(${name}_replay PRIVATE ${ARG_LIBS})
      target_include_directories(${name}_replay PRIVATE ${ARG_INCLUDES})
      graft_target_defaults(${name}_replay)
      set(inputs ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/${name})
      if(EXISTS ${PROJECT_SOURCE_DIR}/tests/fuzz/crashes/${name})
        list(APPEND inputs ${PROJECT_SOURCE_DIR}/tests/fuzz/crashes/${name})
      endif()
      add_test(NAME fuzz-replay/${name} COMMAND ${name}_replay ${inputs})
    endif()
    return()
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS})
  target_include_directories(${name} PRIVATE ${ARG_INCLUDES})
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  graft_target_defaults(${name})
  set_property(GLOBAL APPEND PROPERTY GRAFT_FUZZERS ${name})
endfunction()

# graft_target_defaults(<target>): warnings for graft's own code.
function(graft_target_defaults target)
  target_compile_options(${target} PRIVATE ${GRAFT_WARNING_FLAGS})
endfunction()

# graft_unittest(<name> SOURCES ... LIBS ...): a GoogleTest binary registered
# with CTest. Unit tests sit next to the code they test.
function(graft_unittest name)
  if(NOT GRAFT_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  find_package(GTest REQUIRED)
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  graft_target_defaults(${name})
  add_test(NAME unit/${name} COMMAND ${name})
  # Test binaries do not sit where graft finds its kernel toolchain (next
  # to the graft binary): name it explicitly.
  set_tests_properties(unit/${name} PROPERTIES ENVIRONMENT
    "GRAFT_SOURCE_DIR=${PROJECT_SOURCE_DIR};GRAFT_BINARY_DIR=${PROJECT_BINARY_DIR};GRAFT_INCLUDE_DIR=${PROJECT_SOURCE_DIR}/runtime/include;GRAFT_CLANG=${GRAFT_CLANG}")
endfunction()
