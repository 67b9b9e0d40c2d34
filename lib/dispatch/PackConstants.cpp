// A packed matmul whose rhs is a constant of the graph (a tensor literal,
// an ONNX initializer) reads it already packed: graft packs it when it
// builds the slice, into the panels the per-call packing would make
// (PackedMatmul in Dispatch.h), and the slice carries that packed copy
// instead of the constant as written. Packed per call, the same weights
// are read from their rows and written into panels on every call: for an
// inference layer of few rows (64 x 1024 x 1024) as much memory traffic as
// the matmul itself.
//
// Why when building, not when the module is loaded or first called: the
// slice already holds one copy of the constant per ISA variant (every
// variant is a fresh lowering with its own constants), so a packed copy in
// its place costs no bytes where the matmul is the constant's only reader
// (Former::emptyUnusedConstants drops the copy as written); the layout
// differs per level (nr = lanes * 2, kc), which each variant's own
// lowering knows; and the runtime needs no new buffer or step kind, no
// memory beside the mapped slice and no first-call synchronisation (two
// threads calling one module only read it). A constant that other ops also
// read keeps its copy as written beside the packed one.
//
// The packed copy holds exactly the floats the per-call packing would
// write, so results are bit-identical to packing per call.
#include "dispatch/Former.h"

#include <cassert>
#include <cstring>
#include <optional>

namespace graft {

// The rhs |src| ([batch, K, N] floats, or [batch, N, K] if |transposed|)
// packed as [batch, K, width]: per K block pc of kc rows (fewer in the
// last), the panel of columns [j, j + nr) at pc * width + j * kcb, its row k
// at + k * nr, zeros past N; width is N rounded up to nr.
static std::vector<uint8_t> packRhsPanels(const uint8_t *src, int64_t batch, int64_t K, int64_t N,
                                          bool transposed, int64_t kc, int64_t nr) {
  const int64_t width = (N + nr - 1) / nr * nr;
  std::vector<float> packed(static_cast<size_t>(batch * K * width), 0.0f);
  auto at = [&](int64_t b, int64_t k, int64_t n) {
    float f;
    int64_t i = b * K * N + (transposed ? n * K + k : k * N + n);
    std::memcpy(&f, src + i * 4, 4);
    return f;
  };
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t pc = 0; pc < K; pc += kc) {
      const int64_t kcb = std::min(kc, K - pc);
      float *block = packed.data() + b * K * width + pc * width;
      for (int64_t j = 0; j < N; j += nr)
        for (int64_t k = 0; k < kcb; ++k)
          for (int64_t n = j; n < std::min(j + nr, N); ++n)
            block[j * kcb + k * nr + (n - j)] = at(b, pc + k, n);
    }
  std::vector<uint8_t> bytes(packed.size() * 4);
  std::memcpy(bytes.data(), packed.data(), bytes.size());
  return bytes;
}

bool Former::packConstantRhs(KernelDraft &draft) {
  LoopKernel &L = draft.d.loop;
  PackedMatmul &p = L.packed;
  KernelInput &rhs = L.inputs[p.rhs];
  // The constant, or a reshape of it (an alias: the same bytes).
  const BufferDesc &source = prog.buffers[rhs.buffer];
  uint32_t storage = rhs.buffer;
  while (prog.buffers[storage].kind == GRAFT_BUFFER_ALIAS)
    storage = prog.buffers[storage].index;
  if (prog.buffers[storage].kind != GRAFT_BUFFER_CONST || source.dtype != DType::F32)
    return false;
  // Only the matmul's product may read the input (inputs are shared by
  // buffer and map, so another load of it would read the packed layout).
  size_t loads = 0;
  for (const ScalarNode &n : L.nodes)
    loads += n.kind == ScalarNode::Kind::Load && n.input == p.rhs;
  if (loads != 1)
    return false;
  ExprTable &ex = shapes.exprs;
  std::vector<int64_t> dims;
  for (uint32_t e : source.dims) {
    std::optional<int64_t> d = ex.constValue(e);
    if (!d) // (a constant's shape is static, an alias's may not be)
      return false;
    dims.push_back(*d);
  }
  const size_t rank = dims.size();
  assert(rank == L.numParallel && "a packed matmul's rhs has the domain's batch dims");
  const int64_t batch = rank == 3 ? dims[0] : 1;
  const int64_t K = dims[rank - (p.rhsTransposed ? 1 : 2)];
  const int64_t N = dims[rank - (p.rhsTransposed ? 2 : 1)];
  const int64_t width = (N + p.nr() - 1) / p.nr() * p.nr();

  // One packed copy per constant and orientation in the function (tied
  // weights read by several matmuls).
  auto key = std::make_pair(rhs.buffer, p.rhsTransposed);
  auto it = packedConstants.find(key);
  uint32_t packed;
  if (it != packedConstants.end()) {
    packed = it->second;
  } else {
    std::vector<uint32_t> packedDims;
    if (rank == 3)
      packedDims.push_back(ex.constant(batch));
    packedDims.push_back(ex.constant(K));
    packedDims.push_back(ex.constant(width));
    std::vector<uint8_t> data = packRhsPanels(prog.buffers[storage].data.data(), batch, K, N, p.rhsTransposed,
                                              p.kc, p.nr());
    packed = addBuffer(GRAFT_BUFFER_CONST, 0, DType::F32, packedDims);
    prog.buffers[packed].data = std::move(data);
    packedConstants[key] = packed;
  }
  rhs.buffer = packed;
  rhs.dimParams.clear();
  for (uint32_t e : prog.buffers[packed].dims)
    rhs.dimParams.push_back(param(draft, e));
  p.rhsConstant = true;
  return true;
}

} // namespace graft
