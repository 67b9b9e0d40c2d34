// The LLVM struct types codegen uses for abi.h structs must have the same
// field offsets and sizes as the C structs, on every target's data layout.
// A mismatch here is an ABI break between compiler and runtime.
#include "codegen/AbiTypes.h"
#include "link/TargetMachine.h"
#include "targets/Target.h"

#include <gtest/gtest.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <cstddef>

namespace graft {
namespace {

using namespace llvm;

TEST(AbiLayout, StructsMatchC) {
  for (const TargetInfo *t : allTargets()) {
    std::string err;
    auto tm = createTargetMachine(*t, err);
    ASSERT_TRUE(tm) << err;
    DataLayout dl = tm->createDataLayout();
    LLVMContext c;
    auto check = [&](StructType *st, size_t size, std::vector<size_t> offsets, const char *name) {
      const StructLayout *sl = dl.getStructLayout(st);
      EXPECT_EQ(sl->getSizeInBytes(), size) << name << " on " << t->name;
      for (size_t i = 0; i < offsets.size(); ++i)
        EXPECT_EQ(sl->getElementOffset(static_cast<unsigned>(i)), offsets[i])
            << name << " field " << i << " on " << t->name;
    };
    check(codegen::dispatchStateType(c),
          sizeof(graft_dispatch_state_v1_t),
          {offsetof(graft_dispatch_state_v1_t, workgroup_count),
           offsetof(graft_dispatch_state_v1_t, constant_count),
           offsetof(graft_dispatch_state_v1_t, binding_count),
           offsetof(graft_dispatch_state_v1_t, import_count),
           offsetof(graft_dispatch_state_v1_t, constants),
           offsetof(graft_dispatch_state_v1_t, bindings),
           offsetof(graft_dispatch_state_v1_t, binding_lengths),
           offsetof(graft_dispatch_state_v1_t, imports),
           offsetof(graft_dispatch_state_v1_t, import_contexts)},
          "graft_dispatch_state_v1_t");
    check(codegen::workgroupStateType(c),
          sizeof(graft_workgroup_state_v1_t),
          {offsetof(graft_workgroup_state_v1_t, workgroup_id),
           offsetof(graft_workgroup_state_v1_t, worker_id),
           offsetof(graft_workgroup_state_v1_t, reserved),
           offsetof(graft_workgroup_state_v1_t, scratch),
           offsetof(graft_workgroup_state_v1_t, scratch_size)},
          "graft_workgroup_state_v1_t");
    check(codegen::dispatchAttrsType(c), sizeof(graft_dispatch_attrs_v1_t),
          {offsetof(graft_dispatch_attrs_v1_t, name), offsetof(graft_dispatch_attrs_v1_t, source),
           offsetof(graft_dispatch_attrs_v1_t, binding_count),
           offsetof(graft_dispatch_attrs_v1_t, constant_count),
           offsetof(graft_dispatch_attrs_v1_t, scratch_size),
           offsetof(graft_dispatch_attrs_v1_t, flags),
           offsetof(graft_dispatch_attrs_v1_t, binding_flags)},
          "graft_dispatch_attrs_v1_t");
    check(codegen::exprType(c), sizeof(graft_expr_v1_t),
          {offsetof(graft_expr_v1_t, op), offsetof(graft_expr_v1_t, a),
           offsetof(graft_expr_v1_t, imm)},
          "graft_expr_v1_t");
    check(codegen::checkType(c), sizeof(graft_check_v1_t),
          {offsetof(graft_check_v1_t, lhs), offsetof(graft_check_v1_t, rhs),
           offsetof(graft_check_v1_t, message)},
          "graft_check_v1_t");
    check(codegen::valueTypeType(c), sizeof(graft_value_type_v1_t),
          {offsetof(graft_value_type_v1_t, dtype), offsetof(graft_value_type_v1_t, rank),
           offsetof(graft_value_type_v1_t, dims), offsetof(graft_value_type_v1_t, name)},
          "graft_value_type_v1_t");
    check(codegen::bufferType(c), sizeof(graft_buffer_v1_t),
          {offsetof(graft_buffer_v1_t, kind), offsetof(graft_buffer_v1_t, index),
           offsetof(graft_buffer_v1_t, dtype), offsetof(graft_buffer_v1_t, rank),
           offsetof(graft_buffer_v1_t, dims), offsetof(graft_buffer_v1_t, data),
           offsetof(graft_buffer_v1_t, data_size)},
          "graft_buffer_v1_t");
    check(codegen::stepType(c),
          sizeof(graft_step_v1_t),
          {offsetof(graft_step_v1_t, kind), offsetof(graft_step_v1_t, dispatch),
           offsetof(graft_step_v1_t, workgroup_count), offsetof(graft_step_v1_t, constant_count),
           offsetof(graft_step_v1_t, binding_count), offsetof(graft_step_v1_t, reserved),
           offsetof(graft_step_v1_t, constants), offsetof(graft_step_v1_t, bindings)},
          "graft_step_v1_t");
    check(codegen::functionType(c),
          sizeof(graft_function_v1_t),
          {offsetof(graft_function_v1_t, name), offsetof(graft_function_v1_t, arg_count),
           offsetof(graft_function_v1_t, result_count), offsetof(graft_function_v1_t, args),
           offsetof(graft_function_v1_t, results), offsetof(graft_function_v1_t, result_buffers),
           offsetof(graft_function_v1_t, expr_count), offsetof(graft_function_v1_t, buffer_count),
           offsetof(graft_function_v1_t, check_count), offsetof(graft_function_v1_t, step_count),
           offsetof(graft_function_v1_t, exprs), offsetof(graft_function_v1_t, buffers),
           offsetof(graft_function_v1_t, checks), offsetof(graft_function_v1_t, steps)},
          "graft_function_v1_t");
    check(codegen::libraryType(c),
          sizeof(graft_library_v1_t),
          {offsetof(graft_library_v1_t, magic), offsetof(graft_library_v1_t, abi_version),
           offsetof(graft_library_v1_t, name), offsetof(graft_library_v1_t, producer),
           offsetof(graft_library_v1_t, dispatch_count), offsetof(graft_library_v1_t, import_count),
           offsetof(graft_library_v1_t, function_count), offsetof(graft_library_v1_t, flags),
           offsetof(graft_library_v1_t, dispatches), offsetof(graft_library_v1_t, dispatch_attrs),
           offsetof(graft_library_v1_t, imports), offsetof(graft_library_v1_t, functions)},
          "graft_library_v1_t");
  }
}

} // namespace
} // namespace graft
