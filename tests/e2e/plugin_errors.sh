# Plugin faults through graft-run, each message checked: an import that
# returns non-zero (the plugin's name, the symbol and the value), a load or
# resolve that fails, required imports nobody provides, and plugins refused
# before they run: another architecture (FatELF and system library), a
# newer plugin API, no query function, a query that returns null, IREE's
# full status objects, a sanitizer the runtime lacks, no resolve function.
# The test plugin (tests/plugins/tagger_plugin.c) plays every part, steered
# by its load parameters and -D flags; the library is tests/plugins/probe_slice.c.
C=$TEST_DIR/plugin_errors.sh
build_slice x86_64 "$SRC/tests/plugins/probe_slice.c" probe.graft
tagger=("$SRC/tests/plugins/tagger_plugin.c" -I "$SRC/tests/plugins")
"$GRAFT" plugin "${tagger[@]}" -o tagger.sos
run=("$GRAFT_RUN" probe.graft --function probe)

# Element 1 is negative: its import (probe_b) returns 7 on one of 4 workers.
expect_fail "${run[@]}" --threads 4 --plugin tagger.sos:provide=a+b+c \
  --input "6xf32=[1 -7 1 1 1 1]"
check --check-prefix=IMPORT "$C" <out
# IMPORT: graft-run: error: dispatch 'probe_dispatch_0' (probe.graph:2:8) failed in workgroup (1,0,0): import 'probe_b' of plugin 'graft_test_tagger' (tagger.sos) returned 7
# The same plugin serves good inputs (by default it provides probe_a and
# probe_b; the dispatch writes -1 where the optional probe_c is missing).
"${run[@]}" --threads 4 --plugin tagger.sos:tag=5 --input "6xf32=1" |
  check --check-prefix=GOOD "$C"
# GOOD: 6xf32=5 5 -1 5 5 -1

expect_fail "${run[@]}" --plugin tagger.sos:fail_load=9 --input "3xf32=1"
check --check-prefix=LOAD "$C" <out
# LOAD: graft-run: error: plugin 'tagger.sos': 'graft_test_tagger': load failed with FAILED_PRECONDITION (code 9)
expect_fail "${run[@]}" --plugin tagger.sos --plugin_param colour=red --input "3xf32=1"
check --check-prefix=PARAM "$C" <out
# PARAM: graft-run: error: plugin 'tagger.sos': 'graft_test_tagger': load failed with INVALID_ARGUMENT (code 3)
expect_fail "${run[@]}" --plugin tagger.sos:fail_resolve=13 --input "3xf32=1"
check --check-prefix=RESOLVE "$C" <out
# RESOLVE: graft-run: error: probe.graft: plugin 'tagger.sos' ('graft_test_tagger'): resolving imports failed with INTERNAL (code 13)

# Two plugins, neither providing the required probe_a: both are named.
expect_fail "${run[@]}" --plugin tagger.sos:provide=b --plugin tagger.sos:provide=c \
  --input "3xf32=1"
check --check-prefix=MISSING "$C" <out
# MISSING: graft-run: error: probe.graft: library 'probe' requires 1 import that nothing provides: 'probe_a' (plugins searched: 'graft_test_tagger' (tagger.sos), 'graft_test_tagger' (tagger.sos))

# Another architecture: a FatELF plugin without an x86_64 slice, and a
# system library for aarch64 (refused before the system loader sees it).
"$GRAFT" plugin "${tagger[@]}" --target aarch64,riscv64 -o foreign.sos
expect_fail "${run[@]}" --plugin foreign.sos --input "3xf32=1"
check --check-prefix=ARCH "$C" <out
# ARCH: graft-run: error: plugin 'foreign.sos': no slice for this CPU (x86_64); the file has: aarch64, riscv64
"$CLANG" --target=aarch64-linux-gnu -shared -nostdlib -fPIC -fuse-ld=lld \
  -I"$SRC/runtime/include" -I"$SRC/tests/plugins" "$SRC/tests/plugins/tagger_plugin.c" \
  -o foreign.so
