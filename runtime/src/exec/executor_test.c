/* Executor tests on the hand-written library of test_library.h: dynamic
 * dims, a TEMP between two dispatches, the same in an arena, scratch, aliases/constants/copies,
 * scalar arguments, failing dispatches and checks, wrong inputs, caller
 * storage, expression arithmetic, 1 vs 2 threads giving equal bits, and
 * the reports of UBSan checks (--sanitize=undefined). */
#include <math.h>
#include <stdlib.h>

#include "exec/executor.h"
#include "exec/test_library.h"
#include "io/test_harness.h"

static const uint64_t kNoProcessorData[GRAFT_PROCESSOR_DATA_WORD_COUNT];

static graft_thread_pool_t* g_pool;

static graft_status_t invoke(const char* name, const graft_tensor_t* args,
                             size_t arg_count, graft_tensor_t* results,
                             size_t result_count) {
  uint32_t ordinal = 0;
  while (ordinal < tl_library.function_count &&
         strcmp(tl_library.functions[ordinal].name, name) != 0)
    ++ordinal;
  graft_executor_t executor = {g_pool, NULL, NULL, GRAFT_RUNTIME_GUARD_NONE,
                               0,      NULL, NULL, NULL, NULL, kNoProcessorData,
                               NULL, NULL, 0};
  return graft_function_invoke(&tl_library, ordinal, &executor, args,
                               arg_count, results, result_count);
}

static graft_tensor_t parse(const char* text) {
  graft_tensor_t t;
  graft_status_t s = graft_tensor_parse(text, &t);
  if (s) {
    printf("  cannot parse '%s': %s\n", text, graft_status_message(s));
    graft_status_free(s);
  }
  return t;
}

static char* format(const graft_tensor_t* t) {
  char* text = NULL;
  graft_status_t s = graft_tensor_format(t, &text);
  graft_status_free(s);
  return text;
}

#define EXPECT_TENSOR(t, expected)   \
  do {                               \
    char* text_ = format(&(t));      \
    EXPECT_STR(text_, expected);     \
    free(text_);                     \
  } while (0)

static void add_dynamic_dims(void) {
  graft_tensor_t args[2] = {parse("2x3xf32=[1 2 3][4 5 6]"),
                            parse("2x3xf32=[10 20 30][40 50 60]")};
  graft_tensor_t out[1] = {{0}};
  EXPECT_OK(invoke("add", args, 2, out, 1));
  EXPECT_TENSOR(out[0], "2x3xf32=[11 22 33][44 55 66]");
  EXPECT(out[0].owned && ((uintptr_t)out[0].data & 63) == 0);
  graft_tensor_release(&out[0]);
  /* Zero-size tensors are fine: no workgroups run. */
  graft_tensor_t empty[2] = {parse("0x3xf32="), parse("0x3xf32=")};
  EXPECT_OK(invoke("add", empty, 2, out, 1));
  EXPECT_TENSOR(out[0], "0x3xf32=");
  graft_tensor_release(&out[0]);
  for (int i = 0; i < 2; ++i) {
    graft_tensor_release(&args[i]);
    graft_tensor_release(&empty[i]);
  }
}

static void count_event(const graft_trace_event_t* event, void* user_data) {
  (void)event;
  ++*(int*)user_data;
}

/* A step whose grid is empty is skipped: the dispatch is not called and
 * the trace, which reports each dispatch that ran, does not list it. */
static void empty_grid_is_skipped(void) {
  int events = 0;
  graft_executor_t executor = {g_pool, count_event, &events,
                               GRAFT_RUNTIME_GUARD_NONE, 0, NULL, NULL, NULL,
                               NULL, kNoProcessorData, NULL, NULL, 0};
  uint32_t ordinal = 0;
  while (strcmp(tl_library.functions[ordinal].name, "add") != 0) ++ordinal;
  const char* inputs[2] = {"2x3xf32=[1 2 3][4 5 6]", "0x3xf32="};
  for (int i = 0; i < 2; ++i) {
    graft_tensor_t args[2] = {parse(inputs[i]), parse(inputs[i])};
    graft_tensor_t out = {0};
    events = 0;
    EXPECT_OK(graft_function_invoke(&tl_library, ordinal, &executor, args, 2,
                                    &out, 1));
    EXPECT(events == (i == 0 ? 1 : 0));
    EXPECT(out.rank == 2 && out.dims[0] == (i == 0 ? 2 : 0));
    graft_tensor_release(&out);
    graft_tensor_release(&args[0]);
    graft_tensor_release(&args[1]);
  }
}

