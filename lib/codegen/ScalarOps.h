// Scalar operations of map bodies as LLVM IR, with the semantics the
// reference evaluator defines (docs/graph-format.md): IEEE float arithmetic
// without contraction, NaN-propagating max/min, wrapping integer arithmetic
// with floor division as graft/expr.h defines it (x / 0 = 0, x % 0 = x),
// saturating float-to-int casts.
//
// f16 and bf16 are storage types: values live in float registers, loads and
// stores convert, and every op producing one rounds its result back to the
// storage type, which is what the evaluator does. The conversions are inline
// integer code: x86-64-v2 has no half instructions and a slice has no
// compiler-rt to call.
//
// exp, log, tanh and the other float functions are inline IR
// (MathFunctions.h): a slice is freestanding and has no libm to call.
#pragma once

#include "ir/IR.h"

#include <llvm/IR/IRBuilder.h>

#include <string>
#include <vector>

namespace graft::codegen {

// |resultType| is the op's result element type, |operandType| the element
// type of its first operand (they differ for cmp and cast).
llvm::Value *emitScalarOp(llvm::IRBuilder<> &b, OpKind op, const std::string &pred,
                          DType resultType, DType operandType,
                          const std::vector<llvm::Value *> &operands);

// i16 storage bits of |t| (F16 or BF16) <-> float (storageToFloat: a scalar
// or a vector of them).
llvm::Value *storageToFloat(llvm::IRBuilder<> &b, llvm::Value *bits, DType t);
llvm::Value *floatToStorage(llvm::IRBuilder<> &b, llvm::Value *f, DType t);
// Rounds a float to the nearest value of |t| (F16 or BF16), as a float.
llvm::Value *roundToStorage(llvm::IRBuilder<> &b, llvm::Value *f, DType t);
bool isStorageFloat(DType t); // F16 or BF16

} // namespace graft::codegen
