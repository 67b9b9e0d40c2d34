/* Tests of library validation (library_validate.c): load the host fixture,
 * make its image writable, break one field of the host program at a time
 * and check the validator names what is wrong. The image is restored from
 * a snapshot between cases. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_format.h"
#include "elf_image.h"
#include "library_validate.h"
#include "loader_test.h"
#include "platform/platform.h"

typedef struct fixture_t {
  graft_elf_image_t image;
  graft_library_v1_t* lib;
  graft_function_v1_t* fn;
  uint8_t* snapshot;
} fixture_t;

static void restore(fixture_t* f) {
  memcpy(f->image.mapping, f->snapshot, f->image.mapping_size);
}

/* Writable view of something the slice declared const. */
#define MUT(type, ptr) ((type*)(uintptr_t)(ptr))

static void expect(fixture_t* f, const char* needle, const char* what) {
  test_expect_error(graft_library_validate(&f->image, f->lib), needle, what);
  restore(f);
}

/* A string that never ends: the last byte of the segment holding |str|,
 * overwritten with 'x'. */
static const char* unterminated(fixture_t* f, const char* str) {
  uint64_t vaddr = (uintptr_t)str - f->image.base;
  for (size_t i = 0; i < f->image.segment_count; ++i) {
    const graft_elf_segment_t* seg = &f->image.segments[i];
    if (vaddr >= seg->vaddr && vaddr < seg->vaddr + seg->memsz) {
      char* last = (char*)graft_elf_image_address(&f->image,
                                                   seg->vaddr + seg->memsz - 1);
      *last = 'x';
      return last;
    }
  }
  return str;
}

static void value_type_cases(fixture_t* f) {
  graft_value_type_v1_t* arg0 = MUT(graft_value_type_v1_t, &f->fn->args[0]);
  arg0->rank = 9;
  expect(f, "function 'add' argument 0 has rank 9, more than the maximum 8",
         "validate: rank too large");
  arg0->dtype = 42;
  expect(f, "function 'add' argument 0 has invalid dtype 42",
         "validate: bad dtype");
  MUT(int64_t, arg0->dims)[0] = -7;
  expect(f, "argument 0 dim 0 is -7", "validate: bad static dim");
  f->fn->args = (const graft_value_type_v1_t*)((uintptr_t)f->fn->args + 1);
  expect(f, "function 'add' has a table", "validate: misaligned table");
  f->fn->args = (const graft_value_type_v1_t*)graft_elf_image_address(
      &f->image, f->image.span_end - 16);
  expect(f, "function 'add' has a table", "validate: table past the image");
}

/* Turns |b| into a valid one-element f32 constant: its dim is the
 * fixture's expr 4 (CONST 1), found in the step's workgroup counts {3, 4,
 * 4}; its data is any 4 bytes of the image. */
static void make_constant(fixture_t* f, graft_buffer_v1_t* b) {
  b->kind = GRAFT_BUFFER_CONST;
  b->dims = &f->fn->steps[0].workgroup_count[1];
  b->data = f->fn->exprs;
  b->data_size = 4;
}

