/* A profile log as Chrome trace-event JSON (the "JSON Array/Object
 * Format" of the Trace Event Format document, which chrome://tracing and
 * ui.perfetto.dev read): complete events ("ph": "X") with microsecond
 * timestamps, one thread track (tid) per pool thread, and metadata events
 * naming the process and the tracks. See graft/profile.h. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <string.h>

#include "profile/profile_log.h"

/* Writes |s| as a JSON string. */
static void put_string(FILE* f, const char* s) {
  fputc('"', f);
  for (; *s; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

/* Microseconds with nanosecond digits: exact for the integer ns given. */
static void put_us(FILE* f, uint64_t ns) {
  fprintf(f, "%llu.%03llu", (unsigned long long)(ns / 1000),
          (unsigned long long)(ns % 1000));
}

typedef struct writer_t {
  FILE* f;
  uint64_t origin_ns;
  int first; /* no event written yet: no comma before the next */
} writer_t;

/* Opens one complete event up to its "args" object's first member. */
static void begin_span(writer_t* w, const char* name, const char* category,
                       uint32_t tid, uint64_t begin_ns, uint64_t end_ns) {
  fputs(w->first ? "\n" : ",\n", w->f);
  w->first = 0;
  fputs("{\"name\":", w->f);
  put_string(w->f, name);
  fprintf(w->f, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":",
          category, tid);
  put_us(w->f, begin_ns - w->origin_ns);
  fputs(",\"dur\":", w->f);
  put_us(w->f, end_ns - begin_ns);
  fputs(",\"args\":{", w->f);
}

static void thread_name(writer_t* w, uint32_t tid) {
  fputs(w->first ? "\n" : ",\n", w->f);
  w->first = 0;
  fprintf(w->f,
          "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,"
          "\"args\":{\"name\":\"%s %u\"}}",
          tid, tid == 0 ? "caller, thread" : "worker", tid);
}

/* The dispatch run |e| on every thread that took part. */
static void put_run(writer_t* w, const graft_profile_log_t* log,
                    const profile_event_t* e) {
  const profile_dispatch_t* d = &log->dispatches[e->dispatch];
  long long call = e->call == PROFILE_NO_CALL ? -1 : (long long)e->call;
  uint64_t workgroups = (uint64_t)e->grid[0] * e->grid[1] * e->grid[2];
  begin_span(w, d->name, "dispatch", 0, e->start_ns,
             e->start_ns + e->duration_ns);
  fprintf(w->f, "\"call\":%lld,\"grid\":\"%ux%ux%u\",\"workgroups\":%llu,"
          "\"source\":", call, e->grid[0], e->grid[1], e->grid[2],
          (unsigned long long)workgroups);
  put_string(w->f, d->source);
  fputs("}}", w->f);
  const graft_profile_thread_t* t = &log->threads[e->first_thread];
  for (uint32_t i = 1; i < e->thread_count; ++i) {
    if (!t[i].joined) continue;
    begin_span(w, d->name, "dispatch", i, e->start_ns + t[i].joined_ns,
               e->start_ns + t[i].left_ns);
    fprintf(w->f, "\"call\":%lld,\"wake_us\":", call);
    put_us(w->f, t[i].joined_ns > t[0].joined_ns
                     ? t[i].joined_ns - t[0].joined_ns
                     : 0);
    fprintf(w->f, ",\"workgroups\":%llu,\"chunks\":%u}}",
            (unsigned long long)t[i].workgroups, t[i].chunks);
  }
  for (uint32_t c = 0; c < e->chunk_count; ++c) {
    const graft_profile_chunk_t* k = &log->chunks[e->first_chunk + c];
    begin_span(w, d->name, "chunk", k->thread, e->start_ns + k->begin_ns,
               e->start_ns + k->end_ns);
    fprintf(w->f, "\"call\":%lld,\"first_workgroup\":%llu,\"workgroups\":%llu}}",
            call, (unsigned long long)k->first_workgroup,
            (unsigned long long)k->workgroup_count);
  }
}

graft_status_t graft_profile_log_write_chrome(const graft_profile_log_t* log,
                                              const char* path) {
  graft_status_t st = profile_log_check(log);
  if (st) return st;
  FILE* f = fopen(path, "w");
  if (!f)
    return graft_status_make(GRAFT_NOT_FOUND, "cannot write '%s': %s", path,
                             strerror(errno));
  writer_t w = {f, UINT64_MAX, 1};
  uint32_t tracks = 1;
  for (size_t c = 0; c < log->call_count; ++c)
    if (log->calls[c].begin_ns < w.origin_ns) w.origin_ns = log->calls[c].begin_ns;
  for (size_t i = 0; i < log->event_count; ++i) {
    if (log->events[i].start_ns < w.origin_ns)
      w.origin_ns = log->events[i].start_ns;
    if (log->events[i].thread_count > tracks)
      tracks = log->events[i].thread_count;
  }
  fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);
  fputs(w.first ? "\n" : ",\n", f);
  w.first = 0;
  fputs("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,"
        "\"args\":{\"name\":\"graft\"}}", f);
  for (uint32_t t = 0; t < tracks; ++t) thread_name(&w, t);
  for (size_t c = 0; c < log->call_count; ++c) {
    const profile_call_t* call = &log->calls[c];
    const char* name = call->first_dispatch == UINT32_MAX
                           ? "call"
                           : log->dispatches[call->first_dispatch].function;
    begin_span(&w, name, "call", 0, call->begin_ns, call->end_ns);
    fprintf(f, "\"call\":%zu}}", c);
  }
  for (size_t i = 0; i < log->event_count; ++i) put_run(&w, log, &log->events[i]);
  fputs("\n]}\n", f);
  int failed = ferror(f);
  if (fclose(f) != 0 || failed)
    return graft_status_make(GRAFT_DATA_LOSS, "cannot write '%s': %s", path,
                             strerror(errno));
  return NULL;
}
