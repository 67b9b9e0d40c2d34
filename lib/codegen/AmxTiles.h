// The packed matmul's register tiles on x86's AMX (PackedMatmul::amx):
// the bodies of the routines PackedMatmul.cpp declares (its leaves, with
// their signatures, names and attributes), for i8 operands on a level with
// FeatureLevel::matrixTiles.
#pragma once

#include "dispatch/Dispatch.h"

namespace llvm {
class Function;
class IRBuilderBase;
class Value;
} // namespace llvm

namespace graft::codegen {

// The body of tile(kc, lhs, rhs, acc, ldacc, init, first, ldrhs, packed,
// out, ldout, last) for |rows| rows (PackedMatmul.cpp's emitTile: the same
// sums, i32, exactly) from an lhs panel packed row by row
// (emitAmxPackLhsBody) and an rhs panel of quads, nr columns a row, both
// kRows(kc) rows of K deep.
void emitAmxTileBody(llvm::Function &f, const PackedMatmul &p, unsigned rows);

// The body of packRows(kc, rows, a, lda, packed) for the lhs: panels of
// |width| rows, panel q at packed + q * width * kRows(kc) (i32 elements),
// per 64 bytes of K its rows' 64 bytes in order (row r's quads [16s, 16s +
// 16) at + (s * width + r) * 16), the bytes as they are, zeros past kc and
// past |rows|.
void emitAmxPackLhsBody(llvm::Function &f, const PackedMatmul &p, unsigned width);

// PackedMatmul::amxLhsElement(r, k, mr) as IR: quad |k| of row |r| (a
// constant) of an mr-row lhs panel, in i32 elements.
llvm::Value *amxLhsElement(llvm::IRBuilderBase &b, const PackedMatmul &p, llvm::Value *k,
                           unsigned r);

} // namespace graft::codegen
