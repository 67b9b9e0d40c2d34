/* Guarded buffers (graft-run --guard, GRAFT_RUNTIME_GUARD_*): a debugging
 * mode that makes a kernel's out-of-bounds access fault at once and names
 * the dispatch, workgroup and buffer.
 *
 * Every buffer of an invocation gets its own mapping: an inaccessible guard
 * page, the data pages, another guard page. The data sits against the upper
 * guard (OVERFLOW; its start stays 64-byte aligned as abi.h promises, so up
 * to 63 bytes of padding may separate its end from the guard) or against
 * the lower guard (UNDERFLOW). Padding around the data is filled with a
 * canary that is checked after each dispatch, which catches small overruns on
 * the unguarded side too, though without the workgroup. Arguments and
 * constants are copied into guarded mappings made read-only for the whole
 * invocation.
 *
 * A fault inside a dispatch is reported by a SIGSEGV handler from the
 * faulting thread: it maps the address to the buffers of the dispatch that
 * thread is running, prints one line to stderr, e.g.
 *   graft: guard: dispatch 'f_dispatch_0_k' (f.graph:3:8) of function 'f'
 *   workgroup (1,0,0) accessed byte 64 of buffer 2 (result 0, 64 bytes),
 *   past its end
 * and then lets the signal take its previous course (another handler, or
 * the default: the process ends with SIGSEGV). Limits: only the buffers of
 * the faulting thread's own dispatch are recognised; per-worker scratch,
 * the stack and the slice's own data are not guarded; a fault outside any
 * buffer is reported with its address only; a stack overflow cannot be
 * reported (the handler runs on the faulting thread's stack).
 * Internal to graft_runtime. */
#ifndef GRAFT_RUNTIME_EXEC_GUARD_H_
#define GRAFT_RUNTIME_EXEC_GUARD_H_

#include <stddef.h>
#include <stdint.h>

#include "graft/abi.h"
#include "graft/runtime.h"
#include "graft/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One buffer's guarded mapping. */
typedef struct graft_guard_region_t {
  uint8_t* mapping;    /* guard page, data pages, guard page; NULL if none */
  size_t mapping_size;
  uint8_t* data;       /* the buffer, 64-byte aligned */
  uint64_t size;
  int read_only;
} graft_guard_region_t;

/* Maps a guarded region for |size| bytes placed per |mode|
 * (GRAFT_RUNTIME_GUARD_OVERFLOW or _UNDERFLOW), zeroed, padding filled with
 * the canary. */
graft_status_t graft_guard_region_create(uint32_t mode, uint64_t size,
                                         graft_guard_region_t* out);
/* Makes the data pages read-only (arguments, constants). */
graft_status_t graft_guard_region_seal(graft_guard_region_t* region);
/* Bytes of padding whose canary was overwritten: the first one's offset
 * from region->data (negative: before the start) in |out_offset|. Returns 0
 * when the canary is intact. */
uint64_t graft_guard_region_check(const graft_guard_region_t* region,
                                  int64_t* out_offset);
void graft_guard_region_release(graft_guard_region_t* region);

/* What a faulting thread is running, for the report. Everything is owned by
 * the invocation and stays valid while the dispatch runs. */
typedef struct graft_guard_watch_t {
  const graft_function_v1_t* function;
  const graft_dispatch_attrs_v1_t* dispatch;
  const uint32_t* workgroup_count;     /* the dispatch's grid */
  const graft_guard_region_t* regions; /* per buffer of |function| */
} graft_guard_watch_t;

/* After |watch|'s dispatch returned: fails naming the dispatch and the
 * first buffer whose padding canary it overwrote (without a workgroup, which
 * the canary cannot tell), or returns NULL. */
graft_status_t graft_guard_check_dispatch(const graft_guard_watch_t* watch);

/* Installs the SIGSEGV handler once per process (later calls do nothing). */
graft_status_t graft_guard_install_handler(void);
/* Marks the calling thread as running workgroup |index| of |watch|'s
 * dispatch (NULL: running none). Cheap: two thread-local stores. */
void graft_guard_enter(const graft_guard_watch_t* watch, uint64_t index);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_EXEC_GUARD_H_ */
