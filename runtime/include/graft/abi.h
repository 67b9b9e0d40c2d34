/* graft bundle ABI: the contract between the graft compiler and the runtime.
 *
 * Versioned as if it were a schema. Every slice of a bundle is a freestanding
 * ET_DYN ELF that exports exactly one symbol, GRAFT_QUERY_SYMBOL (and, when
 * built with --sanitize=undefined, GRAFT_UBSAN_INSTALL_SYMBOL). The runtime
 * maps the slice, applies its relocations and calls the query function, which
 * returns the library header below. Everything else (dispatch functions, the
 * host program of every function, the import table) is reached from there.
 *
 * Rules for changing this file:
 *   - Any change to a struct layout, an enum value or a calling convention
 *     bumps GRAFT_ABI_VERSION.
 *   - Checked-in fixtures (tests/fixtures/abi/) are built with the current
 *     version; a layout change without a version bump fails their tests.
 *   - The compiler builds these structs from one table naming every field
 *     (lib/codegen/AbiFields.def); a struct or field added, removed, resized
 *     or reordered here must change that table too, or codegen_abi_layout_test
 *     fails (it compiles this header for every target triple against the
 *     table's offsets, field by field by name).
 *
 * All pointers inside the library point into the slice's own image; the
 * runtime checks that before using them. All integers are in the slice's
 * native byte order. Pure C99, no dependencies: it is compiled into the
 * compiler (C++), the runtime (C) and user kernels (freestanding C).
 */
#ifndef GRAFT_ABI_H_
#define GRAFT_ABI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GRAFT_ABI_VERSION 2u
#define GRAFT_LIBRARY_MAGIC 0x54464152u /* "RAFT" read little-endian */
#define GRAFT_QUERY_SYMBOL "graft_library_query"

/* A slice built with `graft build --sanitize=undefined` also exports
 * GRAFT_UBSAN_INSTALL_SYMBOL, a graft_ubsan_install_fn_t. The runtime calls
 * it once while opening the slice, before any dispatch, with the function
 * the UBSan checks of the slice's C kernels report to: |check| names the
 * check ("add-overflow", a string in the slice), |pc| is the address inside
 * the slice the check's handler was called from, and |fatal| is nonzero
 * when the kernel cannot continue, in which case the function must not
 * return. An addition that changes no layout: a slice without the symbol is
 * exactly what it was before. */
#define GRAFT_UBSAN_INSTALL_SYMBOL "graft_ubsan_install"
typedef void (*graft_ubsan_report_fn_t)(const char* check, const void* pc,
                                        int fatal);
typedef void (*graft_ubsan_install_fn_t)(graft_ubsan_report_fn_t report);

/* Element types. Values are stable: they are stored in slices. */
typedef enum graft_dtype_e {
  GRAFT_DTYPE_INVALID = 0,
  GRAFT_DTYPE_I1 = 1,    /* stored as one byte, 0 or 1 */
  GRAFT_DTYPE_I8 = 2,
  GRAFT_DTYPE_I16 = 3,
  GRAFT_DTYPE_I32 = 4,
  GRAFT_DTYPE_I64 = 5,
  GRAFT_DTYPE_F16 = 6,
  GRAFT_DTYPE_BF16 = 7,
  GRAFT_DTYPE_F32 = 8,
  GRAFT_DTYPE_F64 = 9,
  GRAFT_DTYPE_INDEX = 10, /* 64-bit signed integer used for sizes */
  GRAFT_DTYPE_COUNT_ = 11,
} graft_dtype_t;

#define GRAFT_MAX_RANK 8u
#define GRAFT_DIM_DYNAMIC (-1)

/*===----------------------------------------------------------------------===
 * Dispatch calling convention
 *
 * A dispatch is a workgroup function over a 3D grid. The runtime calls it once
 * per workgroup, from any worker thread, in any order, concurrently.
 * Returns 0 on success; any other value fails the invocation (the value is
 * reported to the user).
 *===----------------------------------------------------------------------===*/

/* (ABI 2) What a dispatch graft generates around a `call:` kernel returns
 * when an integer argument it computes per workgroup is undefined (overflow,
 * division by zero) or does not fit the parameter's type (`: i32`): the
 * kernel is not called. Reserved: a kernel's own status must not use it. */
#define GRAFT_DISPATCH_STATUS_BAD_KERNEL_ARGUMENT (-0x4741)

/* (ABI 2) Words of graft_dispatch_state_v1_t.processor_data. */
#define GRAFT_PROCESSOR_DATA_WORD_COUNT 9u

/* (ABI 2) What a dispatch graft generates returns when an index it reads
 * from a tensor (a `gather` index) is outside the dim it indexes: nothing is
 * read there, and the invocation fails. Reserved like the one above. */
