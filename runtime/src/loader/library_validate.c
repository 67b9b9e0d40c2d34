/* Validates a library header before anyone trusts it.
 *
 * The header comes from code in an untrusted file, so every pointer it
 * holds is checked to lie, with its full length and proper alignment,
 * inside a segment of the loaded image (dispatch functions inside an
 * executable one), every string to end inside the image, every count to be
 * bounded and every index (expressions, buffers, dispatches, results) to
 * refer to something that exists; expression and ALIAS operands must refer
 * to earlier entries so evaluation order is always defined. Messages say
 * which function, which entry, what was expected and what was found. */
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_format.h"
#include "graft/tensor.h"
#include "library_validate.h"
#include "variant.h"

#define FAIL(...) return graft_status_make(GRAFT_DATA_LOSS, __VA_ARGS__)
/* Names from the slice are printed with a bound: they are validated strings
 * but may be arbitrarily long. */
#define NAME "%.64s"

static int is_string(const graft_elf_image_t* image, const char* str) {
  return str != NULL && graft_elf_image_contains_string(image, str);
}

/* |count| elements of |size| bytes at |ptr|, readable and aligned. An empty
 * array may have any pointer: it is never dereferenced. */
static int is_array(const graft_elf_image_t* image, const void* ptr,
                    uint64_t count, size_t size, size_t align) {
  if (count == 0) return 1;
  if (ptr == NULL || (uintptr_t)ptr % align != 0) return 0;
  if (count > UINT64_MAX / size) return 0;
  return graft_elf_image_contains(image, ptr, count * size, GRAFT_PF_R);
}

#define IS_ARRAY(image, ptr, count) \
  is_array((image), (ptr), (count), sizeof(*(ptr)), alignof(__typeof__(*(ptr))))

static int is_dtype(uint32_t dtype) {
  return dtype > GRAFT_DTYPE_INVALID && dtype < GRAFT_DTYPE_COUNT_;
}

static graft_status_t validate_value_type(const graft_elf_image_t* image,
                                          const char* function,
                                          const char* role, uint32_t index,
                                          const graft_value_type_v1_t* type) {
  if (!is_dtype(type->dtype)) {
    FAIL("function '" NAME "' %s %u has invalid dtype %u", function, role,
         index, type->dtype);
  }
  if (type->rank > GRAFT_MAX_RANK) {
    FAIL("function '" NAME "' %s %u has rank %u, more than the maximum %u",
         function, role, index, type->rank, GRAFT_MAX_RANK);
  }
  if (!IS_ARRAY(image, type->dims, type->rank)) {
    FAIL("function '" NAME "' %s %u dims array is not inside the slice image",
         function, role, index);
  }
  for (uint32_t d = 0; d < type->rank; ++d) {
    if (type->dims[d] < GRAFT_DIM_DYNAMIC) {
      FAIL("function '" NAME "' %s %u dim %u is %lld, expected -1 (dynamic) "
           "or a size",
           function, role, index, d, (long long)type->dims[d]);
    }
  }
  if (!is_string(image, type->name)) {
    FAIL("function '" NAME "' %s %u name is not a string inside the slice "
         "image",
         function, role, index);
  }
  return NULL;
}

static graft_status_t validate_exprs(const graft_elf_image_t* image,
                                     const graft_function_v1_t* f) {
  for (uint32_t i = 0; i < f->expr_count; ++i) {
    const graft_expr_v1_t* e = &f->exprs[i];
    switch (e->op) {
      case GRAFT_EXPR_CONST:
        break;
      case GRAFT_EXPR_ARG_DIM:
        if (e->a >= f->arg_count) {
          FAIL("function '" NAME "' expr %u reads argument %u but there are "
               "%u arguments",
               f->name, i, e->a, f->arg_count);
        }
        if (e->imm < 0 || e->imm >= (int64_t)f->args[e->a].rank) {
          FAIL("function '" NAME "' expr %u reads dim %lld of argument %u, "
               "which has rank %u",
               f->name, i, (long long)e->imm, e->a, f->args[e->a].rank);
        }
        break;
      case GRAFT_EXPR_ARG_SCALAR:
        if (e->a >= f->arg_count) {
          FAIL("function '" NAME "' expr %u reads argument %u but there are "
               "%u arguments",
               f->name, i, e->a, f->arg_count);
        }
        if (f->args[e->a].rank != 0) {
          FAIL("function '" NAME "' expr %u reads argument %u as a scalar, "
               "but it has rank %u",
               f->name, i, e->a, f->args[e->a].rank);
        }
        break;
      default:
        if (e->op >= GRAFT_EXPR_OP_COUNT_) {
          FAIL("function '" NAME "' expr %u has unknown op %u", f->name, i,
               e->op);
        }
        if (e->a >= i || e->imm < 0 || e->imm >= (int64_t)i) {
          FAIL("function '" NAME "' expr %u uses exprs %u and %lld; operands "
               "must be earlier exprs",
               f->name, i, e->a, (long long)e->imm);
        }
        break;
    }
  }
  return NULL;
}

