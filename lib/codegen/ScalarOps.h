// Scalar operations of map bodies as LLVM IR, with the semantics the
// reference evaluator defines (docs/graph-format.md): IEEE float arithmetic
// without contraction, NaN-propagating max/min, wrapping integer arithmetic,
// integer division by zero = 0, saturating float-to-int casts.
//
// exp/log/tanh are emitted inline (range reduction + polynomial) because a
// slice is freestanding: there is no libm to call, and inline code vectorizes.
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

} // namespace graft::codegen