#define GRAFT_DISPATCH_STATUS_INDEX_OUT_OF_RANGE (-0x4742)

/* An import: a function resolved at load time (plugins, runtime helpers).
 * |params| points to a packed struct of the call's arguments; |context| is
 * whatever the provider registered alongside the function. */
typedef int (*graft_import_fn_t)(void* params, void* context, void* reserved);

/* Shared by all workgroups of one dispatch. Read-only for the dispatch. */
typedef struct graft_dispatch_state_v1_t {
  uint32_t workgroup_count[3];
  uint32_t constant_count;
  uint32_t binding_count;
  uint32_t import_count;
  /* Constants: sizes, scalar arguments (integers sign-extended to 64 bits,
   * f32 as its bit pattern in the low 32 bits, f64 as its bit pattern). */
  const uint64_t* constants;
  /* Base pointers of the bound buffers, 64-byte aligned, and their sizes in
   * bytes. */
  void* const* bindings;
  const uint64_t* binding_lengths;
  /* Resolved imports, in the order of the library's import table. A missing
   * optional import has a NULL function. */
  const graft_import_fn_t* imports;
  void* const* import_contexts;
  /* (ABI 2) The running CPU's feature words as the runtime detected them
   * when the module was opened, GRAFT_PROCESSOR_DATA_WORD_COUNT of them:
   * words 0..7 in IREE's cpu_data layout (what IREE's runtime passes its
   * plugins as processor_data), word 8 graft's own
   * (runtime/src/loader/arch/arch.h). Kernels receive it through the spec
   * argument `processor_data()`. */
  const uint64_t* processor_data;
} graft_dispatch_state_v1_t;

/* Per workgroup invocation. */
typedef struct graft_workgroup_state_v1_t {
  uint32_t workgroup_id[3];
  uint32_t worker_id;     /* index of the thread running this workgroup */
  uint32_t reserved;
  void* scratch;          /* per-worker scratch, >= the dispatch's request */
  uint64_t scratch_size;
} graft_workgroup_state_v1_t;

typedef int (*graft_dispatch_fn_t)(
    const graft_dispatch_state_v1_t* dispatch_state,
    const graft_workgroup_state_v1_t* workgroup_state);

/* Per-dispatch attributes, parallel to the dispatch table. */
typedef struct graft_dispatch_attrs_v1_t {
  const char* name;          /* e.g. "mlp_dispatch_0_matmul" */
  const char* source;        /* "file:line:col" of the root op, or "" */
  uint32_t binding_count;
  uint32_t constant_count;
  uint32_t scratch_size;     /* bytes of per-worker scratch needed */
  uint32_t flags;            /* GRAFT_DISPATCH_FLAG_* */
  /* (ABI 2) How the dispatch uses each binding: |binding_count| entries of
   * GRAFT_BINDING_* bits, at least one set. The loader refuses a step that
   * binds a read-only buffer (an argument or a constant, directly or through
   * an alias) to a binding marked GRAFT_BINDING_WRITE. */
  const uint32_t* binding_flags;
} graft_dispatch_attrs_v1_t;

#define GRAFT_DISPATCH_FLAG_USER_KERNEL 1u /* whole-dispatch user kernel */
/* (ABI 2) Runs only as a GRAFT_STEP_HOST_CALL, on the invoking thread. */
#define GRAFT_DISPATCH_FLAG_HOST_CALL 2u

#define GRAFT_BINDING_READ 1u  /* the dispatch reads the buffer */
#define GRAFT_BINDING_WRITE 2u /* the dispatch writes the buffer */

/*===----------------------------------------------------------------------===
 * Host program of a function
 *
 * The runtime interprets this to run a function: it evaluates integer
 * expressions over input dims, checks them, allocates buffers and issues the
 * dispatches in order.
 *===----------------------------------------------------------------------===*/

/* Integer expressions, evaluated in order; operands refer to earlier
 * expressions only (index < own index). Arithmetic is on int64 and checked:
 * a result outside int64 or a zero divisor fails the invocation. The exact
 * meaning of every binary op is graft_expr_apply() in graft/expr.h. */
typedef enum graft_expr_op_e {
  GRAFT_EXPR_CONST = 0,      /* value = imm */
  GRAFT_EXPR_ARG_DIM = 1,    /* value = dim |imm| of argument |a| */
  GRAFT_EXPR_ARG_SCALAR = 2, /* value = scalar argument |a| as a constant word */
  GRAFT_EXPR_ADD = 3,        /* value = e[a] + e[imm] */
  GRAFT_EXPR_SUB = 4,
  GRAFT_EXPR_MUL = 5,
  GRAFT_EXPR_DIV = 6,        /* floor division; e[imm] == 0 is an error */
  GRAFT_EXPR_CEILDIV = 7,
  GRAFT_EXPR_MIN = 8,
  GRAFT_EXPR_MAX = 9,
  GRAFT_EXPR_REM = 10,       /* floor remainder (sign of the divisor) */
  GRAFT_EXPR_EQ = 11,        /* value = e[a] == e[imm] ? 1 : 0 (v2) */
  GRAFT_EXPR_LT = 12,        /* value = e[a] < e[imm] ? 1 : 0 (v2) */
  GRAFT_EXPR_OP_COUNT_ = 13,
} graft_expr_op_t;