/* An ARG buffer has exactly its argument's shape: dim d is expression
 * ARG_DIM(argument, d), or a CONST equal to the declared static size. The
 * executor checks the caller's tensors against the declared types, so the
 * buffer then always fits the caller's storage. */
static graft_status_t validate_argument_shape(const graft_function_v1_t* f,
                                              uint32_t i) {
  const graft_buffer_v1_t* b = &f->buffers[i];
  const graft_value_type_v1_t* arg = &f->args[b->index];
  if (b->rank != arg->rank) {
    FAIL("function '" NAME "' buffer %u has rank %u but argument %u has rank "
         "%u",
         f->name, i, b->rank, b->index, arg->rank);
  }
  for (uint32_t d = 0; d < b->rank; ++d) {
    const graft_expr_v1_t* e = &f->exprs[b->dims[d]];
    int is_arg_dim = e->op == GRAFT_EXPR_ARG_DIM && e->a == b->index &&
                     e->imm == (int64_t)d;
    int is_static = e->op == GRAFT_EXPR_CONST &&
                    arg->dims[d] != GRAFT_DIM_DYNAMIC && e->imm == arg->dims[d];
    if (!is_arg_dim && !is_static) {
      FAIL("function '" NAME "' buffer %u dim %u is expr %u, which is neither "
           "dim %u of argument %u nor its static size",
           f->name, i, d, b->dims[d], d, b->index);
    }
  }
  return NULL;
}

/* A CONST buffer has a static shape whose size is exactly its data's. */
static graft_status_t validate_constant_shape(const graft_function_v1_t* f,
                                              uint32_t i) {
  const graft_buffer_v1_t* b = &f->buffers[i];
  uint64_t size = graft_dtype_size(b->dtype);
  for (uint32_t d = 0; d < b->rank; ++d) {
    const graft_expr_v1_t* e = &f->exprs[b->dims[d]];
    if (e->op != GRAFT_EXPR_CONST || e->imm < 0) {
      FAIL("function '" NAME "' constant buffer %u dim %u is not a constant "
           "size",
           f->name, i, d);
    }
    if (__builtin_mul_overflow(size, (uint64_t)e->imm, &size)) {
      FAIL("function '" NAME "' constant buffer %u has a size that overflows "
           "64 bits",
           f->name, i);
    }
  }
  if (size != b->data_size) {
    FAIL("function '" NAME "' constant buffer %u needs %llu bytes for its "
         "shape but has %llu",
         f->name, i, (unsigned long long)size,
         (unsigned long long)b->data_size);
  }
  return NULL;
}

