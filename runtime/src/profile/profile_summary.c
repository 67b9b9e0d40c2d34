/* The per-dispatch summary table of a profile log (see graft/profile.h for
 * what each column means). Each dispatch run is measured once
 * (measure_run) and the rows add those measures up. */
#include <stdlib.h>
#include <string.h>

#include "profile/profile_log.h"

/* What one dispatch run's records say; times in ns. */
typedef struct run_measure_t {
  uint32_t threads_used; /* threads that ran a chunk */
  uint64_t setup_ns;     /* start to publication (thread 0's join) */
  uint64_t wake_ns;      /* added up over |woken| workers */
  uint32_t woken;
  uint64_t imbalance_ns; /* first thread out of work to the last */
  uint64_t end_ns;       /* last chunk's end to the dispatch's return */
} run_measure_t;

/* Whether the run has records (GRAFT_RUNTIME_FLAG_PROFILE). */
static int measure_run(const graft_profile_log_t* log,
                       const profile_event_t* e, run_measure_t* m) {
  memset(m, 0, sizeof(*m));
  if (e->thread_count == 0) return 0;
  const graft_profile_thread_t* t = &log->threads[e->first_thread];
  m->setup_ns = t[0].joined_ns;
  uint64_t first_out = UINT64_MAX, last_out = 0;
  for (uint32_t i = 0; i < e->thread_count; ++i) {
    if (i > 0 && t[i].joined) {
      m->wake_ns += t[i].joined_ns > t[0].joined_ns
                        ? t[i].joined_ns - t[0].joined_ns
                        : 0;
      m->woken += 1;
    }
    if (t[i].chunks == 0) continue;
    m->threads_used += 1;
    if (t[i].left_ns < first_out) first_out = t[i].left_ns;
    if (t[i].left_ns > last_out) last_out = t[i].left_ns;
  }
  if (m->threads_used) m->imbalance_ns = last_out - first_out;
  uint64_t last_chunk = 0;
  for (uint32_t c = 0; c < e->chunk_count; ++c) {
    uint64_t end = log->chunks[e->first_chunk + c].end_ns;
    if (end > last_chunk) last_chunk = end;
  }
  m->end_ns = e->duration_ns > last_chunk ? e->duration_ns - last_chunk : 0;
  return 1;
}

static int compare_u64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? -1 : x > y;
}

/* Sorts |v| and returns its median (the lower middle one). */
static uint64_t median(uint64_t* v, size_t n) {
  qsort(v, n, sizeof(*v), compare_u64);
  return v[(n - 1) / 2];
}

static double us(uint64_t ns) { return (double)ns / 1e3; }

/* One row's leading columns: name, runs, total, min, median, share. */
static void print_times(FILE* out, int width, const char* name, size_t runs,
                        uint64_t total_ns, uint64_t* durations,
                        uint64_t call_total_ns) {
  uint64_t min = durations[0];
  for (size_t i = 1; i < runs; ++i)
    if (durations[i] < min) min = durations[i];
  fprintf(out, "%-*s %6zu %10.3f %9.2f %9.2f", width, name, runs,
          (double)total_ns / 1e6, us(min), us(median(durations, runs)));
  if (call_total_ns)
    fprintf(out, " %5.1f%%", 100.0 * (double)total_ns / (double)call_total_ns);
  else
    fprintf(out, " %6s", "-");
}

graft_status_t graft_profile_log_print_summary(const graft_profile_log_t* log,
                                               FILE* out) {
  graft_status_t st = profile_log_check(log);
  if (st) return st;
  uint64_t call_total = 0;
  for (size_t c = 0; c < log->call_count; ++c)
    call_total += log->calls[c].end_ns - log->calls[c].begin_ns;
  size_t most = log->call_count > log->event_count ? log->call_count
                                                   : log->event_count;
  uint64_t* durations = malloc(sizeof(uint64_t) * (most ? most : 1));
  if (!durations)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "out of memory summarizing the profile");
  int width = 20;
  for (size_t d = 0; d < log->dispatch_count; ++d) {
    int n = (int)strlen(log->dispatches[d].name);
    if (n > width) width = n;
  }
  fprintf(out, "%-*s %6s %10s %9s %9s %6s %4s %8s %8s %8s %8s\n", width,
          "dispatch", "runs", "total ms", "min us", "med us", "share", "thr",
          "setup us", "wake us", "imbal us", "end us");
  uint64_t in_dispatches = 0;
  for (size_t d = 0; d < log->dispatch_count; ++d) {
    size_t runs = 0, measured = 0;
    uint64_t total = 0, wake = 0, woken = 0;
    double threads = 0, setup = 0, imbalance = 0, end = 0;
    for (size_t i = 0; i < log->event_count; ++i) {
      const profile_event_t* e = &log->events[i];
      if (e->dispatch != d) continue;
      durations[runs++] = e->duration_ns;
      total += e->duration_ns;
      if (e->call != PROFILE_NO_CALL) in_dispatches += e->duration_ns;
      run_measure_t m;
      if (!measure_run(log, e, &m)) continue;
      measured += 1;
      threads += m.threads_used;
      setup += us(m.setup_ns);
      wake += m.wake_ns;
      woken += m.woken;
      imbalance += us(m.imbalance_ns);
      end += us(m.end_ns);
    }
    print_times(out, width, log->dispatches[d].name, runs, total, durations,
                call_total);
    if (measured) {
      fprintf(out, " %4.1f %8.2f ", threads / (double)measured,
              setup / (double)measured);
      if (woken)
        fprintf(out, "%8.2f", us(wake) / (double)woken);
      else
        fprintf(out, "%8s", "-");
      fprintf(out, " %8.2f %8.2f", imbalance / (double)measured,
              end / (double)measured);
    }
    fputc('\n', out);
  }
  if (log->call_count) {
    for (size_t c = 0; c < log->call_count; ++c)
      durations[c] = log->calls[c].end_ns - log->calls[c].begin_ns;
    print_times(out, width, "(call)", log->call_count, call_total, durations,
                call_total);
    fputc('\n', out);
    uint64_t outside = call_total > in_dispatches ? call_total - in_dispatches
                                                  : 0;
    fprintf(out, "%-*s %6s %10.3f %9s %9s %5.1f%%\n", width,
            "(outside dispatches)", "", (double)outside / 1e6, "", "",
            call_total ? 100.0 * (double)outside / (double)call_total : 0.0);
  }
  free(durations);
  return NULL;
}
