/* A graft library written by hand in C, for executor and API tests: the
 * same structures the compiler emits into a slice, with dispatches as plain
 * C functions, so the executor can be tested without the compiler, the
 * linker or the ELF loader.
 *
 * Functions:
 *   add(tensor<?x?xf32> %lhs, tensor<?x?xf32> %rhs) -> tensor<?x?xf32>
 *   add4(tensor<?x4xf32> %lhs, tensor<?x4xf32> %rhs) -> tensor<?x4xf32>
 *   scale_add(tensor<?xf32> %x) -> tensor<?xf32>       (x*2)+x via a TEMP
 *   fail(tensor<?xf32> %x) -> tensor<?xf32>            workgroup 1 fails
 *   misc(tensor<2x3xf32> %x) -> (tensor<6xf32>, tensor<4xi32>, tensor<6xf32>)
 *        alias of the argument, a constant, and a COPY into a result
 *   scalar(f32 %s, tensor<?xf32> %x) -> tensor<?xf32>  x + s
 *   spin(tensor<?xf32> %x) -> tensor<?xf32>            every workgroup spins
 *        until tl_spin_release is set (the watchdog's test) */
#ifndef GRAFT_RUNTIME_TEST_LIBRARY_H_
#define GRAFT_RUNTIME_TEST_LIBRARY_H_

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "graft/abi.h"
#include "graft/status.h"

/* Validates |library| as the loader validates a slice (test_validate.c),
 * with this test program as the image. The executor trusts only validated
 * libraries, so every test passes its hand-written ones through this. */
graft_status_t tl_validate(const graft_library_v1_t* library);

#define TL_ELEMENTS_PER_WORKGROUP 4

/* out[i] = lhs[i] + rhs[i] for the 4 elements of this workgroup. */
static int tl_add_dispatch(const graft_dispatch_state_v1_t* d,
                           const graft_workgroup_state_v1_t* wg) {
  const float* lhs = d->bindings[0];
  const float* rhs = d->bindings[1];
  float* out = d->bindings[2];
  uint64_t n = d->constants[0];
  uint64_t begin = (uint64_t)wg->workgroup_id[0] * TL_ELEMENTS_PER_WORKGROUP;
  for (uint64_t i = begin; i < begin + TL_ELEMENTS_PER_WORKGROUP && i < n; ++i)
    out[i] = lhs[i] + rhs[i];
  return 0;
}

/* out[i] = in[i] * 2, staged through the worker's scratch to prove it is
 * there, large enough and aligned. */
static int tl_scale_dispatch(const graft_dispatch_state_v1_t* d,
                             const graft_workgroup_state_v1_t* wg) {
  if (wg->scratch_size < 256 || ((uintptr_t)wg->scratch & 63) != 0) return 7;
  const float* in = d->bindings[0];
  float* out = d->bindings[1];
  float* tmp = wg->scratch;
  uint64_t n = d->constants[0];
  uint64_t begin = (uint64_t)wg->workgroup_id[0] * TL_ELEMENTS_PER_WORKGROUP;
  for (uint64_t i = begin; i < begin + TL_ELEMENTS_PER_WORKGROUP && i < n; ++i)
    tmp[i - begin] = in[i] * 2;
  for (uint64_t i = begin; i < begin + TL_ELEMENTS_PER_WORKGROUP && i < n; ++i)
    out[i] = tmp[i - begin];
  return 0;
}

static int tl_fail_dispatch(const graft_dispatch_state_v1_t* d,
                            const graft_workgroup_state_v1_t* wg) {
  (void)d;
  return wg->workgroup_id[0] == 1 ? 3 : 0;
}

/* out[i] = x[i] + s, s passed as an f32 bit pattern constant. */
static int tl_add_scalar_dispatch(const graft_dispatch_state_v1_t* d,
                                  const graft_workgroup_state_v1_t* wg) {
  uint32_t bits = (uint32_t)d->constants[1];
  float s;
  memcpy(&s, &bits, 4);
  const float* x = d->bindings[0];
  float* out = d->bindings[1];
  uint64_t n = d->constants[0];
  uint64_t begin = (uint64_t)wg->workgroup_id[0] * TL_ELEMENTS_PER_WORKGROUP;
  for (uint64_t i = begin; i < begin + TL_ELEMENTS_PER_WORKGROUP && i < n; ++i)
    out[i] = x[i] + s;
  return 0;
}

/* Counts its workgroups and spins until a test sets tl_spin_release: a
 * kernel stuck until its deadline. */