typedef struct graft_expr_v1_t {
  uint32_t op;  /* graft_expr_op_t */
  uint32_t a;
  int64_t imm;
} graft_expr_v1_t;

/* A runtime check: expression |lhs| must equal expression |rhs|. */
typedef struct graft_check_v1_t {
  uint32_t lhs;
  uint32_t rhs;
  const char* message; /* "file:line:col: matmul K mismatch" */
} graft_check_v1_t;

/* The type of an argument or result as the caller sees it. */
typedef struct graft_value_type_v1_t {
  uint32_t dtype; /* graft_dtype_t */
  uint32_t rank;  /* 0 = scalar */
  const int64_t* dims; /* |rank| entries; GRAFT_DIM_DYNAMIC for '?' */
  const char* name;    /* argument name without '%', or "" */
} graft_value_type_v1_t;

typedef enum graft_buffer_kind_e {
  GRAFT_BUFFER_ARG = 0,      /* caller's argument |index| (read-only) */
  GRAFT_BUFFER_TEMP = 1,     /* runtime-allocated, freed after the call */
  GRAFT_BUFFER_RESULT = 2,   /* runtime-allocated, handed to the caller */
  GRAFT_BUFFER_CONST = 3,    /* |data| inside the slice, read-only */
  GRAFT_BUFFER_ALIAS = 4,    /* same storage as buffer |index| (reshape) */
  /* (ABI 2) An intermediate planned by the compiler: its storage starts at
   * byte offset e[|index|] (an expression, a multiple of 64) of the
   * invocation's arena. The arena is as large as the furthest end
   * (offset + size) of its buffers; the runtime derives that, keeps arenas
   * across calls (one per concurrent invocation) and does not clear them:
   * the compiler puts a buffer there only when the first step binding it
   * writes it whole, so stale bytes are never read. Buffers whose live
   * ranges (steps) overlap never overlap in the arena. */
  GRAFT_BUFFER_ARENA = 5,
  GRAFT_BUFFER_KIND_COUNT_ = 6,
} graft_buffer_kind_t;

typedef struct graft_buffer_v1_t {
  uint32_t kind;   /* graft_buffer_kind_t */
  uint32_t index;  /* argument, result or aliased buffer index; ARENA: the
                      expression index of the byte offset */
  uint32_t dtype;  /* graft_dtype_t */
  uint32_t rank;
  const uint32_t* dims; /* |rank| expression indices */
  const void* data;     /* GRAFT_BUFFER_CONST only */
  uint64_t data_size;   /* GRAFT_BUFFER_CONST only, bytes */
} graft_buffer_v1_t;

typedef enum graft_step_kind_e {
  GRAFT_STEP_DISPATCH = 0,
  /* Copy bindings[0] -> bindings[1] (whole buffers of equal size). The
   * destination must be a TEMP or RESULT buffer (or an alias of one). */
  GRAFT_STEP_COPY = 1,
  /* (ABI 2) A host command: dispatch |dispatch| (flagged
   * GRAFT_DISPATCH_FLAG_HOST_CALL) runs on the thread that invoked the
   * function, its workgroups one after the other (graft emits a 1x1x1
   * grid), after every earlier step finished and before any later one
   * starts. It calls import |import|, which must come from a system plugin
   * (a bare-metal plugin providing it is refused when the module is opened):
   * a vendor library with its own threads runs there alone. */
  GRAFT_STEP_HOST_CALL = 2,
  GRAFT_STEP_KIND_COUNT_ = 3,
} graft_step_kind_t;

typedef struct graft_step_v1_t {
  uint32_t kind;          /* graft_step_kind_t */
  uint32_t dispatch;      /* index into the dispatch table */
  uint32_t workgroup_count[3]; /* expression indices */
  uint32_t constant_count;
  uint32_t binding_count;
  /* (ABI 2) 0: the step always runs. Else one GRAFT_STEP_GUARD_* kind bit
   * and an index (GRAFT_STEP_GUARD_INDEX_MASK):
   *   IMPORT_RESOLVED / IMPORT_MISSING: the index is an entry of the
   *     library's import table; the step runs only when that import was
   *     (was not) resolved when the module was opened. An optional import's
   *     call runs when a plugin provides it, graft's own code for the same
   *     values (the generated fallback) when none does.
   *   EXPR_NONZERO / EXPR_ZERO: the index is an expression of the function;
   *     the step runs only when its value in this invocation is nonzero
   *     (zero). A spec rule with a run-time guard (a `where` constraint on a
   *     dynamic size) runs its kernel under the first and graft's own code
   *     for the same values under the second. */
  uint32_t guard;
  const uint32_t* constants; /* expression indices */
  const uint32_t* bindings;  /* buffer indices */
  /* (ABI 2) GRAFT_STEP_HOST_CALL: the index in the library's import table of
   * the host command's function. 0 for other kinds. */
  uint32_t import;
  uint32_t reserved;         /* 0 */
} graft_step_v1_t;

