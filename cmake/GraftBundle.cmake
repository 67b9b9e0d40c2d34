# graft_add_bundle(): build a graft bundle from a graph (and specs with their
# kernels) as one step of a CMake project; graft_add_plugin() (at the end)
# builds a plugin. Loaded by find_package(graft)
# (graftConfig.cmake) and by graft's own build; docs/cmake.md shows its use.
#
#   graft_add_bundle(<name> GRAPH <file>
#                    [SPECS <yaml>...] [TARGETS <arch>...] [OUTPUT <path>]
#                    [INCLUDE_DIRECTORIES <dir>...] [DEFINES <name[=value]>...]
#                    [FLAGS <clang flag>...] [SANITIZE undefined]
#                    [EMIT <kind>...] [EMIT_DIR <dir>] [DEPENDS <file>...]
#                    [EMBED] [EXTRA_ARGS <arg>...])
#
# Adds a custom command running `graft build` and a target <name> (in ALL)
# that depends on it. With EMBED, <name> is instead a static library holding
# the bundle, with a generated header <name>.h (on the library's include
# path, graft::runtime linked in) that declares <name>_open/<name>_close and
# a typed entry point <name>_<function> per graph function: the application
# links <name> and ships no bundle file (EMBED needs the C language enabled). The bundle's path is the target property
# GRAFT_BUNDLE_FILE (default ${CMAKE_CURRENT_BINARY_DIR}/<name>.graft).
# TARGETS are graft's target names (or aliases: `graft targets`); unknown
# names fail at configure time. Without TARGETS the bundle is built for the
# architecture of CMAKE_SYSTEM_PROCESSOR (the toolchain's when
# cross-compiling), and a processor graft has no target for is an error.
# Input paths (INCLUDE_DIRECTORIES too) are relative to
# CMAKE_CURRENT_SOURCE_DIR, OUTPUT and EMIT_DIR to CMAKE_CURRENT_BINARY_DIR.
# INCLUDE_DIRECTORIES, DEFINES and FLAGS apply to every C kernel;
# SANITIZE undefined builds them with UBSan checks (`graft build
# --sanitize=undefined`, docs/threat-model.md). graft
# writes a depfile naming the graph, the specs, every kernel file the specs
# use and every header those kernels include, so editing any of them
# rebuilds the bundle; generators without depfile support only see GRAPH,
# SPECS and DEPENDS.
include_guard(GLOBAL)
# Functions keep the policies in effect where they are defined: CMP0116 (NEW
# in 3.20) makes Ninja read the depfile relative to this directory.
cmake_policy(VERSION 3.20...3.31)

# True when this generator honours add_custom_command(DEPFILE).
function(_graft_generator_has_depfile out)
  set(ok FALSE)
  if(CMAKE_GENERATOR MATCHES "Ninja|Makefiles")
    set(ok TRUE)
  elseif(CMAKE_GENERATOR MATCHES "Xcode|Visual Studio"
         AND CMAKE_VERSION VERSION_GREATER_EQUAL 3.21)
    set(ok TRUE)
  endif()
  set(${out} ${ok} PARENT_SCOPE)
endfunction()

# The targets of the graft that builds the bundles (its registry,
# targets/Describe.cpp's cmake format): GRAFT_TARGETS and
# GRAFT_TARGET_<t>_{ALIASES,PROCESSORS,...} in the caller's scope. In graft's
# own build the table is already generated (GRAFT_TARGET_TABLE_FILE); else
# `graft targets --format=cmake` runs once per configure.
macro(_graft_load_target_table)
  get_property(_graft_table GLOBAL PROPERTY GRAFT_TARGET_TABLE_FILE)
  if(NOT _graft_table)
    get_target_property(_graft_exe graft::graft IMPORTED_LOCATION)
    if(NOT _graft_exe)
      get_target_property(_graft_configs graft::graft IMPORTED_CONFIGURATIONS)
      list(GET _graft_configs 0 _graft_config)
      get_target_property(_graft_exe graft::graft IMPORTED_LOCATION_${_graft_config})
    endif()
    set(_graft_table "${CMAKE_BINARY_DIR}/CMakeFiles/graft-targets.cmake")
    execute_process(COMMAND "${_graft_exe}" targets --format=cmake
      RESULT_VARIABLE _graft_rc OUTPUT_FILE "${_graft_table}" ERROR_VARIABLE _graft_err)
    if(NOT _graft_rc EQUAL 0)
      message(FATAL_ERROR "${_graft_fn}(${_graft_name}): '${_graft_exe} targets "
        "--format=cmake' failed (${_graft_rc}): ${_graft_err}")
    endif()
    set_property(GLOBAL PROPERTY GRAFT_TARGET_TABLE_FILE "${_graft_table}")
  endif()
  include("${_graft_table}")
