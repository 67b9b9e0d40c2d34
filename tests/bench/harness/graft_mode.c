/* graft_bench's graft mode: open a bundle through the public C API, invoke
 * one function on .npy inputs and time the invocations in-process (no
 * process start-up or file parsing inside the timed region).
 *
 * Results go where --outputs says (bench.h): by default the runtime
 * allocates them and each call releases them again, which is how a caller
 * uses graft_module_function_invoke today.
 *
 * --profile opens the module with GRAFT_RUNTIME_FLAG_PROFILE and a profile
 * log (graft/profile.h), brackets every call after the warm-up (the
 * calibration's and the timed samples') and prints the log's per-dispatch
 * summary to stderr after the row. */
#include <stdio.h>

#include "bench.h"
#include "graft_call.h"
#include "modes.h"

/* --profile: graft_call bracketed in the profile log (a function of its
 * own, so that an unprofiled run times graft_call alone). */
static graft_status_t graft_call_profiled(void* user) {
  graft_call_t* c = user;
  graft_profile_log_begin_call(c->profile);
  graft_status_t st = graft_call(user);
  graft_profile_log_end_call(c->profile);
  return st;
}

graft_status_t bench_run_graft(const bench_options_t* o) {
  graft_status_t need = bench_need_arguments(o, 2, "BUNDLE and FUNCTION");
  if (need)
    return need;
  graft_tensor_t inputs[BENCH_MAX_VALUES] = {{0}};
  graft_call_t call = {0};
  graft_profile_log_t* profile = NULL;
  graft_status_t st = NULL;
  if (o->profile)
    st = graft_profile_log_create(&profile);
  int input_count = o->positional_count - 2;
  if (!st)
    st = bench_read_inputs(o->positional + 2, input_count, inputs);
  if (!st)
    st = graft_call_open(o, o->positional[0], o->positional[1], inputs,
                         (size_t)input_count, profile, &call);
  if (!st && o->save)
    st = bench_save_results(o->save, call.outputs, call.result_count);
  if (!st)
    st = graft_call_ready(&call);

  char extra[128];
  snprintf(extra, sizeof(extra), "\"outputs\": \"%s\", \"pinned_workers\": %u",
           o->outputs == BENCH_OUTPUTS_CALLER ? "caller" : "runtime",
           st ? 0u : graft_module_pinned_workers(call.module));
  if (profile) graft_profile_log_clear(profile); /* the warm-up */
  if (!st)
    st = bench_measure(o, profile ? graft_call_profiled : graft_call, &call,
                       "graft", graft_module_thread_count(call.module), extra);
  if (!st && profile) {
    fflush(stdout); /* the row first */
    uint32_t threads = graft_module_thread_count(call.module);
    fprintf(stderr, "profile: %zu calls of '%s' after the warm-up, %u "
            "thread%s\n", graft_profile_log_call_count(profile),
            call.name, threads, threads == 1 ? "" : "s");
    st = graft_profile_log_print_summary(profile, stderr);
  }
  for (int i = 0; i < BENCH_MAX_VALUES; ++i)
    graft_tensor_release(&inputs[i]);
  graft_call_close(&call);
  graft_profile_log_free(profile);
  return st;
}