static int tl_spin_release;
static int tl_spin_workgroups;
static int tl_spin_dispatch(const graft_dispatch_state_v1_t* d,
                            const graft_workgroup_state_v1_t* wg) {
  (void)d;
  (void)wg;
  __atomic_fetch_add(&tl_spin_workgroups, 1, __ATOMIC_RELAXED);
  while (!__atomic_load_n(&tl_spin_release, __ATOMIC_ACQUIRE)) {
  }
  return 0;
}

static const graft_dispatch_fn_t tl_dispatches[] = {
    tl_add_dispatch, tl_scale_dispatch, tl_fail_dispatch,
    tl_add_scalar_dispatch, tl_spin_dispatch};
static const uint32_t tl_read_read_write[] = {
    GRAFT_BINDING_READ, GRAFT_BINDING_READ, GRAFT_BINDING_WRITE};
static const uint32_t tl_read_write[] = {GRAFT_BINDING_READ,
                                         GRAFT_BINDING_WRITE};
static const graft_dispatch_attrs_v1_t tl_dispatch_attrs[] = {
    {"add_dispatch_0", "add.graph:4:8", 3, 1, 0, 0, tl_read_read_write},
    {"scale_dispatch_0", "scale.graph:2:3", 2, 1, 256, 0, tl_read_write},
    {"fail_dispatch", "fail.graph:7:9", 0, 0, 0, 0, NULL},
    {"add_scalar_dispatch", "", 2, 2, 0, 0, tl_read_write},
    {"spin_dispatch", "spin.graph:3:5", 0, 0, 0, 0, NULL},
};

/*--- add / add4 -----------------------------------------------------------*/
static const int64_t tl_dyn2[] = {GRAFT_DIM_DYNAMIC, GRAFT_DIM_DYNAMIC};
static const int64_t tl_dyn4[] = {GRAFT_DIM_DYNAMIC, 4};
static const graft_value_type_v1_t tl_add_args[] = {
    {GRAFT_DTYPE_F32, 2, tl_dyn2, "lhs"}, {GRAFT_DTYPE_F32, 2, tl_dyn2, "rhs"}};
static const graft_value_type_v1_t tl_add_results[] = {
    {GRAFT_DTYPE_F32, 2, tl_dyn2, ""}};
static const graft_value_type_v1_t tl_add4_args[] = {
    {GRAFT_DTYPE_F32, 2, tl_dyn4, "lhs"}, {GRAFT_DTYPE_F32, 2, tl_dyn4, "rhs"}};
static const graft_value_type_v1_t tl_add4_results[] = {
    {GRAFT_DTYPE_F32, 2, tl_dyn4, ""}};
static const graft_expr_v1_t tl_add_exprs[] = {
    {GRAFT_EXPR_ARG_DIM, 0, 0}, /* 0: lhs M */
    {GRAFT_EXPR_ARG_DIM, 0, 1}, /* 1: lhs N */
    {GRAFT_EXPR_ARG_DIM, 1, 0}, /* 2: rhs M */
    {GRAFT_EXPR_ARG_DIM, 1, 1}, /* 3: rhs N */
    {GRAFT_EXPR_MUL, 0, 1},     /* 4: M*N */
    {GRAFT_EXPR_CONST, 0, TL_ELEMENTS_PER_WORKGROUP}, /* 5 */
    {GRAFT_EXPR_CEILDIV, 4, 5}, /* 6: workgroups */
    {GRAFT_EXPR_CONST, 0, 1},   /* 7 */
};
static const graft_check_v1_t tl_add_checks[] = {
    {0, 2, "add.graph:3:8: lhs/rhs dim 0 mismatch"},
    {1, 3, "add.graph:3:8: lhs/rhs dim 1 mismatch"}};
static const uint32_t tl_dims_lhs[] = {0, 1};
static const uint32_t tl_dims_rhs[] = {2, 3};
static const graft_buffer_v1_t tl_add_buffers[] = {
    {GRAFT_BUFFER_ARG, 0, GRAFT_DTYPE_F32, 2, tl_dims_lhs, NULL, 0},
    {GRAFT_BUFFER_ARG, 1, GRAFT_DTYPE_F32, 2, tl_dims_rhs, NULL, 0},
    {GRAFT_BUFFER_RESULT, 0, GRAFT_DTYPE_F32, 2, tl_dims_lhs, NULL, 0}};
static const uint32_t tl_add_step_constants[] = {4};
static const uint32_t tl_add_step_bindings[] = {0, 1, 2};
static const graft_step_v1_t tl_add_steps[] = {
    {GRAFT_STEP_DISPATCH, 0, {6, 7, 7}, 1, 3, 0, tl_add_step_constants,
     tl_add_step_bindings, 0, 0}};