expect_fail "${run[@]}" --plugin ./foreign.so --input "3xf32=1"
check --check-prefix=SYSARCH "$C" <out
# SYSARCH: graft-run: error: plugin './foreign.so': the library is for aarch64 (64-bit) but this CPU is x86_64 (64-bit)

# No query function: a system library and a bare-metal one (linked by hand;
# `graft plugin` refuses to build it, see plugin_build_errors.sh).
expect_fail "${run[@]}" --plugin "$TEST_PLUGINS/noquery_system.so" --input "3xf32=1"
check --check-prefix=NOQUERY "$C" <out
# NOQUERY: graft-run: error: plugin '{{.*}}/noquery_system.so': the library does not export iree_hal_executable_plugin_query; plugins define it with GRAFT_PLUGIN_EXPORT (graft/plugin.h) or IREE_HAL_EXECUTABLE_PLUGIN_EXPORT
build_slice x86_64 "$SRC/tests/plugins/noquery_plugin.c" noquery.so
expect_fail "${run[@]}" --plugin embedded:noquery.so --input "3xf32=1"
check --check-prefix=NOQUERY-BARE "$C" <out
# NOQUERY-BARE: graft-run: error: plugin 'noquery.so': its x86_64 slice does not export iree_hal_executable_plugin_query; plugins define it with GRAFT_PLUGIN_EXPORT (graft/plugin.h) or IREE_HAL_EXECUTABLE_PLUGIN_EXPORT

# Headers graft cannot honour.
refuse() { # <prefix> <-D flag>
  "$GRAFT" plugin "${tagger[@]}" "$2" -o "$1.sos"
  expect_fail "${run[@]}" --plugin "$1.sos" --input "3xf32=1"
  check --check-prefix="$1" "$C" <out
}
refuse NEWER -DTAGGER_VERSION=2
# NEWER: graft-run: error: plugin 'NEWER.sos': 'graft_test_tagger' is built for plugin API version 2, newer than this runtime's 1; use a newer graft runtime or rebuild the plugin
refuse NULL -DTAGGER_QUERY_NULL
# NULL: graft-run: error: plugin 'NULL.sos': its iree_hal_executable_plugin_query returned null for plugin API version 1: the plugin needs a newer graft runtime
refuse FULL -DTAGGER_FEATURES=GRAFT_PLUGIN_FEATURE_FULL_STATUS
# FULL: graft-run: error: plugin 'FULL.sos': 'graft_test_tagger' returns IREE's full status objects (FEATURE_FULL_STATUS), which graft does not support; build it to return status codes
refuse ASAN -DTAGGER_SANITIZER=GRAFT_PLUGIN_SANITIZER_ADDRESS
# ASAN: graft-run: error: plugin 'ASAN.sos': 'graft_test_tagger' is built with AddressSanitizer but this runtime is not sanitized
refuse NORESOLVE -DTAGGER_NO_RESOLVE
# NORESOLVE: graft-run: error: plugin 'NORESOLVE.sos': 'graft_test_tagger' has no resolve function in its interface

# Flags.
expect_fail "${run[@]}" --plugin_param tag=2 --input "3xf32=1"
check --check-prefix=ORPHAN "$C" <out
# ORPHAN: graft-run: error: --plugin_param 'tag=2' must follow a --plugin
expect_fail "${run[@]}" --plugin "" --input "3xf32=1"
check --check-prefix=EMPTY "$C" <out
# EMPTY: graft-run: error: --plugin '': expected a plugin file
expect_fail "${run[@]}" --plugin missing.sos --input "3xf32=1"
check --check-prefix=NOFILE "$C" <out
# NOFILE: graft-run: error: plugin: cannot open 'missing.sos': No such file or directory
