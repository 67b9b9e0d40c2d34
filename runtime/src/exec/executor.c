/* The executor: runs one function's host program (see executor.h, abi.h).
 *
 * Order of work, each stage failing cleanly with everything freed:
 *   1. check the arguments against the declared signature
 *   2. evaluate the integer expressions, then the runtime checks
 *   3. lay out buffers: arguments, temporaries, results (in caller storage
 *      when it can be written in place), constants, aliases, and the arena
 *      the compiler planned for intermediates (exec/arena.h)
 *   4. run the steps in order (dispatches over the pool, copies)
 *   5. hand result buffers to the caller (move, or copy when shared)
 * The library must have passed graft_library_validate (the loader's
 * library_validate.c), and is trusted: indices, counts, kinds, which
 * buffers a step may write and that argument and constant buffers fit their
 * storage are not checked again here. What depends on the arguments'
 * values is checked per invocation: overflowing sizes, negative dims, grid
 * counts, that an alias fits its source and a copy's buffers agree.
 * Under --guard (exec/guard.h) every buffer but an alias gets its own
 * guarded mapping in stage 3 and results are copied out in stage 5. */
#define _POSIX_C_SOURCE 200809L
#include "exec/executor.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/guard.h"
#include "exec/loop_profile.h"
#include "exec/signature.h"
#include "exec/watchdog.h"

/* Per-step binding and constant counts, and per-function expression,
 * buffer and result counts, up to which the executor keeps its tables on
 * the stack instead of the heap (a small call must not pay for malloc:
 * three allocations cost the 2x2 MLP a fifth of its call). About 9 KiB of
 * stack at most. */
#define SMALL_COUNT 32
#define SMALL_EXPRS 128
#define SMALL_BUFFERS 32

typedef struct slot_t {
  void* data;
  uint64_t size;
  uint32_t dtype;
  uint32_t rank;
  int64_t dims[GRAFT_MAX_RANK];
  graft_tensor_t storage; /* memory this invocation owns, if any */
  int moved;              /* |storage| was handed to a result */
  uint64_t arena_offset;  /* GRAFT_BUFFER_ARENA: bytes into the arena */
} slot_t;

typedef struct invocation_t {
  const graft_library_v1_t* library;
  const graft_function_v1_t* f;
  const graft_executor_t* executor;
  const graft_tensor_t* args;
  graft_tensor_t* results; /* the caller's: storage to write in place */
  graft_arena_t* arena;    /* NULL when no buffer is in the arena */
  int64_t* values; /* f->expr_count */
  slot_t* slots;   /* f->buffer_count */
  graft_guard_region_t* regions; /* f->buffer_count when guarding, or NULL */
  graft_watchdog_t* watchdog;    /* NULL without a deadline */
  graft_loop_profile_t* profile; /* NULL unless profiling (invoke_profiled) */
} invocation_t;

static int dtype_accepts(uint32_t declared, uint32_t actual) {
  return declared == actual ||
         (declared == GRAFT_DTYPE_INDEX && actual == GRAFT_DTYPE_I64);
}

/* " (%x)" for a named argument, else "". */
static void arg_name(const graft_value_type_v1_t* want, char* name,
                     size_t capacity) {
  if (want->name && want->name[0])
    snprintf(name, capacity, " (%%%s)", want->name);
}

/* Stage 1: count, dtype, rank, static dims and storage of every argument. */
static graft_status_t check_args(const graft_function_v1_t* f,
                                 const graft_tensor_t* args, size_t arg_count,
                                 size_t result_count) {
  if (arg_count != f->arg_count)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "function '%s' takes %u argument%s, got %zu",
                             f->name, f->arg_count,
                             f->arg_count == 1 ? "" : "s", arg_count);
  if (result_count != f->result_count)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "function '%s' returns %u result%s, got room for "
                             "%zu",
                             f->name, f->result_count,
                             f->result_count == 1 ? "" : "s", result_count);
  for (uint32_t i = 0; i < f->arg_count; ++i) {
    const graft_value_type_v1_t* want = &f->args[i];
    const graft_tensor_t* t = &args[i];
    int ok = dtype_accepts(want->dtype, t->dtype) && t->rank == want->rank;
    /* Checked in the same pass: dims whose byte count wraps past 2^64 must
     * not pass as a small tensor. A zero dim makes it empty whatever the
     * others are. */
    uint64_t needed = graft_dtype_size(t->dtype);
    int empty = 0, overflow = 0;
    for (uint32_t d = 0; ok && d < t->rank; ++d) {
      int64_t dim = t->dims[d];
      ok = dim >= 0 &&
           (want->dims[d] == GRAFT_DIM_DYNAMIC || want->dims[d] == dim);
      empty |= dim == 0;
      overflow |= __builtin_mul_overflow(needed, (uint64_t)dim, &needed);
    }
    /* The argument's name for messages, formatted only on a failure (the
     * per-call cost of a small call counts). */
    char name[80];
    name[0] = 0;
    if (!ok) {
      arg_name(want, name, sizeof(name));
      char expected[128], got[128];
      graft_value_type_format(want, expected, sizeof(expected));
      if (t->rank > GRAFT_MAX_RANK)
        snprintf(got, sizeof(got), "rank %u", t->rank);
      else
        graft_tensor_type_format(t, got, sizeof(got));
      return graft_status_make(GRAFT_INVALID_ARGUMENT,
                               "argument %u%s: expected %s, got %s", i + 1,
                               name, expected, got);
    }
    if (empty) needed = 0;
    if ((overflow && !empty) || t->size < needed || (needed && !t->data))
      arg_name(want, name, sizeof(name));
    if (overflow && !empty)
      return graft_status_make(GRAFT_INVALID_ARGUMENT,
                               "argument %u%s: its shape needs more than 2^64 "
                               "bytes",
                               i + 1, name);
    if (t->size < needed || (needed && !t->data))
      return graft_status_make(GRAFT_INVALID_ARGUMENT,
                               "argument %u%s: its shape needs %llu bytes, the "
                               "tensor holds %llu",
                               i + 1, name, (unsigned long long)needed,
                               (unsigned long long)t->size);
  }
  return NULL;
}