static graft_status_t validate_buffer(const graft_elf_image_t* image,
                                      const graft_function_v1_t* f,
                                      uint32_t i) {
  const graft_buffer_v1_t* b = &f->buffers[i];
  if (b->kind >= GRAFT_BUFFER_KIND_COUNT_) {
    FAIL("function '" NAME "' buffer %u has unknown kind %u", f->name, i,
         b->kind);
  }
  if (!is_dtype(b->dtype)) {
    FAIL("function '" NAME "' buffer %u has invalid dtype %u", f->name, i,
         b->dtype);
  }
  if (b->rank > GRAFT_MAX_RANK) {
    FAIL("function '" NAME "' buffer %u has rank %u, more than the maximum %u",
         f->name, i, b->rank, GRAFT_MAX_RANK);
  }
  if (!IS_ARRAY(image, b->dims, b->rank)) {
    FAIL("function '" NAME "' buffer %u dims array is not inside the slice "
         "image",
         f->name, i);
  }
  for (uint32_t d = 0; d < b->rank; ++d) {
    if (b->dims[d] >= f->expr_count) {
      FAIL("function '" NAME "' buffer %u dim %u is expr %u but there are %u "
           "exprs",
           f->name, i, d, b->dims[d], f->expr_count);
    }
  }
  switch (b->kind) {
    case GRAFT_BUFFER_ARG:
      if (b->index >= f->arg_count) {
        FAIL("function '" NAME "' buffer %u is argument %u but there are %u "
             "arguments",
             f->name, i, b->index, f->arg_count);
      }
      if (b->dtype != f->args[b->index].dtype) {
        FAIL("function '" NAME "' buffer %u has dtype %u but argument %u has "
             "dtype %u",
             f->name, i, b->dtype, b->index, f->args[b->index].dtype);
      }
      return validate_argument_shape(f, i);
    case GRAFT_BUFFER_RESULT:
      if (b->index >= f->result_count) {
        FAIL("function '" NAME "' buffer %u is result %u but there are %u "
             "results",
             f->name, i, b->index, f->result_count);
      }
      break;
    case GRAFT_BUFFER_ALIAS:
      if (b->index >= i) {
        FAIL("function '" NAME "' buffer %u aliases buffer %u; an alias must "
             "refer to an earlier buffer",
             f->name, i, b->index);
      }
      break;
    case GRAFT_BUFFER_ARENA:
      if (b->index >= f->expr_count) {
        FAIL("function '" NAME "' buffer %u has its arena offset in expr %u "
             "but there are %u exprs",
             f->name, i, b->index, f->expr_count);
      }
      break;
    case GRAFT_BUFFER_CONST:
      if (!is_array(image, b->data, b->data_size, 1, 1)) {
        FAIL("function '" NAME "' buffer %u constant data (%llu bytes) is not "
             "inside the slice image",
             f->name, i, (unsigned long long)b->data_size);
      }
      return validate_constant_shape(f, i);
    default:
      break;
  }
  return NULL;
}

/* Whether buffer |b| of a validated buffer table is read-only: an argument
 * or a constant, itself or at the end of its ALIAS chain (aliases refer to
 * earlier buffers, so the chain ends). If so, |role| says which, e.g.
 * "argument 0" or "an alias of buffer 2, a constant". */
static int read_only_role(const graft_function_v1_t* f, uint32_t b,
                          char* role, size_t capacity) {
  uint32_t storage = b;
  while (f->buffers[storage].kind == GRAFT_BUFFER_ALIAS) {
    storage = f->buffers[storage].index;
  }
  const graft_buffer_v1_t* buffer = &f->buffers[storage];
  char what[32];
  if (buffer->kind == GRAFT_BUFFER_ARG) {
    snprintf(what, sizeof(what), "argument %u", buffer->index);
  } else if (buffer->kind == GRAFT_BUFFER_CONST) {
    snprintf(what, sizeof(what), "a constant");
  } else {
    return 0;
  }
  if (storage == b) {
    snprintf(role, capacity, "%s", what);
  } else {
    snprintf(role, capacity, "an alias of buffer %u, %s", storage, what);
  }
  return 1;
}

