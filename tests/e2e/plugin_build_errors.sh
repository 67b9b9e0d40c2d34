# `graft plugin` refuses what graft's loader would refuse, naming the
# source: thread-local storage, undefined symbols (a plugin links without
# libc), no query function; and the usual input errors (a compile error
# with clang's own file:line:col, a missing source, an unknown target).
C=$TEST_DIR/plugin_build_errors.sh
cp "$SRC/runtime/examples/plugins/standalone_plugin.c" ok.c

cat > tls.c <<'SRC'
_Thread_local int calls;
int count_call(void) { return ++calls; }
SRC
# Only what the query reaches is linked: make the query call count_call.
sed 's|^#include "iree/hal/local/executable_plugin.h"|&\nint count_call(void);|; s|return (const iree_hal_executable_plugin_header_t\*\*)&plugin;|return count_call() ? (const iree_hal_executable_plugin_header_t**)\&plugin : 0;|' \
  ok.c > uses.c
grep -q 'count_call() ?' uses.c
expect_fail "$GRAFT" plugin uses.c tls.c -o tls.sos
check --check-prefix=TLS "$C" <out
# TLS: tls.c: error: thread-local symbol 'calls' is not supported (graft slices have no TLS)

expect_fail "$GRAFT" plugin uses.c --target x86_64,aarch64 -o undef.sos
check --check-prefix=UNDEF "$C" <out
# UNDEF: x86_64 slice: error: undefined symbol: count_call
# UNDEF: >>> referenced by uses.c

cp "$SRC/tests/plugins/noquery_plugin.c" noquery.c
expect_fail "$GRAFT" plugin noquery.c --target riscv64
check --check-prefix=NOQUERY "$C" <out
# NOQUERY: noquery.c: error: no source defines the plugin's query function iree_hal_executable_plugin_query (target riscv64); define it with GRAFT_PLUGIN_EXPORT (graft/plugin.h) or IREE_HAL_EXECUTABLE_PLUGIN_EXPORT

printf 'int f(void) { return undeclared; }\n' > syntax.c
expect_fail "$GRAFT" plugin ok.c syntax.c
check --check-prefix=SYNTAX "$C" <out
# SYNTAX: syntax.c: error: clang failed to compile the plugin for target x86_64 (exit code 1)
# SYNTAX: syntax.c:1:22: error: use of undeclared identifier 'undeclared'

expect_fail "$GRAFT" plugin ok.c missing.c
check --check-prefix=MISSING "$C" <out
# MISSING: missing.c: error: cannot read plugin source: No such file or directory
expect_fail "$GRAFT" plugin ok.c --target x86_64,sparc
check --check-prefix=TARGET "$C" <out
# TARGET: --target: error: unknown target 'sparc'; known targets: x86_64, aarch64, riscv64
expect_fail "$GRAFT" plugin
check --check-prefix=NOSRC "$C" <out
# NOSRC: graft: error: graft plugin: no source files given

# Nothing is written when the build fails.
[[ ! -e tls.sos && ! -e undef.sos && ! -e noquery.sos && ! -e ok.sos ]]