static void expr_and_buffer_cases(fixture_t* f) {
  graft_expr_v1_t* exprs = MUT(graft_expr_v1_t, f->fn->exprs);
  exprs[3].a = 4;
  expect(f, "function 'add' expr 3 uses exprs 4 and 2; operands must be "
            "earlier exprs",
         "validate: forward expr operand");
  exprs[0].a = 5;
  expect(f, "expr 0 reads argument 5 but there are 2 arguments",
         "validate: expr argument out of range");
  exprs[0].imm = 1;
  expect(f, "expr 0 reads dim 1 of argument 0, which has rank 1",
         "validate: expr dim out of range");
  exprs[2].op = 77;
  expect(f, "expr 2 has unknown op 77", "validate: unknown expr op");

  graft_buffer_v1_t* buffers = MUT(graft_buffer_v1_t, f->fn->buffers);
  buffers[0].kind = GRAFT_BUFFER_ALIAS;
  buffers[0].index = 2;
  expect(f, "buffer 0 aliases buffer 2; an alias must refer to an earlier "
            "buffer",
         "validate: alias to later buffer");
  buffers[1].index = 4;
  expect(f, "buffer 1 is argument 4 but there are 2 arguments",
         "validate: argument buffer out of range");
  buffers[1].dtype = GRAFT_DTYPE_I32;
  expect(f, "buffer 1 has dtype 4 but argument 1 has dtype 8",
         "validate: argument buffer dtype");
  MUT(uint32_t, buffers[2].dims)[0] = 40;
  expect(f, "buffer 0 dim 0 is expr 40 but there are 5 exprs",
         "validate: buffer dim expr out of range");
  buffers[2].kind = GRAFT_BUFFER_CONST;
  buffers[2].data = graft_elf_image_address(&f->image, f->image.span_end - 4);
  buffers[2].data_size = 64;
  expect(f, "buffer 2 constant data (64 bytes) is not inside the slice image",
         "validate: const data past the image");
  /* The executor no longer re-checks that a buffer fits its source: an
   * argument buffer must have the argument's shape, a constant's shape
   * must be static and exactly its data. */
  MUT(uint32_t, buffers[0].dims)[0] = 2;
  expect(f, "function 'add' buffer 0 dim 0 is expr 2, which is neither dim 0 "
            "of argument 0 nor its static size",
         "validate: argument buffer with another shape");
  buffers[1].rank = 0;
  expect(f, "buffer 1 has rank 0 but argument 1 has rank 1",
         "validate: argument buffer with another rank");
  make_constant(f, &buffers[2]);
  buffers[2].data_size = 8;
  expect(f, "function 'add' constant buffer 2 needs 4 bytes for its shape but "
            "has 8",
         "validate: constant data of another size");
  make_constant(f, &buffers[2]);
  buffers[2].dims = f->fn->buffers[0].dims;
  expect(f, "function 'add' constant buffer 2 dim 0 is not a constant size",
         "validate: constant with a dynamic shape");
  MUT(uint32_t, f->fn->result_buffers)[0] = 7;
  expect(f, "result 0 is buffer 7 but there are 3 buffers",
         "validate: result buffer out of range");
  MUT(graft_check_v1_t, f->fn->checks)[0].rhs = 99;
  expect(f, "check 0 compares exprs 0 and 99 but there are 5 exprs",
         "validate: check expr out of range");
}

static void step_cases(fixture_t* f) {
  graft_step_v1_t* step = MUT(graft_step_v1_t, &f->fn->steps[0]);
  MUT(uint32_t, step->bindings)[2] = 9;
  expect(f, "function 'add' step 0 binds buffer 9 but there are 3 buffers",
         "validate: step binds missing buffer");
  step->dispatch = 3;
  expect(f, "step 0 runs dispatch 3 but there are 1 dispatches",
         "validate: step dispatch out of range");
  step->workgroup_count[1] = 77;
  expect(f, "step 0 workgroup count 1 is expr 77",
         "validate: workgroup count expr out of range");
  step->binding_count = 2;
  expect(f, "step 0 passes 2 bindings and 1 constants but dispatch "
            "'add_dispatch_0_map' takes 3 and 1",
         "validate: step arity differs from dispatch");
  step->kind = GRAFT_STEP_COPY;
  expect(f, "step 0 copies with 3 bindings, expected 2",
         "validate: copy arity");
  step->binding_count = 1u << 30;
  expect(f, "step 0 constants (1) or bindings (1073741824)",
         "validate: huge binding count");
  step->guard =
      GRAFT_STEP_GUARD_IMPORT_RESOLVED | GRAFT_STEP_GUARD_IMPORT_MISSING;
  expect(f, "function 'add' step 0 has guard 0xc0000000, expected one of "
            "IMPORT_RESOLVED, IMPORT_MISSING, EXPR_NONZERO and EXPR_ZERO",
         "validate: guard with both conditions");
  step->guard = GRAFT_STEP_GUARD_IMPORT_MISSING | 2u;
  expect(f, "function 'add' step 0 is guarded by import 2 but there are 0 "
            "imports",
         "validate: guard of a missing import");
  /* A host command runs only a dispatch flagged for the invoking thread,
   * and such a dispatch only as a host command. */
  graft_dispatch_attrs_v1_t* attrs =
      MUT(graft_dispatch_attrs_v1_t, &f->lib->dispatch_attrs[0]);
  step->kind = GRAFT_STEP_HOST_CALL;
  expect(f, "function 'add' step 0 is a host call step but dispatch "
            "'add_dispatch_0_map' is not flagged HOST_CALL",
         "validate: host call of a pool dispatch");
  attrs->flags = GRAFT_DISPATCH_FLAG_HOST_CALL;
  expect(f, "function 'add' step 0 is a dispatch step but dispatch "
            "'add_dispatch_0_map' is flagged HOST_CALL",
         "validate: pool run of a host command");
  attrs->flags = GRAFT_DISPATCH_FLAG_HOST_CALL;
  step->kind = GRAFT_STEP_HOST_CALL;
  expect(f, "function 'add' step 0 is a host call of import 0 but there are "
            "0 imports",
         "validate: host call of a missing import");
  step->guard = GRAFT_STEP_GUARD_EXPR_ZERO | 1000u;
  expect(f, "function 'add' step 0 is guarded by expression 1000 but there "
            "are ",
         "validate: guard of a missing expression");
}

