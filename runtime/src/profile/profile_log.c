/* Recording trace events and calls into a graft_profile_log_t (see
 * graft/profile.h, profile_log.h). */
#define _POSIX_C_SOURCE 200809L
#include "profile/profile_log.h"

#include <stdlib.h>
#include <string.h>

#include "exec/loop_profile.h"

graft_status_t graft_profile_log_create(graft_profile_log_t** out_log) {
  *out_log = calloc(1, sizeof(**out_log));
  if (!*out_log)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "out of memory creating a profile log");
  (*out_log)->max_bytes = PROFILE_LOG_MAX_BYTES;
  return NULL;
}

static void free_dispatches(graft_profile_log_t* log) {
  for (size_t i = 0; i < log->dispatch_count; ++i) {
    free(log->dispatches[i].function);
    free(log->dispatches[i].name);
    free(log->dispatches[i].source);
  }
  log->dispatch_count = 0;
}

void graft_profile_log_free(graft_profile_log_t* log) {
  if (!log) return;
  free_dispatches(log);
  free(log->dispatches);
  free(log->calls);
  free(log->events);
  free(log->threads);
  free(log->chunks);
  free(log);
}

void graft_profile_log_clear(graft_profile_log_t* log) {
  free_dispatches(log);
  log->call_count = log->event_count = log->thread_count = 0;
  log->chunk_count = 0;
  log->in_call = 0;
  log->out_of_memory = 0;
  log->at_limit = 0;
}

size_t graft_profile_log_call_count(const graft_profile_log_t* log) {
  return log->call_count;
}

graft_status_t profile_log_check(const graft_profile_log_t* log) {
  if (!log->out_of_memory) return NULL;
  if (log->at_limit)
    return graft_status_make(
        GRAFT_RESOURCE_EXHAUSTED,
        "the profile reached its limit of %zu MiB of records after %zu calls "
        "and %zu dispatch runs: profile fewer calls",
        log->max_bytes >> 20, log->call_count, log->event_count);
  return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                           "out of memory recording the profile: %zu calls "
                           "and %zu dispatch runs were kept",
                           log->call_count, log->event_count);
}

/* Makes room for |more| elements of |size| bytes in *array, within the
 * log's max_bytes (else sets at_limit). */
static int reserve(graft_profile_log_t* log, void** array, size_t* capacity,
                   size_t count, size_t more, size_t size) {
  if (count + more <= *capacity) return 1;
  size_t wanted = *capacity ? *capacity : 64;
  while (wanted < count + more) wanted *= 2;
  size_t added = (wanted - *capacity) * size;
  if (added > log->max_bytes - log->bytes) {
    log->at_limit = 1;
    return 0;
  }
  void* grown = realloc(*array, wanted * size);
  if (!grown) return 0;
  *array = grown;
  *capacity = wanted;
  log->bytes += added;
  return 1;
}
/* RESERVE(log, dispatches, dispatch, 1): room in log->dispatches, whose
 * count and capacity are dispatch_count and dispatch_capacity. */
#define RESERVE(log, array, stem, more)                                     \
  reserve((log), (void**)&(log)->array, &(log)->stem##_capacity,            \
          (log)->stem##_count, (more), sizeof(*(log)->array))

/* The index of |e|'s dispatch, named the first time it is seen. */
static int find_dispatch(graft_profile_log_t* log,
                         const graft_trace_event_t* e, uint32_t* out_index) {
  for (size_t i = 0; i < log->dispatch_count; ++i) {
    const profile_dispatch_t* d = &log->dispatches[i];
    if (d->ordinal == e->dispatch_ordinal && !strcmp(d->function, e->function)) {
      *out_index = (uint32_t)i;
      return 1;
    }
  }
  if (!RESERVE(log, dispatches, dispatch, 1)) return 0;
  profile_dispatch_t d = {strdup(e->function), strdup(e->dispatch),
                          strdup(e->source ? e->source : ""),
                          e->dispatch_ordinal};
  if (!d.function || !d.name || !d.source) {
    free(d.function);
    free(d.name);
    free(d.source);
    return 0;
  }
  *out_index = (uint32_t)log->dispatch_count;
  log->dispatches[log->dispatch_count++] = d;
  return 1;
}

void graft_profile_log_record(const graft_trace_event_t* e, void* user_data) {
  graft_profile_log_t* log = user_data;
  uint32_t dispatch = 0;
  if (log->out_of_memory || !RESERVE(log, events, event, 1) ||
      !RESERVE(log, threads, thread, e->thread_count) ||
      !RESERVE(log, chunks, chunk, e->chunk_count) ||
      !find_dispatch(log, e, &dispatch)) {
    log->out_of_memory = 1;
    return;
  }
  profile_event_t* ev = &log->events[log->event_count++];
  ev->dispatch = dispatch;
  ev->call = log->in_call ? (uint32_t)(log->call_count - 1) : PROFILE_NO_CALL;
  if (log->in_call && log->calls[ev->call].first_dispatch == UINT32_MAX)
    log->calls[ev->call].first_dispatch = dispatch;
  ev->start_ns = e->start_ns;
  ev->duration_ns = e->duration_ns;
  memcpy(ev->grid, e->workgroup_count, sizeof(ev->grid));
  ev->thread_count = e->thread_count;
  ev->first_thread = log->thread_count;
  ev->chunk_count = e->chunk_count;
  ev->first_chunk = log->chunk_count;
  if (e->thread_count)
    memcpy(&log->threads[log->thread_count], e->threads,
           sizeof(*e->threads) * e->thread_count);
  if (e->chunk_count)
    memcpy(&log->chunks[log->chunk_count], e->chunks,
           sizeof(*e->chunks) * e->chunk_count);
  log->thread_count += e->thread_count;
  log->chunk_count += e->chunk_count;
}

void graft_profile_log_begin_call(graft_profile_log_t* log) {
  if (log->out_of_memory || !RESERVE(log, calls, call, 1)) {
    log->out_of_memory = 1;
    log->in_call = 0;
    return;
  }
  uint64_t now = graft_loop_profile_now_ns();
  log->calls[log->call_count++] = (profile_call_t){now, now, UINT32_MAX};
  log->in_call = 1;
}

void graft_profile_log_end_call(graft_profile_log_t* log) {
  if (!log->in_call) return;
  log->calls[log->call_count - 1].end_ns = graft_loop_profile_now_ns();
  log->in_call = 0;
}
