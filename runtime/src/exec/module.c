/* The public module API except opening (see graft/runtime.h): listing,
 * lookup, signatures and invocation over a library already in memory.
 * Opening a bundle through the loader lives in api.c, so that this file
 * (and the tests using it) do not depend on the loader. */
#include "exec/module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/arena.h"
#include "exec/executor.h"
#include "exec/expr_memo.h"
#include "exec/guard.h"
#include "exec/import_table.h"
#include "exec/signature.h"
#include "exec/thread_pool.h"
#include "exec/ubsan.h"

struct graft_module_s {
  const graft_library_v1_t* library;
  const char* isa; /* level of the ISA variant |library| is, or "" */
  graft_import_table_t* imports; /* resolved; holds the plugin manager */
  graft_thread_pool_t* pool;
  graft_arena_pool_t* arenas; /* kept across calls (exec/arena.h) */
  graft_expr_memos_t* memos;  /* likewise (exec/expr_memo.h) */
  /* What every call runs on: the resources above (borrowed), the trace,
   * guard and deadline settings, processor_data and ubsan below. Built
   * once, so a call does not assemble it. */
  graft_executor_t executor;
  void (*release)(void* arg);
  void* release_arg;
  /* What every dispatch sees as its processor_data: the CPU's feature
   * words when the loader opened the module, zero for a library built
   * in memory (graft_module_set_processor_data). */
  uint64_t processor_data[GRAFT_PROCESSOR_DATA_WORD_COUNT];
  /* --sanitize=undefined slices: where the slice is; name NULL otherwise. */
  graft_ubsan_slice_t ubsan;
};

void graft_runtime_options_initialize(graft_runtime_options_t* out_options) {
  memset(out_options, 0, sizeof(*out_options));
}

/* GRAFT_RUNTIME_FLAG_TRACE_STDERR: one line per dispatch. */
static void trace_to_stderr(const graft_trace_event_t* e, void* user_data) {
  (void)user_data;
  fprintf(stderr, "[trace] %s: %s%s%s%s grid %ux%ux%u %.3f ms\n", e->function,
          e->dispatch, e->source[0] ? " (" : "", e->source,
          e->source[0] ? ")" : "", e->workgroup_count[0],
          e->workgroup_count[1], e->workgroup_count[2],
          (double)e->duration_ns / 1e6);
}

graft_status_t graft_module_create_from_library(
    const graft_library_v1_t* library, const graft_runtime_options_t* options,
    void (*release)(void* arg), void* release_arg,
    graft_module_t** out_module) {
  *out_module = NULL;
  graft_runtime_options_t defaults;
  graft_runtime_options_initialize(&defaults);
  if (!options) options = &defaults;
  if (options->guard >= GRAFT_RUNTIME_GUARD_COUNT_)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "unknown guard mode %u (expected 0 to %u)",
                             options->guard, GRAFT_RUNTIME_GUARD_COUNT_ - 1);
  if (options->guard) {
    graft_status_t st = graft_guard_install_handler();
    if (st) return st;
  }
  graft_module_t* m = calloc(1, sizeof(*m));
  if (!m)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "out of memory creating a module");
  /* Imports first: a library whose required imports nobody provides is
   * refused before any thread starts. */
  graft_status_t st =
      graft_import_table_create(library, options->plugins, &m->imports);
  if (!st) st = graft_thread_pool_create(
                           options->threads,
                           !(options->flags & GRAFT_RUNTIME_FLAG_UNPINNED), &m->pool);
  if (!st) st = graft_arena_pool_create(&m->arenas);
  if (!st) st = graft_expr_memos_create(library, &m->memos);
  if (st) {
    graft_arena_pool_destroy(m->arenas);
    graft_thread_pool_destroy(m->pool);
    graft_import_table_free(m->imports);
    free(m);
    return st;
  }
  m->library = library;
  m->isa = "";
  graft_trace_fn_t trace = options->trace;
  if (!trace && (options->flags & GRAFT_RUNTIME_FLAG_TRACE_STDERR))
    trace = trace_to_stderr;
  m->executor = (graft_executor_t){m->pool,
                                   trace,
                                   options->trace_user_data,
                                   options->guard,
                                   options->timeout_ms,
                                   options->on_timeout,
                                   options->timeout_user_data,
                                   m->imports,
                                   m->arenas,
                                   m->processor_data,
                                   NULL /* graft_module_set_ubsan */,
                                   m->memos,
                                   trace && (options->flags &
                                             GRAFT_RUNTIME_FLAG_PROFILE)};
  m->release = release;
  m->release_arg = release_arg;
  *out_module = m;
  return NULL;
}