static graft_status_t validate_step(const graft_elf_image_t* image,
                                    const graft_library_v1_t* lib,
                                    const graft_function_v1_t* f, uint32_t i) {
  const graft_step_v1_t* s = &f->steps[i];
  if (s->kind >= GRAFT_STEP_KIND_COUNT_) {
    FAIL("function '" NAME "' step %u has unknown kind %u", f->name, i,
         s->kind);
  }
  if (s->guard != 0) {
    uint32_t when = s->guard & GRAFT_STEP_GUARD_KIND_MASK;
    uint32_t index = s->guard & GRAFT_STEP_GUARD_INDEX_MASK;
    int on_import = when == GRAFT_STEP_GUARD_IMPORT_RESOLVED ||
                    when == GRAFT_STEP_GUARD_IMPORT_MISSING;
    int on_expr = when == GRAFT_STEP_GUARD_EXPR_NONZERO ||
                  when == GRAFT_STEP_GUARD_EXPR_ZERO;
    if (!on_import && !on_expr) {
      FAIL("function '" NAME "' step %u has guard 0x%x, expected one of "
           "IMPORT_RESOLVED, IMPORT_MISSING, EXPR_NONZERO and EXPR_ZERO",
           f->name, i, s->guard);
    }
    if (on_import && index >= lib->import_count) {
      FAIL("function '" NAME "' step %u is guarded by import %u but there "
           "are %u imports",
           f->name, i, index, lib->import_count);
    }
    if (on_expr && index >= f->expr_count) {
      FAIL("function '" NAME "' step %u is guarded by expression %u but "
           "there are %u expressions",
           f->name, i, index, f->expr_count);
    }
  }
  if (s->constant_count > GRAFT_LIBRARY_MAX_COUNT ||
      s->binding_count > GRAFT_LIBRARY_MAX_COUNT ||
      !IS_ARRAY(image, s->constants, s->constant_count) ||
      !IS_ARRAY(image, s->bindings, s->binding_count)) {
    FAIL("function '" NAME "' step %u constants (%u) or bindings (%u) are not "
         "inside the slice image",
         f->name, i, s->constant_count, s->binding_count);
  }
  for (uint32_t b = 0; b < s->binding_count; ++b) {
    if (s->bindings[b] >= f->buffer_count) {
      FAIL("function '" NAME "' step %u binds buffer %u but there are %u "
           "buffers",
           f->name, i, s->bindings[b], f->buffer_count);
    }
  }
  for (uint32_t c = 0; c < s->constant_count; ++c) {
    if (s->constants[c] >= f->expr_count) {
      FAIL("function '" NAME "' step %u constant %u is expr %u but there are "
           "%u exprs",
           f->name, i, c, s->constants[c], f->expr_count);
    }
  }
  if (s->kind == GRAFT_STEP_COPY) {
    if (s->binding_count != 2) {
      FAIL("function '" NAME "' step %u copies with %u bindings, expected 2",
           f->name, i, s->binding_count);
    }
    char role[96];
    if (read_only_role(f, s->bindings[1], role, sizeof(role))) {
      FAIL("function '" NAME "' step %u copies into buffer %u (%s); steps may "
           "write only temporary and result buffers",
           f->name, i, s->bindings[1], role);
    }
    return NULL;
  }
  if (s->dispatch >= lib->dispatch_count) {
    FAIL("function '" NAME "' step %u runs dispatch %u but there are %u "
         "dispatches",
         f->name, i, s->dispatch, lib->dispatch_count);
  }
  for (int d = 0; d < 3; ++d) {
    if (s->workgroup_count[d] >= f->expr_count) {
      FAIL("function '" NAME "' step %u workgroup count %d is expr %u but "
           "there are %u exprs",
           f->name, i, d, s->workgroup_count[d], f->expr_count);
    }
  }
  const graft_dispatch_attrs_v1_t* attrs = &lib->dispatch_attrs[s->dispatch];
  /* A host command's dispatch runs only on the invoking thread, and only
   * there: the import it calls may start threads of its own. */
  int host_call = s->kind == GRAFT_STEP_HOST_CALL;
  if (host_call != ((attrs->flags & GRAFT_DISPATCH_FLAG_HOST_CALL) != 0)) {
    FAIL("function '" NAME "' step %u is a %s step but dispatch '" NAME
         "' is %sflagged HOST_CALL",
         f->name, i, host_call ? "host call" : "dispatch", attrs->name,
         host_call ? "not " : "");
  }
  if (host_call && s->import >= lib->import_count) {
    FAIL("function '" NAME "' step %u is a host call of import %u but there "
         "are %u imports",
         f->name, i, s->import, lib->import_count);
  }
  if (s->binding_count != attrs->binding_count ||
      s->constant_count != attrs->constant_count) {
    FAIL("function '" NAME "' step %u passes %u bindings and %u constants but "
         "dispatch '" NAME "' takes %u and %u",
         f->name, i, s->binding_count, s->constant_count, attrs->name,
         attrs->binding_count, attrs->constant_count);
  }
  for (uint32_t b = 0; b < s->binding_count; ++b) {
    if (!(attrs->binding_flags[b] & GRAFT_BINDING_WRITE)) continue;
    char role[96];
    if (read_only_role(f, s->bindings[b], role, sizeof(role))) {
      FAIL("function '" NAME "' step %u binds buffer %u (%s) to binding %u of "
           "dispatch '" NAME "', which writes it; steps may write only "
           "temporary and result buffers",
           f->name, i, s->bindings[b], role, b, attrs->name);
    }
  }
  return NULL;
}

