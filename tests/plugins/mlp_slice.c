/* A hand-written graft library standing in for what the compiler will emit
 * for the seed MLP with fill + matmul + relu replaced by an import of
 * `mlp_external` (served by the seed's mlp_plugin.c):
 *
 *   mlp(%lhs: tensor<?x?xf32>, %rhs: tensor<?x?xf32>) -> tensor<?x?xf32>
 *
 * One workgroup packs the arguments the way the plugin reads them (each
 * buffer as MLIR's memref<?x?xf32> expansion, then M, N, K as i32), calls
 * the import and negates the result (the graph's `neg` after the relu). */
#include "graft/abi.h"

typedef struct memref2d_t {
  float* base;
  float* aligned;
  uint64_t offset;
  uint64_t sizes[2];
  uint64_t strides[2];
} memref2d_t;

typedef struct mlp_params_t {
  memref2d_t lhs, rhs, result;
  int32_t m, n, k;
} mlp_params_t;

/* Field by field: a struct copy could become a memcpy call, and a slice
 * has no libc. */
static void set_memref(memref2d_t* ref, float* data, uint64_t rows,
                       uint64_t cols) {
  ref->base = data;
  ref->aligned = data;
  ref->offset = 0;
  ref->sizes[0] = rows;
  ref->sizes[1] = cols;
  ref->strides[0] = cols;
  ref->strides[1] = 1;
}

static int mlp_dispatch(const graft_dispatch_state_v1_t* d,
                        const graft_workgroup_state_v1_t* wg) {
  (void)wg;
  uint64_t m = d->constants[0], n = d->constants[1], k = d->constants[2];
  float* result = (float*)d->bindings[2];
  mlp_params_t params;
  set_memref(&params.lhs, (float*)d->bindings[0], m, k);
  set_memref(&params.rhs, (float*)d->bindings[1], k, n);
  set_memref(&params.result, result, m, n);
  params.m = (int32_t)m;
  params.n = (int32_t)n;
  params.k = (int32_t)k;
  int code = d->imports[0](&params, d->import_contexts[0], 0);
  if (code != 0) return code;
  for (uint64_t i = 0; i < m * n; ++i) result[i] = -result[i];
  return 0;
}

static const char* const kImports[] = {"mlp_external"};
static const graft_dispatch_fn_t kDispatches[] = {mlp_dispatch};
static const uint32_t kBindingFlags[] = {GRAFT_BINDING_READ, GRAFT_BINDING_READ,
                                         GRAFT_BINDING_WRITE};
static const graft_dispatch_attrs_v1_t kDispatchAttrs[] = {{
    .name = "mlp_dispatch_0_mlp_external",
    .source = "mlp.graph:7:9",
    .binding_count = 3,
    .constant_count = 3,
    .binding_flags = kBindingFlags,
}};

static const int64_t kDynamic2D[] = {GRAFT_DIM_DYNAMIC, GRAFT_DIM_DYNAMIC};
static const graft_value_type_v1_t kArgs[] = {
    {.dtype = GRAFT_DTYPE_F32, .rank = 2, .dims = kDynamic2D, .name = "lhs"},
    {.dtype = GRAFT_DTYPE_F32, .rank = 2, .dims = kDynamic2D, .name = "rhs"},
};
static const graft_value_type_v1_t kResults[] = {
    {.dtype = GRAFT_DTYPE_F32, .rank = 2, .dims = kDynamic2D, .name = ""}};
/* e0 = M, e1 = K (lhs), e2 = K (rhs), e3 = N, e4 = 1 */
static const graft_expr_v1_t kExprs[] = {
    {.op = GRAFT_EXPR_ARG_DIM, .a = 0, .imm = 0},
    {.op = GRAFT_EXPR_ARG_DIM, .a = 0, .imm = 1},
    {.op = GRAFT_EXPR_ARG_DIM, .a = 1, .imm = 0},
    {.op = GRAFT_EXPR_ARG_DIM, .a = 1, .imm = 1},
    {.op = GRAFT_EXPR_CONST, .a = 0, .imm = 1},
};
static const graft_check_v1_t kChecks[] = {
    {.lhs = 1, .rhs = 2,
     .message = "mlp.graph:7:9: matmul: inner dimensions (K) of lhs and rhs "
                "differ"},
};
static const uint32_t kDimsLhs[] = {0, 1}, kDimsRhs[] = {2, 3},
                      kDimsResult[] = {0, 3};
static const graft_buffer_v1_t kBuffers[] = {
    {.kind = GRAFT_BUFFER_ARG, .index = 0, .dtype = GRAFT_DTYPE_F32,
     .rank = 2, .dims = kDimsLhs},
    {.kind = GRAFT_BUFFER_ARG, .index = 1, .dtype = GRAFT_DTYPE_F32,
     .rank = 2, .dims = kDimsRhs},
    {.kind = GRAFT_BUFFER_RESULT, .index = 0, .dtype = GRAFT_DTYPE_F32,
     .rank = 2, .dims = kDimsResult},
};
static const uint32_t kStepConstants[] = {0, 3, 1}; /* M, N, K */
static const uint32_t kStepBindings[] = {0, 1, 2};
static const graft_step_v1_t kSteps[] = {{
    .kind = GRAFT_STEP_DISPATCH,
    .dispatch = 0,
    .workgroup_count = {4, 4, 4},
    .constant_count = 3,
    .binding_count = 3,
    .constants = kStepConstants,
    .bindings = kStepBindings,
}};
static const uint32_t kResultBuffers[] = {2};
static const graft_function_v1_t kFunctions[] = {{
    .name = "mlp",
    .arg_count = 2,
    .result_count = 1,
    .args = kArgs,
    .results = kResults,
    .result_buffers = kResultBuffers,
    .expr_count = 5,
    .buffer_count = 3,
    .check_count = 1,
    .step_count = 1,
    .exprs = kExprs,
    .buffers = kBuffers,
    .checks = kChecks,
    .steps = kSteps,
}};

static const graft_library_v1_t kLibrary = {
    .magic = GRAFT_LIBRARY_MAGIC,
    .abi_version = GRAFT_ABI_VERSION,
    .name = "mlp",
    .producer = "hand-written test slice",
    .dispatch_count = 1,
    .import_count = 1,
    .function_count = 1,
    .dispatches = kDispatches,
    .dispatch_attrs = kDispatchAttrs,
    .imports = kImports,
    .functions = kFunctions,
};

__attribute__((visibility("default")))
const graft_library_v1_t* graft_library_query(uint32_t max_abi_version) {
  return max_abi_version >= GRAFT_ABI_VERSION ? &kLibrary : 0;
}
