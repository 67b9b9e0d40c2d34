/* graft-run's passes over one context (see run.h):
 *   open -> (list | parse inputs -> invoke -> benchmark -> emit results). */
#define _POSIX_C_SOURCE 200809L
#include "run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compare.h"
#include "report.h"
#include "graft/profile.h"
#include "graft/runtime.h"

typedef struct run_ctx_t {
  const graft_run_options_t* options;
  graft_module_t* module;
  uint32_t function;
  graft_function_info_t info;
  graft_tensor_t* inputs;   /* options->input_count */
  graft_tensor_t* expected; /* options->expected_count */
  graft_tensor_t* results;  /* info.result_count */
  graft_profile_log_t* profile; /* --profile, else NULL */
} run_ctx_t;

/* Loads every --plugin, in order, into a new manager (NULL when none). */
static graft_status_t load_plugins(const graft_run_options_t* o,
                                   graft_plugin_manager_t** out_manager) {
  *out_manager = NULL;
  if (o->plugin_count == 0) return NULL;
  graft_status_t st = graft_plugin_manager_create(out_manager);
  for (size_t i = 0; !st && i < o->plugin_count; ++i) {
    const graft_run_plugin_t* p = &o->plugins[i];
    st = graft_plugin_manager_load_file(*out_manager, p->path, p->params,
                                        p->param_count);
  }
  return st;
}

/* --timeout: a kernel thread stuck past the deadline cannot be stopped, so
 * graft-run reports it and ends the process from the watchdog's thread. */
static void end_on_timeout(const graft_timeout_event_t* event, void* unused) {
  (void)unused;
  graft_run_error("%s", event->message);
  fflush(stderr);
  _exit(1);
}

/* Opens the bundle with the requested threads, tracing, guard, deadline
 * and plugins. The module keeps the plugins loaded as long as it needs
 * them. */
static graft_status_t open_module(run_ctx_t* ctx) {
  graft_runtime_options_t options;
  graft_runtime_options_initialize(&options);
  options.threads = ctx->options->threads;
  options.isa = ctx->options->isa;
  options.guard = ctx->options->guard;
  options.timeout_ms = ctx->options->timeout_ms;
  options.on_timeout = end_on_timeout;
  if (ctx->options->trace) options.flags |= GRAFT_RUNTIME_FLAG_TRACE_STDERR;
  if (ctx->options->unpinned) options.flags |= GRAFT_RUNTIME_FLAG_UNPINNED;
  graft_status_t st = NULL;
  if (ctx->options->profile) {
    /* The file is written after the last call; a path that cannot be
     * written fails here, before any call runs. */
    FILE* f = fopen(ctx->options->profile, "w");
    if (!f)
      return graft_status_make(
          GRAFT_NOT_FOUND, "--profile '%s': cannot write '%s': %s",
          ctx->options->profile, ctx->options->profile, strerror(errno));
    fclose(f);
    st = graft_profile_log_create(&ctx->profile);
    if (st) return st;
    options.flags |= GRAFT_RUNTIME_FLAG_PROFILE;
    options.trace = graft_profile_log_record;
    options.trace_user_data = ctx->profile;
  }
  st = load_plugins(ctx->options, &options.plugins);
  if (!st)
    st = graft_module_open_file(ctx->options->bundle, &options, &ctx->module);
  if (!st && ctx->options->trace && graft_module_isa(ctx->module)[0])
    fprintf(stderr, "[trace] isa %s\n", graft_module_isa(ctx->module));
  graft_plugin_manager_release(options.plugins);
  return st;
}

/* --list: one signature per line. */
static graft_status_t list_functions(run_ctx_t* ctx) {
  for (uint32_t i = 0; i < graft_module_function_count(ctx->module); ++i) {
    char* text = NULL;
    graft_status_t st =
        graft_module_function_format_signature(ctx->module, i, &text);
    if (st) return st;
    printf("%s\n", text);
    free(text);
  }
  return NULL;
}