/* Stage 2b: every check's two expressions must agree. */
static graft_status_t run_checks(const invocation_t* inv) {
  const graft_function_v1_t* f = inv->f;
  for (uint32_t i = 0; i < f->check_count; ++i) {
    const graft_check_v1_t* c = &f->checks[i];
    int64_t lhs = inv->values[c->lhs], rhs = inv->values[c->rhs];
    if (lhs != rhs)
      return graft_status_make(GRAFT_FAILED_PRECONDITION, "%s: %lld != %lld",
                               c->message[0] ? c->message
                                             : "runtime shape check failed",
                               (long long)lhs, (long long)rhs);
  }
  return NULL;
}

/* Stage 3 under --guard: buffer |i| in its own guarded mapping, filled
 * from |source| and sealed read-only when given (arguments, constants). */
static graft_status_t setup_guarded(invocation_t* inv, uint32_t i,
                                    const void* source) {
  slot_t* s = &inv->slots[i];
  graft_guard_region_t* r = &inv->regions[i];
  graft_status_t st =
      graft_guard_region_create(inv->executor->guard, s->size, r);
  if (!st && source) {
    if (s->size) memcpy(r->data, source, (size_t)s->size);
    st = graft_guard_region_seal(r);
  }
  if (st)
    return graft_status_annotate(st, "function '%s': buffer %u",
                                 inv->f->name, i);
  s->data = r->data;
  return NULL;
}

/* Stage 3 (before placing buffers): caller storage for the results has
 * the right size. */
static graft_status_t check_results(const invocation_t* inv) {
  const graft_tensor_t* results = inv->results;
  const graft_function_v1_t* f = inv->f;
  for (uint32_t r = 0; r < f->result_count; ++r) {
    const slot_t* s = &inv->slots[f->result_buffers[r]];
    if (results[r].data && results[r].size != s->size) {
      char type[128];
      graft_tensor_t shape = {.dtype = s->dtype, .rank = s->rank};
      memcpy(shape.dims, s->dims, sizeof(shape.dims));
      graft_tensor_type_format(&shape, type, sizeof(type));
      return graft_status_make(GRAFT_INVALID_ARGUMENT,
                               "result %u: caller storage holds %llu bytes, "
                               "%s needs %llu",
                               r + 1, (unsigned long long)results[r].size,
                               type, (unsigned long long)s->size);
    }
  }
  return NULL;
}

/* Stage 3a: shape and size of buffer |i|; an arena buffer's offset, and the
 * arena's extent so far in |arena_size|. */
static graft_status_t shape_buffer(invocation_t* inv, uint32_t i,
                                   uint64_t* arena_size) {
  const graft_function_v1_t* f = inv->f;
  const graft_buffer_v1_t* b = &f->buffers[i];
  slot_t* s = &inv->slots[i];
  s->dtype = b->dtype;
  s->rank = b->rank;
  uint64_t size = graft_dtype_size(b->dtype);
  for (uint32_t d = 0; d < b->rank; ++d) {
    int64_t dim = inv->values[b->dims[d]];
    if (dim < 0)
      return graft_status_make(GRAFT_INVALID_ARGUMENT,
                               "function '%s': buffer %u would have negative "
                               "dimension %lld",
                               f->name, i, (long long)dim);
    if (__builtin_mul_overflow(size, (uint64_t)dim, &size))
      return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                               "function '%s': buffer %u size overflows",
                               f->name, i);
    s->dims[d] = dim;
  }
  s->size = size;
  if (b->kind != GRAFT_BUFFER_ARENA) return NULL;
  int64_t offset = inv->values[b->index];
  uint64_t end = 0;
  if (offset < 0 || offset % 64 != 0 ||
      __builtin_add_overflow((uint64_t)offset, size, &end))
    return graft_status_make(GRAFT_DATA_LOSS,
                             "function '%s': buffer %u has arena offset %lld "
                             "(size %llu); the bundle's host program is "
                             "inconsistent",
                             f->name, i, (long long)offset,
                             (unsigned long long)size);
  s->arena_offset = (uint64_t)offset;
  if (end > *arena_size) *arena_size = end;
  return NULL;
}

