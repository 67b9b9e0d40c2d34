/* Runs one function of a library: interprets its host program (integer
 * expressions, checks, buffers, steps) and issues every dispatch over the
 * thread pool. Works on a graft_library_v1_t directly, so tests can hand it
 * a library written in C without any ELF; every library must have passed
 * graft_library_validate first (loader/library_validate.h), which is what
 * lets the executor trust its indices, counts and buffer roles. Internal to
 * graft_runtime. */
#ifndef GRAFT_RUNTIME_EXECUTOR_H_
#define GRAFT_RUNTIME_EXECUTOR_H_

#include <stddef.h>
#include <stdint.h>

#include "exec/arena.h"
#include "exec/expr_memo.h"
#include "exec/import_table.h"
#include "exec/thread_pool.h"
#include "exec/ubsan.h"
#include "graft/abi.h"
#include "graft/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What an invocation runs on; borrowed for the call. */
typedef struct graft_executor_t {
  graft_thread_pool_t* pool;
  graft_trace_fn_t trace; /* NULL = no tracing */
  void* trace_user_data;
  uint32_t guard; /* graft_runtime_guard_t (exec/guard.h) */
  uint32_t timeout_ms; /* 0 = no deadline (exec/watchdog.h) */
  graft_timeout_fn_t on_timeout;
  void* timeout_user_data;
  const graft_import_table_t* imports; /* NULL = the library has none */
  /* Arenas kept across calls (exec/arena.h); NULL = one per call. */
  graft_arena_pool_t* arenas;
  /* What dispatches see as graft_dispatch_state_v1_t.processor_data:
   * GRAFT_PROCESSOR_DATA_WORD_COUNT words, never NULL. */
  const uint64_t* processor_data;
  /* The slice, when it was built with --sanitize=undefined: workgroups run
   * through graft_ubsan_call and a check that fires fails the invocation
   * (exec/ubsan.h). NULL otherwise. */
  const graft_ubsan_slice_t* ubsan;
  /* Host expression values kept across calls (exec/expr_memo.h), indexed
   * by function ordinal; NULL = every call evaluates them. */
  graft_expr_memos_t* memos;
  /* GRAFT_RUNTIME_FLAG_PROFILE: every trace event carries the dispatch's
   * thread and chunk records (exec/loop_profile.h). Set only with
   * |trace|. */
  int profile;
} graft_executor_t;

/* Invokes library->functions[function_ordinal] with the contract of
 * graft_module_function_invoke (see graft/runtime.h): |args| are borrowed,
 * results[i].data == NULL asks the runtime to allocate output i. */
graft_status_t graft_function_invoke(const graft_library_v1_t* library,
                                     uint32_t function_ordinal,
                                     const graft_executor_t* executor,
                                     const graft_tensor_t* args,
                                     size_t arg_count, graft_tensor_t* results,
                                     size_t result_count);

/* Evaluates f->exprs in order into |values| (f->expr_count entries):
 * overflow-checked int64 arithmetic, floor division; division by zero is
 * an error. |f| is validated and |args| were already checked against
 * f->args. Exposed for tests. */
graft_status_t graft_host_exprs_evaluate(const graft_function_v1_t* f,
                                         const graft_tensor_t* args,
                                         int64_t* values);

/* The value of leaf expression |e| (GRAFT_EXPR_ARG_DIM or
 * GRAFT_EXPR_ARG_SCALAR) for |args|, checked as above. */
int64_t graft_host_expr_leaf(const graft_expr_v1_t* e,
                             const graft_tensor_t* args);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_EXECUTOR_H_ */
