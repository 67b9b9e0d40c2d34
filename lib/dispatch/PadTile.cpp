// `pad` and `tile` as views: an element of the result is an element of the
// input at a computed index, or the pad value, so the consumer's dispatch
// loads it directly (Views.cpp) and nothing is materialised.
//
// Per dim d of the result, with n the input's size and i = c - low:
//   tile      c mod n (the result is empty when n is 0: no read)
//   edge      clamp(i, 0, n - 1)
//   reflect   m = i mod p, p = max(2(n - 1), 1); m when m < n, else p - m
//             (numpy's mirror without repeating the border, any pad size)
//   constant  clamp(i, 0, n - 1), and the pad value where i is outside
//             [0, n); a read where some padded dim may be empty is guarded.
//             The innermost dim reads at i itself, guarded by 0 <= i < n,
//             so that a row's reads are contiguous (vector loads masked at
//             its ends) rather than at clamped, computed addresses.
// The evaluator computes the same elements from the definition instead
// (lib/eval/Evaluator.cpp evalPad, evalTile).
#include "dispatch/Former.h"

namespace graft {

int Former::padOrTileAt(KernelDraft &draft, const Op *op, const std::vector<int> &at) {
  const Value *src = op->operands[0];
  const std::vector<uint32_t> &srcDims = shapes.dimsOf(src);
  ExprTable &ex = shapes.exprs;
  auto c = [&](int64_t x) { return constNode(draft, DType::Index, 0, x); };
  std::vector<int> srcAt;
  if (op->kind == OpKind::Tile) {
    std::vector<int64_t> repeats = op->listAttr("repeats");
    for (size_t d = 0; d < at.size(); ++d)
      srcAt.push_back(repeats[d] == 1 ? at[d]
                                      : indexOp(draft, OpKind::Rem,
                                                {at[d], sizeNode(draft, srcDims[d])}));
    return readAt(draft, src, srcAt);
  }
  std::vector<int64_t> low = op->listAttr("low"), high = op->listAttr("high");
  std::string mode = op->identAttr("mode");
  bool constant = mode.empty() || mode == "constant";
  // The pad value where a coordinate falls outside: (node of i, is it
  // checked below 0, above n - 1).
  struct Outside {
    int i, n;
    bool below, above;
  };
  std::vector<Outside> outside;
  uint32_t emptiest = UINT32_MAX; // min of the padded sizes that may be 0
  // Whether the innermost coordinate is inside the source (-1: not padded).
  int inner = -1;
  // a and b, of two i1 nodes.
  auto both = [&](int a, int b) {
    ScalarNode sel{ScalarNode::Kind::Op, DType::I1};
    sel.op = OpKind::Select;
    sel.operands = {a, b, a};
    return node(draft, sel);
  };
  for (size_t d = 0; d < at.size(); ++d) {
    if (!low[d] && !high[d]) {
      srcAt.push_back(at[d]);
      continue;
    }
    int i = low[d] ? indexOp(draft, OpKind::Sub, {at[d], c(low[d])}) : at[d];
    uint32_t nExpr = srcDims[d];
    int n = sizeNode(draft, nExpr);
    int last = sizeNode(draft, ex.binary(GRAFT_EXPR_SUB, nExpr, ex.constant(1)));
    if (mode == "reflect") {
      uint32_t period = ex.binary(
          GRAFT_EXPR_MAX,
          ex.binary(GRAFT_EXPR_MUL, ex.constant(2), ex.binary(GRAFT_EXPR_SUB, nExpr, ex.constant(1))),
          ex.constant(1));
      int p = sizeNode(draft, period);
      int m = indexOp(draft, OpKind::Rem, {i, p});
      int inside = indexOp(draft, OpKind::Cmp, {m, n}, "lt");
      srcAt.push_back(indexOp(draft, OpKind::Select,
                              {inside, m, indexOp(draft, OpKind::Sub, {p, m})}));
      continue;
    }
    if (constant && d + 1 == at.size()) {
      // The innermost dim: read at i itself where it is inside, guarded,
      // so that the reads along a row stay contiguous (vector loads,
      // masked at the row's padded ends) rather than clamped scalars.
      srcAt.push_back(i);
      inner = indexOp(draft, OpKind::Cmp, {i, c(0)}, "ge");
      inner = both(inner, indexOp(draft, OpKind::Cmp, {i, n}, "lt"));
      continue;
    }
    srcAt.push_back(
        indexOp(draft, OpKind::Min, {indexOp(draft, OpKind::Max, {i, c(0)}), last}));
    if (!constant)
      continue; // edge
    outside.push_back({i, n, low[d] != 0, high[d] != 0});
    std::optional<int64_t> known = ex.constValue(nExpr);
    if (!known || *known == 0)
      emptiest = emptiest == UINT32_MAX ? nExpr : ex.binary(GRAFT_EXPR_MIN, emptiest, nExpr);
  }
  int guard = emptiest == UINT32_MAX
                  ? -1
                  : indexOp(draft, OpKind::Cmp, {sizeNode(draft, emptiest), c(0)}, "gt");
  if (inner >= 0)
    guard = guard < 0 ? inner : both(guard, inner);
  int value = readAt(draft, src, srcAt, false, guard);
  if (!constant)
    return value;
  int padValue = outerScalar(draft, op->operands[1]);
  DType elem = op->result()->type.elem;
  auto select = [&](int cond, int a, int b) {
    ScalarNode sel{ScalarNode::Kind::Op, elem};
    sel.op = OpKind::Select;
    sel.operands = {cond, a, b};
    return node(draft, sel);
  };
  if (inner >= 0)
    value = select(inner, value, padValue);
  for (const Outside &o : outside) {
    if (o.above)
      value = select(indexOp(draft, OpKind::Cmp, {o.i, o.n}, "lt"), value, padValue);
    if (o.below)
      value = select(indexOp(draft, OpKind::Cmp, {o.i, c(0)}, "ge"), value, padValue);
  }
  return value;
}

} // namespace graft
