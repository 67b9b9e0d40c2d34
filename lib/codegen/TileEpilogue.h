// The fused epilogue of a packed matmul in the form its microkernel
// applies to the tile it just finished: on the last K block, an mr-row
// microkernel (PackedMatmul.cpp) stores its sums straight into the output
// instead of the workgroup's sums block and, unless the epilogue is the
// identity (a plain matmul), applies it there in place, on vectors, while
// those lines are in L1. The dispatch's scalar "out" pass (LoopEmitter.cpp)
// then covers only what such tiles do not: the ragged last panel and a
// partial last tile of rows.
//
// Only epilogues that give the same bits on vectors as the scalar pass do
// (but for which NaN's sign and payload an op passes on where both its
// operands are NaN: LLVM's IR leaves that open, scalar or vector):
// one f32 output computed from the sum, constants, dispatch constants and
// f32 inputs read at the output's point by ops whose vector form is each
// lane's scalar form: IEEE operations that are exactly rounded (add, sub,
// mul, div, sqrt) or exact (max, min, neg, abs, compares, selects), and
// the functions graft computes itself (exp, tanh, erf, sigmoid, ...:
// MathFunctions.cpp builds them from those same operations, fused
// multiply-adds and roundings, the same IR on a vector as on a scalar).
// An input is read at the tile's rows and columns through its map: a
// bias over the columns is a vector a row, a value per row a broadcast
// one, a matrix (a residual) its rows. Anything else (casts, integer or
// half-precision values, inputs read at computed coordinates or across
// the columns at a stride, several outputs) keeps the scalar pass over
// the whole block. i8 matmuls' i32 sums (PackedMatmul::pairs) are stored
// by the tiles as they are, with no epilogue on top.
#pragma once

#include "dispatch/Dispatch.h"

#include <llvm/IR/IRBuilder.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace graft::codegen {

// A value the epilogue reads besides the sums: an input at the output's
// point, or a dispatch constant. The microkernel finds it in the
// descriptor its caller passes (below).
struct EpilogueOperand {
  bool param = false;     // a dispatch constant (|index| a param), else an input
  unsigned index = 0;     // the input's or the param's index in the kernel
  bool columns = false;   // the input varies along the output's columns
                          // (its last dim, contiguous): a vector a row,
                          // else one value a row, broadcast
  bool rows = false;      // the input varies along the output's rows
};

struct TileEpilogue {
  const LoopKernel *kernel = nullptr;
  int root = -1;   // the output's node
  std::vector<int> nodes; // the nodes |root| needs, in node order
  std::vector<EpilogueOperand> operands; // in the order the nodes read them
  std::vector<int> operandOf; // per kernel node: its index in |operands|, or -1
  std::string key; // the computation, node by node (a symbol-safe name
                   // part: equal keys, equal code)
  // It calls one of graft's functions (exp, tanh, ...: tens of
  // instructions a value), so the scalar pass over what the tiles leave
  // is worth vectorizing.
  bool costly = false;
  // The output is the sum itself.
  bool identity() const { return kernel->nodes[root].kind == ScalarNode::Kind::Acc; }
};

// An epilogue with operands takes them from a descriptor, an array of
// i64 words that the microkernel's |out| argument points to instead of the
// output: word 0 the output's address, then per operand two words: an
// input's address at the tile's first row and column and its distance
// between rows in elements (0 where it does not vary along the rows), or
// a dispatch constant's word and 0.
// Operand k's first word (its address or constant); its row stride is
// the word after.
inline unsigned epilogueOperandWord(unsigned k) { return 1 + 2 * k; }
inline unsigned epilogueDescriptorWords(const TileEpilogue &e) {
  return epilogueOperandWord(static_cast<unsigned>(e.operands.size()));
}

// The epilogue of packed matmul |L| in that form, or nullopt (also where
// its level's tiles do not store outputs).
std::optional<TileEpilogue> tileEpilogue(const LoopKernel &L);

// The output vector for a vector of f32 |sums|; |operand|(k) gives the
// vector of operand k at the same row and columns.
llvm::Value *emitTileEpilogue(llvm::IRBuilder<> &b, const TileEpilogue &e, llvm::Value *sums,
                              const std::function<llvm::Value *(unsigned)> &operand);

} // namespace graft::codegen
