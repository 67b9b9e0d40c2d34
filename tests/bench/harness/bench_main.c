/* graft_bench: in-process timing of graft bundles through the public C API
 * (no process start-up or file parsing inside the timed region), plus the
 * naive C matmul reference. tests/bench/run_bench.py drives it; each run
 * prints one JSON object on stdout.
 *
 *   graft_bench graft BUNDLE FUNCTION [options] INPUT.npy...
 *   graft_bench naive-matmul LHS.npy RHS.npy [options]
 *
 * options: --threads N (graft; 0 = all CPUs), --reps N (timed calls, after
 * one untimed warm-up; 0 = only the warm-up, to produce results to check
 * before anything is timed), --budget-ms MS (stop timing early once the
 * calls add up to MS), --save PATH (graft: write result i to PATH<i>.npy;
 * naive: write the product to PATH) from the warm-up call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graft/runtime.h"
#include "naive_matmul.h"
#include "timing.h"

#define MAX_VALUES 16

typedef struct bench_options_t {
  const char* mode;
  const char* positional[MAX_VALUES + 2];
  int positional_count;
  uint32_t threads;
  uint32_t reps;
  double budget_ms;
  const char* save;
} bench_options_t;

static void usage(void) {
  fprintf(stderr,
          "usage: graft_bench graft BUNDLE FUNCTION [options] INPUT.npy...\n"
          "       graft_bench naive-matmul LHS.npy RHS.npy [options]\n"
          "options: --threads N  --reps N  --budget-ms MS  --save PATH\n");
}

/* Parses a non-negative integer flag value; 0 on success. */
static int parse_uint(const char* flag, const char* text, uint32_t* out) {
  char* end = NULL;
  unsigned long value = strtoul(text, &end, 10);
  if (!*text || *end || text[0] == '-' || value > 1000000000ul) {
    fprintf(stderr, "error: %s expects a non-negative integer, found '%s'\n",
            flag, text);
    return 1;
  }
  *out = (uint32_t)value;
  return 0;
}

static int parse_options(int argc, char** argv, bench_options_t* o) {
  memset(o, 0, sizeof(*o));
  o->reps = 10;
  o->budget_ms = 1e9;
  if (argc < 2) return 1;
  o->mode = argv[1];
  for (int i = 2; i < argc; ++i) {
    const char* arg = argv[i];
    int has_value = i + 1 < argc;
    if (!strcmp(arg, "--threads") && has_value) {
      if (parse_uint(arg, argv[++i], &o->threads)) return 1;
    } else if (!strcmp(arg, "--reps") && has_value) {
      if (parse_uint(arg, argv[++i], &o->reps)) return 1;
    } else if (!strcmp(arg, "--budget-ms") && has_value) {
      uint32_t ms = 0;
      if (parse_uint(arg, argv[++i], &ms)) return 1;
      o->budget_ms = ms;
    } else if (!strcmp(arg, "--save") && has_value) {
      o->save = argv[++i];
    } else if (!strncmp(arg, "--", 2)) {
      fprintf(stderr, "error: unknown option or missing value: '%s'\n", arg);
      return 1;
    } else if (o->positional_count < MAX_VALUES + 2) {
      o->positional[o->positional_count++] = arg;
    } else {
      fprintf(stderr, "error: more than %d inputs\n", MAX_VALUES);
      return 1;
    }
  }
  return 0;
}

static void print_timing(const char* name, uint32_t threads,
                         const bench_timing_t* t) {
  if (t->reps == 0) { /* --reps 0: nothing was timed */
    printf("{\"function\": \"%s\", \"threads\": %u, \"reps\": 0}\n", name,
           threads);
    return;
  }
  printf("{\"function\": \"%s\", \"threads\": %u, \"reps\": %u, "
         "\"min_ms\": %.6f, \"median_ms\": %.6f, \"mean_ms\": %.6f}\n",
         name, threads, t->reps, t->min_ms, t->median_ms, t->mean_ms);
}

/* ---- graft mode ---------------------------------------------------------- */

typedef struct graft_call_t {
  graft_module_t* module;
  uint32_t function;
  const graft_tensor_t* inputs;
  size_t input_count;
  graft_tensor_t* outputs; /* result_count, runtime-allocated per call */
  uint32_t result_count;
} graft_call_t;

/* One invocation, results allocated by the runtime and released again: the
 * same work a caller (or numpy, which allocates its results) does. */
static graft_status_t graft_call(void* user) {
  graft_call_t* c = user;
  graft_status_t st = graft_module_function_invoke(
      c->module, c->function, c->inputs, c->input_count, c->outputs,
      c->result_count);
  for (uint32_t i = 0; i < c->result_count; ++i)
    graft_tensor_release(&c->outputs[i]);
  return st;
}

static graft_status_t save_results(const char* prefix,
                                   const graft_tensor_t* results,
                                   uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    char path[4096];
    snprintf(path, sizeof(path), "%s%u.npy", prefix, i);
    graft_status_t st = graft_tensor_write_npy(path, &results[i]);
    if (st) return graft_status_annotate(st, "--save '%s'", path);
  }
  return NULL;
}

