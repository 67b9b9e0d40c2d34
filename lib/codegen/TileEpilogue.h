// The fused epilogue of a packed matmul in the form its microkernel applies
// to the accumulator tile while it is still in registers: on the last K
// block, the mr-row microkernel (PackedMatmul.cpp) computes each output
// vector from its vector of sums and stores it straight into the output,
// so those sums never go back to the workgroup's sums block and the
// dispatch's scalar "out" pass (LoopEmitter.cpp) skips them.
//
// Only epilogues that give the same bits on vectors as the scalar pass do:
// one f32 output computed from the sum and constants by IEEE operations
// that are exactly rounded (add, sub, mul, div, sqrt), or exact (max, min,
// neg, abs, compares, selects). Anything else (other inputs, dispatch
// constants, the approximated functions, casts, several outputs) keeps
// the scalar pass over the whole block.
#pragma once

#include "dispatch/Dispatch.h"

#include <llvm/IR/IRBuilder.h>

#include <optional>
#include <string>

namespace graft::codegen {

struct TileEpilogue {
  const LoopKernel *kernel = nullptr;
  int root = -1;   // the output's node
  std::string key; // the computation spelt out in postfix (a symbol-safe
                   // name part: equal keys, equal code)
};

// The epilogue of packed matmul |L| in that form, or nullopt.
std::optional<TileEpilogue> tileEpilogue(const LoopKernel &L);

// The output vector for a vector of f32 |sums|.
llvm::Value *emitTileEpilogue(llvm::IRBuilder<> &b, const TileEpilogue &e, llvm::Value *sums);

} // namespace graft::codegen
