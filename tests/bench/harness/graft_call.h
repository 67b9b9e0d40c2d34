/* One function of a graft bundle, opened for timing through the public C
 * API: the module, the function, its inputs and where its results go. The
 * graft and graft-ab modes of graft_bench share it. */
#ifndef GRAFT_BENCH_GRAFT_CALL_H_
#define GRAFT_BENCH_GRAFT_CALL_H_

#include "bench.h"
#include "graft/profile.h"
#include "graft/runtime.h"

typedef struct graft_call_t {
  graft_module_t* module;
  uint32_t function;
  const char* name;
  const graft_tensor_t* inputs;
  size_t input_count;
  graft_tensor_t outputs[BENCH_MAX_VALUES];
  uint32_t result_count;
  bench_outputs_t where;
  graft_profile_log_t* profile; /* --profile, else NULL */
} graft_call_t;

/* Opens |bundle| with the options' threads (and |profile|, may be NULL),
 * looks up |function| and makes the untimed warm-up call on |inputs|, whose
 * results stay in |call->outputs|: the caller may save or compare them,
 * then calls graft_call_ready. On failure |call| still needs
 * graft_call_close. */
graft_status_t graft_call_open(const bench_options_t* options,
                               const char* bundle, const char* function,
                               const graft_tensor_t* inputs,
                               size_t input_count,
                               graft_profile_log_t* profile,
                               graft_call_t* call);

/* After the warm-up: results go where --outputs says from here on (caller
 * storage of the warm-up results' shapes, allocated once, or none). */
graft_status_t graft_call_ready(graft_call_t* call);

/* One invocation (bench_call_fn_t); runtime-allocated results are released
 * again, as a caller of the C API does. */
graft_status_t graft_call(void* user);

void graft_call_close(graft_call_t* call);

#endif /* GRAFT_BENCH_GRAFT_CALL_H_ */
