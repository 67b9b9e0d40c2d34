// LLVM code generation for one target: dispatch functions, the library
// metadata (abi.h structs) and the query function, in one llvm::Module.
#pragma once

#include "dispatch/Dispatch.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Function;
class IRBuilderBase;
class LLVMContext;
class Module;
class TargetMachine;
class Value;
} // namespace llvm

namespace graft {

struct TargetInfo;
struct FeatureLevel;

namespace codegen {
struct TileEpilogue;

// One variant as the library header lists it: its level and its dispatch
// functions' symbols in the slice module, in dispatch order.
struct VariantSymbols {
  const FeatureLevel *level;
  const ProgramSet *programs;
  std::vector<std::string> dispatchSymbols;
};

// Internal entry points (one file each).
void emitLoopDispatch(llvm::Module &m, const Dispatch &d);
void emitCallDispatch(llvm::Module &m, const Dispatch &d);
// The leaf routines of a packed matmul (PackedMatmul.cpp), one per tile
// shape, stored element type and module. The rhs packing routine reads
// p.rhsElem; the one that packs rows |width| at a time, |elem| (the lhs's
// with width mr, a transposed rhs's with width nr and |ofRhs|).
llvm::Function *packedMatmulPackRhs(llvm::Module &m, const PackedMatmul &p);
// The transpose of the square |rows| (L vectors of L lanes, L a power of
// two): log2(L) rounds of L two-source shuffles, each swapping the
// off-diagonal b x b blocks of every 2b x 2b block (b = L/2 .. 1). Vector
// j of the result is lane j of every input. (PackedMatmul.cpp; the
// packing routines' and LoopEmitter's transposes.)
std::vector<llvm::Value *> transposeSquare(llvm::IRBuilderBase &b, std::vector<llvm::Value *> rows);
llvm::Function *packedMatmulPackRows(llvm::Module &m, const PackedMatmul &p, unsigned width,
                                     DType elem, bool ofRhs = false);
// The microkernel for the first |rows| (at most mr) rows of an mr-row lhs
// panel: mr for whole panels, fewer for the last rows of a block. Where the
// level's tiles store outputs (PackedMatmul::tilesStoreOutputs), every
// microkernel takes three more arguments (out, ldout, last), and an mr-row
// one made for an epilogue (TileEpilogue.h) also applies it to the tile it
// stores (one with operands takes, as |out|, their descriptor).
// The shorter ones read the rhs at a row stride they are given: f32
// panels, or, for a block of fewer than mr rows, the rhs in place as
// stored (|rhs|: f32, f16 or bf16).
llvm::Function *packedMatmulTile(llvm::Module &m, const PackedMatmul &p, unsigned rows,
                                 const TileEpilogue *epi = nullptr, DType rhs = DType::F32);
// The mr-row microkernel that reads a whole rhs panel in place (row stride
// ldb; not for a transposed rhs) and packs it as it goes, for the panel's
// first tile where the workgroup packs its own rhs block (and, its copy
// unused, for a block of fewer than mr rows that no shorter tile covers).
llvm::Function *packedMatmulTilePacking(llvm::Module &m, const PackedMatmul &p,
                                        const TileEpilogue *epi = nullptr);
// The one-row microkernel over a block's whole panels of a plain rhs read
// in place (|rhs|: f32, f16 or bf16): the same sums as the one-row tail
// per panel, rows swept a few at a time across all the columns; its lhs
// is a packed panel (element k at k * mr) or an f32 row in place (at k).
llvm::Function *packedMatmulRowSweep(llvm::Module &m, const PackedMatmul &p, DType rhs);
// Whether a transposed rhs is moved in transposes of the level's lanes:
// packRows' wide panels, and packedMatmulTransposedTail.
bool packedMatmulTransposesLanes(const PackedMatmul &p);
// The microkernel of |rows| (a tail height) rows that reads a transposed
// rhs ([N, K]) in place, for a block of fewer than mr rows whose K block is
// a multiple of the lanes (packedMatmulTransposesLanes levels only): the
// same sums as packing the panel first.
llvm::Function *packedMatmulTransposedTail(llvm::Module &m, const PackedMatmul &p, unsigned rows);
// The heights of the microkernels a block's last, partial panel uses
// (packedMatmulTailRows), below mr: multiples of 4 (of 2 below 8 rows).
std::vector<unsigned> packedMatmulTailRows(const PackedMatmul &p);
// The rows of the packed panels of a K block of |kc| rows: kc, or for i8
// pairs (PackedMatmul::pairs, whose kRows is the same rule for sizes known
// when building) ceil(kc / 2), for quads ceil(kc / 4).
llvm::Value *packedMatmulPanelRows(llvm::IRBuilderBase &b, const PackedMatmul &p, llvm::Value *kc);
// The library header with one variant per entry of |variants| (the first's
// tables are also the header's own) and the query function.
void emitLibrary(llvm::Module &m, const TargetInfo &target,
                 const std::vector<VariantSymbols> &variants,
                 const std::string &moduleName);
} // namespace codegen

} // namespace graft