static graft_status_t validate_function(const graft_elf_image_t* image,
                                        const graft_library_v1_t* lib,
                                        uint32_t index) {
  const graft_function_v1_t* f = &lib->functions[index];
  if (!is_string(image, f->name)) {
    FAIL("function %u name is not a string inside the slice image", index);
  }
  const uint32_t max = GRAFT_LIBRARY_MAX_COUNT;
  if (f->arg_count > max || f->result_count > max || f->expr_count > max ||
      f->buffer_count > max || f->check_count > max || f->step_count > max) {
    FAIL("function '" NAME "' has implausible counts (args %u, results %u, "
         "exprs %u, buffers %u, checks %u, steps %u; at most %u each)",
         f->name, f->arg_count, f->result_count, f->expr_count,
         f->buffer_count, f->check_count, f->step_count, max);
  }
  if (!IS_ARRAY(image, f->args, f->arg_count) ||
      !IS_ARRAY(image, f->results, f->result_count) ||
      !IS_ARRAY(image, f->result_buffers, f->result_count) ||
      !IS_ARRAY(image, f->exprs, f->expr_count) ||
      !IS_ARRAY(image, f->buffers, f->buffer_count) ||
      !IS_ARRAY(image, f->checks, f->check_count) ||
      !IS_ARRAY(image, f->steps, f->step_count)) {
    FAIL("function '" NAME "' has a table (args, results, exprs, buffers, "
         "checks or steps) that is not inside the slice image",
         f->name);
  }
  graft_status_t status = NULL;
  for (uint32_t i = 0; i < f->arg_count && !status; ++i) {
    status = validate_value_type(image, f->name, "argument", i, &f->args[i]);
  }
  for (uint32_t i = 0; i < f->result_count && !status; ++i) {
    status = validate_value_type(image, f->name, "result", i, &f->results[i]);
  }
  if (!status) status = validate_exprs(image, f);
  for (uint32_t i = 0; i < f->buffer_count && !status; ++i) {
    status = validate_buffer(image, f, i);
  }
  if (status) return status;
  for (uint32_t i = 0; i < f->result_count; ++i) {
    uint32_t b = f->result_buffers[i];
    if (b >= f->buffer_count) {
      FAIL("function '" NAME "' result %u is buffer %u but there are %u "
           "buffers",
           f->name, i, b, f->buffer_count);
    }
    if (f->buffers[b].dtype != f->results[i].dtype) {
      FAIL("function '" NAME "' result %u has dtype %u but its buffer %u has "
           "dtype %u",
           f->name, i, f->results[i].dtype, b, f->buffers[b].dtype);
    }
  }
  for (uint32_t i = 0; i < f->check_count; ++i) {
    const graft_check_v1_t* c = &f->checks[i];
    if (c->lhs >= f->expr_count || c->rhs >= f->expr_count) {
      FAIL("function '" NAME "' check %u compares exprs %u and %u but there "
           "are %u exprs",
           f->name, i, c->lhs, c->rhs, f->expr_count);
    }
    if (!is_string(image, c->message)) {
      FAIL("function '" NAME "' check %u message is not a string inside the "
           "slice image",
           f->name, i);
    }
  }
  for (uint32_t i = 0; i < f->step_count && !status; ++i) {
    status = validate_step(image, lib, f, i);
  }
  return status;
}