/* Whether [data, data + size) overlaps the storage of one of the |count|
 * tensors at |tensors| other than number |skip|. */
static int overlaps_tensors(const graft_tensor_t* tensors, uint32_t count,
                            uint32_t skip, const void* data, uint64_t size) {
  uintptr_t lo = (uintptr_t)data, hi = lo + size;
  for (uint32_t t = 0; t < count; ++t) {
    uintptr_t tlo = (uintptr_t)tensors[t].data, thi = tlo + tensors[t].size;
    if (t != skip && tensors[t].data && lo < thi && tlo < hi) return 1;
  }
  return 0;
}

/* Caller storage for result buffer |i| the dispatches can write in place:
 * 64-byte aligned (abi.h's binding promise), not overlapping an argument
 * (a later step may still read it) nor another result's storage (a
 * dispatch's outputs overlap none of its inputs: the generated code counts
 * on it), the result's size (check_results). Otherwise NULL: the result is
 * computed aside and copied. */
static void* caller_storage(const invocation_t* inv, uint32_t i) {
  const graft_buffer_v1_t* b = &inv->f->buffers[i];
  const graft_tensor_t* out = &inv->results[b->index];
  const slot_t* s = &inv->slots[i];
  if (!out->data || out->size != s->size || ((uintptr_t)out->data & 63) != 0 ||
      inv->f->result_buffers[b->index] != i ||
      overlaps_tensors(inv->args, inv->f->arg_count, UINT32_MAX, out->data,
                       s->size) ||
      overlaps_tensors(inv->results, inv->f->result_count, b->index, out->data,
                       s->size))
    return NULL;
  return out->data;
}

/* Stage 3b: storage of buffer |i| (after every buffer's shape). */
static graft_status_t place_buffer(invocation_t* inv, uint32_t i) {
  const graft_function_v1_t* f = inv->f;
  const graft_buffer_v1_t* b = &f->buffers[i];
  slot_t* s = &inv->slots[i];
  uint64_t size = s->size;
  if (inv->regions && b->kind != GRAFT_BUFFER_ALIAS) {
    const void* source = b->kind == GRAFT_BUFFER_ARG ? inv->args[b->index].data
                         : b->kind == GRAFT_BUFFER_CONST ? b->data
                                                         : NULL;
    return setup_guarded(inv, i, source);
  }
  switch (b->kind) {
    case GRAFT_BUFFER_ARG: {
      /* Validated: the buffer has the argument's shape, which check_args
       * compared with the tensor's storage. */
      const graft_tensor_t* arg = &inv->args[b->index];
      if (((uintptr_t)arg->data & 63) == 0) {
        /* No step writes an ARG buffer (validated); dispatches are trusted
         * to honour their binding flags. */
        s->data = arg->data;
        return NULL;
      }
      /* abi.h promises 64-byte-aligned bindings: copy unaligned inputs. */
      graft_status_t st = graft_tensor_allocate(s->dtype, s->rank, s->dims,
                                                &s->storage);
      if (st) return st;
      if (size) memcpy(s->storage.data, arg->data, size);
      s->data = s->storage.data;
      return NULL;
    }
    case GRAFT_BUFFER_RESULT:
      if ((s->data = caller_storage(inv, i))) return NULL;
      /* fall through */
    case GRAFT_BUFFER_TEMP: {
      graft_status_t st = graft_tensor_allocate(s->dtype, s->rank, s->dims,
                                                &s->storage);
      if (st) return graft_status_annotate(st, "function '%s': buffer %u",
                                           f->name, i);
      s->data = s->storage.data;
      return NULL;
    }
    case GRAFT_BUFFER_ARENA: {
      /* No arena is acquired when every arena buffer is empty (a packed
       * matmul's prepacked rhs where it packs per workgroup). */
      static _Alignas(64) char no_arena[64];
      s->data = inv->arena ? (char*)inv->arena->storage.data + s->arena_offset : no_arena;
      return NULL;
    }
    case GRAFT_BUFFER_CONST:
      /* Validated: a static shape of exactly data_size bytes. */
      s->data = (void*)b->data;
      return NULL;
    default: /* GRAFT_BUFFER_ALIAS of an earlier buffer (validated) */
      if (size > inv->slots[b->index].size)
        return graft_status_make(GRAFT_DATA_LOSS,
                                 "function '%s': buffer %u needs %llu bytes "
                                 "but the buffer %u it aliases has %llu; the "
                                 "bundle's host program is inconsistent",
                                 f->name, i, (unsigned long long)size,
                                 b->index,
                                 (unsigned long long)inv->slots[b->index].size);
      s->data = inv->slots[b->index].data;
      return NULL;
  }
}