/* What a step may write (issue 11, defect 2): a COPY into a constant
 * crashed the executor's own copy, a dispatch output bound to a constant
 * crashed in slice code, a COPY into an argument overwrote the caller's
 * input. The fixture's step binds (argument 0, argument 1, result) to
 * (READ, READ, WRITE). */
static void buffer_role_cases(fixture_t* f) {
  graft_step_v1_t* step = MUT(graft_step_v1_t, &f->fn->steps[0]);
  graft_buffer_v1_t* buffers = MUT(graft_buffer_v1_t, f->fn->buffers);
  MUT(uint32_t, step->bindings)[2] = 0;
  expect(f, "function 'add' step 0 binds buffer 0 (argument 0) to binding 2 "
            "of dispatch 'add_dispatch_0_map', which writes it; steps may "
            "write only temporary and result buffers",
         "roles: dispatch writes an argument");
  make_constant(f, &buffers[2]);
  expect(f, "step 0 binds buffer 2 (a constant) to binding 2 of dispatch "
            "'add_dispatch_0_map', which writes it",
         "roles: dispatch writes a constant");
  buffers[2].kind = GRAFT_BUFFER_ALIAS;
  buffers[2].index = 1;
  expect(f, "step 0 binds buffer 2 (an alias of buffer 1, argument 1) to "
            "binding 2",
         "roles: dispatch writes an argument through an alias");
  step->kind = GRAFT_STEP_COPY;
  step->binding_count = 2;
  MUT(uint32_t, step->bindings)[1] = 0;
  MUT(uint32_t, step->bindings)[0] = 2;
  expect(f, "function 'add' step 0 copies into buffer 0 (argument 0); steps "
            "may write only temporary and result buffers",
         "roles: copy into an argument");
  step->kind = GRAFT_STEP_COPY;
  step->binding_count = 2;
  MUT(uint32_t, step->bindings)[1] = 2;
  MUT(uint32_t, step->bindings)[0] = 0;
  make_constant(f, &buffers[2]);
  expect(f, "step 0 copies into buffer 2 (a constant)",
         "roles: copy into a constant");
  step->kind = GRAFT_STEP_COPY;
  step->binding_count = 2;
  MUT(uint32_t, step->bindings)[1] = 2;
  test_expect_ok(graft_library_validate(&f->image, f->lib),
                 "roles: copy into a result is fine");
  restore(f);

  graft_dispatch_attrs_v1_t* attrs =
      MUT(graft_dispatch_attrs_v1_t, &f->lib->dispatch_attrs[0]);
  MUT(uint32_t, attrs->binding_flags)[1] = 4;
  expect(f, "dispatch 'add_dispatch_0_map' binding 1 has flags 0x4, expected "
            "READ (1), WRITE (2) or both",
         "roles: unknown binding flag");
  MUT(uint32_t, attrs->binding_flags)[0] = 0;
  expect(f, "binding 0 has flags 0x0", "roles: binding neither read nor "
                                       "written");
  attrs->binding_flags = (const uint32_t*)graft_elf_image_address(&f->image,
                                                                f->image.span_end);
  expect(f, "dispatch 'add_dispatch_0_map' binding flags (3 entries) are not "
            "inside the slice image",
         "roles: binding flags outside the image");
}

static void header_cases(fixture_t* f) {
  graft_library_v1_t* lib = f->lib;
  lib->magic = 0x12345678;
  expect(f, "library header magic is 0x12345678", "validate: magic");
  lib->function_count = 1u << 21;
  expect(f, "implausible counts", "validate: huge function count");
  lib->functions = (const graft_function_v1_t*)(uintptr_t)0x1000;
  expect(f, "function table (1 entries) is not inside the slice image",
         "validate: function table outside");
  lib->name = (const char*)(uintptr_t)16;
  expect(f, "library name or producer is not a string",
         "validate: name pointer outside");
  lib->producer = unterminated(f, lib->producer);
  expect(f, "library name or producer is not a string",
         "validate: unterminated string");
  f->fn->name = unterminated(f, f->fn->name);
  expect(f, "function 0 name is not a string", "validate: function name");
  MUT(graft_dispatch_fn_t, lib->dispatches)[0] =
      (graft_dispatch_fn_t)(uintptr_t)lib;
  expect(f, "function pointer", "validate: dispatch pointer into data");
  lib->import_count = 1;
  lib->imports = (const char* const*)&f->fn->name;
  test_expect_ok(graft_library_validate(&f->image, lib),
                 "validate: import named 'add' accepted");
  lib->import_count = 1;
  lib->imports = (const char* const*)&f->fn->results[0].name;
  expect(f, "import 0 has an empty name", "validate: empty import name");
}