/* Function |name|'s ordinal in tl_library. */
static uint32_t tl_ordinal(const char* name) {
  uint32_t ordinal = 0;
  while (strcmp(tl_library.functions[ordinal].name, name) != 0) ++ordinal;
  return ordinal;
}

/* Host expression values kept across calls (exec/expr_memo.h): a call
 * whose dims and scalar arguments equal the last call's copies them (a
 * hit); any other evaluates them and replaces the memo; the checks run on
 * every call, hit or not. */
static void memo_across_calls(void) {
  graft_expr_memos_t* memos = NULL;
  EXPECT_OK(graft_expr_memos_create(&tl_library, &memos));
  graft_executor_t executor = {g_pool, NULL, NULL, GRAFT_RUNTIME_GUARD_NONE,
                               0, NULL, NULL, NULL, NULL, kNoProcessorData,
                               NULL, memos, 0};
  uint32_t scalar = tl_ordinal("scalar"), add = tl_ordinal("add");
  /* scalar: s and the length of x are leaves. */
  static const struct {
    const char *s, *x, *want;
    uint64_t hits;
  } kScalarCalls[] = {
      {"f32=0.5", "3xf32=1 2 3", "3xf32=1.5 2.5 3.5", 0},
      {"f32=0.5", "3xf32=4 5 6", "3xf32=4.5 5.5 6.5", 1},
      {"f32=2", "3xf32=1 2 3", "3xf32=3 4 5", 1},
      {"f32=2", "3xf32=1 2 3", "3xf32=3 4 5", 2},
      {"f32=2", "5xf32=1 2 3 4 5", "5xf32=3 4 5 6 7", 2},
      {"f32=0.5", "3xf32=1 2 3", "3xf32=1.5 2.5 3.5", 2},
  };
  for (size_t i = 0; i < sizeof(kScalarCalls) / sizeof(kScalarCalls[0]); ++i) {
    graft_tensor_t args[2] = {parse(kScalarCalls[i].s),
                              parse(kScalarCalls[i].x)};
    graft_tensor_t out = {0};
    EXPECT_OK(graft_function_invoke(&tl_library, scalar, &executor, args, 2,
                                    &out, 1));
    EXPECT_TENSOR(out, kScalarCalls[i].want);
    EXPECT(graft_expr_memos_hits(memos, scalar) == kScalarCalls[i].hits);
    graft_tensor_release(&out);
    graft_tensor_release(&args[0]);
    graft_tensor_release(&args[1]);
  }
  /* add: a failing check is reported on a hit too (the memo holds the
   * values of the mismatched shapes after the first failure). */
  graft_tensor_t ok[2] = {parse("2x3xf32=[1 2 3][4 5 6]"),
                          parse("2x3xf32=[1 1 1][1 1 1]")};
  graft_tensor_t bad[2] = {parse("2x3xf32=[1 2 3][4 5 6]"),
                           parse("3x3xf32=[1 1 1][1 1 1][1 1 1]")};
  graft_tensor_t out = {0};
  for (int i = 0; i < 2; ++i) {
    EXPECT_OK(graft_function_invoke(&tl_library, add, &executor, ok, 2, &out,
                                    1));
    EXPECT_TENSOR(out, "2x3xf32=[2 3 4][5 6 7]");
    graft_tensor_release(&out);
  }
  for (int i = 0; i < 2; ++i) {
    EXPECT_ERROR(graft_function_invoke(&tl_library, add, &executor, bad, 2,
                                       &out, 1),
                 "add.graph:3:8: lhs/rhs dim 0 mismatch: 2 != 3");
    EXPECT(out.data == NULL);
  }
  EXPECT(graft_expr_memos_hits(memos, add) == 2);
  for (int i = 0; i < 2; ++i) {
    graft_tensor_release(&ok[i]);
    graft_tensor_release(&bad[i]);
  }
  graft_expr_memos_free(memos);
}

