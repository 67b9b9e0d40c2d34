// The rhs of a packed matmul (PackedMatmul in Dispatch.h), packed once per
// call by a dispatch of its own that runs just before the matmul, where
// more than one row of workgroups reads each rhs block: packed inside each
// workgroup, every K block would be packed once per row of workgroups (11
// times per 1024-square matmul on x86-64-v4), read from rows ldb apart each
// time. With one row (64 x 1024 x 1024), each block is packed once either
// way, and packing it into the workgroup's scratch keeps it in cache for
// the microkernel instead of a round trip through a 4 MiB buffer (measured:
// 0.92 ms instead of 1.10 ms per call); the pack dispatch then has no
// workgroups and its buffer no rows.
#include "dispatch/Former.h"

namespace graft {

void Former::packRhsOncePerCall(KernelDraft &draft) {
  Dispatch &mm = draft.d;
  PackedMatmul &p = mm.loop.packed;
  ExprTable &ex = shapes.exprs;
  const std::vector<uint32_t> &domain = draft.domain;
  const unsigned P = mm.loop.numParallel;
  const uint32_t N = domain[P - 1], K = domain[P];
  const uint32_t nr = ex.constant(p.nr());
  const uint32_t npad = ex.binary(GRAFT_EXPR_MUL, ex.binary(GRAFT_EXPR_CEILDIV, N, nr), nr);
  p.npadParam = param(draft, npad);
  // 1 where more than one row of workgroups shares each rhs block, else 0
  // (never negative: an empty matmul has no rows).
  const uint32_t one = ex.constant(1);
  const uint32_t prepacked = ex.binary(
      GRAFT_EXPR_MAX, ex.constant(0),
      ex.binary(GRAFT_EXPR_MIN, one, ex.binary(GRAFT_EXPR_SUB, mm.grid[1], one)));
  p.prepackedParam = param(draft, prepacked);
  const uint32_t packedK = ex.binary(GRAFT_EXPR_MUL, K, prepacked);
  // [outer dims.., K, npad]: K blocks of kc rows (the last one shorter),
  // each a row of nr-column panels, kc x nr floats apiece.
  std::vector<uint32_t> dims(domain.begin(), domain.begin() + (P - 2));
  dims.push_back(packedK);
  dims.push_back(npad);
  KernelInput packed;
  packed.buffer = addBuffer(GRAFT_BUFFER_TEMP, 0, DType::F32, dims);
  packed.elem = DType::F32;
  for (uint32_t e : dims)
    packed.dimParams.push_back(param(draft, e));

  Dispatch pack = mm; // the same params, sizes and inputs (rhs among them)
  pack.name = mm.name + "_pack_rhs";
  pack.loop.packed.packRhsOnly = true;
  pack.loop.outputs = {KernelOutput{packed.buffer, -1, DType::F32}};
  pack.scratchBytes = 0;
  pack.grid[0] = ex.binary(GRAFT_EXPR_CEILDIV, N, ex.constant(p.nc));
  pack.grid[1] = ex.binary(GRAFT_EXPR_CEILDIV, packedK, ex.constant(p.kc));
  pack.grid[2] = mm.grid[2];
  pack.bindings.clear();
  for (const KernelInput &in : pack.loop.inputs)
    pack.bindings.push_back(in.buffer);
  pack.bindings.push_back(packed.buffer);
  addDispatchStep(std::move(pack));

  p.packedRhs = static_cast<unsigned>(mm.loop.inputs.size());
  mm.loop.inputs.push_back(std::move(packed));
}

} // namespace graft