#define GRAFT_STEP_GUARD_IMPORT_RESOLVED 0x80000000u
#define GRAFT_STEP_GUARD_IMPORT_MISSING 0x40000000u
#define GRAFT_STEP_GUARD_EXPR_NONZERO 0x20000000u
#define GRAFT_STEP_GUARD_EXPR_ZERO 0x10000000u
#define GRAFT_STEP_GUARD_KIND_MASK 0xF0000000u
#define GRAFT_STEP_GUARD_INDEX_MASK 0x0FFFFFFFu

typedef struct graft_function_v1_t {
  const char* name;
  uint32_t arg_count;
  uint32_t result_count;
  const graft_value_type_v1_t* args;
  const graft_value_type_v1_t* results;
  const uint32_t* result_buffers; /* buffer index per result */
  uint32_t expr_count;
  uint32_t buffer_count;
  uint32_t check_count;
  uint32_t step_count;
  const graft_expr_v1_t* exprs;
  const graft_buffer_v1_t* buffers;
  const graft_check_v1_t* checks;
  const graft_step_v1_t* steps;
} graft_function_v1_t;

/*===----------------------------------------------------------------------===
 * Library header
 *===----------------------------------------------------------------------===*/

/* Imports are named "name" (required) or "?name" (optional: may resolve to
 * NULL; the code must check before calling). */
#define GRAFT_IMPORT_OPTIONAL_PREFIX '?'

/* (ABI 2) One ISA variant of a slice: every dispatch and host program of the
 * library compiled for one feature level of the slice's architecture
 * (targets/<arch>.cpp). Variants differ in their dispatch code, tile sizes
 * and with them workgroup counts and scratch sizes, so each carries its own
 * dispatch table and host programs; the functions' names and signatures are
 * the same in every variant. The loader runs one variant per open module:
 * the last one whose |cpu_features| the CPU has all of, or the one a caller
 * asks for by |level| (GRAFT_ISA, graft_runtime_options_t.isa). */
typedef struct graft_variant_v1_t {
  const char* level;                /* "x86-64-v4": the feature level's name */
  uint32_t cpu_feature_count;
  uint32_t dispatch_count;
  /* Every CPU feature the level needs (its own and those of the levels it
   * implies), by LLVM feature name ("avx512f"): the loader's vocabulary for
   * the running CPU (runtime/src/loader/arch/<arch>.c). */
  const char* const* cpu_features;
  const graft_dispatch_fn_t* dispatches;
  const graft_dispatch_attrs_v1_t* dispatch_attrs;
  uint32_t function_count;
  uint32_t reserved;                /* 0 */
  const graft_function_v1_t* functions;
} graft_variant_v1_t;

typedef struct graft_library_v1_t {
  uint32_t magic;        /* GRAFT_LIBRARY_MAGIC */
  uint32_t abi_version;  /* GRAFT_ABI_VERSION the slice was built against */
  const char* name;      /* module name */
  const char* producer;  /* "graft 0.1.0" */
  uint32_t dispatch_count;
  uint32_t import_count;
  uint32_t function_count;
  uint32_t flags;
  const graft_dispatch_fn_t* dispatches;
  const graft_dispatch_attrs_v1_t* dispatch_attrs;
  const char* const* imports;
  const graft_function_v1_t* functions;
  /* (ABI 2) The ISA variants, from the lowest feature level to the highest
   * (the loader runs the last one the CPU supports), levels unique.
   * |dispatches|, |dispatch_attrs| and |functions|
   * above are those of variants[0], so a reader that ignores variants
   * (graft-fatelf) still finds every signature. 0 variants: the tables
   * above are the only code and need no CPU feature. */
  uint32_t variant_count;
  uint32_t reserved;                /* 0 */
  const graft_variant_v1_t* variants;
} graft_library_v1_t;

/* The only exported symbol of a slice. Returns NULL when the slice cannot
 * serve |max_abi_version| (the runtime's newest version). */
typedef const graft_library_v1_t* (*graft_library_query_fn_t)(
    uint32_t max_abi_version);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_ABI_H_ */