endmacro()

# The bundle's targets: TARGETS as graft's names (aliases resolved), or the
# architecture of CMAKE_SYSTEM_PROCESSOR.
function(_graft_bundle_targets out)
  _graft_load_target_table()
  string(REPLACE ";" ", " known "${GRAFT_TARGETS}")
  set(targets "")
  if(ARGN)
    foreach(want IN LISTS ARGN)
      set(found "")
      foreach(t IN LISTS GRAFT_TARGETS)
        if(want STREQUAL t OR want IN_LIST GRAFT_TARGET_${t}_ALIASES)
          set(found ${t})
        endif()
      endforeach()
      if(NOT found)
        message(FATAL_ERROR "${_graft_fn}(${_graft_name}): unknown target "
          "'${want}' in TARGETS; graft's targets are ${known}")
      endif()
      list(APPEND targets ${found})
    endforeach()
  else()
    string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" processor)
    foreach(t IN LISTS GRAFT_TARGETS)
      foreach(p IN LISTS GRAFT_TARGET_${t}_PROCESSORS)
        string(TOLOWER "${p}" p)
        if(p STREQUAL processor AND NOT targets)
          set(targets ${t})
        endif()
      endforeach()
    endforeach()
    if(NOT targets)
      message(FATAL_ERROR "${_graft_fn}(${_graft_name}): no TARGETS, and "
        "CMAKE_SYSTEM_PROCESSOR '${CMAKE_SYSTEM_PROCESSOR}' is not an architecture "
        "graft targets (${known}); name them with TARGETS <arch>...")
    endif()
  endif()
  list(REMOVE_DUPLICATES targets)
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# Absolute path of an input file; fails at configure time when it does not
# exist and is not generated by the build.
function(_graft_input_path out what file)
  get_filename_component(path "${file}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_source_file_property(generated "${path}" GENERATED)
  if(NOT EXISTS "${path}" AND NOT generated)
    message(FATAL_ERROR "${_graft_fn}(${_graft_name}): ${what} '${file}' "
      "not found (looked for ${path})")
  endif()
  set(${out} "${path}" PARENT_SCOPE)
endfunction()

# What every graft_add_*() call is checked for, after cmake_parse_arguments
# (ARG_ prefix) and with _graft_fn set: no unknown arguments, a value after
# every keyword, a target name nobody took. |what| names the product.
macro(_graft_check_call name what usage)
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${_graft_fn}(${name}): unknown argument(s) "
      "'${ARG_UNPARSED_ARGUMENTS}'; ${usage}")
  endif()
  if(ARG_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "${_graft_fn}(${name}): no value after "
      "'${ARG_KEYWORDS_MISSING_VALUES}'; ${usage}")
  endif()
  if(TARGET ${name})
    message(FATAL_ERROR "${_graft_fn}(${name}): a target named '${name}' "
      "already exists (the ${what}'s target takes its name)")
  endif()
endmacro()