/* The ISA variant table: each variant's own fields, and its tables as
 * strictly as the header's (the fixture's variants share the header's
 * tables, so a variant's table pointer is redirected instead). */
static void variant_cases(fixture_t* f) {
  graft_library_v1_t* lib = f->lib;
  graft_variant_v1_t* future = MUT(graft_variant_v1_t, &lib->variants[1]);
  lib->variant_count = 1u << 21;
  expect(f, "variant table (2097152 entries) is not inside the slice image",
         "validate: huge variant count");
  future->level = lib->variants[0].level;
  expect(f, "variant 1 repeats level 'fixture-base' of variant 0",
         "validate: repeated level");
  future->level = (const char*)(uintptr_t)16;
  expect(f, "variant 1 level name is not a non-empty string",
         "validate: level name outside");
  MUT(const char*, future->cpu_features)[0] = (const char*)(uintptr_t)16;
  expect(f, "variant 'fixture-future' CPU feature 0 is not a string",
         "validate: feature name outside");
  future->function_count = 100000;
  expect(f, "ISA variant 'fixture-future': function table (100000 entries) "
            "is not inside the slice image",
         "validate: variant function table too short");
  future->dispatch_count = 100000;
  expect(f, "ISA variant 'fixture-future': dispatch table or attributes "
            "(100000 entries)",
         "validate: variant dispatch table too short");
}

/* Required imports must be resolved before a module opens (the import
 * table calls this after the plugins resolved what they could): every
 * missing name is listed (optional ones are not). */
static int provided_import(void* params, void* context, void* reserved) {
  (void)params;
  (void)context;
  (void)reserved;
  return 0;
}

static void import_cases(void) {
  static const char* const names[] = {"mlp_ukernel", "?maybe", "other"};
  graft_library_v1_t lib;
  memset(&lib, 0, sizeof(lib));
  lib.name = "m";
  lib.import_count = 3;
  lib.imports = names;
  test_expect_error(graft_library_check_imports(&lib, NULL),
                    "library 'm' requires 2 imports that nothing provides: "
                    "'mlp_ukernel', 'other'",
                    "imports: every missing required import is listed");
  graft_import_fn_t resolved[3] = {provided_import, NULL, NULL};
  test_expect_error(graft_library_check_imports(&lib, resolved),
                    "library 'm' requires 1 import that nothing provides: "
                    "'other'",
                    "imports: a resolved import is not listed");
  resolved[2] = provided_import;
  test_expect_ok(graft_library_check_imports(&lib, resolved),
                 "imports: an optional import may stay unresolved");
  lib.imports = names + 1;
  lib.import_count = 1;
  test_expect_ok(graft_library_check_imports(&lib, NULL),
                 "imports: only optional imports need nothing");
}

void test_validate_cases(void) {
  import_cases();
  test_file_t elf = test_read_fixture(test_fixture_name(0, NULL));
  fixture_t f;
  memset(&f, 0, sizeof(f));
  graft_status_t status = graft_elf_image_load(elf.data, elf.size, &f.image);
  free(elf.data);
  void* query = NULL;
  if (!status) {
    status =
        graft_elf_image_lookup_function(&f.image, GRAFT_QUERY_SYMBOL, &query);
  }
  if (!test_expect_ok(status, "validate: load host fixture")) return;
  graft_library_query_fn_t fn;
  memcpy(&fn, &query, sizeof(fn));
  f.lib = MUT(graft_library_v1_t, fn(GRAFT_ABI_VERSION));
  f.fn = MUT(graft_function_v1_t, &f.lib->functions[0]);
  test_expect_ok(graft_library_validate(&f.image, f.lib),
                 "validate: pristine fixture");
  /* From here on the image is data only: nothing in it is executed. */
  status = graft_platform_protect(f.image.mapping, f.image.mapping_size,
                                  GRAFT_PROT_READ | GRAFT_PROT_WRITE);
  if (!test_expect_ok(status, "validate: make image writable")) {
    graft_elf_image_unload(&f.image);
    return;
  }
  f.snapshot = (uint8_t*)malloc(f.image.mapping_size);
  memcpy(f.snapshot, f.image.mapping, f.image.mapping_size);
  value_type_cases(&f);
  expr_and_buffer_cases(&f);
  step_cases(&f);
  buffer_role_cases(&f);
  header_cases(&f);
  variant_cases(&f);
  free(f.snapshot);
  graft_elf_image_unload(&f.image);
}
