/* Tests of the runtime profile (GRAFT_RUNTIME_FLAG_PROFILE): the pool's
 * chunk and thread records for loops of every size, on 1 and 4 threads and
 * on a failing loop; the records the executor hands the trace callback for
 * each dispatch of the test library's two-dispatch function, with the
 * results equal to an unprofiled call's; and the public API end to end: a
 * module opened with the flag, its events collected by a graft/profile.h
 * log, the summary and the Chrome file it writes, and its errors. */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "exec/executor.h"
#include "exec/module.h"
#include "exec/test_library.h"
#include "graft/profile.h"
#include "io/test_harness.h"
#include "profile/profile_log.h"

static const uint64_t kNoProcessorData[GRAFT_PROCESSOR_DATA_WORD_COUNT];

/* Storage for a profile of |pool| (loop_profile.h); free() it. */
static graft_loop_profile_t* new_profile(graft_thread_pool_t* pool) {
  return graft_loop_profile_create(graft_thread_pool_size(pool),
                                   graft_thread_pool_chunk_capacity(pool));
}

static int fail_at_fn(void* context, uint64_t index, uint32_t worker_id,
                      void* scratch, uint64_t scratch_size) {
  (void)worker_id, (void)scratch, (void)scratch_size;
  return index == *(const uint64_t*)context ? 7 : 0;
}

/* What every profile must satisfy: chunks in workgroup order without
 * overlap, each with its begin before its end and within [0, span_ns],
 * run by a thread that joined; each thread's sums equal to its chunks';
 * returns the workgroups the chunks cover. */
static uint64_t check_records(const graft_profile_thread_t* threads,
                              uint32_t thread_count,
                              const graft_profile_chunk_t* chunks,
                              uint32_t chunk_count, uint64_t span_ns) {
  uint64_t covered = 0, next = 0;
  uint64_t busy[64] = {0}, workgroups[64] = {0}, taken[64] = {0};
  EXPECT(thread_count <= 64);
  for (uint32_t i = 0; i < chunk_count; ++i) {
    const graft_profile_chunk_t* c = &chunks[i];
    EXPECT(c->first_workgroup >= next);
    EXPECT(c->workgroup_count > 0);
    EXPECT(c->begin_ns <= c->end_ns && c->end_ns <= span_ns);
    EXPECT(c->thread < thread_count && threads[c->thread].joined);
    EXPECT(c->begin_ns >= threads[c->thread].joined_ns &&
           c->end_ns <= threads[c->thread].left_ns);
    next = c->first_workgroup + c->workgroup_count;
    covered += c->workgroup_count;
    if (c->thread < 64) {
      busy[c->thread] += c->end_ns - c->begin_ns;
      workgroups[c->thread] += c->workgroup_count;
      taken[c->thread] += 1;
    }
  }
  for (uint32_t t = 0; t < thread_count && t < 64; ++t) {
    EXPECT(threads[t].busy_ns == busy[t]);
    EXPECT(threads[t].workgroups == workgroups[t]);
    EXPECT(threads[t].chunks == taken[t]);
    if (!threads[t].joined)
      EXPECT(threads[t].joined_ns == 0 && threads[t].left_ns == 0);
    else
      EXPECT(threads[t].joined_ns <= threads[t].left_ns &&
             threads[t].left_ns <= span_ns);
  }
  EXPECT(threads[0].joined); /* the caller always takes part */
  return covered;
}

static void pool_loops_cover_every_index(void) {
  uint32_t sizes[] = {1, 4};
  uint64_t counts[] = {1, 3, 31, 32, 33, 63, 64, 65, 1000, 100003};
  uint64_t never = UINT64_MAX;
  for (int s = 0; s < 2; ++s) {
    graft_thread_pool_t* pool = NULL;
    EXPECT_OK(graft_thread_pool_create(sizes[s], 0, &pool));
    if (!pool) return;
    graft_loop_profile_t* p = new_profile(pool);
    for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); ++k) {
      graft_parallel_failure_t failure;
      p->origin_ns = graft_loop_profile_now_ns();
      EXPECT_OK(graft_thread_pool_parallel_for_profiled(
          pool, counts[k], 0, fail_at_fn, &never, &failure, p));
      uint64_t span = graft_loop_profile_now_ns() - p->origin_ns;
      EXPECT(failure.code == 0);
      EXPECT(p->chunk_count >= 1 && p->chunk_count <= p->chunk_capacity);
      EXPECT(check_records(p->threads, p->thread_count, p->chunks,
                           p->chunk_count, span) == counts[k]);
      EXPECT(p->chunks[0].first_workgroup == 0);
      /* An empty loop after it: no records, not this loop's again. */
      EXPECT_OK(graft_thread_pool_parallel_for_profiled(
          pool, 0, 0, fail_at_fn, &never, &failure, p));
      EXPECT(p->chunk_count == 0 && p->threads[0].joined == 0);
    }
    free(p);
    graft_thread_pool_destroy(pool);
  }
}

