// Which nodes of a row kernel (a LoopKernel with RowReduce nodes) can be
// computed for a vector of consecutive points of the current row at once,
// so that a row statistic runs on explicit full-width vectors instead of
// depending on what the loop and SLP vectorizers make of a scalar loop.
//
// A node is
//   Uniform:  the same at every point of the row (constants, params,
//             earlier statistics, loads that do not read along the row):
//             computed once per row as a scalar and splatted;
//   Varying:  differs along the row and every step has a vector form: a
//             contiguous load along the innermost dim, that dim's index, or
//             an op of the list in RowVector.cpp on such values;
//   Scalar:   anything else (gathers that move along the row, casts,
//             functions without a vector form, f16/bf16): the statistic
//             then keeps the scalar loop.
#pragma once

#include "dispatch/Dispatch.h"

#include <vector>

namespace graft::codegen {

enum class RowShape : unsigned char { Uniform, Varying, Scalar };

// The operand type emitScalarOp takes for Op node |node| of |L|.
DType operandType(const LoopKernel &L, const ScalarNode &node);

// The shape of every node of |L| (indexed like L.nodes).
std::vector<RowShape> rowShapes(const LoopKernel &L);

// The lanes per vector of RowReduce node |n|'s vector form (f32 or f64,
// an operand that varies along the row, L.rowVectorBits wide), or 0 when
// it keeps the scalar loop. |shape| is rowShapes(L).
unsigned rowStatisticLanes(const LoopKernel &L, const std::vector<RowShape> &shape, int n);

// Streaming stores (LoopKernel::streamingBytes): the lanes of the vector
// loop that writes the outputs with them where a call's results are that
// large, or 0 where the kernel has no such loop. It has one where the
// kernel is elementwise (no reduction, no row statistics), every output
// has the same plain element size and a vector form (not Scalar), and the
// level has vectors and streams results (streamingBytes > 0).
unsigned streamingStoreLanes(const LoopKernel &L, const std::vector<RowShape> &shape);

} // namespace graft::codegen
