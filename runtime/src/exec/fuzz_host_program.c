/* libFuzzer entry point for host programs: loads a slice (FatELF select,
 * ELF load, library validation) and runs every function of each library
 * that validates with the real executor, on small inputs, with every
 * dispatch replaced by a checking stub. What is fuzzed is the contract
 * between the validator and the executor: whatever passes
 * graft_library_validate must run without a crash, a sanitizer report or a
 * write into a read-only buffer, for any host program (expressions, checks,
 * buffers, aliases, copies, grids).
 *
 * The stub checks, for each dispatch, that the state the executor built
 * agrees with the dispatch's attributes (counts, 64-byte-aligned bindings,
 * workgroup ids inside the grid), reads the head and tail of every binding
 * (ASan reports one shorter than its length) and writes those of every
 * binding the dispatch declares it writes. Arguments are compared with a
 * copy afterwards: a write into one aborts. The slice's own code never runs
 * (as in fuzz_loader, the library is found without its query function).
 *
 * Each function runs with dynamic dims and scalar arguments 1, then 3,
 * each twice through the executor's expression memos (exec/expr_memo.h):
 * the second call takes its values from the memo wherever the first one
 * evaluated them, and must end the same way (status text and workgroup
 * count).
 * Build and run: cmake/fuzz.sh (seed corpus:
 * tests/fuzz/corpus/fuzz_host_program/, graft-built x86_64 bundles). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_image.h"
#include "exec/executor.h"
#include "exec/thread_pool.h"
#include "fuzz_candidates.h"
#include "loader.h"

/* Libraries with more dispatches than stubs are skipped. */
#define STUB_COUNT 32
/* Bytes touched at each end of a binding; bounds the work per input. */
#define TOUCH_BYTES 4096u
/* Workgroups one invocation may run before the stub fails it. */
#define MAX_WORKGROUPS 4096
/* Arguments larger than this are not built (the function is skipped). */
#define MAX_ARG_BYTES (1u << 20)

static const graft_library_v1_t* g_library; /* the one being run */
static int g_workgroups;

static void fail(const char* what, uint32_t dispatch) {
  fprintf(stderr, "fuzz_host_program: dispatch %u: %s\n", dispatch, what);
  abort();
}

static void touch(uint8_t* p, uint64_t length, int write) {
  volatile uint8_t sink = 0;
  uint64_t head = length < TOUCH_BYTES ? length : TOUCH_BYTES;
  uint64_t tail = length - head < TOUCH_BYTES ? length - head : TOUCH_BYTES;
  for (uint64_t i = 0; i < head; ++i) sink ^= p[i];
  for (uint64_t i = length - tail; i < length; ++i) sink ^= p[i];
  if (write) {
    memset(p, 0x5a, (size_t)head);
    memset(p + length - tail, 0x5a, (size_t)tail);
  }
  (void)sink;
}

static int check_dispatch(uint32_t index, const graft_dispatch_state_v1_t* d,
                          const graft_workgroup_state_v1_t* wg) {
  const graft_dispatch_attrs_v1_t* attrs = &g_library->dispatch_attrs[index];
  if (d->binding_count != attrs->binding_count)
    fail("binding count differs from its attributes", index);
  if (d->constant_count != attrs->constant_count)
    fail("constant count differs from its attributes", index);
  for (int i = 0; i < 3; ++i)
    if (wg->workgroup_id[i] >= d->workgroup_count[i])
      fail("workgroup id outside the grid", index);
  if (++g_workgroups > MAX_WORKGROUPS) return 1; /* enough: stop the loop */
  if (wg->workgroup_id[0] | wg->workgroup_id[1] | wg->workgroup_id[2])
    return 0; /* touch the buffers once per dispatch */
  for (uint32_t b = 0; b < d->binding_count; ++b) {
    uint64_t length = d->binding_lengths[b];
    if (length && !d->bindings[b]) fail("NULL binding", index);
    if ((uintptr_t)d->bindings[b] & 63) fail("unaligned binding", index);
    touch(d->bindings[b], length,
          (attrs->binding_flags[b] & GRAFT_BINDING_WRITE) != 0);
  }
  volatile uint64_t sink = 0;
  for (uint32_t c = 0; c < d->constant_count; ++c) sink ^= d->constants[c];
  (void)sink;
  return 0;
}

