/* Collecting runtime profiles (GRAFT_RUNTIME_FLAG_PROFILE, graft/runtime.h)
 * into a per-dispatch summary and a Chrome trace-event file.
 *
 *   graft_profile_log_t* log = NULL;
 *   graft_profile_log_create(&log);
 *   options.flags |= GRAFT_RUNTIME_FLAG_PROFILE;
 *   options.trace = graft_profile_log_record;
 *   options.trace_user_data = log;
 *   ... open the module; for every call:
 *   graft_profile_log_begin_call(log);
 *   graft_module_function_invoke(...);
 *   graft_profile_log_end_call(log);
 *   ... graft_profile_log_print_summary(log, stderr);
 *   graft_profile_log_write_chrome(log, "call.json");
 *   graft_profile_log_free(log);
 *
 * The log copies what it keeps from each event (names included), growing
 * its arrays as calls come in: it allocates on the invoking thread after a
 * dispatch, never inside one. It stops recording at 1 GiB of records (a
 * record per pool thread and per chunk of every dispatch run), and the
 * writers then report the limit. It is not thread-safe: one log per invoking
 * thread. What graft-run --profile and graft_bench --profile print
 * (docs/runtime-profile.md). */
#ifndef GRAFT_PROFILE_H_
#define GRAFT_PROFILE_H_

#include <stdio.h>

#include "graft/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct graft_profile_log_s graft_profile_log_t;

/* The caller owns *out_log (graft_profile_log_free). */
graft_status_t graft_profile_log_create(graft_profile_log_t** out_log);
/* NULL is ignored. */
void graft_profile_log_free(graft_profile_log_t* log);

/* A graft_trace_fn_t: |log| is the graft_profile_log_t. Keeps the event
 * and its thread and chunk records (none without
 * GRAFT_RUNTIME_FLAG_PROFILE: the summary then has times only). */
void graft_profile_log_record(const graft_trace_event_t* event, void* log);

/* Bracket one invocation: the call's wall time, which the summary's share
 * column and the trace's call spans use. Dispatches recorded outside a
 * bracket are summarized without a share. */
void graft_profile_log_begin_call(graft_profile_log_t* log);
void graft_profile_log_end_call(graft_profile_log_t* log);

/* Forgets every call and dispatch recorded so far (e.g. a warm-up). */
void graft_profile_log_clear(graft_profile_log_t* log);

/* Calls bracketed so far. */
size_t graft_profile_log_call_count(const graft_profile_log_t* log);

/* Writes the per-dispatch table to |out|: a row per dispatch in the order
 * they first ran, then the call itself. Columns (times in microseconds,
 * per dispatch run, min/median over runs, the rest means over runs):
 *   runs      how many times it ran
 *   total     its wall time added up (ms)
 *   min, med  its wall time
 *   share     total over the bracketed calls' total wall time
 *   thr       threads that ran at least one chunk
 *   setup     from the dispatch's start to its publication to the pool
 *   wake      a worker's join time after publication (joined workers)
 *   imbal     from the first thread to run out of work to the last
 *   end       from the last chunk's end to the dispatch's return
 * A failure to allocate while recording, or the log's limit, is reported
 * here. */
graft_status_t graft_profile_log_print_summary(const graft_profile_log_t* log,
                                               FILE* out);

/* Writes the Chrome trace-event JSON (chrome://tracing, ui.perfetto.dev)
 * to |path|: one track per pool thread; on thread 0 a span per call; on
 * every thread a span per dispatch it took part in (its whole wall time on
 * thread 0, join to leave on a worker) with a span per chunk inside, named
 * after the dispatch. Times are microseconds after the first call. */
graft_status_t graft_profile_log_write_chrome(const graft_profile_log_t* log,
                                              const char* path);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_PROFILE_H_ */