static void two_dispatches_with_temp(void) {
  graft_tensor_t x = parse("5xf32=1 2 3 4 -5");
  graft_tensor_t out = {0};
  EXPECT_OK(invoke("scale_add", &x, 1, &out, 1));
  EXPECT_TENSOR(out, "5xf32=3 6 9 12 -15");
  graft_tensor_release(&out);
  graft_tensor_release(&x);
}

/* scale_add with its TEMP in an arena at the offset of expr |offset_expr|
 * (4: 64 bytes; 3: 1 byte, misaligned), run on an executor that keeps
 * arenas in |arenas|. */
static graft_status_t invoke_arena_scale_add(uint32_t offset_expr,
                                             graft_arena_pool_t* arenas,
                                             const graft_tensor_t* x,
                                             graft_tensor_t* out) {
  /* Static: the validator wants the tables inside the program's image. */
  static graft_expr_v1_t exprs[5];
  static graft_buffer_v1_t buffers[3];
  static graft_function_v1_t functions[16];
  static graft_library_v1_t library;
  memcpy(exprs, tl_vec_exprs, sizeof(tl_vec_exprs));
  exprs[4] = (graft_expr_v1_t){GRAFT_EXPR_CONST, 0, 64};
  memcpy(buffers, tl_scale_add_buffers, sizeof(buffers));
  buffers[1].kind = GRAFT_BUFFER_ARENA;
  buffers[1].index = offset_expr;
  memcpy(functions, tl_library.functions,
         sizeof(graft_function_v1_t) * tl_library.function_count);
  library = tl_library;
  library.functions = functions;
  uint32_t ordinal = 0;
  while (strcmp(functions[ordinal].name, "scale_add") != 0) ++ordinal;
  functions[ordinal].exprs = exprs;
  functions[ordinal].expr_count = 5;
  functions[ordinal].buffers = buffers;
  graft_status_t st = tl_validate(&library);
  if (st) return st;
  graft_executor_t executor = {g_pool, NULL, NULL, GRAFT_RUNTIME_GUARD_NONE,
                               0,      NULL, NULL, NULL, arenas, kNoProcessorData,
                               NULL, NULL, 0};
  return graft_function_invoke(&library, ordinal, &executor, x, 1, out, 1);
}

static void arena_buffers(void) {
  EXPECT(tl_library.function_count <= 16);
  graft_arena_pool_t* arenas = NULL;
  EXPECT_OK(graft_arena_pool_create(&arenas));
  graft_tensor_t x = parse("5xf32=1 2 3 4 -5");
  /* Twice from the pool (the second call reuses the first one's arena),
   * once with an arena of its own. */
  for (int call = 0; call < 3; ++call) {
    graft_tensor_t out = {0};
    EXPECT_OK(invoke_arena_scale_add(4, call < 2 ? arenas : NULL, &x, &out));
    EXPECT_TENSOR(out, "5xf32=3 6 9 12 -15");
    graft_tensor_release(&out);
  }
  graft_tensor_t out = {0};
  EXPECT_ERROR(invoke_arena_scale_add(3, arenas, &x, &out),
               "function 'scale_add': buffer 1 has arena offset 1 (size 20); "
               "the bundle's host program is inconsistent");
  EXPECT_ERROR(invoke_arena_scale_add(9, arenas, &x, &out),
               "function 'scale_add' buffer 1 has its arena offset in expr 9 "
               "but there are 5 exprs");
  graft_tensor_release(&x);
  graft_arena_pool_destroy(arenas);
}

static void alias_const_copy(void) {
  graft_tensor_t x = parse("2x3xf32=[1 2 3][4 5 6]");
  graft_tensor_t out[3] = {{0}};
  EXPECT_OK(invoke("misc", &x, 1, out, 3));
  EXPECT_TENSOR(out[0], "6xf32=1 2 3 4 5 6");
  EXPECT_TENSOR(out[1], "4xi32=10 20 30 40");
  EXPECT_TENSOR(out[2], "6xf32=1 2 3 4 5 6");
  EXPECT(out[0].data != x.data); /* an argument result is copied */
  for (int i = 0; i < 3; ++i) graft_tensor_release(&out[i]);
  graft_tensor_release(&x);
}