/* Parses every --input and --expected_output, naming the flag on error. */
static graft_status_t parse_values(run_ctx_t* ctx) {
  const graft_run_options_t* o = ctx->options;
  ctx->inputs = calloc(o->input_count + 1, sizeof(graft_tensor_t));
  ctx->expected = calloc(o->expected_count + 1, sizeof(graft_tensor_t));
  ctx->results = calloc(ctx->info.result_count + 1, sizeof(graft_tensor_t));
  if (!ctx->inputs || !ctx->expected || !ctx->results)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED, "out of memory");
  for (size_t i = 0; i < o->input_count; ++i) {
    graft_status_t st = graft_tensor_parse(o->inputs[i], &ctx->inputs[i]);
    if (st) return graft_status_annotate(st, "--input '%s'", o->inputs[i]);
  }
  for (size_t i = 0; i < o->expected_count; ++i) {
    graft_status_t st = graft_tensor_parse(o->expected[i], &ctx->expected[i]);
    if (st)
      return graft_status_annotate(st, "--expected_output '%s'", o->expected[i]);
  }
  if (o->expected_count && o->expected_count != ctx->info.result_count)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "%zu --expected_output values for %u results of "
                             "'%s'",
                             o->expected_count, ctx->info.result_count,
                             ctx->info.name);
  if (o->output_count > ctx->info.result_count)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "%zu --output flags for %u result%s of '%s'",
                             o->output_count, ctx->info.result_count,
                             ctx->info.result_count == 1 ? "" : "s",
                             ctx->info.name);
  return NULL;
}

static graft_status_t invoke(run_ctx_t* ctx, graft_tensor_t* results) {
  if (ctx->profile) graft_profile_log_begin_call(ctx->profile);
  graft_status_t st = graft_module_function_invoke(
      ctx->module, ctx->function, ctx->inputs, ctx->options->input_count,
      results, ctx->info.result_count);
  if (ctx->profile) graft_profile_log_end_call(ctx->profile);
  return st;
}

/* "16 threads (15 workers pinned)", "1 thread": the module's pool, for the
 * --profile and --benchmark lines. */
static void describe_threads(const graft_module_t* module, char* out,
                             size_t size) {
  uint32_t threads = graft_module_thread_count(module);
  uint32_t pinned = graft_module_pinned_workers(module);
  int n = snprintf(out, size, "%u thread%s", threads, threads == 1 ? "" : "s");
  if (pinned && n > 0 && (size_t)n < size)
    snprintf(out + n, size - (size_t)n, " (%u worker%s pinned)", pinned,
             pinned == 1 ? "" : "s");
}

/* --profile: the summary of every call (the first and --benchmark's) to
 * stderr, the Chrome trace to the file. */
