/* UBSan's minimal runtime, freestanding, for a slice built with
 * `graft build --sanitize=undefined`: C kernels compiled with
 * -fsanitize=undefined -fsanitize-minimal-runtime call one handler per
 * failed check, __ubsan_handle_<check>_minimal (the check may continue) or
 * __ubsan_handle_<check>_minimal_abort (it may not). The names are those of
 * compiler-rt's ubsan_minimal; clang emits a call to them and nothing else,
 * so defining them here leaves the slice without undefined symbols.
 *
 * A slice cannot print or abort: every handler passes the check's name and
 * its caller's address (inside the kernel) to the runtime through the one
 * function the runtime installs when it opens the slice,
 * GRAFT_UBSAN_INSTALL_SYMBOL in graft/abi.h (exported next to the query
 * symbol). The runtime records the first report of a workgroup and fails the
 * invocation naming it (runtime/src/exec/ubsan.c); for a check that may not
 * continue it does not return. Without an installed reporter (a loader that
 * does not know the protocol) every handler traps, so a check is never
 * silently ignored.
 *
 * Compiled to LLVM IR when graft is built and linked into the builtins
 * object of instrumented slices only (Builtins.cpp), so other slices do not
 * change. */

#include "graft/abi.h"

static graft_ubsan_report_fn_t reporter;

/* Called once by the runtime while it opens the slice, before any dispatch
 * runs (the thread pool's hand-off orders it before every handler, so
 * relaxed atomics suffice: they are plain loads and stores on every target,
 * never a libcall). */
__attribute__((visibility("default"))) void graft_ubsan_install(graft_ubsan_report_fn_t fn) {
  __atomic_store_n(&reporter, fn, __ATOMIC_RELAXED);
}

__attribute__((noinline)) static void report(const char *check, const void *pc, int fatal) {
  graft_ubsan_report_fn_t fn = __atomic_load_n(&reporter, __ATOMIC_RELAXED);
  if (!fn)
    __builtin_trap();
  fn(check, pc, fatal);
  if (fatal) /* the runtime does not return from a fatal report */
    __builtin_trap();
}

#define GRAFT_UBSAN __attribute__((visibility("hidden"), weak, noinline))

#define GRAFT_UBSAN_RECOVER(name, check)                                       \
  GRAFT_UBSAN void __ubsan_handle_##name##_minimal(void) {                      \
    report(check, __builtin_return_address(0), 0);                             \
  }
/* Checks clang never lets continue (it emits `unreachable` after the call)
 * have only this name, and must not return. */
#define GRAFT_UBSAN_NORETURN(name, check)                                      \
  GRAFT_UBSAN __attribute__((noreturn)) void __ubsan_handle_##name##_minimal(void) { \
    report(check, __builtin_return_address(0), 1);                             \
    __builtin_trap();                                                          \
  }
#define GRAFT_UBSAN_ABORT(name, check)                                         \
  GRAFT_UBSAN __attribute__((noreturn)) void __ubsan_handle_##name##_minimal_abort(void) { \
    report(check, __builtin_return_address(0), 1);                             \
    __builtin_trap();                                                          \
  }
#define GRAFT_UBSAN_BOTH(name, check)                                          \
  GRAFT_UBSAN_RECOVER(name, check)                                             \
  GRAFT_UBSAN_ABORT(name, check)

GRAFT_UBSAN_BOTH(type_mismatch, "type-mismatch")
GRAFT_UBSAN_BOTH(alignment_assumption, "alignment-assumption")
GRAFT_UBSAN_BOTH(add_overflow, "add-overflow")
GRAFT_UBSAN_BOTH(sub_overflow, "sub-overflow")
GRAFT_UBSAN_BOTH(mul_overflow, "mul-overflow")
GRAFT_UBSAN_BOTH(negate_overflow, "negate-overflow")
GRAFT_UBSAN_BOTH(divrem_overflow, "divrem-overflow")
GRAFT_UBSAN_BOTH(shift_out_of_bounds, "shift-out-of-bounds")
GRAFT_UBSAN_BOTH(out_of_bounds, "out-of-bounds")
GRAFT_UBSAN_NORETURN(builtin_unreachable, "builtin-unreachable")
GRAFT_UBSAN_NORETURN(missing_return, "missing-return")
GRAFT_UBSAN_BOTH(vla_bound_not_positive, "vla-bound-not-positive")
GRAFT_UBSAN_BOTH(float_cast_overflow, "float-cast-overflow")
GRAFT_UBSAN_BOTH(load_invalid_value, "load-invalid-value")
GRAFT_UBSAN_BOTH(invalid_builtin, "invalid-builtin")
GRAFT_UBSAN_BOTH(invalid_objc_cast, "invalid-objc-cast")
GRAFT_UBSAN_BOTH(function_type_mismatch, "function-type-mismatch")
GRAFT_UBSAN_BOTH(implicit_conversion, "implicit-conversion")
GRAFT_UBSAN_BOTH(nonnull_arg, "nonnull-arg")
GRAFT_UBSAN_BOTH(nonnull_return, "nonnull-return")
GRAFT_UBSAN_BOTH(nullability_arg, "nullability-arg")
GRAFT_UBSAN_BOTH(nullability_return, "nullability-return")
GRAFT_UBSAN_BOTH(pointer_overflow, "pointer-overflow")
GRAFT_UBSAN_BOTH(cfi_check_fail, "cfi-check-fail")
