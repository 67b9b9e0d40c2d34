// Values that are never materialised: broadcasts, gathers, slices, concats
// and transposes read through a composed index map, iotas computed from the
// index, and row reductions computed by the dispatch
// that consumes them.
//
// LayerNorm and softmax broadcast a row statistic back over the row and use
// it in a map. Written out, every broadcast is a full-size buffer written
// once and read once, and every statistic a dispatch of its own. Instead:
//   - A broadcast, gather, slice, iota or concat whose users are all maps or
//     reductions (or, but for a gather, concats that hold it with a static
//     size: concatOperand, or broadcasts that are such views:
//     broadcastOperand) is a *view*: its consumers load its operand at their point
//     through the op's index map, or compute the iota from their index
//     (LoopKernels.cpp, loadNode and viewAt). So is a transpose whose users
//     are all matmuls reading it as their rhs (attention's q @ k^T): the
//     packed matmul packs its rhs from either layout. So is a concat of
//     runs of one source read as a matmul's rhs rows (rowsOf: a stride-1
//     conv's), which the packed matmul reads where they lie.
//   - A reduction over the innermost dim whose every use is such a view
//     broadcasting it back along that dim into maps is a *row statistic*:
//     the dispatch of each consuming map computes it once per row, before
//     the row's points (ScalarNode::Kind::RowReduce), over the values it reads,
//     which may be computed in the same dispatch (a map fused there, or
//     another row statistic). A whole softmax is then one dispatch that
//     reads its row three times from cache and writes it once.
// Each row is computed by one workgroup in index order, so results do not
// depend on the thread count; the order inside a row is the reassociation
// that docs/graph-format.md allows for reductions.
#include "dispatch/Former.h"

#include <algorithm>
#include <limits>

