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
  set_tests_properties(unit/${name} PROPERTIES ENVIRONMENT
    "GRAFT_SOURCE_DIR=${PROJECT_SOURCE_DIR};GRAFT_BINARY_DIR=${PROJECT_BINARY_DIR}")
endfunction()
