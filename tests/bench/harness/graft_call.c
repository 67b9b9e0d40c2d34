/* One function of a graft bundle, opened for timing (graft_call.h). */
#include "graft_call.h"

graft_status_t graft_call(void* user) {
  graft_call_t* c = user;
  graft_status_t st =
      graft_module_function_invoke(c->module, c->function, c->inputs,
                                   c->input_count, c->outputs, c->result_count);
  if (c->where == BENCH_OUTPUTS_RUNTIME)
    for (uint32_t i = 0; i < c->result_count; ++i)
      graft_tensor_release(&c->outputs[i]);
  return st;
}

graft_status_t graft_call_open(const bench_options_t* o, const char* bundle,
                               const char* function,
                               const graft_tensor_t* inputs,
                               size_t input_count,
                               graft_profile_log_t* profile,
                               graft_call_t* call) {
  graft_function_info_t info = {0};
  graft_runtime_options_t options;
  graft_runtime_options_initialize(&options);
  options.threads = o->threads;
  if (o->unpinned) options.flags |= GRAFT_RUNTIME_FLAG_UNPINNED;
  if (profile) {
    options.flags |= GRAFT_RUNTIME_FLAG_PROFILE;
    options.trace = graft_profile_log_record;
    options.trace_user_data = profile;
  }
  call->profile = profile;
  call->where = o->outputs;
  call->inputs = inputs;
  call->input_count = input_count;
  call->name = function;
  graft_status_t st = graft_module_open_file(bundle, &options, &call->module);
  if (!st)
    st = graft_module_function_lookup(call->module, function, &call->function);
  if (!st)
    st = graft_module_function_info(call->module, call->function, &info);
  if (!st && info.result_count > BENCH_MAX_VALUES)
    st = graft_status_make(GRAFT_UNIMPLEMENTED,
                           "'%s' has %u results, at most %d", info.name,
                           info.result_count, BENCH_MAX_VALUES);
  /* Warm-up: first touch of the pool's threads and of pages; its results
   * are the ones checked against the reference. */
  if (!st) {
    call->result_count = info.result_count;
    st = graft_module_function_invoke(call->module, call->function, inputs,
                                      input_count, call->outputs,
                                      call->result_count);
  }
  return st;
}

graft_status_t graft_call_ready(graft_call_t* c) {
  for (uint32_t i = 0; i < c->result_count; ++i) {
    graft_tensor_t storage = {0};
    if (c->where == BENCH_OUTPUTS_CALLER) {
      /* Later calls have the same shapes: the inputs do not change. */
      graft_status_t st =
          graft_tensor_allocate(c->outputs[i].dtype, c->outputs[i].rank,
                                c->outputs[i].dims, &storage);
      if (st)
        return st;
    }
    graft_tensor_release(&c->outputs[i]);
    c->outputs[i] = storage;
  }
  return NULL;
}

void graft_call_close(graft_call_t* c) {
  for (int i = 0; i < BENCH_MAX_VALUES; ++i)
    graft_tensor_release(&c->outputs[i]);
  graft_module_close(c->module);
  c->module = NULL;
}