/* Stage 3: every buffer's shape, then the arena, then every buffer's
 * storage (aliases follow earlier buffers). Under --guard arena buffers get
 * guarded mappings of their own instead. */
static graft_status_t setup_buffers(invocation_t* inv) {
  const graft_function_v1_t* f = inv->f;
  uint64_t arena_size = 0;
  graft_status_t st = NULL;
  for (uint32_t i = 0; !st && i < f->buffer_count; ++i)
    st = shape_buffer(inv, i, &arena_size);
  if (!st) st = check_results(inv);
  if (!st && arena_size && !inv->regions)
    st = graft_arena_acquire(inv->executor->arenas, arena_size, &inv->arena);
  for (uint32_t i = 0; !st && i < f->buffer_count; ++i)
    st = place_buffer(inv, i);
  return st;
}

/*===--- dispatch ---------------------------------------------------------===*/

typedef struct workgroup_run_t {
  graft_dispatch_fn_t fn;
  const graft_dispatch_state_v1_t* state;
  const graft_guard_watch_t* watch; /* NULL unless guarding */
  const graft_watchdog_t* watchdog; /* NULL without a deadline */
  /* The first workgroup whose failure came from an import. */
  atomic_int import_failed;
  uint64_t failed_index;
  graft_import_failure_t import_failure;
  const graft_ubsan_slice_t* ubsan; /* NULL unless instrumented */
  /* The first workgroup in which a UBSan check fired. */
  atomic_int ubsan_failed;
  uint64_t ubsan_index;
  graft_ubsan_finding_t ubsan_finding;
} workgroup_run_t;

static void workgroup_id(const graft_dispatch_state_v1_t* state,
                         uint64_t index, uint32_t id[3]) {
  /* x varies fastest. */
  uint64_t x = state->workgroup_count[0], y = state->workgroup_count[1];
  id[0] = (uint32_t)(index % x);
  id[1] = (uint32_t)((index / x) % y);
  id[2] = (uint32_t)(index / (x * y));
}

/* What the dispatch return values graft reserves (graft/abi.h) mean, or
 * NULL for any other value. */
static const char* reserved_status_text(int code) {
  switch (code) {
    case GRAFT_DISPATCH_STATUS_BAD_KERNEL_ARGUMENT:
      return "a kernel argument overflowed, divided by zero or does not fit "
             "its type; the kernel was not called";
    case GRAFT_DISPATCH_STATUS_INDEX_OUT_OF_RANGE:
      return "an index read from a tensor is out of range for the dim it "
             "indexes (gather)";
    default:
      return NULL;
  }
}

static int run_workgroup(void* context, uint64_t index, uint32_t worker_id,
                         void* scratch, uint64_t scratch_size) {
  workgroup_run_t* run = context;
  graft_workgroup_state_v1_t wg;
  memset(&wg, 0, sizeof(wg));
  workgroup_id(run->state, index, wg.workgroup_id);
  wg.worker_id = worker_id;
  wg.scratch = scratch;
  wg.scratch_size = scratch_size;
  /* Past the deadline no further workgroup starts; any nonzero code stops
   * the loop and run_dispatch asks the watchdog what happened. */
  if (run->watchdog && graft_watchdog_expired(run->watchdog)) return -1;
  graft_import_failure_reset();
  if (run->watch) graft_guard_enter(run->watch, index);
  graft_ubsan_finding_t finding = {NULL, 0};
  int code = run->ubsan ? graft_ubsan_call(run->fn, run->state, &wg, &finding)
                        : run->fn(run->state, &wg);
  if (run->watch) graft_guard_enter(NULL, 0);
  if (finding.check) {
    /* Stops the loop like a failing dispatch; run_dispatch names it. */
    if (!atomic_exchange(&run->ubsan_failed, 1)) {
      run->ubsan_index = index;
      run->ubsan_finding = finding;
    }
    return code ? code : -1;
  }
  graft_import_failure_t failure;
  if (code != 0 && graft_import_failure_take(&failure) &&
      !atomic_exchange(&run->import_failed, 1)) {
    run->failed_index = index;
    run->import_failure = failure;
  }
  return code;
}

static uint64_t now_ns(void) { return graft_loop_profile_now_ns(); }

/* The evaluated grid of dispatch or host-call step |si|: each count as
 * uint32 in |count|, their product in |total|. */
static graft_status_t step_grid(const invocation_t* inv, uint32_t si,
                                uint32_t count[3], uint64_t* total) {
  const graft_step_v1_t* step = &inv->f->steps[si];
  for (int d = 0; d < 3; ++d) {
    int64_t v = inv->values[step->workgroup_count[d]];
    if (v < 0 || v > (int64_t)UINT32_MAX)
      return graft_status_make(GRAFT_INVALID_ARGUMENT,
                               "function '%s': step %u has workgroup count "
                               "%lld outside [0, 4294967295]",
                               inv->f->name, si, (long long)v);
    count[d] = (uint32_t)v;
  }
  *total = (uint64_t)count[0] * count[1];
  if (__builtin_mul_overflow(*total, (uint64_t)count[2], total))
    return graft_status_make(
        GRAFT_INVALID_ARGUMENT, "dispatch '%s': grid %ux%ux%u is too large",
        inv->library->dispatch_attrs[step->dispatch].name, count[0], count[1],
        count[2]);
  return NULL;
}