static graft_status_t write_profile(run_ctx_t* ctx) {
  const char* isa = graft_module_isa(ctx->module);
  char threads[64];
  describe_threads(ctx->module, threads, sizeof(threads));
  fprintf(stderr, "profile: %zu call%s of '%s', %s%s%s\n",
          graft_profile_log_call_count(ctx->profile),
          graft_profile_log_call_count(ctx->profile) == 1 ? "" : "s",
          ctx->info.name, threads, isa[0] ? ", isa " : "", isa);
  graft_status_t st = graft_profile_log_print_summary(ctx->profile, stderr);
  if (!st)
    st = graft_profile_log_write_chrome(ctx->profile, ctx->options->profile);
  if (st) return graft_status_annotate(st, "--profile '%s'", ctx->options->profile);
  return NULL;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* --benchmark N: the results of the first call are kept (it is the warm-up);
 * then N more calls are timed. */
static graft_status_t benchmark(run_ctx_t* ctx) {
  uint32_t runs = ctx->options->benchmark_runs;
  graft_tensor_t* scratch = calloc(ctx->info.result_count + 1,
                                   sizeof(graft_tensor_t));
  if (!scratch) return graft_status_make(GRAFT_RESOURCE_EXHAUSTED, "out of memory");
  double total = 0, best = 0;
  graft_status_t st = NULL;
  for (uint32_t r = 0; r < runs && !st; ++r) {
    double start = now_ms();
    st = invoke(ctx, scratch);
    double elapsed = now_ms() - start;
    for (uint32_t i = 0; i < ctx->info.result_count; ++i)
      graft_tensor_release(&scratch[i]);
    total += elapsed;
    if (r == 0 || elapsed < best) best = elapsed;
  }
  free(scratch);
  char threads[64];
  describe_threads(ctx->module, threads, sizeof(threads));
  if (!st)
    fprintf(stderr,
            "benchmark: %s, %u runs, mean %.4f ms, min %.4f ms, %s%s%s\n",
            ctx->info.name, runs, total / runs, best, threads,
            graft_module_isa(ctx->module)[0] ? ", isa " : "",
            graft_module_isa(ctx->module));
  return st;
}

/* Prints, writes or checks each result. */
static graft_status_t emit_results(run_ctx_t* ctx) {
  const graft_run_options_t* o = ctx->options;
  for (uint32_t i = 0; i < ctx->info.result_count; ++i) {
    const graft_tensor_t* t = &ctx->results[i];
    if (o->expected_count) {
      graft_status_t st = graft_run_compare(t, &ctx->expected[i], o->atol, o->rtol);
      if (st) return graft_status_annotate(st, "result %u of '%s'", i + 1,
                                           ctx->info.name);
    }
    /* A requested file is written even when the result is also checked. */
    if (i < o->output_count && o->outputs[i][0] == '@') {
      graft_status_t st = graft_tensor_write_file(o->outputs[i] + 1, t);
      if (st) return graft_status_annotate(st, "--output '%s'", o->outputs[i]);
      continue;
    }
    if (o->expected_count) continue; /* checked: [SUCCESS] says so below */
    char* text = NULL;
    graft_status_t st = graft_tensor_format(t, &text);
    if (st) return st;
    printf("%s\n", text);
    free(text);
  }
  if (o->expected_count)
    printf("[SUCCESS] all %u results of '%s' matched the expected values\n",
           ctx->info.result_count, ctx->info.name);
  return NULL;
}

/* --function, or the bundle's only function when it has one. */
static graft_status_t select_function(run_ctx_t* ctx) {
  if (ctx->options->function)
    return graft_module_function_lookup(ctx->module, ctx->options->function,
                                        &ctx->function);
  uint32_t n = graft_module_function_count(ctx->module);
  if (n == 1) {
    ctx->function = 0;
    return NULL;
  }
  return graft_status_make(GRAFT_INVALID_ARGUMENT,
                           "no --function given and module '%s' has %u "
                           "functions (see --list)",
                           graft_module_name(ctx->module), n);
}

int graft_run(const graft_run_options_t* options) {
  run_ctx_t ctx;
  memset(&ctx, 0, sizeof(ctx));
  ctx.options = options;
  graft_status_t st = open_module(&ctx);
  if (!st && options->list) {
    st = list_functions(&ctx);
  } else if (!st) {
    st = select_function(&ctx);
    if (!st) st = graft_module_function_info(ctx.module, ctx.function, &ctx.info);
    if (!st) st = parse_values(&ctx);
    if (!st) st = invoke(&ctx, ctx.results);
    if (!st && options->benchmark_runs) st = benchmark(&ctx);
    if (!st && ctx.profile) st = write_profile(&ctx);
    if (!st) st = emit_results(&ctx);
  }
  int exit_code = 0;
  if (st) {
    graft_run_error("%s", graft_status_message(st));
    graft_status_free(st);
    exit_code = 1;
  }
  for (size_t i = 0; ctx.inputs && i < options->input_count; ++i)
    graft_tensor_release(&ctx.inputs[i]);
  for (size_t i = 0; ctx.expected && i < options->expected_count; ++i)
    graft_tensor_release(&ctx.expected[i]);
  for (uint32_t i = 0; ctx.results && i < ctx.info.result_count; ++i)
    graft_tensor_release(&ctx.results[i]);
  free(ctx.inputs);
  free(ctx.expected);
  free(ctx.results);
  graft_module_close(ctx.module);
  graft_profile_log_free(ctx.profile);
  return exit_code;
}