#define STUB(i)                                                   \
  static int stub_##i(const graft_dispatch_state_v1_t* d,         \
                      const graft_workgroup_state_v1_t* wg) {     \
    return check_dispatch(i, d, wg);                              \
  }
STUB(0) STUB(1) STUB(2) STUB(3) STUB(4) STUB(5) STUB(6) STUB(7)
STUB(8) STUB(9) STUB(10) STUB(11) STUB(12) STUB(13) STUB(14) STUB(15)
STUB(16) STUB(17) STUB(18) STUB(19) STUB(20) STUB(21) STUB(22) STUB(23)
STUB(24) STUB(25) STUB(26) STUB(27) STUB(28) STUB(29) STUB(30) STUB(31)

static const graft_dispatch_fn_t kStubs[STUB_COUNT] = {
    stub_0,  stub_1,  stub_2,  stub_3,  stub_4,  stub_5,  stub_6,  stub_7,
    stub_8,  stub_9,  stub_10, stub_11, stub_12, stub_13, stub_14, stub_15,
    stub_16, stub_17, stub_18, stub_19, stub_20, stub_21, stub_22, stub_23,
    stub_24, stub_25, stub_26, stub_27, stub_28, stub_29, stub_30, stub_31};

/* Builds the arguments of |f| with every dynamic dim and scalar |value|;
 * 0 when they would be too large. */
static int make_args(const graft_function_v1_t* f, int64_t value,
                     graft_tensor_t* args, graft_tensor_t* copies) {
  for (uint32_t i = 0; i < f->arg_count; ++i) {
    const graft_value_type_v1_t* type = &f->args[i];
    int64_t dims[GRAFT_MAX_RANK];
    uint64_t bytes = graft_dtype_size(type->dtype);
    for (uint32_t d = 0; d < type->rank; ++d) {
      dims[d] = type->dims[d] == GRAFT_DIM_DYNAMIC ? value : type->dims[d];
      if (dims[d] > MAX_ARG_BYTES ||
          __builtin_mul_overflow(bytes, (uint64_t)dims[d], &bytes) ||
          bytes > MAX_ARG_BYTES)
        return 0;
    }
    uint32_t dtype = type->dtype == GRAFT_DTYPE_INDEX ? GRAFT_DTYPE_I64
                                                      : type->dtype;
    graft_status_t st = graft_tensor_allocate(dtype, type->rank, dims, &args[i]);
    if (!st) st = graft_tensor_allocate(dtype, type->rank, dims, &copies[i]);
    if (st) {
      graft_status_free(st);
      return 0;
    }
    /* Scalars (and every element) hold |value|: sizes, not bit noise. */
    uint64_t size = graft_dtype_size(dtype);
    for (uint64_t off = 0; off + size <= args[i].size; off += size) {
      if (dtype == GRAFT_DTYPE_F32) {
        float v = (float)value;
        memcpy((uint8_t*)args[i].data + off, &v, sizeof(v));
      } else if (dtype == GRAFT_DTYPE_F64) {
        double v = (double)value;
        memcpy((uint8_t*)args[i].data + off, &v, sizeof(v));
      } else {
        memcpy((uint8_t*)args[i].data + off, &value, (size_t)size);
      }
    }
    memcpy(copies[i].data, args[i].data, (size_t)args[i].size);
  }
  return 1;
}

/* Runs function |ordinal| on arguments of |value|; returns how it ended
 * ("N workgroups: ok" or the error), malloc'd (NULL when not run). */