/* A UBSan check that fired in |run| (--sanitize=undefined): which, where
 * in the slice, in which dispatch and workgroup. */
static graft_status_t ubsan_status(const invocation_t* inv,
                                   const graft_dispatch_attrs_v1_t* attrs,
                                   const graft_dispatch_state_v1_t* state,
                                   const workgroup_run_t* run) {
  uint32_t id[3];
  workgroup_id(state, run->ubsan_index, id);
  const char* source = attrs->source;
  const graft_ubsan_slice_t* slice = run->ubsan;
  return graft_status_make(
      GRAFT_ABORTED,
      "dispatch '%s'%s%s%s of function '%s' in workgroup (%u,%u,%u): "
      "undefined behaviour: %s, called from offset 0x%llx of the %s slice "
      "(--sanitize=undefined)",
      attrs->name, source[0] ? " (" : "", source, source[0] ? ")" : "",
      inv->f->name, id[0], id[1], id[2], run->ubsan_finding.check,
      (unsigned long long)(run->ubsan_finding.pc - slice->base), slice->name);
}

/* A host command's workgroups (graft emits one), in order, on this thread
 * as worker 0 without scratch: the import it calls may run threads of its
 * own, and nothing else of the invocation runs meanwhile. Reports like
 * graft_thread_pool_parallel_for_profiled; a profile gets one chunk on
 * thread 0 and no other thread. */
static graft_status_t run_on_caller(uint64_t count, graft_parallel_fn_t fn,
                                    void* context,
                                    graft_parallel_failure_t* out_failure,
                                    graft_loop_profile_t* profile) {
  out_failure->code = 0;
  out_failure->index = 0;
  uint64_t begin_ns = profile ? now_ns() : 0;
  uint64_t i = 0;
  for (; i < count; ++i) {
    int code = fn(context, i, 0, NULL, 0);
    if (code != 0) {
      out_failure->code = code;
      out_failure->index = i++; /* the failing workgroup ran */
      break;
    }
  }
  if (profile) graft_loop_profile_inline(profile, begin_ns, now_ns(), i);
  return NULL;
}

/* A GRAFT_STEP_DISPATCH over the pool, or a GRAFT_STEP_HOST_CALL on the
 * calling thread, with its grid (step_grid): |total| workgroups, at least
 * one. */
