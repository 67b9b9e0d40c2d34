/* Reports of the UBSan checks in a slice built with `graft build
 * --sanitize=undefined` (graft/abi.h, GRAFT_UBSAN_INSTALL_SYMBOL): the
 * slice's minimal-runtime handlers call graft_ubsan_report, which the
 * runtime installs when it opens the slice. A report is kept for the
 * workgroup that made it (the first one per workgroup), and the executor
 * fails the invocation naming the check, where in the slice it fired, the
 * dispatch and the workgroup. A check the kernel may continue after
 * returns to it; one it may not (`__builtin_unreachable` reached, a missing
 * return, any check built with -fno-sanitize-recover) ends the workgroup
 * there: graft_ubsan_call returns as if the dispatch had. Internal to
 * graft_runtime. */
#ifndef GRAFT_RUNTIME_EXEC_UBSAN_H_
#define GRAFT_RUNTIME_EXEC_UBSAN_H_

#include <stdint.h>

#include "graft/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the executor of an instrumented module finds the slice. */
typedef struct graft_ubsan_slice_t {
  uintptr_t base;    /* runtime address of the slice's link-time address 0 */
  const char* name;  /* "x86_64": the slice's architecture, for messages */
} graft_ubsan_slice_t;

/* The first check one workgroup reported. */
typedef struct graft_ubsan_finding_t {
  const char* check; /* "add-overflow" (in the slice); NULL: none */
  uintptr_t pc;      /* the handler's return address, inside the kernel */
} graft_ubsan_finding_t;

/* The graft_ubsan_report_fn_t the runtime installs in every instrumented
 * slice. Outside graft_ubsan_call (no workgroup of this runtime running on
 * the thread) it prints the check and aborts the process. */
void graft_ubsan_report(const char* check, const void* pc, int fatal);

/* Runs one workgroup, fn(state, workgroup), with this thread's reports
 * going to |out| (cleared first). Returns the dispatch's code, or 0 when a
 * fatal check ended it early (out->check says which). */
int graft_ubsan_call(graft_dispatch_fn_t fn,
                     const graft_dispatch_state_v1_t* state,
                     const graft_workgroup_state_v1_t* workgroup,
                     graft_ubsan_finding_t* out);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_EXEC_UBSAN_H_ */
