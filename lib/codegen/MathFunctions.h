// The float functions of map bodies (exp, log, tanh, erf, sin, cos, pow,
// ...) as inline LLVM IR: range reduction and a polynomial, all selects and
// no branches, so that the loop vectorizer keeps them in vector registers.
// A slice is freestanding: there is no libm to call. Rounding to integers
// (floor, ceil, round) uses LLVM's intrinsics, which the slice runtime backs
// where a CPU lacks the instruction (lib/link/slice_runtime.c).
//
// Every function takes and gives one float or double value; exp and log
// also take a vector of them (row statistics, RowVector.h). The functions
// added for ONNX (sigmoid, erf, sin, cos, pow, log1p, expm1) compute in
// double for every float type and round the result once, so that f32 (and
// f16/bf16) results are within 1 ulp; their f64 bounds and the ranges where
// they hold are in docs/graph-format.md ("Accuracy").
#pragma once

#include <llvm/IR/IRBuilder.h>

namespace graft::codegen {

llvm::Value *emitExp(llvm::IRBuilder<> &b, llvm::Value *x);
llvm::Value *emitLog(llvm::IRBuilder<> &b, llvm::Value *x);
llvm::Value *emitTanh(llvm::IRBuilder<> &b, llvm::Value *x);
llvm::Value *emitFloor(llvm::IRBuilder<> &b, llvm::Value *x);
llvm::Value *emitCeil(llvm::IRBuilder<> &b, llvm::Value *x);
llvm::Value *emitRoundHalfEven(llvm::IRBuilder<> &b, llvm::Value *x);
llvm::Value *emitSigmoid(llvm::IRBuilder<> &b, llvm::Value *x);
llvm::Value *emitErf(llvm::IRBuilder<> &b, llvm::Value *x);
llvm::Value *emitSin(llvm::IRBuilder<> &b, llvm::Value *x);
llvm::Value *emitCos(llvm::IRBuilder<> &b, llvm::Value *x);
llvm::Value *emitLog1p(llvm::IRBuilder<> &b, llvm::Value *x);
llvm::Value *emitExpm1(llvm::IRBuilder<> &b, llvm::Value *x);
llvm::Value *emitPow(llvm::IRBuilder<> &b, llvm::Value *x, llvm::Value *y);

} // namespace graft::codegen