function(graft_add_bundle name)
  set(_graft_fn graft_add_bundle)
  set(_graft_name ${name})
  cmake_parse_arguments(PARSE_ARGV 1 ARG "EMBED"
    "GRAPH;OUTPUT;EMIT_DIR;SANITIZE"
    "SPECS;TARGETS;INCLUDE_DIRECTORIES;DEFINES;FLAGS;EMIT;DEPENDS;EXTRA_ARGS")
  set(usage "expected graft_add_bundle(<name> GRAPH <file> [SPECS <yaml>...] "
            "[TARGETS <arch>...] [OUTPUT <path>] [INCLUDE_DIRECTORIES <dir>...] "
            "[DEFINES <name[=value]>...] [FLAGS <flag>...] [SANITIZE undefined] [EMIT <kind>...] "
            "[EMIT_DIR <dir>] [DEPENDS <file>...] [EMBED] [EXTRA_ARGS <arg>...])")
  string(CONCAT usage ${usage})
  _graft_check_call(${name} bundle "${usage}")
  if(NOT ARG_GRAPH)
    message(FATAL_ERROR "graft_add_bundle(${name}): missing GRAPH <file>; ${usage}")
  endif()
  if(ARG_EMBED)
    get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
    if(NOT "C" IN_LIST languages)
      message(FATAL_ERROR "graft_add_bundle(${name}): EMBED compiles a generated C "
        "file, but the C language is not enabled (project(... LANGUAGES C))")
    endif()
    if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
      message(FATAL_ERROR "graft_add_bundle(${name}): with EMBED the name prefixes "
        "C functions, so it must be a C identifier (letters, digits, '_')")
    endif()
  endif()
  if(NOT TARGET graft::graft)
    message(FATAL_ERROR "graft_add_bundle(${name}): no graft::graft compiler; "
      "this graft was built without it (GRAFT_BUILD_COMPILER=OFF)")
  endif()

  _graft_input_path(graph "GRAPH file" "${ARG_GRAPH}")
  set(specs "")
  foreach(spec IN LISTS ARG_SPECS)
    _graft_input_path(path "SPECS file" "${spec}")
    list(APPEND specs "${path}")
  endforeach()
  set(extra_depends "")
  foreach(dep IN LISTS ARG_DEPENDS)
    get_filename_component(path "${dep}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND extra_depends "${path}")
  endforeach()

  if(ARG_OUTPUT)
    get_filename_component(output "${ARG_OUTPUT}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  else()
    set(output "${CMAKE_CURRENT_BINARY_DIR}/${name}.graft")
  endif()

  set(args build "${graph}" -o "${output}")
  foreach(spec IN LISTS specs)
    list(APPEND args --spec "${spec}")
  endforeach()
  _graft_bundle_targets(ARG_TARGETS ${ARG_TARGETS})
  string(REPLACE ";" "," targets "${ARG_TARGETS}")
  list(APPEND args --target "${targets}")
  foreach(dir IN LISTS ARG_INCLUDE_DIRECTORIES)
    get_filename_component(path "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND args -I "${path}")
  endforeach()
  foreach(def IN LISTS ARG_DEFINES)
    list(APPEND args -D "${def}")
  endforeach()
  foreach(flag IN LISTS ARG_FLAGS)
    list(APPEND args "--kernel-flag=${flag}")
  endforeach()
  if(DEFINED ARG_SANITIZE)
    if(NOT ARG_SANITIZE STREQUAL "undefined")
      message(FATAL_ERROR "graft_add_bundle(${name}): SANITIZE '${ARG_SANITIZE}' "
        "is not supported (graft build supports SANITIZE undefined)")
    endif()
    list(APPEND args "--sanitize=${ARG_SANITIZE}")
  endif()
  set(byproducts "")
  if(ARG_EMIT)
    string(REPLACE ";" "," emit "${ARG_EMIT}")
    if(ARG_EMIT_DIR)
      get_filename_component(emit_dir "${ARG_EMIT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
    else()
      set(emit_dir "${CMAKE_CURRENT_BINARY_DIR}/${name}.emit")
    endif()
    list(APPEND args --emit "${emit}" --emit-dir "${emit_dir}")
    # Declared to the build (so `clean` removes them and other rules may
    # depend on them).
    get_filename_component(module "${graph}" NAME_WLE)
    foreach(target IN LISTS ARG_TARGETS)
      foreach(kind IN LISTS ARG_EMIT)
        set(ext_llvm ll)
        set(ext_asm s)
        set(ext_obj o)
        set(ext_elf so)
        if(NOT DEFINED ext_${kind})
          message(FATAL_ERROR "graft_add_bundle(${name}): unknown EMIT kind '${kind}' "
            "(kinds: llvm, asm, obj, elf)")
        endif()
        list(APPEND byproducts "${emit_dir}/${module}.${target}.${ext_${kind}}")
      endforeach()
    endforeach()
  elseif(ARG_EMIT_DIR)
    message(FATAL_ERROR "graft_add_bundle(${name}): EMIT_DIR without EMIT <kind>... "
      "(kinds: llvm, asm, obj, elf)")
  endif()

  # The graph and specs are always listed, so a generator without depfile
  # support still rebuilds on their changes; the depfile adds the kernels.
  set(depfile_args "")
  set(forget_deps "")
  _graft_generator_has_depfile(has_depfile)
  if(has_depfile)
    list(APPEND args --depfile "${output}.d")
    set(depfile_args DEPFILE "${output}.d")
    # The Makefiles generators (CMake 3.25 at least) add each new depfile's
    # files to the target's consolidated dependencies instead of replacing
    # them, and give every file an empty rule: once a kernel or a header
    # is renamed away, its missing name made every later build rebuild the
    # bundle. Dropping the consolidated list after each build makes CMake
    # read it again from the fresh depfile.
    if(CMAKE_GENERATOR MATCHES "Makefiles")
      set(forget_deps COMMAND "${CMAKE_COMMAND}" -E rm -f
          "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${name}.dir/compiler_depend.internal")
    endif()
  endif()
  set(embed_outputs "")
  if(ARG_EMBED)
    set(embed_dir "${CMAKE_CURRENT_BINARY_DIR}/${name}.embed")
    file(MAKE_DIRECTORY "${embed_dir}")
    list(APPEND args --embed "${embed_dir}/${name}")
    set(embed_outputs "${embed_dir}/${name}.h" "${embed_dir}/${name}.c")
  endif()
  list(APPEND args ${ARG_EXTRA_ARGS})

  get_filename_component(output_dir "${output}" DIRECTORY)
  file(MAKE_DIRECTORY "${output_dir}")
  if(byproducts)
    set(byproducts BYPRODUCTS ${byproducts})
  endif()
  add_custom_command(
    OUTPUT "${output}" ${embed_outputs}
    ${byproducts}
    COMMAND graft::graft ${args}
    ${forget_deps}
    DEPENDS "${graph}" ${specs} ${extra_depends} "$<TARGET_FILE:graft::graft>"
    ${depfile_args}
    WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}"
    COMMENT "Building graft bundle ${name}"
    VERBATIM)
  if(ARG_EMBED)
    add_library(${name} STATIC ${embed_outputs})
    target_include_directories(${name} PUBLIC "${embed_dir}")
    target_link_libraries(${name} PUBLIC graft::runtime)
  else()
    add_custom_target(${name} ALL DEPENDS "${output}")
  endif()
  set_target_properties(${name} PROPERTIES GRAFT_BUNDLE_FILE "${output}")
endfunction()

# graft_add_plugin(): build a plugin (docs/plugins.md) as one step of a CMake
# project, from the same C sources either way:
#
#   graft_add_plugin(<name> SOURCES <file.c>...
#                    [BARE_METAL] [TARGETS <arch>...] [OUTPUT <path>]
#                    [INCLUDE_DIRECTORIES <dir>...] [DEFINES <name[=value]>...]
#                    [DEPENDS <file>...])
#
# Without BARE_METAL, a system plugin: a MODULE library <name> built by the
# project's own C compiler for the host, against graft's plugin headers
# (graft/plugin.h, iree/hal/local/executable_plugin.h), written to
# <name>.so (or OUTPUT). With BARE_METAL, `graft plugin` compiles the sources
# freestanding for every TARGETS architecture (default: the host) into one
# FatELF <name>.sos (or OUTPUT), and <name> is a target in ALL that builds
# it (TARGETS as for graft_add_bundle: default CMAKE_SYSTEM_PROCESSOR's); headers the sources include rebuild it only when listed in DEPENDS.
# Either way the plugin's path is the target property GRAFT_PLUGIN_FILE, for
# graft-run --plugin or graft_plugin_manager_load_file.
function(graft_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "BARE_METAL" "OUTPUT"
    "SOURCES;TARGETS;INCLUDE_DIRECTORIES;DEFINES;DEPENDS")
  set(usage "expected graft_add_plugin(<name> SOURCES <file.c>... [BARE_METAL] "
            "[TARGETS <arch>...] [OUTPUT <path>] [INCLUDE_DIRECTORIES <dir>...] "
            "[DEFINES <name[=value]>...] [DEPENDS <file>...])")
  string(CONCAT usage ${usage})
  set(_graft_fn graft_add_plugin)
  set(_graft_name ${name})
  _graft_check_call(${name} plugin "${usage}")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "graft_add_plugin(${name}): missing SOURCES <file.c>...; ${usage}")
  endif()
  set(sources "")
  foreach(src IN LISTS ARG_SOURCES)
    _graft_input_path(path "SOURCES file" "${src}")
    list(APPEND sources "${path}")
  endforeach()
  set(includes "")
  foreach(dir IN LISTS ARG_INCLUDE_DIRECTORIES)
    get_filename_component(path "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND includes "${path}")
  endforeach()
  set(ext .so)
  if(ARG_BARE_METAL)
    set(ext .sos)
  endif()
  if(ARG_OUTPUT)
    get_filename_component(output "${ARG_OUTPUT}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  else()
    set(output "${CMAKE_CURRENT_BINARY_DIR}/${name}${ext}")
  endif()
  get_filename_component(output_dir "${output}" DIRECTORY)
  get_filename_component(output_name "${output}" NAME)

  if(NOT ARG_BARE_METAL)
    if(ARG_TARGETS)
      message(FATAL_ERROR "graft_add_plugin(${name}): TARGETS needs BARE_METAL; a "
        "system plugin is built for the host by the project's C compiler")
    endif()
    get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
    if(NOT "C" IN_LIST languages)
      message(FATAL_ERROR "graft_add_plugin(${name}): a system plugin is compiled by "
        "the project's C compiler, but the C language is not enabled "
        "(project(... LANGUAGES C)); or build it BARE_METAL")
    endif()
    if(NOT TARGET graft::runtime)
      message(FATAL_ERROR "graft_add_plugin(${name}): no graft::runtime (its "
        "headers are the plugin API)")
    endif()
    add_library(${name} MODULE ${sources})
    # Only the headers: a plugin links nothing of graft's.
    target_include_directories(${name} PRIVATE ${includes}
      $<TARGET_PROPERTY:graft::runtime,INTERFACE_INCLUDE_DIRECTORIES>)
    target_compile_definitions(${name} PRIVATE ${ARG_DEFINES})
    # "$<0:>" keeps multi-config generators from adding a per-config
    # directory: the file is where GRAFT_PLUGIN_FILE says.
    string(REGEX REPLACE "\\.[^.]*$" "" base "${output_name}")
    string(REGEX MATCH "\\.[^.]*$" suffix "${output_name}")
    set_target_properties(${name} PROPERTIES
      PREFIX "" OUTPUT_NAME "${base}" SUFFIX "${suffix}"
      LIBRARY_OUTPUT_DIRECTORY "${output_dir}$<0:>")
    if(ARG_DEPENDS)
      set_property(SOURCE ${sources} APPEND PROPERTY OBJECT_DEPENDS ${ARG_DEPENDS})
    endif()
  else()
    if(NOT TARGET graft::graft)
      message(FATAL_ERROR "graft_add_plugin(${name}): BARE_METAL needs the graft "
        "compiler (graft plugin), but this graft was built without it "
        "(GRAFT_BUILD_COMPILER=OFF)")
    endif()
    set(args plugin ${sources} -o "${output}")
    # The same targets a bundle would get: checked, aliases resolved,
    # default CMAKE_SYSTEM_PROCESSOR's.
    _graft_bundle_targets(ARG_TARGETS ${ARG_TARGETS})
    string(REPLACE ";" "," targets "${ARG_TARGETS}")
    list(APPEND args --target "${targets}")
    foreach(dir IN LISTS includes)
      list(APPEND args -I "${dir}")
    endforeach()
    foreach(def IN LISTS ARG_DEFINES)
      list(APPEND args -D "${def}")
    endforeach()
    set(extra_depends "")
    foreach(dep IN LISTS ARG_DEPENDS)
      get_filename_component(path "${dep}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
      list(APPEND extra_depends "${path}")
    endforeach()
    file(MAKE_DIRECTORY "${output_dir}")
    add_custom_command(
      OUTPUT "${output}"
      COMMAND graft::graft ${args}
      DEPENDS ${sources} ${extra_depends} "$<TARGET_FILE:graft::graft>"
      WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}"
      COMMENT "Building graft plugin ${name}"
      VERBATIM)
    add_custom_target(${name} ALL DEPENDS "${output}")
  endif()
  set_target_properties(${name} PROPERTIES GRAFT_PLUGIN_FILE "${output}")
endfunction()