static const uint32_t tl_result_buffer_2[] = {2};

/*--- scale_add: TEMP = scale(x); result = add(TEMP, x) ----------------------*/
static const int64_t tl_dyn1[] = {GRAFT_DIM_DYNAMIC};
static const graft_value_type_v1_t tl_vec_args[] = {
    {GRAFT_DTYPE_F32, 1, tl_dyn1, "x"}};
static const graft_value_type_v1_t tl_vec_results[] = {
    {GRAFT_DTYPE_F32, 1, tl_dyn1, ""}};
static const graft_expr_v1_t tl_vec_exprs[] = {
    {GRAFT_EXPR_ARG_DIM, 0, 0},                        /* 0: n */
    {GRAFT_EXPR_CONST, 0, TL_ELEMENTS_PER_WORKGROUP},  /* 1 */
    {GRAFT_EXPR_CEILDIV, 0, 1},                        /* 2: workgroups */
    {GRAFT_EXPR_CONST, 0, 1},                          /* 3 */
};
static const uint32_t tl_dims_n[] = {0};
static const graft_buffer_v1_t tl_scale_add_buffers[] = {
    {GRAFT_BUFFER_ARG, 0, GRAFT_DTYPE_F32, 1, tl_dims_n, NULL, 0},
    {GRAFT_BUFFER_TEMP, 0, GRAFT_DTYPE_F32, 1, tl_dims_n, NULL, 0},
    {GRAFT_BUFFER_RESULT, 0, GRAFT_DTYPE_F32, 1, tl_dims_n, NULL, 0}};
static const uint32_t tl_n_constant[] = {0};
static const uint32_t tl_scale_bindings[] = {0, 1};
static const uint32_t tl_add_temp_bindings[] = {1, 0, 2};
static const graft_step_v1_t tl_scale_add_steps[] = {
    {GRAFT_STEP_DISPATCH, 1, {2, 3, 3}, 1, 2, 0, tl_n_constant,
     tl_scale_bindings, 0, 0},
    {GRAFT_STEP_DISPATCH, 0, {2, 3, 3}, 1, 3, 0, tl_n_constant,
     tl_add_temp_bindings, 0, 0}};

/*--- fail ------------------------------------------------------------------*/
static const graft_step_v1_t tl_fail_steps[] = {
    {GRAFT_STEP_DISPATCH, 2, {2, 3, 3}, 0, 0, 0, NULL, NULL, 0, 0}};

/*--- spin ------------------------------------------------------------------*/
static const graft_step_v1_t tl_spin_steps[] = {
    {GRAFT_STEP_DISPATCH, 4, {2, 3, 3}, 0, 0, 0, NULL, NULL, 0, 0}};

/*--- misc: alias, const, copy ----------------------------------------------*/
static const int64_t tl_2x3[] = {2, 3};
static const int64_t tl_6[] = {6};
static const int64_t tl_4[] = {4};
static const graft_value_type_v1_t tl_misc_args[] = {
    {GRAFT_DTYPE_F32, 2, tl_2x3, "x"}};
static const graft_value_type_v1_t tl_misc_results[] = {
    {GRAFT_DTYPE_F32, 1, tl_6, ""},
    {GRAFT_DTYPE_I32, 1, tl_4, ""},
    {GRAFT_DTYPE_F32, 1, tl_6, ""}};
static const graft_expr_v1_t tl_misc_exprs[] = {
    {GRAFT_EXPR_CONST, 0, 2}, {GRAFT_EXPR_CONST, 0, 3},
    {GRAFT_EXPR_CONST, 0, 6}, {GRAFT_EXPR_CONST, 0, 4}};
static const uint32_t tl_dims_2x3[] = {0, 1};
static const uint32_t tl_dims_6[] = {2};
static const uint32_t tl_dims_4[] = {3};
static const int32_t tl_const_data[] = {10, 20, 30, 40};
static const graft_buffer_v1_t tl_misc_buffers[] = {
    {GRAFT_BUFFER_ARG, 0, GRAFT_DTYPE_F32, 2, tl_dims_2x3, NULL, 0},
    {GRAFT_BUFFER_ALIAS, 0, GRAFT_DTYPE_F32, 1, tl_dims_6, NULL, 0},
    {GRAFT_BUFFER_CONST, 0, GRAFT_DTYPE_I32, 1, tl_dims_4, tl_const_data,
     sizeof(tl_const_data)},
    {GRAFT_BUFFER_RESULT, 2, GRAFT_DTYPE_F32, 1, tl_dims_6, NULL, 0}};