static char* run_function(const graft_library_v1_t* lib, uint32_t ordinal,
                          const graft_executor_t* executor, int64_t value) {
  char* outcome = NULL;
  const graft_function_v1_t* f = &lib->functions[ordinal];
  graft_tensor_t* args = calloc(f->arg_count + 1, sizeof(graft_tensor_t));
  graft_tensor_t* copies = calloc(f->arg_count + 1, sizeof(graft_tensor_t));
  graft_tensor_t* results = calloc(f->result_count + 1, sizeof(graft_tensor_t));
  if (args && copies && results && make_args(f, value, args, copies)) {
    g_workgroups = 0;
    graft_status_t st = graft_function_invoke(lib, ordinal, executor, args,
                                              f->arg_count, results,
                                              f->result_count);
    /* GRAFT_FUZZ_VERBOSE=1: what each seed exercises. */
    if (getenv("GRAFT_FUZZ_VERBOSE"))
      fprintf(stderr, "fuzz_host_program: %s(%lld): %d workgroups, %s\n",
              f->name, (long long)value, g_workgroups,
              st ? graft_status_message(st) : "ok");
    const char* text = st ? graft_status_message(st) : "ok";
    outcome = malloc(strlen(text) + 32);
    if (outcome) sprintf(outcome, "%d workgroups: %s", g_workgroups, text);
    graft_status_free(st);
    for (uint32_t i = 0; i < f->arg_count; ++i)
      if (args[i].size && memcmp(args[i].data, copies[i].data, args[i].size))
        fail("an argument was written", UINT32_MAX);
  }
  for (uint32_t i = 0; args && i < f->arg_count; ++i) {
    graft_tensor_release(&args[i]);
    graft_tensor_release(&copies[i]);
  }
  for (uint32_t i = 0; results && i < f->result_count; ++i)
    graft_tensor_release(&results[i]);
  free(args);
  free(copies);
  free(results);
  return outcome;
}

/* Runs function |ordinal| twice on arguments of |value| and fails unless
 * both calls end the same way (the second one's values from the memo). */
static void run_twice(const graft_library_v1_t* lib, uint32_t ordinal,
                      const graft_executor_t* executor, int64_t value) {
  char* first = run_function(lib, ordinal, executor, value);
  char* second = run_function(lib, ordinal, executor, value);
  if ((first == NULL) != (second == NULL) ||
      (first && strcmp(first, second) != 0)) {
    fprintf(stderr, "fuzz_host_program: '%s' ended '%s', then '%s'\n",
            lib->functions[ordinal].name, first ? first : "(not run)",
            second ? second : "(not run)");
    abort();
  }
  free(first);
  free(second);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static graft_thread_pool_t* pool;
  if (!pool && graft_thread_pool_create(1, 0, &pool)) abort();
  graft_fatelf_slice_t slice;
  graft_status_t status = graft_fatelf_select_host(data, size, &slice);
  graft_elf_image_t image;
  if (!status)
    status = graft_elf_image_load(data + slice.offset, (size_t)slice.size,
                                  &image);
  if (status) {
    graft_status_free(status);
    return 0;
  }
  const graft_library_v1_t* valid[GRAFT_FUZZ_MAX_CANDIDATES];
  size_t count = graft_fuzz_valid_libraries(&image, (size_t)slice.size, valid);
  static const uint64_t kNoProcessorData[GRAFT_PROCESSOR_DATA_WORD_COUNT];
  graft_executor_t executor = {pool, NULL, NULL, GRAFT_RUNTIME_GUARD_NONE,
                               0,    NULL, NULL, NULL, NULL, kNoProcessorData,
                               NULL, NULL, 0};
  for (size_t c = 0; c < count; ++c) {
    if (valid[c]->dispatch_count > STUB_COUNT) continue;
    graft_library_v1_t stubbed = *valid[c];
    stubbed.dispatches = kStubs;
    g_library = &stubbed;
    graft_status_t st = graft_expr_memos_create(&stubbed, &executor.memos);
    if (st) abort(); /* out of memory */
    for (uint32_t fn = 0; fn < stubbed.function_count && fn < 8; ++fn) {
      run_twice(&stubbed, fn, &executor, 1);
      run_twice(&stubbed, fn, &executor, 3);
    }
    graft_expr_memos_free(executor.memos);
    executor.memos = NULL;
  }
  graft_elf_image_unload(&image);
  return 0;
}
