// A packed matmul operand that is a constant of the graph (a tensor
// literal, an ONNX initializer; usually the rhs: the weights) is read
// already packed: graft packs it when it builds the slice, into the panels
// the per-call packing would make (PackedMatmul in Dispatch.h), and the
// slice carries that packed copy instead of the constant as written.
// Packed per call, the same weights are read from their rows and written
// into panels on every call: for an inference layer of few rows
// (64 x 1024 x 1024) as much memory traffic as the matmul itself.
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
// Narrower operands are packed as the per-call packing writes them too:
// f16 and bf16 widened to f32, i8 ones of an i8 x i8 -> i32 matmul
// (PackedMatmul::pairs) as pairs of rows widened to i16 (or, where the
// level has a dot product of i8 quads, as quads of rows). Their packed
// copy takes twice their bytes, so it does cost the slice as many bytes
// again. It pays where few rows multiply the weights, which the per-call
// path reads in place, widening or pairing them as it goes, for every
// tile (AMD Zen 3, x86-64-v3, 1 thread, 4096 x 4096 weights: i8 with 2 to
// 8 rows about 0.35x the time, f16 0.47-0.60x, one row 0.72-0.77x);
// see tests/bench/README.md.
//
// The packed copy holds exactly the values the per-call packing would
// write, so results are bit-identical to packing per call.
#include "dispatch/Former.h"
#include "ir/FloatBits.h"

#include <cassert>
#include <cstring>
#include <optional>
#include <tuple>

namespace graft {

// The operand |src| packed into panels of |w| along X: [batch, K, X]
// elements (an rhs [.., K, N]), or [batch, X, K] if |xMajor| (an lhs
// [.., M, K], an rhs stored [.., N, K]), becomes [batch, kRows(K), width]
// 4-byte elements with width X rounded up to w: per K block pc of kc rows
// (fewer in the last), the panel of [x, x + w) at kRows(pc) * width + x *
// kRows(kcb), its element (r, x + i) at + r * w + i, zeros past X. An f32
// operand's element r is its row k = r (an f16 or bf16 one's widened to
// f32, exactly); i8 pairs' (p.pairs()) holds rows
// 2r and 2r + 1 of the block widened to i16, the low half first, the
// second zero past an odd block's end; i8 quads' (p.quads()) rows 4r ..
// 4r + 3 as four i8, zeros past the block's end, each with its sign bit
// flipped where |flip| (an rhs for a dot product of u8 x s8:
// FeatureLevel::quadDotUnsigned). With |byRows| (AMX's lhs,
// PackedMatmul::amx), a panel holds per 16 block rows r its w columns' 16
// in turn: element (r, x0 + i) at + ((r / 16) * w + i) * 16 + r % 16. What
// the per-call packing routines write (codegen/PackedMatmul.cpp: pack,
// packRows and their pair forms; codegen/AmxTiles.cpp).
static std::vector<uint8_t> packPanels(const uint8_t *src, DType elem, const PackedMatmul &p,
                                       int64_t batch, int64_t K, int64_t X, bool xMajor,
                                       int64_t w, bool flip, bool byRows) {
  const int64_t width = (X + w - 1) / w * w, kc = p.kc;
  const bool pairs = p.pairs();
  const int64_t kRows = int64_t(p.kRows(uint64_t(K)));
  std::vector<uint8_t> packed(static_cast<size_t>(batch * kRows * width * 4), 0);
  auto at = [&](int64_t b, int64_t k, int64_t x) {
    return b * K * X + (xMajor ? x * K + k : k * X + x);
  };
  // Element (block row r, column x) of the block at row pc of batch b.
  auto element = [&](uint8_t *to, int64_t b, int64_t pc, int64_t kcb, int64_t r, int64_t x) {
    if (elem == DType::F16 || elem == DType::BF16) {
      // (An f16 constant's NaNs are quiet, as graft writes every f16
      // value: floatToHalfBits. Widened, they are the NaNs the per-call
      // widening makes of them.)
      uint16_t h;
      std::memcpy(&h, src + at(b, pc + r, x) * 2, 2);
      const float f = elem == DType::F16 ? halfBitsToFloat(h) : bf16BitsToFloat(h);
      std::memcpy(to, &f, 4);
      return;
    }
    if (!pairs) {
      std::memcpy(to, src + at(b, pc + r, x) * 4, 4);
      return;
    }
    if (p.quads()) {
      for (int64_t h = 0; h < 4 && 4 * r + h < kcb; ++h)
        to[h] = uint8_t(src[at(b, pc + 4 * r + h, x)] ^ (flip ? 0x80 : 0));
      return;
    }
    for (int64_t h = 0; h < 2 && 2 * r + h < kcb; ++h) {
      const uint16_t v = uint16_t(int16_t(int8_t(src[at(b, pc + 2 * r + h, x)])));
      to[2 * h] = uint8_t(v);
      to[2 * h + 1] = uint8_t(v >> 8);
    }
  };
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t pc = 0; pc < K; pc += kc) {
      const int64_t kcb = std::min(kc, K - pc), rows = int64_t(p.kRows(uint64_t(kcb)));
      uint8_t *block = packed.data() + (b * kRows + int64_t(p.kRows(uint64_t(pc)))) * width * 4;
      for (int64_t x0 = 0; x0 < X; x0 += w)
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t x = x0; x < std::min(x0 + w, X); ++x) {
            const int64_t at = byRows ? int64_t(PackedMatmul::amxLhsElement(uint64_t(x - x0),
                                                                            uint64_t(r), uint64_t(w)))
                                      : r * w + (x - x0);
            element(block + (x0 * rows + at) * 4, b, pc, kcb, r, x);
          }
    }
  return packed;
}