void graft_module_close(graft_module_t* module) {
  if (!module) return;
  graft_thread_pool_destroy(module->pool);
  graft_arena_pool_destroy(module->arenas);
  graft_expr_memos_free(module->memos);
  if (module->release) module->release(module->release_arg);
  /* After the library: no code of the slice can call a plugin any more
   * when the last reference may unload them. */
  graft_import_table_free(module->imports);
  free(module);
}

const char* graft_module_name(const graft_module_t* module) {
  return module->library->name ? module->library->name : "";
}

const char* graft_module_isa(const graft_module_t* module) {
  return module->isa;
}

void graft_module_set_isa(graft_module_t* module, const char* level) {
  module->isa = level;
}

void graft_module_set_processor_data(
    graft_module_t* module,
    const uint64_t words[GRAFT_PROCESSOR_DATA_WORD_COUNT]) {
  memcpy(module->processor_data, words, sizeof(module->processor_data));
}

void graft_module_set_ubsan(graft_module_t* module, uintptr_t base,
                            const char* slice_name) {
  module->ubsan.base = base;
  module->ubsan.name = slice_name;
  module->executor.ubsan = slice_name ? &module->ubsan : NULL;
}

uint32_t graft_module_thread_count(const graft_module_t* module) {
  return graft_thread_pool_size(module->pool);
}

uint32_t graft_module_pinned_workers(const graft_module_t* module) {
  return graft_thread_pool_pinned_workers(module->pool);
}

uint32_t graft_module_function_count(const graft_module_t* module) {
  return module->library->function_count;
}

static graft_status_t check_ordinal(const graft_module_t* module,
                                    uint32_t ordinal) {
  if (ordinal >= module->library->function_count)
    return graft_status_make(GRAFT_NOT_FOUND,
                             "function ordinal %u out of range (module '%s' "
                             "has %u functions)",
                             ordinal, graft_module_name(module),
                             module->library->function_count);
  return NULL;
}

graft_status_t graft_module_function_info(const graft_module_t* module,
                                          uint32_t ordinal,
                                          graft_function_info_t* out_info) {
  memset(out_info, 0, sizeof(*out_info));
  graft_status_t st = check_ordinal(module, ordinal);
  if (st) return st;
  const graft_function_v1_t* f = &module->library->functions[ordinal];
  out_info->name = f->name;
  out_info->arg_count = f->arg_count;
  out_info->result_count = f->result_count;
  out_info->args = f->args;
  out_info->results = f->results;
  return NULL;
}

graft_status_t graft_module_function_lookup(const graft_module_t* module,
                                            const char* name,
                                            uint32_t* out_ordinal) {
  const graft_library_v1_t* lib = module->library;
  for (uint32_t i = 0; i < lib->function_count; ++i) {
    if (strcmp(lib->functions[i].name, name) == 0) {
      *out_ordinal = i;
      return NULL;
    }
  }
  /* List what exists: the usual cause is a typo. */
  size_t length = 1;
  for (uint32_t i = 0; i < lib->function_count; ++i)
    length += strlen(lib->functions[i].name) + 2;
  char* names = malloc(length);
  if (names) {
    names[0] = 0;
    for (uint32_t i = 0; i < lib->function_count; ++i) {
      if (i) strcat(names, ", ");
      strcat(names, lib->functions[i].name);
    }
  }
  graft_status_t st = graft_status_make(
      GRAFT_NOT_FOUND, "no function '%s' in module '%s' (available: %s)", name,
      graft_module_name(module),
      names && names[0] ? names : "none");
  free(names);
  return st;
}

graft_status_t graft_module_function_format_signature(
    const graft_module_t* module, uint32_t ordinal, char** out_text) {
  *out_text = NULL;
  graft_status_t st = check_ordinal(module, ordinal);
  if (st) return st;
  return graft_function_format_signature(&module->library->functions[ordinal],
                                         out_text);
}

graft_status_t graft_module_function_invoke(graft_module_t* module,
                                            uint32_t ordinal,
                                            const graft_tensor_t* inputs,
                                            size_t input_count,
                                            graft_tensor_t* outputs,
                                            size_t output_count) {
  graft_status_t st = check_ordinal(module, ordinal);
  if (st) return st;
  /* Executor errors already name the function, dispatch or source line. */
  return graft_function_invoke(module->library, ordinal, &module->executor,
                               inputs, input_count, outputs, output_count);
}