static void scalar_argument(void) {
  graft_tensor_t args[2] = {parse("f32=0.5"), parse("3xf32=1 2 3")};
  graft_tensor_t out = {0};
  EXPECT_OK(invoke("scalar", args, 2, &out, 1));
  EXPECT_TENSOR(out, "3xf32=1.5 2.5 3.5");
  graft_tensor_release(&out);
  graft_tensor_release(&args[0]);
  graft_tensor_release(&args[1]);
}

static void unaligned_argument(void) {
  /* Caller memory that is not 64-byte aligned is copied, not misbound. */
  float storage[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  graft_tensor_t x = {GRAFT_DTYPE_F32, 1, {4}, &storage[1], 16, 0};
  graft_tensor_t out = {0};
  EXPECT_OK(invoke("scale_add", &x, 1, &out, 1));
  EXPECT_TENSOR(out, "4xf32=3 6 9 12");
  graft_tensor_release(&out);
}

static void failing_dispatch(void) {
  graft_tensor_t x = parse("16xf32=0");
  graft_tensor_t out = {0};
  EXPECT_ERROR(invoke("fail", &x, 1, &out, 1),
               "dispatch 'fail_dispatch' (fail.graph:7:9) failed with code 3 "
               "in workgroup (1,0,0)");
  EXPECT(out.data == NULL);
  /* The runtime stays usable. */
  EXPECT_OK(invoke("scale_add", &x, 1, &out, 1));
  graft_tensor_release(&out);
  graft_tensor_release(&x);
}

static void check_failure(void) {
  graft_tensor_t args[2] = {parse("2x3xf32=0"), parse("3x3xf32=0")};
  graft_tensor_t out = {0};
  EXPECT_ERROR(invoke("add", args, 2, &out, 1),
               "add.graph:3:8: lhs/rhs dim 0 mismatch: 2 != 3");
  graft_tensor_release(&args[0]);
  graft_tensor_release(&args[1]);
}

static void wrong_inputs(void) {
  graft_tensor_t good = parse("2x4xf32=0");
  graft_tensor_t bad_dim = parse("3x5xf32=0");
  graft_tensor_t bad_type = parse("2x4xi32=0");
  graft_tensor_t bad_rank = parse("8xf32=0");
  graft_tensor_t out = {0};
  graft_tensor_t args[2] = {good, bad_dim};
  EXPECT_ERROR(invoke("add4", args, 2, &out, 1),
               "argument 2 (%rhs): expected tensor<?x4xf32>, got 3x5xf32");
  args[1] = bad_type;
  EXPECT_ERROR(invoke("add", args, 2, &out, 1),
               "argument 2 (%rhs): expected tensor<?x?xf32>, got 2x4xi32");
  args[0] = bad_rank;
  EXPECT_ERROR(invoke("add", args, 2, &out, 1),
               "argument 1 (%lhs): expected tensor<?x?xf32>, got 8xf32");
  EXPECT_ERROR(invoke("add", args, 1, &out, 1),
               "function 'add' takes 2 arguments, got 1");
  graft_tensor_t scalar_args[2] = {good, good};
  EXPECT_ERROR(invoke("scalar", scalar_args, 2, &out, 1),
               "argument 1 (%s): expected f32, got 2x4xf32");
  /* A tensor whose storage is smaller than its shape. */
  graft_tensor_t short_tensor = good;
  short_tensor.size = 4;
  args[0] = good;
  args[1] = short_tensor;
  EXPECT_ERROR(invoke("add", args, 2, &out, 1),
               "argument 2 (%rhs): its shape needs 32 bytes, the tensor holds 4");
  /* Dims whose byte count wraps past 2^64 (4 * (2^62 + 1) == 4) used to
   * pass this check as a 4-byte tensor. */
  graft_tensor_t wrapping = good;
  wrapping.dims[0] = ((int64_t)1 << 62) + 1;
  wrapping.dims[1] = 1;
  wrapping.size = 4;
  args[1] = wrapping;
  EXPECT_ERROR(invoke("add", args, 2, &out, 1),
               "argument 2 (%rhs): its shape needs more than 2^64 bytes");
  EXPECT(out.data == NULL);
  graft_tensor_release(&good);
  graft_tensor_release(&bad_dim);
  graft_tensor_release(&bad_type);
  graft_tensor_release(&bad_rank);
}

static void caller_storage(void) {
  graft_tensor_t args[2] = {parse("2x2xf32=1 2 3 4"), parse("2x2xf32=1")};
  float storage[4] = {0};
  graft_tensor_t out = {0};
  out.data = storage;
  out.size = sizeof(storage);
  EXPECT_OK(invoke("add", args, 2, &out, 1));
  EXPECT(storage[0] == 2 && storage[3] == 5);
  EXPECT(out.rank == 2 && out.dims[0] == 2 && out.dims[1] == 2 && !out.owned);
  out.size = 12;
  EXPECT_ERROR(invoke("add", args, 2, &out, 1),
               "result 1: caller storage holds 12 bytes, 2x2xf32 needs 16");
  graft_tensor_release(&args[0]);
  graft_tensor_release(&args[1]);
}

/* Evaluates a 3-expression program CONST a, CONST b, op(a, b). */
static graft_status_t eval(uint32_t op, int64_t a, int64_t b, int64_t* out) {
  graft_expr_v1_t exprs[3] = {{GRAFT_EXPR_CONST, 0, a},
                              {GRAFT_EXPR_CONST, 0, b},
                              {op, 0, 1}};
  graft_function_v1_t f = {0};
  f.name = "exprs";
  f.expr_count = 3;
  f.exprs = exprs;
  int64_t values[3];
  graft_status_t s = graft_host_exprs_evaluate(&f, NULL, values);
  *out = values[2];
  return s;
}

#define EXPECT_EVAL(op, a, b, expected)        \
  do {                                         \
    int64_t v_ = 0;                            \
    EXPECT_OK(eval(op, a, b, &v_));            \
    EXPECT(v_ == (expected));                  \
  } while (0)

static void expressions(void) {
  EXPECT_EVAL(GRAFT_EXPR_ADD, 3, 4, 7);
  EXPECT_EVAL(GRAFT_EXPR_SUB, 3, 4, -1);
  EXPECT_EVAL(GRAFT_EXPR_MUL, -3, 4, -12);
  EXPECT_EVAL(GRAFT_EXPR_DIV, 7, 2, 3);
  EXPECT_EVAL(GRAFT_EXPR_DIV, -7, 2, -4);
  EXPECT_EVAL(GRAFT_EXPR_CEILDIV, 7, 2, 4);
  EXPECT_EVAL(GRAFT_EXPR_CEILDIV, -7, 2, -3);
  EXPECT_EVAL(GRAFT_EXPR_CEILDIV, 8, 2, 4);
  EXPECT_EVAL(GRAFT_EXPR_REM, -7, 3, 2);
  EXPECT_EVAL(GRAFT_EXPR_REM, 7, -3, -2);
  EXPECT_EVAL(GRAFT_EXPR_MIN, 7, -3, -3);
  EXPECT_EVAL(GRAFT_EXPR_MAX, 7, -3, 7);
  EXPECT_EVAL(GRAFT_EXPR_REM, INT64_MIN, -1, 0);
  EXPECT_EVAL(GRAFT_EXPR_EQ, 4, 4, 1);
  EXPECT_EVAL(GRAFT_EXPR_LT, 4, 4, 0);
  int64_t v;
  EXPECT_ERROR(eval(GRAFT_EXPR_DIV, 7, 0, &v), "divides 7 by zero");
  EXPECT_ERROR(eval(GRAFT_EXPR_REM, 7, 0, &v), "divides 7 by zero");
  EXPECT_ERROR(eval(GRAFT_EXPR_MUL, INT64_MAX, 2, &v), "overflows 64 bits");
  EXPECT_ERROR(eval(GRAFT_EXPR_DIV, INT64_MIN, -1, &v), "overflows 64 bits");
}

static void threads_1_vs_2_identical(void) {
  enum { M = 37, N = 53 };
  graft_tensor_t args[2];
  int64_t dims[2] = {M, N};
  EXPECT_OK(graft_tensor_allocate(GRAFT_DTYPE_F32, 2, dims, &args[0]));
  EXPECT_OK(graft_tensor_allocate(GRAFT_DTYPE_F32, 2, dims, &args[1]));
  for (int i = 0; i < M * N; ++i) {
    ((float*)args[0].data)[i] = sinf((float)i) * 100;
    ((float*)args[1].data)[i] = 1.0f / (float)(i + 1);
  }
  graft_tensor_t out1 = {0}, out2 = {0};
  graft_thread_pool_t* saved = g_pool;
  graft_thread_pool_t* one = NULL;
  graft_thread_pool_t* two = NULL;
  EXPECT_OK(graft_thread_pool_create(1, 0, &one));
  EXPECT_OK(graft_thread_pool_create(2, 0, &two));
  g_pool = one;
  EXPECT_OK(invoke("add", args, 2, &out1, 1));
  g_pool = two;
  EXPECT_OK(invoke("add", args, 2, &out2, 1));
  g_pool = saved;
  EXPECT(out1.size == (uint64_t)M * N * 4 && out2.size == out1.size);
  EXPECT(out1.data && out2.data && memcmp(out1.data, out2.data, out1.size) == 0);
  int wrong = 0;
  for (int i = 0; out1.data && i < M * N; ++i)
    wrong += ((float*)out1.data)[i] !=
             ((float*)args[0].data)[i] + ((float*)args[1].data)[i];
  EXPECT(wrong == 0);
  graft_thread_pool_destroy(one);
  graft_thread_pool_destroy(two);
  graft_tensor_release(&out1);
  graft_tensor_release(&out2);
  graft_tensor_release(&args[0]);
  graft_tensor_release(&args[1]);
}

/* The executor trusts what tl_validate (the loader's validator) checked:
 * that really is the validator, and it refuses what used to crash here,
 * e.g. a COPY into a constant (issue 11: the executor's own memmove wrote
 * to read-only slice data). */
static graft_step_v1_t g_bad_steps[1];
static graft_function_v1_t
    g_bad_functions[sizeof(tl_functions) / sizeof(tl_functions[0])];
static graft_library_v1_t g_bad_library;

static void hand_written_libraries_are_validated(void) {
  graft_library_v1_t on_stack = tl_library;
  EXPECT_ERROR(tl_validate(&on_stack), "is not inside the slice image");
  static const uint32_t copy_into_constant[] = {3, 2};
  g_bad_steps[0] = tl_misc_steps[0];
  g_bad_steps[0].bindings = copy_into_constant;
  memcpy(g_bad_functions, tl_functions, sizeof(tl_functions));
  g_bad_functions[4].steps = g_bad_steps;
  g_bad_library = tl_library;
  g_bad_library.functions = g_bad_functions;
  EXPECT_ERROR(tl_validate(&g_bad_library),
               "function 'misc' step 0 copies into buffer 2 (a constant); "
               "steps may write only temporary and result buffers");
}

/* --sanitize=undefined (exec/ubsan.h): dispatches standing in for an
 * instrumented kernel report checks as the slice's handlers do, with
 * addresses inside a pretend slice. Only one workgroup reports, so which
 * report comes first does not depend on the threads. */
static const char g_slice[256];
static const graft_ubsan_slice_t g_ubsan_slice = {(uintptr_t)g_slice, "test"};
static volatile int g_continued, g_after_fatal;

static int ubsan_recover_dispatch(const graft_dispatch_state_v1_t* d,
                                  const graft_workgroup_state_v1_t* wg) {
  (void)d;
  if (wg->workgroup_id[0] != 2) return 0;
  graft_ubsan_report("shift-out-of-bounds", g_slice + 0x12, 0);
  graft_ubsan_report("add-overflow", g_slice + 0x20, 0); /* not the first */
  g_continued = 1;
  return 0;
}

static int ubsan_fatal_dispatch(const graft_dispatch_state_v1_t* d,
                                const graft_workgroup_state_v1_t* wg) {
  (void)d;
  if (wg->workgroup_id[0] != 1) return 0;
  graft_ubsan_report("builtin-unreachable", g_slice + 0x30, 1);
  g_after_fatal = 1; /* never: a fatal report does not return */
  return 5;
}

static graft_dispatch_fn_t g_ubsan_dispatches[5];
static graft_library_v1_t g_ubsan_library;

static graft_status_t invoke_ubsan(graft_dispatch_fn_t fail_dispatch,
                                   const char* input, graft_tensor_t* out) {
  memcpy(g_ubsan_dispatches, tl_dispatches, sizeof(tl_dispatches));
  g_ubsan_dispatches[2] = fail_dispatch; /* function 'fail', 4 workgroups */
  g_ubsan_library = tl_library;
  g_ubsan_library.dispatches = g_ubsan_dispatches;
  graft_status_t st = tl_validate(&g_ubsan_library);
  if (st) return st;
  graft_tensor_t x = parse(input);
  graft_executor_t executor = {g_pool, NULL, NULL, GRAFT_RUNTIME_GUARD_NONE,
                               0,      NULL, NULL, NULL, NULL, kNoProcessorData,
                               &g_ubsan_slice, NULL, 0};
  st = graft_function_invoke(&g_ubsan_library, 3, &executor, &x, 1, out, 1);
  graft_tensor_release(&x);
  return st;
}

static void ubsan_reports(void) {
  graft_tensor_t out = {0};
  EXPECT(strcmp(tl_functions[3].name, "fail") == 0);
  g_continued = 0;
  EXPECT_ERROR(invoke_ubsan(ubsan_recover_dispatch, "16xf32=0", &out),
               "dispatch 'fail_dispatch' (fail.graph:7:9) of function 'fail' "
               "in workgroup (2,0,0): undefined behaviour: "
               "shift-out-of-bounds, called from offset 0x12 of the test "
               "slice (--sanitize=undefined)");
  EXPECT(g_continued == 1); /* a recoverable check returns to the kernel */
  EXPECT(out.data == NULL);
  g_after_fatal = 0;
  EXPECT_ERROR(invoke_ubsan(ubsan_fatal_dispatch, "16xf32=0", &out),
               "dispatch 'fail_dispatch' (fail.graph:7:9) of function 'fail' "
               "in workgroup (1,0,0): undefined behaviour: "
               "builtin-unreachable, called from offset 0x30 of the test "
               "slice (--sanitize=undefined)");
  EXPECT(g_after_fatal == 0);
  /* A dispatch's own failure is reported as without UBSan, and the
   * runtime, its threads included, stays usable after a fatal report. */
  EXPECT_ERROR(invoke_ubsan(tl_fail_dispatch, "16xf32=0", &out),
               "dispatch 'fail_dispatch' (fail.graph:7:9) failed with code 3 "
               "in workgroup (1,0,0)");
  EXPECT_OK(invoke_ubsan(ubsan_recover_dispatch, "8xf32=0", &out));
  graft_tensor_release(&out);
}

int main(void) {
  /* The executor trusts only validated libraries. */
  if (tl_main_library_invalid()) return 1;
  graft_status_t s = graft_thread_pool_create(2, 0, &g_pool);
  if (s) {
    printf("cannot create pool: %s\n", graft_status_message(s));
    return 1;
  }
  TEST_CASE(hand_written_libraries_are_validated);
  TEST_CASE(add_dynamic_dims);
  TEST_CASE(empty_grid_is_skipped);
  TEST_CASE(memo_across_calls);
  TEST_CASE(two_dispatches_with_temp);
  TEST_CASE(arena_buffers);
  TEST_CASE(alias_const_copy);
  TEST_CASE(scalar_argument);
  TEST_CASE(unaligned_argument);
  TEST_CASE(failing_dispatch);
  TEST_CASE(check_failure);
  TEST_CASE(wrong_inputs);
  TEST_CASE(caller_storage);
  TEST_CASE(expressions);
  TEST_CASE(threads_1_vs_2_identical);
  TEST_CASE(ubsan_reports);
  graft_thread_pool_destroy(g_pool);
  return graft_test_finish();
}
