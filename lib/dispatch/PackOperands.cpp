// The operands of a packed matmul (PackedMatmul in Dispatch.h) that several
// workgroups read, packed once per call by one dispatch of its own that
// runs just before the matmul: the rhs where PackedMatmul::rhsPackedRows
// or more rows of workgroups read each rhs block (three; two for a
// transposed rhs), the lhs where more than one column reads each lhs block. Packed inside
// each workgroup, every block would be packed once per reader (the rhs 11
// times per 1024-square matmul on x86-64-v4 with rows of 96, the lhs once
// per column: 32 times at 64 x 1024 x 1024 with columns of 32), read from
// rows ld apart each time. An operand with one reader is packed by its
// workgroup into its scratch, where it stays in cache for the microkernel
// instead of a round trip through a buffer (measured on the rhs of
// 64 x 1024 x 1024 with one row of workgroups: 0.92 ms instead of 1.10 ms
// per call); so is an rhs with two rows of readers: each workgroup packs
// it in its panels' first tiles as they multiply, which costs less than
// the pack dispatch's write of the whole rhs and its reads back (on an
// AVX-512 Xeon, 1 thread, with the grid of before PackedGrid's whole
// rows: 128 x 768 x 768 8% faster, 128 x 768 x 3072 7%, 128 x 3072 x 768
// and 100 x 1000 x 1000 5%, 192 rows 1%). A transposed rhs is packed
// before the tiles, not by them (packRows), so with two rows of readers
// it stays in the pack dispatch (single-head attention of 128 rows: own
// packing 2.5% slower). Where neither operand has several readers (small
// matmuls, the 2x2 MLP) the pack dispatch has no workgroups and its
// buffer no rows. Both operands share the one step and the one buffer, so
// a matmul adds one step, whatever it packs.
#include "dispatch/Former.h"

namespace graft {

void Former::packOperandsOncePerCall(KernelDraft &draft) {
  Dispatch &mm = draft.d;
  PackedMatmul &p = mm.loop.packed;
  ExprTable &ex = shapes.exprs;
  auto c = [&](int64_t v) { return ex.constant(v); };
  auto op = [&](graft_expr_op_t o, uint32_t a, uint32_t b) { return ex.binary(o, a, b); };
  // 1 where |count| workgroups are more than one, else 0.
  auto several = [&](uint32_t count) { return op(GRAFT_EXPR_LT, c(1), count); };
  const std::vector<uint32_t> &domain = draft.domain;
  const unsigned P = mm.loop.numParallel;
  const uint32_t M = domain[P - 2], N = domain[P - 1], K = domain[P];
  // (Constant operands were packed when building instead: PackConstants.cpp,
  // called before the grid.)
  const uint32_t packRhs =
      p.rhsConstant ? c(0) : op(GRAFT_EXPR_LT, c(p.rhsPackedRows() - 1), mm.grid[1]);
  // (A matmul of one row whose rhs is read in place sweeps an f32 lhs row
  // where it is: LoopEmitter, packedMatmulRowSweep.)
  const bool rowInPlace = p.lhsElem == DType::F32 && p.rhsSwept();
  const uint32_t packLhs =
      p.lhsConstant ? c(0)
                    : op(GRAFT_EXPR_MUL, several(mm.grid[0]),
                         rowInPlace ? op(GRAFT_EXPR_LT, c(1), M) : c(1));
  p.prepackedParam = param(draft, packRhs);
  p.prepackedLhsParam = param(draft, packLhs);
  // The call's K block: kcPrepacked where the rhs is packed here (Tiling.cpp),
  // else kc (also wherever a constant was packed when building, with kc).
  const uint32_t kc =
      p.lhsConstant ? c(p.kc)
                    : op(GRAFT_EXPR_ADD, c(p.kc),
                         op(GRAFT_EXPR_MUL, packRhs, c(int64_t(p.kcPrepacked) - p.kc)));
  p.kcParam = param(draft, kc);
  // Rows of [.., K, width]: the rhs's padded columns, then the lhs's padded
  // rows, each only where it is packed here.
  auto padded = [&](uint32_t size, int64_t to) {
    return op(GRAFT_EXPR_MUL, op(GRAFT_EXPR_CEILDIV, size, c(to)), c(to));
  };
  const uint32_t lhsAt = op(GRAFT_EXPR_MUL, padded(N, p.nr()), packRhs);
  const uint32_t width = op(GRAFT_EXPR_ADD, lhsAt, op(GRAFT_EXPR_MUL, padded(M, p.mr), packLhs));
  p.lhsAtParam = param(draft, lhsAt);
  p.widthParam = param(draft, width);
  const uint32_t packedK = op(GRAFT_EXPR_MUL, K, op(GRAFT_EXPR_MAX, packRhs, packLhs));
  std::vector<uint32_t> dims(domain.begin(), domain.begin() + (P - 2));
  // (i8 pairs and quads: a row of the buffer holds two or four of K;
  // AMX's K blocks are whole tiles of kAmxDepth quads, PackedMatmul::kRows.)
  const uint32_t kRows =
      p.amx() ? op(GRAFT_EXPR_MUL,
                   op(GRAFT_EXPR_CEILDIV, packedK, c(int64_t(p.kGroup()) * p.kAmxDepth)),
                   c(p.kAmxDepth))
      : p.kGroup() > 1 ? op(GRAFT_EXPR_CEILDIV, packedK, c(p.kGroup()))
                       : packedK;
  dims.push_back(kRows);
  dims.push_back(width);
  KernelInput packed;
  packed.buffer = addBuffer(GRAFT_BUFFER_TEMP, 0, DType::F32, dims);
  packed.elem = DType::F32;
  for (uint32_t e : dims)
    packed.dimParams.push_back(param(draft, e));

  Dispatch pack = mm; // the same params, sizes and inputs (lhs and rhs among them)
  pack.name = mm.name + "_pack";
  pack.loop.packed.packOnly = true;
  pack.loop.outputs = {KernelOutput{packed.buffer, -1, DType::F32}};
  pack.scratchBytes = 0;
  // x: the K blocks; y: the rhs's column groups, then the lhs's row groups
  // (PackedMatmul::packCols, packRows: a panel or two each, so that the
  // one K block of a K of 1024 still makes enough workgroups for many
  // threads). The K
  // blocks vary fastest (one thread runs the workgroups in x order), so a
  // group's rows are read along their whole length before the next
  // group's: at K = 1024 and kc 184, each lhs row is one page of its own,
  // read in 184-float pieces, and going across it in order rather than
  // coming back to it after every other block took the lhs packing from
  // 0.47 to 0.38 ms (1024 square, one AVX-512 core; the rhs packs at the
  // same speed either way).
  pack.grid[0] = op(GRAFT_EXPR_CEILDIV, packedK, kc);
  pack.grid[1] =
      op(GRAFT_EXPR_ADD, op(GRAFT_EXPR_MUL, op(GRAFT_EXPR_CEILDIV, N, c(p.packCols())), packRhs),
         op(GRAFT_EXPR_MUL, op(GRAFT_EXPR_CEILDIV, M, c(p.packRows())), packLhs));
  pack.grid[2] = mm.grid[2];
  pack.bindings.clear();
  for (const KernelInput &in : pack.loop.inputs)
    pack.bindings.push_back(in.buffer);
  pack.bindings.push_back(packed.buffer);
  addDispatchStep(std::move(pack));

  p.packedInput = static_cast<unsigned>(mm.loop.inputs.size());
  mm.loop.inputs.push_back(std::move(packed));
}

} // namespace graft