bool Former::packConstantOperand(KernelDraft &draft, unsigned input,
                                 bool xMajor, unsigned w) {
  LoopKernel &L = draft.d.loop;
  const PackedMatmul &p = L.packed;
  KernelInput &in = L.inputs[input];
  // The constant, or a reshape of it (an alias: the same bytes).
  uint32_t storage = in.buffer;
  while (prog.buffers[storage].kind == GRAFT_BUFFER_ALIAS)
    storage = prog.buffers[storage].index;
  // f32, f16 or bf16 operands (f32 panels), or i8 ones packed as pairs (a
  // 4-byte element: two i16).
  const DType elem = in.elem;
  const DType packedElem = p.pairs() ? DType::I32 : DType::F32;
  const bool packs = p.pairs() ? elem == DType::I8
                               : elem == DType::F32 || elem == DType::F16 ||
                                     elem == DType::BF16;
  if (prog.buffers[storage].kind != GRAFT_BUFFER_CONST || !packs)
    return false;
  // Only the matmul's product may read the input (inputs are shared by
  // buffer and map, so another load of it would read the packed layout).
  size_t loads = 0;
  for (const ScalarNode &n : L.nodes)
    loads += n.kind == ScalarNode::Kind::Load && n.input == input;
  if (loads != 1)
    return false;
  ExprTable &ex = shapes.exprs;
  std::vector<int64_t> dims;
  for (uint32_t e : prog.buffers[in.buffer].dims) {
    std::optional<int64_t> d = ex.constValue(e);
    if (!d) // (a constant's shape is static, an alias's may not be)
      return false;
    dims.push_back(*d);
  }
  const size_t rank = dims.size();
  assert((rank == L.numParallel || (xMajor && w == p.mr && rank == 2)) &&
         "a packed matmul's operands have the domain's batch dims (the lhs may lack it)");
  const int64_t batch = rank == 3 ? dims[0] : 1;
  const int64_t K = dims[rank - (xMajor ? 1 : 2)];
  const int64_t X = dims[rank - (xMajor ? 2 : 1)];

  // One packed copy per constant and panel form in the function (tied
  // weights read by several matmuls).
  const bool flip = input == p.rhs && p.rhsPackedUnsigned();
  const bool byRows = input == p.lhs && p.amx();
  auto key = std::make_tuple(in.buffer, xMajor, w, p.kc, p.kGroup(), flip, byRows);
  auto it = packedConstants.find(key);
  uint32_t packed;
  if (it != packedConstants.end()) {
    packed = it->second;
  } else {
    std::vector<uint32_t> packedDims;
    if (rank == 3)
      packedDims.push_back(ex.constant(batch));
    packedDims.push_back(ex.constant(int64_t(p.kRows(uint64_t(K)))));
    packedDims.push_back(ex.constant((X + w - 1) / w * w));
    std::vector<uint8_t> data =
        packPanels(prog.buffers[storage].data.data(), elem, p, batch, K, X, xMajor, w, flip, byRows);
    packed = addBuffer(GRAFT_BUFFER_CONST, 0, packedElem, packedDims);
    prog.buffers[packed].data = std::move(data);
    packedConstants[key] = packed;
  }
  // The input is the packed buffer now, addressed in its 4-byte elements
  // (a batch's panels kRows(K) x width of them).
  in.buffer = packed;
  in.elem = packedElem;
  in.dimParams.clear();
  for (uint32_t e : prog.buffers[packed].dims)
    in.dimParams.push_back(param(draft, e));
  return true;
}

void Former::packConstantOperands(KernelDraft &draft) {
  PackedMatmul &p = draft.d.loop.packed;
  // (Not a rows view: its rows are no [K, N] of the constant.)
  p.rhsConstant = !p.rhsRows && packConstantOperand(draft, p.rhs, p.rhsTransposed, p.nr());
  p.lhsConstant = packConstantOperand(draft, p.lhs, true, p.mr);
}

} // namespace graft
