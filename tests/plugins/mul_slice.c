/* A hand-written graft library whose dispatch calls `simple_mul_workgroup`
 * (runtime/examples/plugins/standalone_plugin.c) once per 64 elements:
 *
 *   mul(%lhs: tensor<?xf32>, %rhs: tensor<?xf32>) -> tensor<?xf32>
 *
 * The arguments are packed as that plugin reads them: each buffer as MLIR's
 * memref<?xf32> expansion, then the element count and the first element of
 * the workgroup. Built for every architecture, it checks that one .sos
 * serves x86_64, aarch64 and riscv64. */
#include "graft/abi.h"

#define ELEMENTS_PER_WORKGROUP 64

typedef struct memref1d_t {
  float* base;
  float* aligned;
  uint64_t offset;
  uint64_t size;
  uint64_t stride;
} memref1d_t;

typedef struct mul_params_t {
  memref1d_t lhs, rhs, out;
  uint64_t dim;
  uint64_t tid;
} mul_params_t;

static void set_memref(memref1d_t* ref, float* data, uint64_t size) {
  ref->base = data;
  ref->aligned = data;
  ref->offset = 0;
  ref->size = size;
  ref->stride = 1;
}

static int mul_dispatch(const graft_dispatch_state_v1_t* d,
                        const graft_workgroup_state_v1_t* wg) {
  uint64_t n = d->constants[0];
  mul_params_t params;
  set_memref(&params.lhs, (float*)d->bindings[0], n);
  set_memref(&params.rhs, (float*)d->bindings[1], n);
  set_memref(&params.out, (float*)d->bindings[2], n);
  params.dim = n;
  params.tid = (uint64_t)wg->workgroup_id[0] * ELEMENTS_PER_WORKGROUP;
  return d->imports[0](&params, d->import_contexts[0], 0);
}

static const char* const kImports[] = {"simple_mul_workgroup"};
static const graft_dispatch_fn_t kDispatches[] = {mul_dispatch};
static const uint32_t kBindingFlags[] = {GRAFT_BINDING_READ, GRAFT_BINDING_READ,
                                         GRAFT_BINDING_WRITE};
static const graft_dispatch_attrs_v1_t kDispatchAttrs[] = {{
    .name = "mul_dispatch_0_simple_mul_workgroup",
    .source = "mul.graph:2:8",
    .binding_count = 3,
    .constant_count = 1,
    .binding_flags = kBindingFlags,
}};

static const int64_t kDynamic1D[] = {GRAFT_DIM_DYNAMIC};
static const graft_value_type_v1_t kArgs[] = {
    {.dtype = GRAFT_DTYPE_F32, .rank = 1, .dims = kDynamic1D, .name = "lhs"},
    {.dtype = GRAFT_DTYPE_F32, .rank = 1, .dims = kDynamic1D, .name = "rhs"},
};
static const graft_value_type_v1_t kResults[] = {
    {.dtype = GRAFT_DTYPE_F32, .rank = 1, .dims = kDynamic1D, .name = ""}};
/* e0 = n, e1 = n (rhs), e2 = 64, e3 = ceildiv(n, 64), e4 = 1 */
static const graft_expr_v1_t kExprs[] = {
    {.op = GRAFT_EXPR_ARG_DIM, .a = 0, .imm = 0},
    {.op = GRAFT_EXPR_ARG_DIM, .a = 1, .imm = 0},
    {.op = GRAFT_EXPR_CONST, .a = 0, .imm = ELEMENTS_PER_WORKGROUP},
    {.op = GRAFT_EXPR_CEILDIV, .a = 0, .imm = 2},
    {.op = GRAFT_EXPR_CONST, .a = 0, .imm = 1},
};
static const graft_check_v1_t kChecks[] = {
    {.lhs = 0, .rhs = 1, .message = "mul.graph:2:8: mul size mismatch"}};
static const uint32_t kDimsN[] = {0}, kDimsRhs[] = {1};
static const graft_buffer_v1_t kBuffers[] = {
    {.kind = GRAFT_BUFFER_ARG, .index = 0, .dtype = GRAFT_DTYPE_F32,
     .rank = 1, .dims = kDimsN},
    {.kind = GRAFT_BUFFER_ARG, .index = 1, .dtype = GRAFT_DTYPE_F32,
     .rank = 1, .dims = kDimsRhs},
    {.kind = GRAFT_BUFFER_RESULT, .index = 0, .dtype = GRAFT_DTYPE_F32,
     .rank = 1, .dims = kDimsN},
};
static const uint32_t kStepConstants[] = {0};
static const uint32_t kStepBindings[] = {0, 1, 2};
static const graft_step_v1_t kSteps[] = {{
    .kind = GRAFT_STEP_DISPATCH,
    .dispatch = 0,
    .workgroup_count = {3, 4, 4},
    .constant_count = 1,
    .binding_count = 3,
    .constants = kStepConstants,
    .bindings = kStepBindings,
}};
static const uint32_t kResultBuffers[] = {2};
static const graft_function_v1_t kFunctions[] = {{
    .name = "mul",
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
    .name = "mul",
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
