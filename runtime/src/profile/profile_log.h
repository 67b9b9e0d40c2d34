/* What a graft_profile_log_t keeps (graft/profile.h): flat arrays that grow
 * by doubling, so recording a dispatch is a few copies. Shared by the
 * recorder (profile_log.c), the summary (profile_summary.c) and the Chrome
 * writer (profile_chrome.c). Internal to graft_runtime. */
#ifndef GRAFT_RUNTIME_PROFILE_LOG_H_
#define GRAFT_RUNTIME_PROFILE_LOG_H_

#include <stddef.h>
#include <stdint.h>

#include "graft/profile.h"

#define PROFILE_NO_CALL UINT32_MAX

/* The most a log allocates for its records (its arrays' capacities added
 * up) before it stops recording and its writers report the limit: every
 * dispatch run keeps a record per pool thread and per chunk, so a long
 * profiled benchmark of small calls (graft_bench batches up to 2^24 calls
 * a sample; 1.8 million calls on 8 threads kept 830 MB) would otherwise
 * grow until the system kills the process. */
#define PROFILE_LOG_MAX_BYTES ((size_t)1 << 30)

/* A dispatch of a function, named once. */
typedef struct profile_dispatch_t {
  char* function;
  char* name;
  char* source;
  uint32_t ordinal; /* graft_trace_event_t.dispatch_ordinal */
} profile_dispatch_t;

/* One bracketed invocation. */
typedef struct profile_call_t {
  uint64_t begin_ns, end_ns; /* CLOCK_MONOTONIC */
  uint32_t first_dispatch;   /* its first dispatch run's, or UINT32_MAX */
} profile_call_t;

/* One dispatch run; its records are threads[first_thread, +thread_count)
 * and chunks[first_chunk, +chunk_count) of the log. */
typedef struct profile_event_t {
  uint32_t dispatch; /* index into the log's dispatches */
  uint32_t call;     /* index into calls, or PROFILE_NO_CALL */
  uint64_t start_ns; /* CLOCK_MONOTONIC */
  uint64_t duration_ns;
  uint32_t grid[3];
  uint32_t thread_count;
  size_t first_thread;
  size_t first_chunk;
  uint32_t chunk_count;
} profile_event_t;

struct graft_profile_log_s {
  profile_dispatch_t* dispatches;
  size_t dispatch_count, dispatch_capacity;
  profile_call_t* calls;
  size_t call_count, call_capacity;
  int in_call; /* between begin_call and end_call */
  profile_event_t* events;
  size_t event_count, event_capacity;
  graft_profile_thread_t* threads;
  size_t thread_count, thread_capacity;
  graft_profile_chunk_t* chunks;
  size_t chunk_count, chunk_capacity;
  int out_of_memory; /* a record was dropped: reported by the writers */
  size_t bytes;      /* the arrays' capacities, in bytes */
  size_t max_bytes;  /* PROFILE_LOG_MAX_BYTES (tests set less) */
  int at_limit;      /* the record dropped would have passed max_bytes */
};

/* The status the writers return when a record was dropped, else NULL. */
graft_status_t profile_log_check(const graft_profile_log_t* log);

#endif /* GRAFT_RUNTIME_PROFILE_LOG_H_ */