namespace graft {

bool Former::isView(const Op *op) {
  bool movesData = op->kind == OpKind::Broadcast || op->kind == OpKind::Gather ||
                   op->kind == OpKind::Slice || op->kind == OpKind::Iota ||
                   op->kind == OpKind::Concat || op->kind == OpKind::Pad ||
                   op->kind == OpKind::Tile;
  if ((!movesData && op->kind != OpKind::Transpose) || returned.count(op->result()))
    return false;
  const std::vector<Op *> &users = uses.users(op->result());
  if (users.empty())
    return false;
  for (const Op *u : users) {
    // A matrix broadcast over the batch as a batch matmul's lhs (a conv's
    // weights over the images, Windows.cpp): the packed matmul reads one
    // [M, K] for every batch, and packs it once where it is a constant.
    bool sharedLhs = op->kind == OpKind::Broadcast && u->kind == OpKind::BatchMatmul &&
                     u->operands[0] == op->result() && u->operands[1] != op->result() &&
                     u->operands[2] != op->result() &&
                     op->listAttr("dims") == std::vector<int64_t>{1, 2};
    if (movesData && u->kind != OpKind::Map && u->kind != OpKind::Reduce && !sharedLhs &&
        !concatOperand(op, u) && !broadcastOperand(op, u) && !rowsOf(op))
      return false;
    // A transpose only as a matmul's rhs: the packed matmul packs its rhs
    // from either layout at the same cost, while a map reading it across
    // rows would be as slow as the copy.
    bool rhs = (u->kind == OpKind::Matmul || u->kind == OpKind::BatchMatmul) &&
               u->operands[1] == op->result() && u->operands[0] != op->result() &&
               u->operands[2] != op->result();
    if (op->kind == OpKind::Transpose && !rhs)
      return false;
  }
  return true;
}

// A concat of runs of one source as the rows of a matmul's rhs (a
// stride-1 conv's, Windows.cpp rowsConv): [.., C, W, L'] of W slices of
// [.., C, 1, L] along the last dim only (step 1, each a view: a slice's
// only user is the concat), concatenated along dim 2, whose one user is
// a reshape to [.., C * W, L'] that matmuls read only as their rhs. The
// packed matmul reads the rows where they lie (KernelInput::rowStarts).
// |op| itself, or null.
const Op *Former::rowsOf(const Op *op) {
  if (op->kind != OpKind::Concat || op->intAttr("axis") != 2 || op->result()->type.rank() != 4 ||
      op->result()->type.elem != DType::F32 || returned.count(op->result()))
    return nullptr;
  const Value *src = nullptr;
  for (const Value *v : op->operands) {
    const Op *s = v->def;
    if (!s || s->kind != OpKind::Slice || (src && s->operands[0] != src) ||
        uses.users(v).size() != 1 || returned.count(v))
      return nullptr;
    src = s->operands[0];
    std::vector<int64_t> starts = s->listAttr("starts"), ends = s->listAttr("ends"),
                         steps = s->listAttr("steps");
    for (size_t d = 0; d < 4; ++d) {
      if (!steps.empty() && steps[d] != 1)
        return nullptr;
      if (d < 3 && (starts[d] != 0 || ends[d] != std::numeric_limits<int64_t>::max()))
        return nullptr;
    }
  }
  if (!src || src->type.rank() != 4 || src->type.dims[2] != 1)
    return nullptr;
  const std::vector<Op *> &users = uses.users(op->result());
  if (users.size() != 1 || users[0]->kind != OpKind::Reshape || returned.count(users[0]->result()))
    return nullptr;
  const Value *r = users[0]->result();
  const std::vector<int64_t> &rd = r->type.dims, &cd = op->result()->type.dims;
  // [.., C * W, L'] (the batch dim kept, the same size when the graph runs:
  // the source's, which the slices take whole; or dropped where it is 1):
  // with C * W known, the element count the reshape keeps makes L' the
  // same too.
  bool merged = rd.size() == 3 ? shapes.dimsOf(r)[0] == shapes.dimsOf(src)[0]
                               : rd.size() == 2 && cd[0] == 1;
  if (!merged || cd[1] == kDynamic || cd[2] == kDynamic || rd[rd.size() - 2] != cd[1] * cd[2])
    return nullptr;
  const std::vector<Op *> &readers = uses.users(r);
  if (readers.empty())
    return nullptr;
  for (const Op *m : readers)
    if ((m->kind != OpKind::Matmul && m->kind != OpKind::BatchMatmul) || m->operands[1] != r ||
        m->operands[0] == r || m->operands[2] == r)
      return nullptr;
  return op;
}

// A slice, pad, tile, broadcast, iota or concat read by concat |u| whose
// dispatch (or whose own consumers, where it is a view too) reads it at
// the point shifted along the axis (LoopKernels.cpp, readAt): a conv's
// window slices of its padded input become the one dispatch that writes
// its columns, which reads one operand a row (LoopEmitter's rowCases).
// Not where the operand may be empty along the axis (the concat guards
// such a read) nor for a gather (its checked index would be read at every
// point of the concat, not only its own).
bool Former::concatOperand(const Op *op, const Op *u) {
  if (u->kind != OpKind::Concat || op->kind == OpKind::Gather)
    return false;
  size_t axis = static_cast<size_t>(u->intAttr("axis"));
  std::optional<int64_t> n = shapes.exprs.constValue(shapes.dimsOf(op->result())[axis]);
  return n && *n > 0;
}

// A slice, pad, tile, iota or concat broadcast by |u|, a broadcast that
// only maps and reductions read (a view, which reads its operand through
// the composed map: LoopKernels.cpp, loadNode): a depthwise conv's weights
// of one window position, a strided slice of them all. Not a gather: its
// checked index would be read only where the broadcast is (nowhere where
// the broadcast is empty, so a bad index would go unreported), and at
// every point of it.
bool Former::broadcastOperand(const Op *op, const Op *u) {
  if (u->kind != OpKind::Broadcast || op->kind == OpKind::Gather ||
      u->operands[0] != op->result() || returned.count(u->result()))
    return false;
  const std::vector<Op *> &users = uses.users(u->result());
  return !users.empty() && std::all_of(users.begin(), users.end(), [](const Op *m) {
    return m->kind == OpKind::Map || m->kind == OpKind::Reduce;
  });
}

bool Former::isRowStat(const Op *op) {
  if (op->kind != OpKind::Reduce || returned.count(op->result()))
    return false;
  const Value *in = op->operands[0];
  unsigned rank = in->type.rank();
  std::vector<int64_t> dims = op->listAttr("dims");
  if (rank < 2 || dims != std::vector<int64_t>{int64_t(rank) - 1})
    return false;
  const std::vector<Op *> &users = uses.users(op->result());
  if (users.empty())
    return false;
  std::vector<int64_t> rows;
  for (unsigned i = 0; i + 1 < rank; ++i)
    rows.push_back(i);
  for (const Op *b : users) {
    if (b->kind != OpKind::Broadcast || b->operands[0] != op->result() || !isView(b) ||
        b->listAttr("dims") != rows || shapes.dimsOf(b->result()) != shapes.dimsOf(in))
      return false;
    for (const Op *m : uses.users(b->result()))
      if (m->kind != OpKind::Map)
        return false;
  }
  return true;
}

// A map whose one user is a reduction of it that starts a group of its
// own (not a row statistic, which its consumers compute): the reduction
// evaluates the map's body where it reads each element (loadNode), so the
// map's result is never written out: a column sum of i8 widened to i32
// (MatMulInteger's zero-point terms) reads the i8 once instead of writing
// and reading back four bytes an element. Only where every operand has
// the map's rank (a map's broadcasts are explicit by now, and views) and
// none is a row statistic, which is read only at its own row; a small
// body, as a fused map's. Dims that the graph equates only at run time
// (two ?x? arguments) are fine: the map's shape checks are the function's
// (ShapeInfo::checks, run before any step), not its dispatch's.
bool Former::isReducedMap(const Op *op) {
  if (op->kind != OpKind::Map || op->results.size() != 1 || returned.count(op->result()) ||
      !op->region || op->region->ops.size() > kMaxFusedScalarOps)
    return false;
  const std::vector<Op *> &users = uses.users(op->result());
  // (Both ops of one kernel call's fallback, or of none: the reduction's
  // dispatch carries the guard.)
  if (users.size() != 1 || users[0]->kind != OpKind::Reduce ||
      users[0]->operands[0] != op->result() || isRowStat(users[0]) ||
      users[0]->fallbackFor != op->fallbackFor)
    return false;
  const std::vector<uint32_t> &dims = shapes.dimsOf(op->result());
  for (const Value *o : op->operands) {
    if (!o->type.tensor || shapes.dimsOf(o).size() != dims.size())
      return false;
    // (A row statistic, or one broadcast over its rows.)
    const Op *d = o->def;
    if (d && d->kind == OpKind::Broadcast && d->operands[0]->def)
      d = d->operands[0]->def;
    if (d && d->kind == OpKind::Reduce && (rowStats.count(d) || isRowStat(d)))
      return false;
  }
  return true;
}

bool Former::consumedOnlyIn(const Value *v, int g) {
  if (returned.count(v))
    return false;
  for (const Op *u : uses.users(v)) {
    if (inGroup(u, g))
      continue;
    // A dim reads the shape, which the host program knows from the sizes
    // (ShapeInfo), not the data: a map's numpy-style broadcast of a bias
    // (`dim %r` for its size, MapOperands.cpp; ONNX's MatMul + Add and
    // Gemm) does not keep the matmul's result as an output of its own.
    if (u->kind == OpKind::Dim)
      continue;
    bool inline_ = u->result() && (views.count(u->result()) || rowStats.count(u));
    if (!inline_ || !consumedOnlyIn(u->result(), g))
      return false;
  }
  return true;
}

bool Former::pointwiseGroup(int g) {
  switch (groups[g].front()->kind) {
  case OpKind::Map: case OpKind::Fill: case OpKind::Broadcast: case OpKind::Transpose:
  case OpKind::Gather: case OpKind::Slice: case OpKind::Iota: case OpKind::Concat:
  case OpKind::Pad: case OpKind::Tile:
    return true;
  default:
    return false;
  }
}

} // namespace graft