static graft_status_t validate_dispatches(const graft_elf_image_t* image,
                                          const graft_library_v1_t* lib) {
  if (!IS_ARRAY(image, lib->dispatches, lib->dispatch_count) ||
      !IS_ARRAY(image, lib->dispatch_attrs, lib->dispatch_count)) {
    FAIL("dispatch table or attributes (%u entries) are not inside the slice "
         "image",
         lib->dispatch_count);
  }
  for (uint32_t i = 0; i < lib->dispatch_count; ++i) {
    const graft_dispatch_attrs_v1_t* attrs = &lib->dispatch_attrs[i];
    if (!is_string(image, attrs->name) || !is_string(image, attrs->source)) {
      FAIL("dispatch %u name or source is not a string inside the slice image",
           i);
    }
    if (attrs->binding_count > GRAFT_LIBRARY_MAX_COUNT ||
        attrs->constant_count > GRAFT_LIBRARY_MAX_COUNT) {
      FAIL("dispatch '" NAME "' has implausible counts (bindings %u, "
           "constants %u; at most %u each)",
           attrs->name, attrs->binding_count, attrs->constant_count,
           GRAFT_LIBRARY_MAX_COUNT);
    }
    if (!IS_ARRAY(image, attrs->binding_flags, attrs->binding_count)) {
      FAIL("dispatch '" NAME "' binding flags (%u entries) are not inside the "
           "slice image",
           attrs->name, attrs->binding_count);
    }
    for (uint32_t b = 0; b < attrs->binding_count; ++b) {
      uint32_t flags = attrs->binding_flags[b];
      if (flags == 0 || (flags & ~(GRAFT_BINDING_READ | GRAFT_BINDING_WRITE))) {
        FAIL("dispatch '" NAME "' binding %u has flags 0x%x, expected READ "
             "(1), WRITE (2) or both",
             attrs->name, b, flags);
      }
    }
    /* Converting a function pointer to an object pointer is what the
     * containment check needs; it is well defined on every POSIX system. */
    const void* code = (const void*)(uintptr_t)lib->dispatches[i];
    if (!graft_elf_image_contains(image, code, 1, GRAFT_PF_X)) {
      FAIL("dispatch %u ('" NAME "') function pointer %p is not inside an "
           "executable segment of the slice",
           i, attrs->name, code);
    }
  }
  return NULL;
}

static graft_status_t validate_imports(const graft_elf_image_t* image,
                                       const graft_library_v1_t* lib) {
  if (!IS_ARRAY(image, lib->imports, lib->import_count)) {
    FAIL("import table (%u entries) is not inside the slice image",
         lib->import_count);
  }
  for (uint32_t i = 0; i < lib->import_count; ++i) {
    const char* name = lib->imports[i];
    if (!is_string(image, name)) {
      FAIL("import %u name is not a string inside the slice image", i);
    }
    if (name[0] == GRAFT_IMPORT_OPTIONAL_PREFIX) ++name;
    if (name[0] == '\0') FAIL("import %u has an empty name", i);
  }
  return NULL;
}

/* The dispatch and function tables |lib| points at (the header's own, or
 * a variant's in a copy of the header). */
static graft_status_t validate_tables(const graft_elf_image_t* image,
                                      const graft_library_v1_t* lib) {
  graft_status_t status = validate_dispatches(image, lib);
  if (status) return status;
  if (!IS_ARRAY(image, lib->functions, lib->function_count)) {
    FAIL("function table (%u entries) is not inside the slice image",
         lib->function_count);
  }
  for (uint32_t i = 0; i < lib->function_count && !status; ++i) {
    status = validate_function(image, lib, i);
  }
  return status;
}

/* Every ISA variant: its level name and CPU feature names, and its tables
 * as completely as the header's own, whichever variant this CPU will run. */
