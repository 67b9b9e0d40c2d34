// LLVM views of the ABI structs a dispatch function receives (abi.h), and
// helpers shared by the dispatch emitters.
#pragma once

#include "ir/IR.h"
#include "support/InternalError.h"

#include <llvm/IR/Constants.h>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <string>

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
  llvm::Value *workerId;    // i64: the worker (processor) running the workgroup
  llvm::Value *scratch;     // void*
  llvm::Value *processorData; // const uint64_t*: the CPU's feature words
};

// The abi.h structs codegen builds or reads, as enums naming their fields
// (abi::Library::functions, abi::DispatchState::bindings, ...), generated
// from the one table of their layout, AbiFields.def.
namespace abi {
#define GRAFT_ABI_STRUCT(S, C) enum class S : unsigned {
#define GRAFT_ABI_FIELD(S, F, K) F,
#define GRAFT_ABI_END(S) };
#include "codegen/AbiFields.def"
} // namespace abi

// The LLVM struct type of an abi.h struct, field for field as the table
// says. LLVM's default (non-packed) layout inserts the same padding as C;
// AbiLayoutTest checks every named field against abi.h for every target.
template <class S> llvm::StructType *abiType(llvm::LLVMContext &c);
#define GRAFT_ABI_STRUCT(S, C) template <> llvm::StructType *abiType<abi::S>(llvm::LLVMContext &c);
#define GRAFT_ABI_FIELD(S, F, K)
#define GRAFT_ABI_END(S)
#include "codegen/AbiFields.def"

// Position of a field in its LLVM struct type, for GEPs.
template <class S> unsigned fieldIndex(S field) { return static_cast<unsigned>(field); }

// A constant of an abi.h struct, built field by field by name. Every field
// must be set exactly once; a missing or repeated one is a compiler bug.
template <class S> class AbiConstant {
public:
  explicit AbiConstant(llvm::LLVMContext &c)
      : type_(abiType<S>(c)), fields_(type_->getNumElements(), nullptr) {}
  AbiConstant &set(S field, llvm::Constant *value) {
    llvm::Constant *&slot = fields_.at(fieldIndex(field));
    GRAFT_CHECK(!slot, "abi field " + std::to_string(fieldIndex(field)) + " set twice");
    slot = value;
    return *this;
  }
  llvm::Constant *get() const {
    for (size_t i = 0; i < fields_.size(); ++i)
      GRAFT_CHECK(fields_[i], "abi field " + std::to_string(i) + " left unset");
    return llvm::ConstantStruct::get(type_, fields_);
  }

private:
  llvm::StructType *type_;
  std::vector<llvm::Constant *> fields_;
};

// The table itself, for the layout check: each struct's C name, LLVM type
// and field names in order.
struct AbiStructInfo {
  const char *cName;
  llvm::StructType *type;
  std::vector<const char *> fields;
};
std::vector<AbiStructInfo> abiStructs(llvm::LLVMContext &c);

// `i32 name(ptr dispatch_state, ptr workgroup_state)` with internal linkage;
// the builder is left at the end of its entry block with DispatchArgs loaded.
DispatchArgs beginDispatchFunction(llvm::Module &m, llvm::IRBuilder<> &b,
                                   const std::string &name);

llvm::Value *loadParam(llvm::IRBuilder<> &b, const DispatchArgs &a, unsigned i);
llvm::Value *loadBinding(llvm::IRBuilder<> &b, const DispatchArgs &a, unsigned i);

// for (iv = lo; iv < hi; iv += step) body(iv), as a loop of blocks appended
// to the builder's function; the builder is left after the loop. Returns
// the loop's back edge (where loop metadata goes).
llvm::BranchInst *emitLoop(llvm::IRBuilder<> &b, llvm::Value *lo, llvm::Value *hi, const std::string &name,
              const std::function<void(llvm::Value *)> &body, uint64_t step = 1);
// The same with a step computed at run time (positive).
llvm::BranchInst *emitLoop(llvm::IRBuilder<> &b, llvm::Value *lo, llvm::Value *hi, const std::string &name,
              const std::function<void(llvm::Value *)> &body, llvm::Value *step);

// A read prefetch of the cache line at |at| into every level (locality 3).
// The address may lie past the data (a prefetch never faults): callers
// compute it without inbounds.
void prefetchLine(llvm::IRBuilder<> &b, llvm::Value *at);

// Register type of an element type (i1 for I1, float for f16/bf16) and its
// memory type (i8 for I1, i16 for f16/bf16).
llvm::Type *registerType(llvm::LLVMContext &c, DType t);
llvm::Type *memoryType(llvm::LLVMContext &c, DType t);

// Reinterprets a 64-bit constant word as a scalar of type |t| (abi.h rules).
llvm::Value *wordToScalar(llvm::IRBuilder<> &b, llvm::Value *word, DType t);

} // namespace graft::codegen