static graft_status_t run_dispatch(const invocation_t* inv, uint32_t si,
                                   const uint32_t grid[3], uint64_t total,
                                   void** bindings, uint64_t* lengths,
                                   uint64_t* constants) {
  const graft_function_v1_t* f = inv->f;
  const graft_step_v1_t* step = &f->steps[si];
  const graft_library_v1_t* lib = inv->library;
  const graft_dispatch_attrs_v1_t* attrs = &lib->dispatch_attrs[step->dispatch];
  for (uint32_t c = 0; c < step->constant_count; ++c) {
    constants[c] = (uint64_t)inv->values[step->constants[c]];
  }
  const graft_import_table_t* imports = inv->executor->imports;
  /* Every field named (no padding in the struct): no clearing first. */
  graft_dispatch_state_v1_t state = {
      {grid[0], grid[1], grid[2]},
      step->constant_count,
      step->binding_count,
      graft_import_table_count(imports),
      constants,
      bindings,
      lengths,
      graft_import_table_functions(imports),
      graft_import_table_contexts(imports),
      inv->executor->processor_data};

  graft_guard_watch_t watch = {f, attrs, state.workgroup_count, inv->regions};
  /* The failure records are written only after their flag is taken, so
   * they are left unset here (a zeroed 100-byte struct per dispatch is a
   * rep stos, slow to start). */
  workgroup_run_t run;
  run.fn = lib->dispatches[step->dispatch];
  run.state = &state;
  run.watch = inv->regions ? &watch : NULL;
  run.watchdog = inv->watchdog;
  run.ubsan = inv->executor->ubsan;
  atomic_init(&run.import_failed, 0);
  atomic_init(&run.ubsan_failed, 0);
  if (inv->watchdog) graft_watchdog_enter(inv->watchdog, attrs);
  graft_parallel_failure_t failure;
  /* A profile exists only with a trace callback (invoke_profiled): its
   * test stays out of an untraced dispatch. */
  graft_loop_profile_t* profile = inv->profile;
  uint64_t start = 0;
  if (inv->executor->trace) {
    start = now_ns();
    if (profile) profile->origin_ns = start;
  }
  int host_call = step->kind == GRAFT_STEP_HOST_CALL;
  graft_status_t st =
      host_call ? run_on_caller(total, run_workgroup, &run, &failure, profile)
      : profile ? graft_thread_pool_parallel_for_profiled(
                      inv->executor->pool, total, attrs->scratch_size,
                      run_workgroup, &run, &failure, profile)
                : graft_thread_pool_parallel_for(inv->executor->pool, total,
                                                 attrs->scratch_size,
                                                 run_workgroup, &run, &failure);
  if (inv->watchdog) {
    graft_watchdog_enter(inv->watchdog, NULL);
    graft_status_t expired = graft_watchdog_status(inv->watchdog);
    if (expired) {
      graft_status_free(st);
      return expired;
    }
  }
  if (st) return graft_status_annotate(st, "dispatch '%s'", attrs->name);
  if (inv->executor->trace) {
    graft_trace_event_t event = {
        f->name, attrs->name, attrs->source,
        step->dispatch,
        {state.workgroup_count[0], state.workgroup_count[1],
         state.workgroup_count[2]},
        now_ns() - start,
        start,
        profile ? (host_call ? 1 : profile->thread_count) : 0,
        profile ? profile->chunk_count : 0,
        profile ? profile->threads : NULL,
        profile ? profile->chunks : NULL};
    inv->executor->trace(&event, inv->executor->trace_user_data);
  }
  if (failure.code != 0 && atomic_load(&run.ubsan_failed))
    return ubsan_status(inv, attrs, &state, &run);
  if (failure.code != 0 && atomic_load(&run.import_failed)) {
    /* An import said no: name it, its plugin and what it returned. */
    const graft_import_failure_t* f = &run.import_failure;
    uint32_t id[3];
    workgroup_id(&state, run.failed_index, id);
    const char* source = attrs->source ? attrs->source : "";
    if (host_call)
      return graft_status_make(GRAFT_ABORTED,
                               "host command '%s'%s%s%s: '%s' of plugin '%s' "
                               "(%s) returned %d",
                               attrs->name, source[0] ? " (" : "", source,
                               source[0] ? ")" : "", f->symbol,
                               f->plugin_name, f->plugin_origin, f->code);
    return graft_status_make(GRAFT_ABORTED,
                             "dispatch '%s'%s%s%s failed in workgroup "
                             "(%u,%u,%u): import '%s' of plugin '%s' (%s) "
                             "returned %d",
                             attrs->name, source[0] ? " (" : "", source,
                             source[0] ? ")" : "", id[0], id[1], id[2],
                             f->symbol, f->plugin_name, f->plugin_origin,
                             f->code);
  }
  const char* reserved = reserved_status_text(failure.code);
  if (reserved) {
    uint32_t id[3];
    workgroup_id(&state, failure.index, id);
    const char* source = attrs->source;
    return graft_status_make(GRAFT_FAILED_PRECONDITION,
                             "dispatch '%s'%s%s%s: in workgroup (%u,%u,%u) %s",
                             attrs->name, source[0] ? " (" : "", source,
                             source[0] ? ")" : "", id[0], id[1], id[2],
                             reserved);
  }
  if (failure.code != 0) {
    uint32_t id[3];
    workgroup_id(&state, failure.index, id);
    const char* source = attrs->source;
    return graft_status_make(GRAFT_ABORTED,
                             "dispatch '%s'%s%s%s failed with code %d in "
                             "workgroup (%u,%u,%u)",
                             attrs->name, source[0] ? " (" : "", source,
                             source[0] ? ")" : "", failure.code, id[0], id[1],
                             id[2]);
  }
  return inv->regions ? graft_guard_check_dispatch(&watch) : NULL;
}

static graft_status_t run_copy(const invocation_t* inv, uint32_t si,
                               void** bindings, uint64_t* lengths) {
  if (lengths[0] != lengths[1])
    return graft_status_make(GRAFT_DATA_LOSS,
                             "function '%s': copy step %u copies %llu bytes "
                             "into %llu; the bundle's host program is "
                             "inconsistent",
                             inv->f->name, si, (unsigned long long)lengths[0],
                             (unsigned long long)lengths[1]);
  if (lengths[0]) memmove(bindings[1], bindings[0], (size_t)lengths[0]);
  return NULL;
}

/* Stage 4: every step in order. */
/* Whether a step runs (graft_step_v1_t.guard): an optional import's call
 * when a plugin provides the import, its generated fallback when none does;
 * a guarded rule's kernel when its guard expression holds in this
 * invocation, graft's own code when it does not. A missing optional import
 * is a NULL function in the table. */
