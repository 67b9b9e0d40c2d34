/* A hand-written graft library whose dispatch calls imports, standing in
 * for what the compiler will emit for `link: import` / `link: optional`
 * rules (see tests/fixtures/abi/fixture.c for the plain form).
 *
 *   probe(%x: tensor<?xf32>) -> tensor<?xf32>
 *
 * One workgroup per element i (so imports run on every worker at once);
 * element i asks import probe_a, probe_b or probe_c (i % 3) to write its
 * tag into out[i]. An optional import nobody provides is NULL: the dispatch
 * writes -1 instead, which is how a test tells the fallback ran. The import
 * table is deliberately not sorted: plugins see sorted names, dispatches
 * the library's order. */
#include "graft/abi.h"
#include "probe.h"

static int probe_dispatch(const graft_dispatch_state_v1_t* d,
                          const graft_workgroup_state_v1_t* wg) {
  static const uint32_t kImportOfSlot[3] = {1, 2, 0}; /* a, ?b, ?c */
  uint64_t i = wg->workgroup_id[0];
  const float* x = (const float*)d->bindings[0];
  float* out = (float*)d->bindings[1];
  uint32_t import = kImportOfSlot[i % 3];
  if (import >= d->import_count) return 99; /* the runtime broke abi.h */
  graft_import_fn_t fn = d->imports[import];
  if (!fn) {
    out[i] = -1.0f;
    return 0;
  }
  probe_params_t params;
  params.out = out;
  params.index = i;
  params.input = x[i];
  return fn(&params, d->import_contexts[import], 0);
}

static const char* const kImports[] = {"?" PROBE_C, PROBE_A, "?" PROBE_B};
static const graft_dispatch_fn_t kDispatches[] = {probe_dispatch};
static const uint32_t kBindingFlags[] = {GRAFT_BINDING_READ,
                                         GRAFT_BINDING_WRITE};
static const graft_dispatch_attrs_v1_t kDispatchAttrs[] = {{
    .name = "probe_dispatch_0",
    .source = "probe.graph:2:8",
    .binding_count = 2,
    .constant_count = 1,
    .binding_flags = kBindingFlags,
}};

static const int64_t kDynamic1D[] = {GRAFT_DIM_DYNAMIC};
static const graft_value_type_v1_t kArgs[] = {
    {.dtype = GRAFT_DTYPE_F32, .rank = 1, .dims = kDynamic1D, .name = "x"}};
static const graft_value_type_v1_t kResults[] = {
    {.dtype = GRAFT_DTYPE_F32, .rank = 1, .dims = kDynamic1D, .name = ""}};
/* e0 = dim 0 of %x, e1 = 1 */
static const graft_expr_v1_t kExprs[] = {
    {.op = GRAFT_EXPR_ARG_DIM, .a = 0, .imm = 0},
    {.op = GRAFT_EXPR_CONST, .a = 0, .imm = 1},
};
static const uint32_t kDimsN[] = {0};
static const graft_buffer_v1_t kBuffers[] = {
    {.kind = GRAFT_BUFFER_ARG, .index = 0, .dtype = GRAFT_DTYPE_F32,
     .rank = 1, .dims = kDimsN},
    {.kind = GRAFT_BUFFER_RESULT, .index = 0, .dtype = GRAFT_DTYPE_F32,
     .rank = 1, .dims = kDimsN},
};
static const uint32_t kStepConstants[] = {0};
static const uint32_t kStepBindings[] = {0, 1};
static const graft_step_v1_t kSteps[] = {{
    .kind = GRAFT_STEP_DISPATCH,
    .dispatch = 0,
    .workgroup_count = {0, 1, 1},
    .constant_count = 1,
    .binding_count = 2,
    .constants = kStepConstants,
    .bindings = kStepBindings,
}};
static const uint32_t kResultBuffers[] = {1};
static const graft_function_v1_t kFunctions[] = {{
    .name = "probe",
    .arg_count = 1,
    .result_count = 1,
    .args = kArgs,
    .results = kResults,
    .result_buffers = kResultBuffers,
    .expr_count = 2,
    .buffer_count = 2,
    .step_count = 1,
    .exprs = kExprs,
    .buffers = kBuffers,
    .steps = kSteps,
}};

static const graft_library_v1_t kLibrary = {
    .magic = GRAFT_LIBRARY_MAGIC,
    .abi_version = GRAFT_ABI_VERSION,
    .name = "probe",
    .producer = "hand-written test slice",
    .dispatch_count = 1,
    .import_count = 3,
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
