/* Public API tests over a module wrapping the hand-written library:
 * listing, signatures, lookup, tracing, two threads invoking the same
 * function at once, guarded buffers and the deadline. */
#include <pthread.h>
#include <stdlib.h>

#include "exec/module.h"
#include "exec/test_library.h"
#include "exec/thread_pool.h"
#include "graft/runtime.h"
#include "io/test_harness.h"

static graft_module_t* open_test_module(uint32_t threads, graft_trace_fn_t trace,
                                        void* user_data) {
  graft_runtime_options_t options;
  graft_runtime_options_initialize(&options);
  options.threads = threads;
  options.trace = trace;
  options.trace_user_data = user_data;
  graft_module_t* module = NULL;
  EXPECT_OK(graft_module_create_from_library(&tl_library, &options, NULL, NULL,
                                             &module));
  return module;
}

static void list_and_signatures(void) {
  graft_module_t* m = open_test_module(1, NULL, NULL);
  if (!m) return;
  EXPECT_STR(graft_module_name(m), "testlib");
  EXPECT(graft_module_function_count(m) == 7);
  EXPECT(graft_module_thread_count(m) == 1);
  const char* expected[] = {
      "add(tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>",
      "add4(tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>",
      "scale_add(tensor<?xf32>) -> tensor<?xf32>",
      "fail(tensor<?xf32>) -> tensor<?xf32>",
      "misc(tensor<2x3xf32>) -> (tensor<6xf32>, tensor<4xi32>, tensor<6xf32>)",
      "scalar(f32, tensor<?xf32>) -> tensor<?xf32>",
      "spin(tensor<?xf32>) -> tensor<?xf32>"};
  for (uint32_t i = 0; i < 7; ++i) {
    char* text = NULL;
    EXPECT_OK(graft_module_function_format_signature(m, i, &text));
    EXPECT_STR(text, expected[i]);
    free(text);
  }
  graft_function_info_t info;
  EXPECT_OK(graft_module_function_info(m, 4, &info));
  EXPECT_STR(info.name, "misc");
  EXPECT(info.arg_count == 1 && info.result_count == 3);
  EXPECT_ERROR(graft_module_function_info(m, 7, &info),
               "function ordinal 7 out of range (module 'testlib' has 7 "
               "functions)");
  graft_module_close(m);
}

static void lookup(void) {
  graft_module_t* m = open_test_module(1, NULL, NULL);
  if (!m) return;
  uint32_t ordinal = 99;
  EXPECT_OK(graft_module_function_lookup(m, "scale_add", &ordinal));
  EXPECT(ordinal == 2);
  EXPECT_ERROR(graft_module_function_lookup(m, "mlp", &ordinal),
               "no function 'mlp' in module 'testlib' (available: add, add4, "
               "scale_add, fail, misc, scalar, spin)");
  graft_module_close(m);
}

typedef struct {
  int events;
  char last[64];
  uint32_t grid[3];
} trace_log_t;

static void record_trace(const graft_trace_event_t* e, void* user_data) {
  trace_log_t* log = user_data;
  ++log->events;
  snprintf(log->last, sizeof(log->last), "%s/%s", e->function, e->dispatch);
  memcpy(log->grid, e->workgroup_count, sizeof(log->grid));
}

static void trace_and_errors_name_function(void) {
  trace_log_t log = {0};
  graft_module_t* m = open_test_module(2, record_trace, &log);
  if (!m) return;
  graft_tensor_t x = {0}, out = {0};
  EXPECT_OK(graft_tensor_parse("9xf32=1", &x));
  EXPECT_OK(graft_module_function_invoke(m, 2, &x, 1, &out, 1));
  EXPECT(log.events == 2);
  EXPECT_STR(log.last, "scale_add/add_dispatch_0");
  EXPECT(log.grid[0] == 3 && log.grid[1] == 1 && log.grid[2] == 1);
  graft_tensor_release(&out);
  EXPECT_ERROR(graft_module_function_invoke(m, 3, &x, 1, &out, 1),
               "dispatch 'fail_dispatch' (fail.graph:7:9) failed with "
               "code 3 in workgroup (1,0,0)");
  graft_tensor_release(&x);
  graft_module_close(m);
}

typedef struct {
  graft_module_t* module;
  float bias;
  int ok;
} worker_arg_t;

