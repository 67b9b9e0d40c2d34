/* The watchdog of one invocation (graft_runtime_options_t.timeout_ms,
 * graft-run --timeout): a thread that sleeps until the invocation's
 * deadline. If the invocation is still running then, it marks it expired,
 * which stops the dispatch from starting further workgroups and fails the
 * invocation with GRAFT_DEADLINE_EXCEEDED naming the dispatch that was
 * running, and calls the caller's on_timeout callback, if any, from the
 * watchdog thread.
 *
 * A workgroup already running cannot be stopped: C offers no safe way to
 * reclaim a thread stuck in a kernel. Without a callback the invocation
 * returns once its running workgroups do, which for a kernel that spins
 * forever is never; the callback (graft-run's ends the process) is the way
 * out. Internal to graft_runtime. */
#ifndef GRAFT_RUNTIME_EXEC_WATCHDOG_H_
#define GRAFT_RUNTIME_EXEC_WATCHDOG_H_

#include <stdint.h>

#include "graft/abi.h"
#include "graft/runtime.h"
#include "graft/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct graft_watchdog_s graft_watchdog_t;

/* Starts the watchdog of an invocation of |function| (borrowed until
 * graft_watchdog_stop) that must finish within |timeout_ms| from now. The
 * caller owns *out_watchdog. */
graft_status_t graft_watchdog_start(const graft_function_v1_t* function,
                                    uint32_t timeout_ms,
                                    graft_timeout_fn_t on_timeout,
                                    void* user_data,
                                    graft_watchdog_t** out_watchdog);
/* Records the dispatch now running (NULL between dispatches). */
void graft_watchdog_enter(graft_watchdog_t* watchdog,
                          const graft_dispatch_attrs_v1_t* dispatch);
/* Whether the deadline has passed; cheap (one relaxed atomic load). */
int graft_watchdog_expired(const graft_watchdog_t* watchdog);
/* The GRAFT_DEADLINE_EXCEEDED status of an expired invocation (the
 * message of graft_timeout_event_t), or NULL before the deadline. */
graft_status_t graft_watchdog_status(const graft_watchdog_t* watchdog);
/* Stops and joins the thread and frees the watchdog. NULL is ignored. */
void graft_watchdog_stop(graft_watchdog_t* watchdog);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_EXEC_WATCHDOG_H_ */