static int step_guard_holds(const invocation_t* inv,
                            const graft_step_v1_t* step) {
  if (step->guard == 0) return 1;
  uint32_t index = step->guard & GRAFT_STEP_GUARD_INDEX_MASK;
  switch (step->guard & GRAFT_STEP_GUARD_KIND_MASK) {
    case GRAFT_STEP_GUARD_IMPORT_RESOLVED:
      return graft_import_table_functions(inv->executor->imports)[index] !=
             NULL;
    case GRAFT_STEP_GUARD_IMPORT_MISSING:
      return graft_import_table_functions(inv->executor->imports)[index] ==
             NULL;
    case GRAFT_STEP_GUARD_EXPR_NONZERO:
      return inv->values[index] != 0;
    default: /* GRAFT_STEP_GUARD_EXPR_ZERO, the only other kind (validated) */
      return inv->values[index] == 0;
  }
}

static graft_status_t run_steps(const invocation_t* inv) {
  const graft_function_v1_t* f = inv->f;
  graft_status_t st = NULL;
  for (uint32_t si = 0; si < f->step_count && !st; ++si) {
    if (inv->watchdog && (st = graft_watchdog_status(inv->watchdog))) break;
    const graft_step_v1_t* step = &f->steps[si];
    if (!step_guard_holds(inv, step)) continue;
    /* A dispatch without workgroups (a packed matmul's rhs pack where one
     * row of workgroups packs its own) is skipped: nothing would run, so
     * neither its bindings nor its state are set up, and the trace does not
     * list it. Its buffers keep their places (the compiler's arena plan). */
    uint32_t grid[3] = {0, 0, 0};
    uint64_t total = 0;
    if (step->kind != GRAFT_STEP_COPY) {
      st = step_grid(inv, si, grid, &total);
      if (st || total == 0) continue;
    }
    uint32_t nb = step->binding_count, nc = step->constant_count;
    /* On the stack when small: a tiny call must not pay for malloc. */
    void* bindings_small[SMALL_COUNT];
    uint64_t lengths_small[SMALL_COUNT], constants_small[SMALL_COUNT];
    int small = nb <= SMALL_COUNT && nc <= SMALL_COUNT;
    void** bindings = small ? bindings_small : calloc(nb ? nb : 1, sizeof(void*));
    uint64_t* lengths = small ? lengths_small : calloc(nb ? nb : 1, sizeof(uint64_t));
    uint64_t* constants = small ? constants_small : calloc(nc ? nc : 1, sizeof(uint64_t));
    if (!bindings || !lengths || !constants) {
      st = graft_status_make(GRAFT_RESOURCE_EXHAUSTED, "out of memory");
    }
    for (uint32_t b = 0; !st && b < nb; ++b) {
      bindings[b] = inv->slots[step->bindings[b]].data;
      lengths[b] = inv->slots[step->bindings[b]].size;
    }
    if (!st) {
      if (step->kind == GRAFT_STEP_COPY)
        st = run_copy(inv, si, bindings, lengths);
      else /* DISPATCH or HOST_CALL, the other kinds (validated) */
        st = run_dispatch(inv, si, grid, total, bindings, lengths, constants);
    }
    if (!small) {
      free(bindings);
      free(lengths);
      free(constants);
    }
  }
  return st;
}

/* Stage 5: move or copy each result out. |allocated[r]| records outputs the
 * runtime allocated so a later failure can release them, for the first
 * |*delivered| results (set as it goes: nothing needs clearing first). */
static graft_status_t deliver_results(invocation_t* inv,
                                      graft_tensor_t* results,
                                      int* allocated, uint32_t* delivered) {
  const graft_function_v1_t* f = inv->f;
  for (uint32_t r = 0; r < f->result_count; ++r) {
    allocated[r] = 0;
    *delivered = r + 1;
    slot_t* s = &inv->slots[f->result_buffers[r]];
    graft_tensor_t* out = &results[r];
    const graft_buffer_v1_t* b = &f->buffers[f->result_buffers[r]];
    if (out->data) {
      if (s->size && out->data != s->data)
        memcpy(out->data, s->data, (size_t)s->size);
    } else if (b->kind == GRAFT_BUFFER_RESULT && !s->moved && !inv->regions) {
      /* Field by field (dtype, rank and dims follow): a struct copy is a
       * rep movs. */
      out->data = s->storage.data;
      out->size = s->storage.size;
      out->owned = s->storage.owned;
      s->moved = 1;
      allocated[r] = 1;
    } else {
      /* An argument, constant, alias, a buffer returned twice or a guarded
       * mapping: copy. */
      graft_status_t st = graft_tensor_allocate(s->dtype, s->rank, s->dims, out);
      if (st) return st;
      allocated[r] = 1;
      if (s->size) memcpy(out->data, s->data, (size_t)s->size);
    }
    out->dtype = s->dtype;
    out->rank = s->rank;
    /* Zero past the rank, where a slot's dims are not set (and not a
     * memcpy of all of them: GCC makes that a rep movs, slow to start). */
    for (uint32_t d = 0; d < GRAFT_MAX_RANK; ++d)
      out->dims[d] = d < s->rank ? s->dims[d] : 0;
  }
  return NULL;
}

/* The invocation (graft_function_invoke); |profile| is NULL, or where
 * every dispatch records its profile in turn (invoke_profiled). */
