// LLVM views of the ABI structs a dispatch function receives (abi.h), and
// helpers shared by the dispatch emitters.
#pragma once

#include "ir/IR.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

namespace graft::codegen {

// graft's IR and LLVM both name Function, Module, Type and Value; inside
// codegen the unqualified names are LLVM's (graft's are written graft::X).
using llvm::Function;
using llvm::Module;
using llvm::Type;
using llvm::Value;

// What a dispatch function reads from its two state arguments.
struct DispatchArgs {
  llvm::Function *fn;
  llvm::Value *constants;   // const uint64_t*
  llvm::Value *bindings;    // void* const*
  llvm::Value *imports;     // const graft_import_fn_t*
  llvm::Value *importCtx;   // void* const*
  llvm::Value *wgId[3];     // i64
  llvm::Value *wgCount[3];  // i64
  llvm::Value *scratch;     // void*
};

// LLVM struct types of the abi.h structs, field for field. LLVM's default
// (non-packed) layout inserts the same padding as C on every LP64 target;
// AbiLayoutTest checks each against offsetof() for every target.
llvm::StructType *dispatchStateType(llvm::LLVMContext &c);  // graft_dispatch_state_v1_t
llvm::StructType *workgroupStateType(llvm::LLVMContext &c); // graft_workgroup_state_v1_t
llvm::StructType *dispatchAttrsType(llvm::LLVMContext &c);  // graft_dispatch_attrs_v1_t
llvm::StructType *exprType(llvm::LLVMContext &c);           // graft_expr_v1_t
llvm::StructType *checkType(llvm::LLVMContext &c);          // graft_check_v1_t
llvm::StructType *valueTypeType(llvm::LLVMContext &c);      // graft_value_type_v1_t
llvm::StructType *bufferType(llvm::LLVMContext &c);         // graft_buffer_v1_t
llvm::StructType *stepType(llvm::LLVMContext &c);           // graft_step_v1_t
llvm::StructType *functionType(llvm::LLVMContext &c);       // graft_function_v1_t
llvm::StructType *libraryType(llvm::LLVMContext &c);        // graft_library_v1_t

// `i32 name(ptr dispatch_state, ptr workgroup_state)` with internal linkage;
// the builder is left at the end of its entry block with DispatchArgs loaded.
DispatchArgs beginDispatchFunction(llvm::Module &m, llvm::IRBuilder<> &b,
                                   const std::string &name);

llvm::Value *loadParam(llvm::IRBuilder<> &b, const DispatchArgs &a, unsigned i);
llvm::Value *loadBinding(llvm::IRBuilder<> &b, const DispatchArgs &a, unsigned i);

// Register type of an element type (i1 for I1, float for f16/bf16) and its
// memory type (i8 for I1, i16 for f16/bf16).
llvm::Type *registerType(llvm::LLVMContext &c, DType t);
llvm::Type *memoryType(llvm::LLVMContext &c, DType t);

// Reinterprets a 64-bit constant word as a scalar of type |t| (abi.h rules).
llvm::Value *wordToScalar(llvm::IRBuilder<> &b, llvm::Value *word, DType t);

} // namespace graft::codegen
