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
#include "graft/profile.h"
#include "graft/runtime.h"
#include "modes.h"

typedef struct graft_call_t {
  graft_module_t* module;
  uint32_t function;
  const graft_tensor_t* inputs;
  size_t input_count;
  graft_tensor_t* outputs;
  uint32_t result_count;
  bench_outputs_t where;
  graft_profile_log_t* profile; /* --profile, else NULL */
} graft_call_t;

static graft_status_t graft_call(void* user) {
  graft_call_t* c = user;
  graft_status_t st =
      graft_module_function_invoke(c->module, c->function, c->inputs,
                                   c->input_count, c->outputs, c->result_count);
  if (c->where == BENCH_OUTPUTS_RUNTIME)
    for (uint32_t i = 0; i < c->result_count; ++i)
      graft_tensor_release(&c->outputs[i]);
  return st;
}

/* --profile: graft_call bracketed in the profile log (a function of its
 * own, so that an unprofiled run times graft_call alone). */
static graft_status_t graft_call_profiled(void* user) {
  graft_call_t* c = user;
  graft_profile_log_begin_call(c->profile);
  graft_status_t st = graft_call(user);
  graft_profile_log_end_call(c->profile);
  return st;
}

/* Replaces the warm-up call's runtime-allocated results by caller storage
 * of the same shapes (the results of later calls have the same shapes:
 * the inputs do not change). */
static graft_status_t allocate_caller_outputs(graft_tensor_t* outputs,
                                              uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    graft_tensor_t storage = {0};
    graft_status_t st = graft_tensor_allocate(outputs[i].dtype, outputs[i].rank,
                                              outputs[i].dims, &storage);
    if (st)
      return st;
    graft_tensor_release(&outputs[i]);
    outputs[i] = storage;
  }
  return NULL;
}

graft_status_t bench_run_graft(const bench_options_t* o) {
  if (o->positional_count < 2)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "needs BUNDLE and FUNCTION, found %d "
                             "argument(s)",
                             o->positional_count);
  graft_tensor_t inputs[BENCH_MAX_VALUES] = {{0}};
  graft_tensor_t outputs[BENCH_MAX_VALUES] = {{0}};
  graft_function_info_t info = {0};
  graft_call_t call = {0};
  graft_runtime_options_t options;
  graft_runtime_options_initialize(&options);
  options.threads = o->threads;
  graft_status_t st = NULL;
  if (o->profile) {
    st = graft_profile_log_create(&call.profile);
    options.flags |= GRAFT_RUNTIME_FLAG_PROFILE;
    options.trace = graft_profile_log_record;
    options.trace_user_data = call.profile;
  }

  if (!st)
    st = graft_module_open_file(o->positional[0], &options, &call.module);
  if (!st)
    st = graft_module_function_lookup(call.module, o->positional[1],
                                      &call.function);
  if (!st)
    st = graft_module_function_info(call.module, call.function, &info);
  if (!st && info.result_count > BENCH_MAX_VALUES)
    st = graft_status_make(GRAFT_UNIMPLEMENTED,
                           "'%s' has %u results, at most %d", info.name,
                           info.result_count, BENCH_MAX_VALUES);
  if (!st)
    st = bench_read_inputs(o->positional + 2, o->positional_count - 2, inputs);
  call.inputs = inputs;
  call.input_count = (size_t)o->positional_count - 2;
  call.outputs = outputs;
  call.result_count = info.result_count;
  call.where = o->outputs;
  /* Warm-up: first touch of the pool's threads and of pages; its results
   * are the ones checked against the reference. */
  if (!st)
    st = graft_module_function_invoke(call.module, call.function, inputs,
                                      call.input_count, outputs,
                                      info.result_count);
  if (!st && o->save)
    st = bench_save_results(o->save, outputs, info.result_count);
  if (!st && o->outputs == BENCH_OUTPUTS_CALLER)
    st = allocate_caller_outputs(outputs, info.result_count);
  else
    for (uint32_t i = 0; i < BENCH_MAX_VALUES; ++i)
      graft_tensor_release(&outputs[i]);

  char extra[128];
  snprintf(extra, sizeof(extra), "\"outputs\": \"%s\"",
           o->outputs == BENCH_OUTPUTS_CALLER ? "caller" : "runtime");
  if (call.profile) graft_profile_log_clear(call.profile); /* the warm-up */
  if (!st)
    st = bench_measure(o, call.profile ? graft_call_profiled : graft_call,
                       &call, "graft",
                       graft_module_thread_count(call.module), extra);
  if (!st && call.profile) {
    fflush(stdout); /* the row first */
    uint32_t threads = graft_module_thread_count(call.module);
    fprintf(stderr, "profile: %zu calls of '%s' after the warm-up, %u "
            "thread%s\n", graft_profile_log_call_count(call.profile),
            info.name, threads, threads == 1 ? "" : "s");
    st = graft_profile_log_print_summary(call.profile, stderr);
  }
  for (int i = 0; i < BENCH_MAX_VALUES; ++i) {
    graft_tensor_release(&inputs[i]);
    graft_tensor_release(&outputs[i]);
  }
  graft_module_close(call.module);
  graft_profile_log_free(call.profile);
  return st;
}
