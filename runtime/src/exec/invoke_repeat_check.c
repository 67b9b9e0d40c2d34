/* Repeated and concurrent calls of one module give the bytes of the first
 * call: what keeping arenas across calls (exec/arena.h) and writing results
 * into caller storage must not change.
 *
 *   graft_invoke_repeat_check BUNDLE FUNCTION THREADS CALLS INPUT...
 *
 * Opens BUNDLE once with THREADS workers and calls FUNCTION on the inputs
 * (text form or @file.npy): once for the reference, then CALLS times with
 * results allocated by the runtime, CALLS times into caller storage, and
 * CALLS times from each of two threads at once (one with runtime results,
 * one with caller storage), comparing every result with the reference byte
 * for byte. Run under TSan by cmake/sanitize.sh; by tests/e2e/arena_reuse.sh
 * in the main build. Prints one line and exits 0 when all agree. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graft/runtime.h"

#define MAX_VALUES 16

typedef struct check_t {
  graft_module_t* module;
  uint32_t function;
  const graft_tensor_t* inputs;
  size_t input_count;
  uint32_t result_count;
  const graft_tensor_t* want;
  int calls;
  int caller_storage;
  char error[512];
} check_t;

static int fail(check_t* c, graft_status_t st, const char* what, int call) {
  snprintf(c->error, sizeof(c->error), "%s call %d: %s", what, call,
           st ? graft_status_message(st) : "result differs from the first call");
  graft_status_free(st);
  return 1;
}

/* |c->calls| calls compared with the reference; 0 when all agree. */
static int run_calls(check_t* c, const char* what) {
  graft_tensor_t got[MAX_VALUES];
  memset(got, 0, sizeof(got));
  int rc = 0;
  for (uint32_t r = 0; c->caller_storage && r < c->result_count; ++r) {
    graft_status_t st = graft_tensor_allocate(c->want[r].dtype, c->want[r].rank,
                                              c->want[r].dims, &got[r]);
    if (st) return fail(c, st, what, 0);
  }
  for (int call = 1; !rc && call <= c->calls; ++call) {
    graft_status_t st =
        graft_module_function_invoke(c->module, c->function, c->inputs,
                                     c->input_count, got, c->result_count);
    if (st) rc = fail(c, st, what, call);
    for (uint32_t r = 0; !rc && r < c->result_count; ++r)
      if (got[r].size != c->want[r].size ||
          memcmp(got[r].data, c->want[r].data, (size_t)got[r].size) != 0)
        rc = fail(c, NULL, what, call);
    if (!c->caller_storage)
      for (uint32_t r = 0; r < c->result_count; ++r) graft_tensor_release(&got[r]);
  }
  for (uint32_t r = 0; r < c->result_count; ++r) graft_tensor_release(&got[r]);
  return rc;
}

static void* thread_main(void* arg) {
  check_t* c = arg;
  return run_calls(c, c->caller_storage ? "concurrent caller-storage"
                                        : "concurrent runtime-result")
             ? arg
             : NULL;
}

int main(int argc, char** argv) {
  if (argc < 5 || argc - 5 > MAX_VALUES) {
    fprintf(stderr,
            "usage: %s BUNDLE FUNCTION THREADS CALLS INPUT...\n", argv[0]);
    return 2;
  }
  graft_tensor_t inputs[MAX_VALUES], want[MAX_VALUES];
  memset(inputs, 0, sizeof(inputs));
  memset(want, 0, sizeof(want));
  size_t input_count = (size_t)(argc - 5);
  graft_runtime_options_t options;
  graft_runtime_options_initialize(&options);
  options.threads = (uint32_t)atoi(argv[3]);
  check_t base = {0};
  base.calls = atoi(argv[4]);
  base.inputs = inputs;
  base.input_count = input_count;
  base.want = want;
  graft_function_info_t info = {0};

  graft_status_t st = graft_module_open_file(argv[1], &options, &base.module);
  if (!st) st = graft_module_function_lookup(base.module, argv[2], &base.function);
  if (!st) st = graft_module_function_info(base.module, base.function, &info);
  if (!st && info.result_count > MAX_VALUES)
    st = graft_status_make(GRAFT_UNIMPLEMENTED, "too many results (%u)",
                           info.result_count);
  for (size_t i = 0; !st && i < input_count; ++i)
    st = graft_tensor_parse(argv[5 + i], &inputs[i]);
  if (!st)
    st = graft_module_function_invoke(base.module, base.function, inputs,
                                      input_count, want, info.result_count);
  int rc = 0;
  if (st) {
    fprintf(stderr, "graft_invoke_repeat_check: error: %s\n",
            graft_status_message(st));
    graft_status_free(st);
    rc = 1;
  }
  base.result_count = info.result_count;
  check_t runtime_results = base, caller = base;
  caller.caller_storage = 1;
  if (!rc && (run_calls(&runtime_results, "repeated runtime-result") ||
              run_calls(&caller, "repeated caller-storage"))) {
    fprintf(stderr, "graft_invoke_repeat_check: error: %s\n",
            runtime_results.error[0] ? runtime_results.error : caller.error);
    rc = 1;
  }
  if (!rc) {
    check_t both[2] = {runtime_results, caller};
    pthread_t threads[2];
    int started = 0;
    for (; started < 2; ++started)
      if (pthread_create(&threads[started], NULL, thread_main, &both[started]))
        break;
    for (int t = 0; t < started; ++t) {
      void* failed = NULL;
      pthread_join(threads[t], &failed);
      if (failed) {
        fprintf(stderr, "graft_invoke_repeat_check: error: %s\n", both[t].error);
        rc = 1;
      }
    }
    if (started < 2) {
      fprintf(stderr, "graft_invoke_repeat_check: error: cannot start a thread\n");
      rc = 1;
    }
  }
  if (!rc)
    printf("%s: %d repeated and 2x%d concurrent calls identical to the first\n",
           argv[2], 2 * base.calls, base.calls);
  for (size_t i = 0; i < MAX_VALUES; ++i) {
    graft_tensor_release(&inputs[i]);
    graft_tensor_release(&want[i]);
  }
  graft_module_close(base.module);
  return rc;
}