static const uint32_t tl_copy_bindings[] = {1, 3};
static const graft_step_v1_t tl_misc_steps[] = {
    {GRAFT_STEP_COPY, 0, {0, 0, 0}, 0, 2, 0, NULL, tl_copy_bindings, 0, 0}};
static const uint32_t tl_misc_result_buffers[] = {1, 2, 3};

/*--- scalar: x + s ---------------------------------------------------------*/
static const graft_value_type_v1_t tl_scalar_args[] = {
    {GRAFT_DTYPE_F32, 0, NULL, "s"}, {GRAFT_DTYPE_F32, 1, tl_dyn1, "x"}};
static const graft_expr_v1_t tl_scalar_exprs[] = {
    {GRAFT_EXPR_ARG_DIM, 1, 0},                        /* 0: n */
    {GRAFT_EXPR_CONST, 0, TL_ELEMENTS_PER_WORKGROUP},  /* 1 */
    {GRAFT_EXPR_CEILDIV, 0, 1},                        /* 2 */
    {GRAFT_EXPR_CONST, 0, 1},                          /* 3 */
    {GRAFT_EXPR_ARG_SCALAR, 0, 0},                     /* 4: s bits */
};
static const graft_buffer_v1_t tl_scalar_buffers[] = {
    {GRAFT_BUFFER_ARG, 1, GRAFT_DTYPE_F32, 1, tl_dims_n, NULL, 0},
    {GRAFT_BUFFER_RESULT, 0, GRAFT_DTYPE_F32, 1, tl_dims_n, NULL, 0}};
static const uint32_t tl_scalar_constants[] = {0, 4};
static const uint32_t tl_scalar_bindings[] = {0, 1};
static const graft_step_v1_t tl_scalar_steps[] = {
    {GRAFT_STEP_DISPATCH, 3, {2, 3, 3}, 2, 2, 0, tl_scalar_constants,
     tl_scalar_bindings, 0, 0}};
static const uint32_t tl_result_buffer_1[] = {1};

static const graft_function_v1_t tl_functions[] = {
    {"add", 2, 1, tl_add_args, tl_add_results, tl_result_buffer_2, 8, 3, 2, 1,
     tl_add_exprs, tl_add_buffers, tl_add_checks, tl_add_steps},
    {"add4", 2, 1, tl_add4_args, tl_add4_results, tl_result_buffer_2, 8, 3, 2,
     1, tl_add_exprs, tl_add_buffers, tl_add_checks, tl_add_steps},
    {"scale_add", 1, 1, tl_vec_args, tl_vec_results, tl_result_buffer_2, 4, 3,
     0, 2, tl_vec_exprs, tl_scale_add_buffers, NULL, tl_scale_add_steps},
    {"fail", 1, 1, tl_vec_args, tl_vec_results, tl_result_buffer_2, 4, 3, 0, 1,
     tl_vec_exprs, tl_scale_add_buffers, NULL, tl_fail_steps},
    {"misc", 1, 3, tl_misc_args, tl_misc_results, tl_misc_result_buffers, 4, 4,
     0, 1, tl_misc_exprs, tl_misc_buffers, NULL, tl_misc_steps},
    {"scalar", 2, 1, tl_scalar_args, tl_vec_results, tl_result_buffer_1, 5, 2,
     0, 1, tl_scalar_exprs, tl_scalar_buffers, NULL, tl_scalar_steps},
    {"spin", 1, 1, tl_vec_args, tl_vec_results, tl_result_buffer_2, 4, 3, 0, 1,
     tl_vec_exprs, tl_scale_add_buffers, NULL, tl_spin_steps},
};

static const graft_library_v1_t tl_library = {
    GRAFT_LIBRARY_MAGIC, GRAFT_ABI_VERSION, "testlib", "hand-written",
    5, 0, 7, 0, tl_dispatches, tl_dispatch_attrs, NULL, tl_functions,
    0, 0, NULL /* no ISA variants: the tables above need no CPU feature */};

/* For a test's main: 0 when tl_library validates, else 1 after printing
 * why (the test cannot run). */
static inline int tl_main_library_invalid(void) {
  graft_status_t s = tl_validate(&tl_library);
  if (!s) return 0;
  printf("the test library does not validate: %s\n", graft_status_message(s));
  graft_status_free(s);
  return 1;
}

#endif /* GRAFT_RUNTIME_TEST_LIBRARY_H_ */
