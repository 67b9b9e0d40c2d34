// The fused epilogue of a packed matmul in the form its microkernel
// applies to the tile it just finished: on the last K block, an mr-row
// microkernel (PackedMatmul.cpp) stores its sums straight into the output
// instead of the workgroup's sums block and, unless the epilogue is the
// identity (a plain matmul), applies it there in place, on vectors, while
// those lines are in L1. The dispatch's scalar "out" pass (LoopEmitter.cpp)
// then covers only what such tiles do not: the ragged last panel and a
// partial last tile of rows.
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
#include <vector>

namespace graft::codegen {

struct TileEpilogue {
  const LoopKernel *kernel = nullptr;
  int root = -1;   // the output's node
  std::vector<int> nodes; // the nodes |root| needs, in node order
  std::string key; // the computation, node by node (a symbol-safe name
                   // part: equal keys, equal code)
  // The output is the sum itself.
  bool identity() const { return kernel->nodes[root].kind == ScalarNode::Kind::Acc; }
};

// The epilogue of packed matmul |L| in that form, or nullopt (also where
// its level's tiles do not store outputs).
std::optional<TileEpilogue> tileEpilogue(const LoopKernel &L);

// The output vector for a vector of f32 |sums|.
llvm::Value *emitTileEpilogue(llvm::IRBuilder<> &b, const TileEpilogue &e, llvm::Value *sums);

} // namespace graft::codegen