static graft_status_t invoke(const graft_library_v1_t* library,
                             uint32_t function_ordinal,
                             const graft_executor_t* executor,
                             const graft_tensor_t* args, size_t arg_count,
                             graft_tensor_t* results, size_t result_count,
                             graft_loop_profile_t* profile) {
  if (function_ordinal >= library->function_count)
    return graft_status_make(GRAFT_NOT_FOUND,
                             "function ordinal %u out of range (%u functions)",
                             function_ordinal, library->function_count);
  const graft_function_v1_t* f = &library->functions[function_ordinal];
  graft_status_t st = check_args(f, args, arg_count, result_count);
  if (st) return st;

  invocation_t inv = {library, f,    executor, args, results,
                      NULL,    NULL, NULL,     NULL, NULL, profile};
  if (executor->timeout_ms) {
    st = graft_watchdog_start(f, executor->timeout_ms, executor->on_timeout,
                              executor->timeout_user_data, &inv.watchdog);
    if (st) return st;
  }
  int allocated_small[SMALL_COUNT];
  int64_t values_small[SMALL_EXPRS];
  slot_t slots_small[SMALL_BUFFERS];
  int small = result_count <= SMALL_COUNT && f->expr_count <= SMALL_EXPRS &&
              f->buffer_count <= SMALL_BUFFERS;
  int* allocated = allocated_small;
  if (small) {
    inv.values = values_small;
    inv.slots = slots_small;
    /* Only what cleanup reads before stage 3 writes it: the rest of a
     * slot (200 bytes) is set when its buffer is shaped and placed. */
    for (uint32_t i = 0; i < f->buffer_count; ++i) {
      slots_small[i].storage.owned = 0;
      slots_small[i].moved = 0;
    }
  } else {
    allocated = calloc(result_count ? result_count : 1, sizeof(int));
    inv.values = calloc(f->expr_count ? f->expr_count : 1, sizeof(int64_t));
    inv.slots = calloc(f->buffer_count ? f->buffer_count : 1, sizeof(slot_t));
  }
  if (executor->guard)
    inv.regions = calloc(f->buffer_count ? f->buffer_count : 1,
                         sizeof(graft_guard_region_t));
  if (!allocated || !inv.values || !inv.slots ||
      (executor->guard && !inv.regions))
    st = graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                           "out of memory invoking '%s'", f->name);
  if (!st)
    st = graft_expr_memos_evaluate(executor->memos, function_ordinal, f, args,
                                   inv.values);
  if (!st) st = run_checks(&inv);
  if (!st) st = setup_buffers(&inv);
  if (!st) st = run_steps(&inv);
  uint32_t delivered = 0;
  if (!st) st = deliver_results(&inv, results, allocated, &delivered);

  if (st && allocated) {
    for (uint32_t r = 0; r < delivered; ++r)
      if (allocated[r]) graft_tensor_release(&results[r]);
  }
  if (inv.slots) {
    for (uint32_t i = 0; i < f->buffer_count; ++i)
      if (inv.slots[i].storage.owned && !inv.slots[i].moved)
        graft_tensor_release(&inv.slots[i].storage);
  }
  graft_arena_release(executor->arenas, inv.arena);
  graft_watchdog_stop(inv.watchdog);
  for (uint32_t i = 0; inv.regions && i < f->buffer_count; ++i)
    graft_guard_region_release(&inv.regions[i]);
  free(inv.regions);
  if (!small) {
    free(inv.slots);
    free(inv.values);
    free(allocated);
  }
  return st;
}

/* GRAFT_RUNTIME_FLAG_PROFILE: one block, allocated per call and sized for
 * the pool, holds the profile of every dispatch in turn (each is handed to
 * the trace callback before the next runs). Apart from invoke, so that an
 * unprofiled call tests for a profile once, here, and never frees one. */
static __attribute__((noinline)) graft_status_t invoke_profiled(
    const graft_library_v1_t* library, uint32_t function_ordinal,
    const graft_executor_t* executor, const graft_tensor_t* args,
    size_t arg_count, graft_tensor_t* results, size_t result_count) {
  graft_loop_profile_t* profile =
      graft_loop_profile_create(graft_thread_pool_size(executor->pool),
                                graft_thread_pool_chunk_capacity(executor->pool));
  if (!profile)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "out of memory for a call's profile");
  graft_status_t st = invoke(library, function_ordinal, executor, args,
                             arg_count, results, result_count, profile);
  free(profile);
  return st;
}

graft_status_t graft_function_invoke(const graft_library_v1_t* library,
                                     uint32_t function_ordinal,
                                     const graft_executor_t* executor,
                                     const graft_tensor_t* args,
                                     size_t arg_count, graft_tensor_t* results,
                                     size_t result_count) {
  if (executor->profile)
    return invoke_profiled(library, function_ordinal, executor, args,
                           arg_count, results, result_count);
  return invoke(library, function_ordinal, executor, args, arg_count, results,
                result_count, NULL);
}
