// Loop shape of a LoopKernel, decided after fusion: elementwise flattening,
// where the reduction loops go, register tiles, workgroup tile sizes from the
// target's feature level (vector width and register count), and the
// workgroup grid.
#include "dispatch/Former.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

namespace graft {

// After fusion: flattens pure elementwise kernels, picks tile sizes from
// the target's feature level and computes the grid.
void Former::finishLoop(KB &kb) {
  LoopKernel &L = kb.d.loop;
  ExprTable &ex = shapes.exprs;
  std::vector<uint32_t> domain = kb.domain;
  bool reduction = domain.size() > L.numParallel;
  // An elementwise kernel whose inputs are all read at the output point
  // walks one contiguous index space: one loop, whatever the rank.
  bool flat = !reduction && L.numParallel >= 2;
  for (const KernelInput &in : L.inputs)
    flat &= in.map == identity(L.numParallel);
  if (flat) {
    uint32_t total = ex.constant(1);
    for (uint32_t e : domain)
      total = ex.binary(GRAFT_EXPR_MUL, total, e);
    domain = {total};
    L.numParallel = 1;
    for (KernelInput &in : L.inputs) {
      in.map = {0};
      in.dimParams = {param(kb, total)};
    }
  }
  for (uint32_t e : domain)
    L.domainParams.push_back(param(kb, e));
  if (reduction) {
    // Which loop order reads memory contiguously: the innermost output dim
    // (a row of accumulators, matmul's i-k-j) or a reduced dim (one point
    // at a time, reduction innermost).
    bool rowContiguous = false, reducedContiguous = false;
    for (const KernelInput &in : L.inputs) {
      if (in.map.empty())
        continue;
      int last = in.map.back();
      rowContiguous |= L.numParallel > 0 && last == static_cast<int>(L.numParallel) - 1;
      reducedContiguous |= last >= static_cast<int>(L.numParallel);
    }
    L.innerReduction = L.numParallel == 0 || (reducedContiguous && !rowContiguous);
  }
  // Lanes of the widest element type the kernel touches (1 without a
  // vector unit).
  unsigned maxBytes = static_cast<unsigned>(dtypeSize(reduction ? L.accType : DType::I8));
  for (const KernelInput &in : L.inputs)
    maxBytes = std::max(maxBytes, dtypeSize(in.elem));
  for (const KernelOutput &o : L.outputs)
    maxBytes = std::max(maxBytes, dtypeSize(o.elem));
  unsigned lanes = std::max(1u, level.vectorBits / 8 / std::max(1u, maxBytes));
  // Reductions keep one row of accumulators (tileX) in registers/stack;
  // elementwise tiles are large enough to amortise scheduling.
  L.tileX = reduction ? std::max(16u, lanes * 16) : std::max(256u, lanes * 256);
  L.tileY = reduction ? 8 : 1;
  if (reduction && !L.innerReduction && L.numParallel >= 2) {
    // Half of the level's vector registers hold accumulators, in 4 rows;
    // the other half holds the operands (a broadcast lhs value per row and
    // the rhs vectors). 16 registers (SSE, NEON on ARMv7) give 4 x 2
    // vectors, 32 (AArch64 NEON, RISC-V's scalar FP registers) 4 x 4.
    const unsigned rows = 4;
    L.regRows = rows;
    L.regCols = std::min(16u, std::max(1u, level.vectorRegisters / 2 / rows) * lanes);
  }
  // An input read across its rows (transpose, some broadcasts) gets tall,
  // narrow tiles: each of the tile's 8 input rows is read along 128
  // contiguous elements, and the output rows stay short. Measured on
  // tests/bench transpose: 2048x2048 in 4.3 ms instead of 39 ms.
  // (An input that varies along the innermost output dim through one of
  // its outer dims; a broadcast that does not vary along it is fine.)
  bool strided = false;
  int inner = static_cast<int>(L.numParallel) - 1;
  for (const KernelInput &in : L.inputs)
    for (size_t k = 0; k + 1 < in.map.size(); ++k)
      strided |= L.numParallel >= 2 && in.map[k] == inner;
  if (!reduction && strided) {
    L.tileX = 8;
    L.tileY = 128;
  }
  // Grid: x over the innermost parallel dim, y over the next, z over the
  // product of the rest.
  unsigned P = L.numParallel;
  kb.d.grid[0] = P >= 1 ? ex.binary(GRAFT_EXPR_CEILDIV, domain[P - 1], ex.constant(L.tileX))
                        : ex.constant(1);
  kb.d.grid[1] = P >= 2 ? ex.binary(GRAFT_EXPR_CEILDIV, domain[P - 2], ex.constant(L.tileY))
                        : ex.constant(1);
  uint32_t z = ex.constant(1);
  for (unsigned i = 0; i + 2 < P; ++i)
    z = ex.binary(GRAFT_EXPR_MUL, z, domain[i]);
  kb.d.grid[2] = z;
}

} // namespace graft