/* A loop stopped by a failing index records the chunks that ran, the
 * failing index included, and none past what was handed out. */
static void failing_loop_records_what_ran(void) {
  graft_thread_pool_t* pool = NULL;
  EXPECT_OK(graft_thread_pool_create(4, 0, &pool));
  if (!pool) return;
  graft_loop_profile_t* p = new_profile(pool);
  uint64_t fail_at = 10;
  graft_parallel_failure_t failure;
  p->origin_ns = graft_loop_profile_now_ns();
  EXPECT_OK(graft_thread_pool_parallel_for_profiled(pool, 100000, 0,
                                                    fail_at_fn, &fail_at,
                                                    &failure, p));
  uint64_t span = graft_loop_profile_now_ns() - p->origin_ns;
  EXPECT(failure.code == 7 && failure.index == 10);
  uint64_t covered = check_records(p->threads, p->thread_count, p->chunks,
                                   p->chunk_count, span);
  EXPECT(covered >= 11 && covered < 100000);
  int has_failing = 0;
  for (uint32_t i = 0; i < p->chunk_count; ++i)
    has_failing |= p->chunks[i].first_workgroup <= 10 &&
                   10 < p->chunks[i].first_workgroup + p->chunks[i].workgroup_count;
  EXPECT(has_failing);
  free(p);
  graft_thread_pool_destroy(pool);
}

typedef struct seen_t {
  int events;
  int bad_shape;
  uint64_t workgroups[2]; /* per dispatch of scale_add, from the chunks */
  uint64_t grid[2];
} seen_t;

static void check_event(const graft_trace_event_t* e, void* user_data) {
  seen_t* seen = user_data;
  int k = seen->events++;
  if (k >= 2 || e->thread_count != 4 || !e->threads || !e->chunks ||
      e->start_ns == 0) {
    seen->bad_shape = 1;
    return;
  }
  seen->grid[k] = (uint64_t)e->workgroup_count[0] * e->workgroup_count[1] *
                  e->workgroup_count[2];
  seen->workgroups[k] = check_records(e->threads, e->thread_count, e->chunks,
                                      e->chunk_count, e->duration_ns);
}

static void no_records_without_flag(const graft_trace_event_t* e,
                                    void* user_data) {
  seen_t* seen = user_data;
  ++seen->events;
  if (e->thread_count || e->chunk_count || e->threads || e->chunks ||
      e->start_ns == 0)
    seen->bad_shape = 1;
}

static void executor_events_carry_profiles(void) {
  graft_thread_pool_t* pool = NULL;
  EXPECT_OK(graft_thread_pool_create(4, 0, &pool));
  if (!pool) return;
  uint32_t ordinal = 0;
  while (strcmp(tl_library.functions[ordinal].name, "scale_add") != 0)
    ++ordinal;
  enum { N = 4000 }; /* 1000 workgroups of 4 elements per dispatch */
  graft_tensor_t x;
  int64_t dims[1] = {N};
  EXPECT_OK(graft_tensor_allocate(GRAFT_DTYPE_F32, 1, dims, &x));
  for (int i = 0; i < N; ++i) ((float*)x.data)[i] = (float)i * 0.25f - 7;
  seen_t seen = {0};
  graft_executor_t profiled = {pool, check_event, &seen,
                               GRAFT_RUNTIME_GUARD_NONE, 0, NULL, NULL, NULL,
                               NULL, kNoProcessorData, NULL, NULL, 1};
  graft_tensor_t with = {0}, without = {0};
  EXPECT_OK(graft_function_invoke(&tl_library, ordinal, &profiled, &x, 1,
                                  &with, 1));
  EXPECT(seen.events == 2 && !seen.bad_shape);
  for (int k = 0; k < 2; ++k)
    EXPECT(seen.grid[k] == N / 4 && seen.workgroups[k] == seen.grid[k]);

  seen_t plain = {0};
  graft_executor_t unprofiled = profiled;
  unprofiled.trace = no_records_without_flag;
  unprofiled.trace_user_data = &plain;
  unprofiled.profile = 0;
  EXPECT_OK(graft_function_invoke(&tl_library, ordinal, &unprofiled, &x, 1,
                                  &without, 1));
  EXPECT(plain.events == 2 && !plain.bad_shape);
  EXPECT(with.size == without.size && with.data && without.data &&
         memcmp(with.data, without.data, with.size) == 0);
  graft_tensor_release(&with);
  graft_tensor_release(&without);
  graft_tensor_release(&x);
  graft_thread_pool_destroy(pool);
}