static graft_status_t validate_variants(const graft_elf_image_t* image,
                                        const graft_library_v1_t* header) {
  const uint32_t max = GRAFT_LIBRARY_MAX_COUNT;
  if (header->variant_count > max ||
      !IS_ARRAY(image, header->variants, header->variant_count)) {
    FAIL("variant table (%u entries) is not inside the slice image",
         header->variant_count);
  }
  graft_status_t status = NULL;
  for (uint32_t i = 0; i < header->variant_count && !status; ++i) {
    const graft_variant_v1_t* v = &header->variants[i];
    if (!is_string(image, v->level) || v->level[0] == '\0') {
      FAIL("variant %u level name is not a non-empty string inside the slice "
           "image",
           i);
    }
    if (v->dispatch_count > max || v->function_count > max ||
        v->cpu_feature_count > max ||
        !IS_ARRAY(image, v->cpu_features, v->cpu_feature_count)) {
      FAIL("variant '" NAME "' has implausible counts or tables (dispatches "
           "%u, functions %u, CPU features %u; at most %u each)",
           v->level, v->dispatch_count, v->function_count,
           v->cpu_feature_count, max);
    }
    for (uint32_t f = 0; f < v->cpu_feature_count; ++f) {
      if (!is_string(image, v->cpu_features[f])) {
        FAIL("variant '" NAME "' CPU feature %u is not a string inside the "
             "slice image",
             v->level, f);
      }
    }
    for (uint32_t j = 0; j < i; ++j) {
      if (strcmp(header->variants[j].level, v->level) == 0) {
        FAIL("variant %u repeats level '" NAME "' of variant %u", i,
             v->level, j);
      }
    }
    graft_library_v1_t view;
    graft_library_variant_view(header, v, &view);
    status = validate_tables(image, &view);
    if (status) {
      status = graft_status_annotate(status, "ISA variant '" NAME "'",
                                     v->level);
    }
  }
  return status;
}

graft_status_t graft_library_validate(const graft_elf_image_t* image,
                                      const graft_library_v1_t* header) {
  /* magic and abi_version come first in every version of the header: read
   * only those before knowing which layout the rest has. */
  if (!is_array(image, header, 1, 2 * sizeof(uint32_t),
                alignof(graft_library_v1_t))) {
    FAIL("library header at %p is not inside the slice image", (void*)header);
  }
  if (header->magic != GRAFT_LIBRARY_MAGIC) {
    FAIL("library header magic is 0x%08x, expected 0x%08x", header->magic,
         GRAFT_LIBRARY_MAGIC);
  }
  if (header->abi_version != GRAFT_ABI_VERSION) {
    return graft_status_make(GRAFT_UNIMPLEMENTED,
                             "bundle ABI version %u is not supported by this "
                             "runtime (supports %u)",
                             header->abi_version, GRAFT_ABI_VERSION);
  }
  if (!IS_ARRAY(image, header, 1)) {
    FAIL("library header at %p (%zu bytes) is not inside the slice image",
         (void*)header, sizeof(*header));
  }
  if (!is_string(image, header->name) || !is_string(image, header->producer)) {
    FAIL("library name or producer is not a string inside the slice image");
  }
  const uint32_t max = GRAFT_LIBRARY_MAX_COUNT;
  if (header->dispatch_count > max || header->import_count > max ||
      header->function_count > max) {
    FAIL("library '" NAME "' has implausible counts (dispatches %u, imports "
         "%u, functions %u; at most %u each)",
         header->name, header->dispatch_count, header->import_count,
         header->function_count, max);
  }
  graft_status_t status = validate_imports(image, header);
  if (!status) status = validate_tables(image, header);
  if (!status) status = validate_variants(image, header);
  return status;
}

static int is_missing(const graft_library_v1_t* lib,
                      const graft_import_fn_t* resolved, uint32_t i) {
  return lib->imports[i][0] != GRAFT_IMPORT_OPTIONAL_PREFIX &&
         (!resolved || !resolved[i]);
}

graft_status_t graft_library_check_imports(const graft_library_v1_t* lib,
                                           const graft_import_fn_t* resolved) {
  uint32_t missing = 0;
  size_t length = 1;
  for (uint32_t i = 0; i < lib->import_count; ++i) {
    if (!is_missing(lib, resolved, i)) continue;
    ++missing;
    length += strlen(lib->imports[i]) + 4; /* "'name', " */
  }
  if (missing == 0) return NULL;
  char* names = (char*)malloc(length);
  if (!names) {
    FAIL("library '" NAME "' has %u unresolved required imports", lib->name,
         missing);
  }
  size_t used = 0;
  for (uint32_t i = 0; i < lib->import_count; ++i) {
    if (!is_missing(lib, resolved, i)) continue;
    used += (size_t)snprintf(names + used, length - used, "%s'%s'",
                             used ? ", " : "", lib->imports[i]);
  }
  graft_status_t status = graft_status_make(
      GRAFT_NOT_FOUND,
      "library '" NAME "' requires %u import%s that nothing provides: %s",
      lib->name, missing, missing == 1 ? "" : "s", names);
  free(names);
  return status;
}