static graft_status_t run_graft(const bench_options_t* o) {
  if (o->positional_count < 2) {
    usage();
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "graft mode needs BUNDLE and FUNCTION");
  }
  graft_tensor_t inputs[MAX_VALUES] = {{0}};
  graft_tensor_t outputs[MAX_VALUES] = {{0}};
  size_t input_count = (size_t)o->positional_count - 2;
  graft_function_info_t info = {0};
  graft_call_t call = {0};
  graft_runtime_options_t options;
  graft_runtime_options_initialize(&options);
  options.threads = o->threads;

  graft_status_t st = graft_module_open_file(o->positional[0], &options,
                                             &call.module);
  if (!st) st = graft_module_function_lookup(call.module, o->positional[1],
                                             &call.function);
  if (!st) st = graft_module_function_info(call.module, call.function, &info);
  if (!st && info.result_count > MAX_VALUES)
    st = graft_status_make(GRAFT_UNIMPLEMENTED, "'%s' has %u results, at most %d",
                           info.name, info.result_count, MAX_VALUES);
  for (size_t i = 0; !st && i < input_count; ++i) {
    st = graft_tensor_read_npy(o->positional[2 + i], &inputs[i]);
    if (st) st = graft_status_annotate(st, "input %zu", i + 1);
  }
  /* Warm-up: first-touch of pool threads and pages; its results are the
   * ones checked against the reference. */
  if (!st)
    st = graft_module_function_invoke(call.module, call.function, inputs,
                                      input_count, outputs, info.result_count);
  if (!st && o->save) st = save_results(o->save, outputs, info.result_count);
  for (uint32_t i = 0; i < MAX_VALUES; ++i) graft_tensor_release(&outputs[i]);

  bench_timing_t timing = {0};
  if (!st && o->reps) {
    call.inputs = inputs;
    call.input_count = input_count;
    call.outputs = outputs;
    call.result_count = info.result_count;
    st = bench_time_calls(graft_call, &call, o->reps, o->budget_ms, &timing);
  }
  if (!st)
    print_timing(info.name, graft_module_thread_count(call.module), &timing);
  for (size_t i = 0; i < MAX_VALUES; ++i) graft_tensor_release(&inputs[i]);
  graft_module_close(call.module);
  return st;
}

/* ---- naive-matmul mode --------------------------------------------------- */

typedef struct naive_call_t {
  const graft_tensor_t* lhs;
  const graft_tensor_t* rhs;
  graft_tensor_t* out;
  int64_t batch, m, k, n;
} naive_call_t;

static graft_status_t naive_call(void* user) {
  naive_call_t* c = user;
  bench_naive_matmul_f32(c->lhs->data, c->rhs->data, c->out->data, c->batch,
                         c->m, c->k, c->n);
  return NULL;
}

/* Checks shapes (2D MxK, KxN or 3D BxMxK, BxKxN, f32) and fills |call|. */
static graft_status_t naive_shapes(const graft_tensor_t* a,
                                   const graft_tensor_t* b, naive_call_t* c) {
  if (a->dtype != GRAFT_DTYPE_F32 || b->dtype != GRAFT_DTYPE_F32)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "naive-matmul expects f32 inputs, found %s and %s",
                             graft_dtype_name(a->dtype),
                             graft_dtype_name(b->dtype));
  if (a->rank != b->rank || (a->rank != 2 && a->rank != 3))
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "naive-matmul expects two rank-2 or two rank-3 "
                             "inputs, found ranks %u and %u", a->rank, b->rank);
  uint32_t r = a->rank;
  c->batch = r == 3 ? a->dims[0] : 1;
  c->m = a->dims[r - 2];
  c->k = a->dims[r - 1];
  c->n = b->dims[r - 1];
  if (b->dims[r - 2] != c->k || (r == 3 && b->dims[0] != c->batch))
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "naive-matmul shapes do not fit: lhs K = %lld, "
                             "rhs K = %lld",
                             (long long)c->k, (long long)b->dims[r - 2]);
  return NULL;
}

static graft_status_t run_naive(const bench_options_t* o) {
  if (o->positional_count != 2) {
    usage();
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "naive-matmul needs exactly LHS.npy and RHS.npy, "
                             "found %d paths", o->positional_count);
  }
  graft_tensor_t a = {0}, b = {0}, out = {0};
  naive_call_t call = {&a, &b, &out, 0, 0, 0, 0};
  graft_status_t st = graft_tensor_read_npy(o->positional[0], &a);
  if (!st) st = graft_tensor_read_npy(o->positional[1], &b);
  if (!st) st = naive_shapes(&a, &b, &call);
  if (!st) {
    int64_t dims[3] = {call.batch, call.m, call.n};
    st = a.rank == 3 ? graft_tensor_allocate(GRAFT_DTYPE_F32, 3, dims, &out)
                     : graft_tensor_allocate(GRAFT_DTYPE_F32, 2, dims + 1, &out);
  }
  if (!st) st = naive_call(&call); /* warm-up, and the result to check */
  if (!st && o->save) st = graft_tensor_write_npy(o->save, &out);
  bench_timing_t timing = {0};
  if (!st && o->reps)
    st = bench_time_calls(naive_call, &call, o->reps, o->budget_ms, &timing);
  if (!st) print_timing("naive_matmul", 1, &timing);
  graft_tensor_release(&a);
  graft_tensor_release(&b);
  graft_tensor_release(&out);
  return st;
}

int main(int argc, char** argv) {
  bench_options_t options;
  if (parse_options(argc, argv, &options)) {
    usage();
    return 2;
  }
  graft_status_t st = NULL;
  if (!strcmp(options.mode, "graft")) {
    st = run_graft(&options);
  } else if (!strcmp(options.mode, "naive-matmul")) {
    st = run_naive(&options);
  } else {
    fprintf(stderr, "error: unknown mode '%s', expected 'graft' or "
                    "'naive-matmul'\n", options.mode);
    usage();
    return 2;
  }
  if (st) {
    fprintf(stderr, "error: %s\n", graft_status_message(st));
    graft_status_free(st);
    return 1;
  }
  return 0;
}