/* Reads all of |path| into a malloc'd string (NULL if it cannot). */
static char* slurp(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  char* text = calloc(1, 1 << 20);
  size_t n = text ? fread(text, 1, (1 << 20) - 1, f) : 0;
  (void)n;
  fclose(f);
  return text;
}

static size_t count_of(const char* text, const char* needle) {
  size_t n = 0;
  for (const char* p = text; p && (p = strstr(p, needle)); p += strlen(needle))
    ++n;
  return n;
}

static void public_api_log(void) {
  graft_profile_log_t* log = NULL;
  EXPECT_OK(graft_profile_log_create(&log));
  if (!log) return;
  graft_runtime_options_t options;
  graft_runtime_options_initialize(&options);
  options.threads = 3;
  options.flags = GRAFT_RUNTIME_FLAG_PROFILE;
  options.trace = graft_profile_log_record;
  options.trace_user_data = log;
  graft_module_t* module = NULL;
  EXPECT_OK(graft_module_create_from_library(&tl_library, &options, NULL, NULL,
                                             &module));
  if (!module) return;
  uint32_t ordinal = 0;
  EXPECT_OK(graft_module_function_lookup(module, "scale_add", &ordinal));
  graft_tensor_t x;
  int64_t dims[1] = {400}; /* 100 workgroups per dispatch */
  EXPECT_OK(graft_tensor_allocate(GRAFT_DTYPE_F32, 1, dims, &x));
  /* A warm-up call that clear() forgets, then 3 bracketed calls. */
  for (int call = 0; call < 4; ++call) {
    if (call == 1) graft_profile_log_clear(log);
    if (call > 0) graft_profile_log_begin_call(log);
    graft_tensor_t out = {0};
    EXPECT_OK(graft_module_function_invoke(module, ordinal, &x, 1, &out, 1));
    if (call > 0) graft_profile_log_end_call(log);
    graft_tensor_release(&out);
  }
  EXPECT(graft_profile_log_call_count(log) == 3);

  char summary_path[] = "/tmp/graft-profile-test-XXXXXX";
  int fd = mkstemp(summary_path);
  FILE* summary = fd >= 0 ? fdopen(fd, "w") : NULL;
  EXPECT(summary != NULL);
  if (summary) {
    EXPECT_OK(graft_profile_log_print_summary(log, summary));
    fclose(summary);
    char* text = slurp(summary_path);
    /* Two dispatch rows of 3 runs each, the call row, the rest. */
    EXPECT(text && strstr(text, "dispatch ") == text);
    EXPECT(count_of(text, "\n") == 5);
    EXPECT(count_of(text, "      3 ") == 3);
    EXPECT(text && strstr(text, "(call)") && strstr(text, "100.0%") &&
           strstr(text, "(outside dispatches)"));
    free(text);
  }
  char json_path[] = "/tmp/graft-profile-test-XXXXXX";
  fd = mkstemp(json_path);
  if (fd >= 0) close(fd);
  EXPECT_OK(graft_profile_log_write_chrome(log, json_path));
  char* json = slurp(json_path);
  EXPECT(json && strstr(json, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[") == json);
  EXPECT(count_of(json, "\"cat\":\"call\"") == 3);
  EXPECT(count_of(json, "\"cat\":\"dispatch\",\"ph\":\"X\",\"pid\":1,\"tid\":0,") == 6);
  EXPECT(count_of(json, "\"thread_name\"") == 3);
  EXPECT(count_of(json, "\"cat\":\"chunk\"") >= 6);
  free(json);
  remove(summary_path);
  remove(json_path);

  graft_status_t st =
      graft_profile_log_write_chrome(log, "/nonexistent-graft-dir/p.json");
  EXPECT(st && strstr(graft_status_message(st),
                      "cannot write '/nonexistent-graft-dir/p.json': "));
  graft_status_free(st);
  graft_tensor_release(&x);
  graft_module_close(module);
  graft_profile_log_free(log);
}

static int sleep_fn(void* context, uint64_t index, uint32_t worker_id,
                    void* scratch, uint64_t scratch_size) {
  (void)context, (void)index, (void)worker_id, (void)scratch, (void)scratch_size;
  struct timespec ts = {0, 100000000};
  nanosleep(&ts, NULL);
  return 0;
}

/* A worker joins while the loop is open, that is until the invoking
 * thread runs out of work, not only while chunks are left: with 2
 * indices of 100 ms on 3 threads, the worker that comes third joins
 * (joined = 1) and takes no chunk, as graft/runtime.h says. Whether it
 * wakes within the 100 ms depends on the scheduler (under qemu on two
 * busy cores it once did not in 5 tries): up to 20 tries, most runs need
 * one. */
static void late_worker_joins_without_chunks(void) {
  graft_thread_pool_t* pool = NULL;
  EXPECT_OK(graft_thread_pool_create(3, 0, &pool));
  if (!pool) return;
  graft_loop_profile_t* p = new_profile(pool);
  int seen = 0;
  for (int attempt = 0; attempt < 20 && !seen; ++attempt) {
    graft_parallel_failure_t failure;
    p->origin_ns = graft_loop_profile_now_ns();
    EXPECT_OK(graft_thread_pool_parallel_for_profiled(pool, 2, 0, sleep_fn,
                                                      NULL, &failure, p));
    for (uint32_t i = 1; i < p->thread_count; ++i) {
      const graft_profile_thread_t* t = &p->threads[i];
      EXPECT(t->joined || (t->chunks == 0 && t->joined_ns == 0));
      seen |= t->joined && t->chunks == 0 && t->left_ns >= t->joined_ns;
    }
  }
  EXPECT(seen);
  free(p);
  graft_thread_pool_destroy(pool);
}

/* A log stops recording at its byte limit (PROFILE_LOG_MAX_BYTES; here 2
 * MiB) instead of growing without bound, and both writers name the limit
 * and what was kept. */
static void log_stops_at_its_limit(void) {
  graft_profile_log_t* log = NULL;
  EXPECT_OK(graft_profile_log_create(&log));
  if (!log) return;
  EXPECT(log->max_bytes == PROFILE_LOG_MAX_BYTES);
  log->max_bytes = (size_t)2 << 20;
  static graft_profile_thread_t threads[4];
  static graft_profile_chunk_t chunks[1000]; /* 40 KB a dispatch run */
  uint32_t grid[3] = {1000, 1, 1};
  graft_trace_event_t e = {"f", "f_dispatch_0", "f.graph:1:1", 0,
                           {grid[0], grid[1], grid[2]}, 10, 1, 4, 1000,
                           threads, chunks};
  for (int call = 0; call < 200; ++call) {
    graft_profile_log_begin_call(log);
    graft_profile_log_record(&e, log);
    graft_profile_log_end_call(log);
  }
  EXPECT(log->bytes <= log->max_bytes);
  EXPECT(log->event_count > 10 && log->event_count < 60);
  FILE* sink = fopen("/dev/null", "w");
  graft_status_t st = graft_profile_log_print_summary(log, sink);
  if (sink) fclose(sink);
  EXPECT(st && strstr(graft_status_message(st),
                      "the profile reached its limit of 2 MiB of records "
                      "after "));
  graft_status_free(st);
  st = graft_profile_log_write_chrome(log, "/dev/null");
  EXPECT(st && strstr(graft_status_message(st), "profile fewer calls"));
  graft_status_free(st);
  /* clear() forgets the records, not the storage: recording goes on. */
  graft_profile_log_clear(log);
  graft_profile_log_begin_call(log);
  graft_profile_log_record(&e, log);
  graft_profile_log_end_call(log);
  EXPECT(log->event_count == 1 && !log->out_of_memory);
  graft_profile_log_free(log);
}

int main(void) {
  if (tl_main_library_invalid()) return 1;
  TEST_CASE(pool_loops_cover_every_index);
  TEST_CASE(failing_loop_records_what_ran);
  TEST_CASE(executor_events_carry_profiles);
  TEST_CASE(public_api_log);
  TEST_CASE(log_stops_at_its_limit);
  TEST_CASE(late_worker_joins_without_chunks);
  return graft_test_finish();
}