/* Invokes add(x, bias) repeatedly and checks every element. */
static void* invoke_many(void* arg) {
  worker_arg_t* w = arg;
  w->ok = 1;
  int64_t dims[2] = {33, 17};
  graft_tensor_t args[2];
  if (graft_tensor_allocate(GRAFT_DTYPE_F32, 2, dims, &args[0]) ||
      graft_tensor_allocate(GRAFT_DTYPE_F32, 2, dims, &args[1])) {
    w->ok = 0;
    return NULL;
  }
  for (int i = 0; i < 33 * 17; ++i) {
    ((float*)args[0].data)[i] = (float)i;
    ((float*)args[1].data)[i] = w->bias;
  }
  for (int round = 0; round < 50 && w->ok; ++round) {
    graft_tensor_t out = {0};
    graft_status_t s =
        graft_module_function_invoke(w->module, 0, args, 2, &out, 1);
    if (s) {
      w->ok = 0;
      graft_status_free(s);
      break;
    }
    for (int i = 0; i < 33 * 17; ++i)
      if (((float*)out.data)[i] != (float)i + w->bias) w->ok = 0;
    graft_tensor_release(&out);
  }
  graft_tensor_release(&args[0]);
  graft_tensor_release(&args[1]);
  return NULL;
}

static void concurrent_invocations(void) {
  graft_module_t* m = open_test_module(2, NULL, NULL);
  if (!m) return;
  worker_arg_t args[2] = {{m, 1000, 0}, {m, -7, 0}};
  pthread_t threads[2];
  for (int i = 0; i < 2; ++i)
    pthread_create(&threads[i], NULL, invoke_many, &args[i]);
  for (int i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
  EXPECT(args[0].ok);
  EXPECT(args[1].ok);
  graft_module_close(m);
}

static int g_released;
static void count_release(void* arg) { g_released += arg == &g_released; }

static void close_releases_library(void) {
  graft_module_t* m = NULL;
  EXPECT_OK(graft_module_create_from_library(&tl_library, NULL, count_release,
                                             &g_released, &m));
  graft_module_close(m);
  EXPECT(g_released == 1);
  graft_module_close(NULL);
}

/* Under either guard mode every buffer kind (argument, temporary, result,
 * constant, alias, a copy) gives the results it gives unguarded. */
static void guarded_results_equal(void) {
  for (uint32_t mode = GRAFT_RUNTIME_GUARD_OVERFLOW;
       mode <= GRAFT_RUNTIME_GUARD_UNDERFLOW; ++mode) {
    graft_runtime_options_t options;
    graft_runtime_options_initialize(&options);
    options.threads = 2;
    options.guard = mode;
    graft_module_t* m = NULL;
    EXPECT_OK(graft_module_create_from_library(&tl_library, &options, NULL,
                                               NULL, &m));
    if (!m) return;
    graft_tensor_t x = {0}, out[3] = {{0}};
    EXPECT_OK(graft_tensor_parse("9xf32=1 2 3 4 5 6 7 8 -9", &x));
    EXPECT_OK(graft_module_function_invoke(m, 2, &x, 1, out, 1));
    char* text = NULL;
    EXPECT_OK(graft_tensor_format(&out[0], &text));
    EXPECT_STR(text, "9xf32=3 6 9 12 15 18 21 24 -27");
    free(text);
    graft_tensor_release(&out[0]);
    graft_tensor_release(&x);
    EXPECT_OK(graft_tensor_parse("2x3xf32=[1 2 3][4 5 6]", &x));
    EXPECT_OK(graft_module_function_invoke(m, 4, &x, 1, out, 3));
    const char* expected[] = {"6xf32=1 2 3 4 5 6", "4xi32=10 20 30 40",
                              "6xf32=1 2 3 4 5 6"};
    for (int i = 0; i < 3; ++i) {
      EXPECT_OK(graft_tensor_format(&out[i], &text));
      EXPECT_STR(text, expected[i]);
      free(text);
      graft_tensor_release(&out[i]);
    }
    graft_tensor_release(&x);
    graft_module_close(m);
  }
  graft_runtime_options_t options;
  graft_runtime_options_initialize(&options);
  options.guard = GRAFT_RUNTIME_GUARD_COUNT_;
  graft_module_t* m = NULL;
  EXPECT_ERROR(graft_module_create_from_library(&tl_library, &options, NULL,
                                                NULL, &m),
               "unknown guard mode 3 (expected 0 to 2)");
}

typedef struct {
  int calls;
  char dispatch[64];
  char message[256];
} timeout_log_t;

/* Records the event, then lets the stuck kernel go (a real caller would
 * end the process here, as graft-run does). */
static void release_spin(const graft_timeout_event_t* e, void* user_data) {
  timeout_log_t* log = user_data;
  ++log->calls;
  snprintf(log->dispatch, sizeof(log->dispatch), "%s", e->dispatch);
  snprintf(log->message, sizeof(log->message), "%s", e->message);
  __atomic_store_n(&tl_spin_release, 1, __ATOMIC_RELEASE);
}

/* A kernel stuck past the deadline: the callback names the dispatch, no
 * further workgroup starts once the stuck ones return, the invocation
 * fails with DEADLINE_EXCEEDED and the module stays usable. */
static void deadline_names_dispatch(void) {
  timeout_log_t log = {0};
  graft_runtime_options_t options;
  graft_runtime_options_initialize(&options);
  options.threads = 2;
  /* Long enough that the invocation below which must finish in time does
   * so under qemu on a loaded machine (20 ms did not); the spinning one
   * costs this much. */
  options.timeout_ms = 1000;
  options.on_timeout = release_spin;
  options.timeout_user_data = &log;
  graft_module_t* m = NULL;
  EXPECT_OK(graft_module_create_from_library(&tl_library, &options, NULL, NULL,
                                             &m));
  if (!m) return;
  graft_tensor_t x = {0}, out = {0};
  EXPECT_OK(graft_tensor_parse("400xf32=1", &x)); /* 100 workgroups */
  graft_status_t s = graft_module_function_invoke(m, 6, &x, 1, &out, 1);
  EXPECT(graft_status_code(s) == GRAFT_DEADLINE_EXCEEDED);
  EXPECT_ERROR(s, "function 'spin' ran past its deadline of 1000 ms in "
                  "dispatch 'spin_dispatch' (spin.graph:3:5)");
  EXPECT(out.data == NULL);
  EXPECT(log.calls == 1);
  EXPECT_STR(log.dispatch, "spin_dispatch");
  EXPECT_STR(log.message, "function 'spin' ran past its deadline of 1000 ms in "
                          "dispatch 'spin_dispatch' (spin.graph:3:5)");
  /* At most one workgroup per worker was running at the deadline. */
  EXPECT(tl_spin_workgroups >= 1 && tl_spin_workgroups <= 2);
  /* An invocation that finishes in time is unaffected. */
  EXPECT_OK(graft_module_function_invoke(m, 2, &x, 1, &out, 1));
  EXPECT(log.calls == 1);
  graft_tensor_release(&out);
  graft_tensor_release(&x);
  graft_module_close(m);
}

/* A module with a thread per usable CPU pins all its workers (the caller
 * is never pinned); one thread, or GRAFT_RUNTIME_FLAG_UNPINNED, none. */
static void pinned_workers(void) {
  uint32_t cpus = graft_thread_pool_usable_cpus();
  if (cpus > 256) cpus = 256;
  for (int unpinned = 0; unpinned < 2; ++unpinned) {
    graft_runtime_options_t options;
    graft_runtime_options_initialize(&options);
    if (unpinned) options.flags |= GRAFT_RUNTIME_FLAG_UNPINNED;
    graft_module_t* m = NULL;
    EXPECT_OK(graft_module_create_from_library(&tl_library, &options, NULL,
                                               NULL, &m));
    if (!m) return;
    EXPECT(graft_module_thread_count(m) == cpus);
#if defined(__linux__)
    EXPECT(graft_module_pinned_workers(m) == (unpinned ? 0 : cpus - 1));
#else
    EXPECT(graft_module_pinned_workers(m) == 0);
#endif
    graft_module_close(m);
  }
  graft_module_t* m = open_test_module(1, NULL, NULL);
  if (!m) return;
  EXPECT(graft_module_pinned_workers(m) == 0);
  graft_module_close(m);
}

int main(void) {
  /* Modules trust their library: it must be validated first. */
  if (tl_main_library_invalid()) return 1;
  TEST_CASE(list_and_signatures);
  TEST_CASE(lookup);
  TEST_CASE(trace_and_errors_name_function);
  TEST_CASE(concurrent_invocations);
  TEST_CASE(close_releases_library);
  TEST_CASE(guarded_results_equal);
  TEST_CASE(deadline_names_dispatch);
  TEST_CASE(pinned_workers);
  return graft_test_finish();
}
