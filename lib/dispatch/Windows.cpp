// `conv` and `pool` become ops graft already compiles well, before shape
// analysis (see Dispatch.h), so they fuse, tile and vectorize like the rest:
//
// - the input is padded by one constant-mode `pad` (0 for conv and avg,
//   the type's lowest value for max) over the spatial dims;
// - every window position k is one strided `slice` of the padded input,
//   [N, C, O...]: the window's element k at every output point;
// - conv (im2col): the slices of each image, [N, C, 1, O...] slices of
//   the padded input as [N, C, 1, spatial...], concatenated along dim 2
//   are its columns [N, C, K, P] (K window positions, P output points per
//   image; one dispatch, the slices views the concat reads); as
//   [N * g, C/g * K, P] they
//   are the rhs of one batch matmul per image and group, with the weights
//   [g, F/g, C/g * K] as lhs (with one group, a broadcast over the images
//   that the packed matmul reads as one matrix, Views.cpp; with several, a
//   broadcast written out), whose result
//   [N * g, F/g, P] is [N, F, O...] as it lies in memory: nothing is
//   transposed. The packed matmul then does the work at matmul speed. The
//   k order of the matmul (channel, then window position) is the one the
//   evaluator sums in;
// - a grouped conv of few filters per group (depthwise: one channel and
//   one filter per group; ResNeXt's first stage: 4 and 4): no columns,
//   one `map` over, per channel of a group and window position, that
//   slice of every group broadcast over the group's filters, and their
//   weights broadcast over the images and output points (all views);
// - pool: one `map` over the slices (read as views, never materialised)
//   folds max, or sums and divides; a count of the window's elements inside
//   the input (avg without count_include_pad) is the same sum over slices of
//   a padded i32 tensor of ones.
//
// The op itself becomes the last op of its expansion, so its result value
// and every use of it stay as they are.
#include "dispatch/Dispatch.h"
#include "dispatch/Former.h"
#include "dispatch/OpBuilder.h"
#include "ir/Window.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <limits>

namespace graft {

namespace {

constexpr int64_t kToEnd = std::numeric_limits<int64_t>::max();

// Grouped convs of at most this many filters per group are one map
// (Expander::grouped), the others a batch matmul over their columns: each
// term of the map is a multiply-add per output point, the matmul's far
// cheaper, but after writing the columns out (C/g * K values per point
// and group) and reading them back. 3x3 convs on AMD Zen 3 (x86-64-v3),
// 1 / 2 threads, the map against the columns and batch matmul: 4 channels
// and 4 filters per group (ResNeXt: 1 x 128 x 56 x 56, 32 groups) 0.42x /
// 0.37x the time, (1 x 256 x 28 x 28, 64 groups) 0.61x / 0.55x; 16 and 4
// 0.96x / 0.73x (a map of 144 terms, more than a fused body holds: the
// matmul); 2 and 2 0.39x / 0.34x; a channel multiplier of 4 (1 and
// 4) 0.36x / 0.31x; 4 and 1 0.26x / 0.27x; but 8 and 8 1.5x / 1.2x, 16 and
// 16 2.9x / 3.0x slower.
constexpr int64_t kMapFiltersPerGroup = 4;

// How much longer than its output rows a stride-1 conv's padded rows may
// be for it to be one matmul over them (Expander::rowsConv), which
// computes the points past each output row and drops them, rather than
// over its columns. 3x3 convs with padding 1 on AMD Zen 3 (x86-64-v3),
// 1 / 2 threads, rows against columns: 64 -> 64 channels at 56 x 56 (rows
// of 58 for 56 points, 1.036) 0.78x / 0.87x the time, 4 images 0.80x /
// 0.82x; 128 at 28 x 28 (1.071) 0.98x / 0.98x; 256 at 14 x 14 (1.143)
// 1.20x / 1.18x; 512 at 7 x 7 (1.286) 1.13x / 1.09x. A 7x7 window over 3
// channels of 224 x 224 (1.028) 0.58x / 0.59x.
constexpr double kRowsWaste = 1.08;

// A dim size: static (|value| null) or an `index` value computed at run time.
struct Size {
  int64_t n = kDynamic;
  Value *value = nullptr;
};

class Expander {
public:
  Expander(Function &fn, Op &op) : op_(op), b_(fn, op.loc) {}

  void conv();
  void pool();
  // A grouped conv of at most kMapFiltersPerGroup filters per group.
  void grouped(Value *x, Value *wt, const Window &w, const std::vector<int64_t> &outDims,
               int64_t groups);
  std::vector<Op *> &ops() { return b_.ops; }

private:
  Value *intConstant(DType t, int64_t i) { return b_.intConstant(t, i); }
  Value *floatConstant(DType t, double f) { return b_.floatConstant(t, f); }
  // The identity a padded element contributes: 0, or the lowest value for max.
  Value *padValue(DType t, bool lowest) {
    if (!lowest)
      return isFloat(t) ? floatConstant(t, 0.0) : intConstant(t, 0);
    if (isFloat(t))
      return floatConstant(t, -std::numeric_limits<double>::infinity());
    return intConstant(t, dtypeSize(t) == 8
                              ? std::numeric_limits<int64_t>::min()
                              : -(int64_t(1) << (dtypeSize(t) * 8 - 1)));
  }

  Size dimOf(Value *t, size_t axis) {
    int64_t n = t->type.dims[axis];
    if (n != kDynamic)
      return Size{n, nullptr};
    return Size{kDynamic,
                b_.add(OpKind::Dim, {t}, Type::scalar(DType::Index),
                       {OpBuilder::attr("axis", static_cast<int64_t>(axis))})};
  }
  Value *indexValue(const Size &s) {
    return s.value ? s.value : intConstant(DType::Index, s.n);
  }
  Size mul(const Size &a, const Size &b) { return arith(OpKind::Mul, a, b); }
  // a op b (Add, Sub, Mul, Max, Min) on sizes: folded where both are static.
  Size arith(OpKind k, const Size &a, const Size &b) {
    if (!a.value && !b.value) {
      switch (k) {
      case OpKind::Add: return Size{a.n + b.n};
      case OpKind::Sub: return Size{a.n - b.n};
      case OpKind::Mul: return Size{a.n * b.n};
      case OpKind::Max: return Size{std::max(a.n, b.n)};
      default: return Size{std::min(a.n, b.n)};
      }
    }
    return Size{kDynamic, b_.add(k, {indexValue(a), indexValue(b)}, Type::scalar(DType::Index))};
  }
  // |op| to a result of |sizes|: its type, and the index operands of its '?'s.
  Value *sized(OpKind op, DType elem, std::vector<Value *> operands,
               const std::vector<Size> &sizes,
               std::vector<NamedAttr> attrs = {}) {
    std::vector<int64_t> dims;
    for (const Size &s : sizes) {
      dims.push_back(s.value ? kDynamic : s.n);
      if (s.value)
        operands.push_back(s.value);
    }
    return b_.add(op, std::move(operands), Type::tensorOf(elem, dims),
                  std::move(attrs));
  }
  Value *reshape(Value *t, const std::vector<Size> &sizes) {
    return sized(OpKind::Reshape, t->type.elem, {t}, sizes);
  }
  // |t| broadcast over |batch| images: [N, t's dims...].
  Value *overImages(Value *t, const Size &batch) {
    std::vector<Value *> operands = {t};
    if (batch.value)
      operands.push_back(batch.value);
    std::vector<int64_t> dims = {batch.n}, from;
    for (size_t i = 0; i < t->type.rank(); ++i) {
      dims.push_back(t->type.dims[i]);
      from.push_back(static_cast<int64_t>(i + 1));
    }
    return b_.add(OpKind::Broadcast, operands, Type::tensorOf(t->type.elem, dims),
                  {OpBuilder::attr("dims", from)});
  }
  Value *filled(Value *v, const std::vector<Size> &sizes) {
    Value *empty = sized(OpKind::Empty, v->type.elem, {}, sizes);
    return b_.add(OpKind::Fill, {v, empty}, empty->type);
  }

  // |x| with |w|'s padding along every spatial dim, the pads reading |pad|
  // (|extraRows| more at the end of the first).
  Value *padded(Value *x, const Window &w, Value *pad, int64_t extraRows = 0);
  // The weights times |cols|, C/g * K (|depth|) rows of P points for each
  // of the |pairs| images and groups: [N * g, F/g, P], or [F/g, P] for one.
  Value *groupMatmul(Value *wt, Value *cols, const Size &batch, const Size &pairs,
                     int64_t groups, int64_t depth, const Size &points);
  // A conv of stride 1 as one matmul over rows of the padded input.
  void rowsConv(Value *x, Value *wt, const Window &w, int64_t groups, int64_t window);
  // Whether rowsConv is the conv's lowering: f32 (the packed matmul reads
  // its rhs as rows), stride 1, a window of more than one element, and
  // output rows at most kRowsWaste times as long with the padding
  // (the points rowsConv computes and drops), which only sizes known
  // when building can tell (a 1-D conv has no such points).
  bool rowsPay(Value *x, const Window &w, int64_t window) {
    if (x->type.elem != DType::F32 || window < 2)
      return false;
    double grid = 1, out = 1;
    for (size_t d = 0; d < w.rank(); ++d) {
      if (w.strides[d] != 1)
        return false;
      if (d == 0)
        continue;
      int64_t in = x->type.dims[d + 2];
      if (in == kDynamic)
        return false;
      int64_t points = w.outputSize(d, in);
      if (points == 0)
        return false;
      grid *= double(in + w.padsBegin[d] + w.padsEnd[d]);
      out *= double(points);
    }
    return grid <= kRowsWaste * out;
  }
  // The window's element |k| at every output point: [N, C, O...], or
  // [N, C, 1, O...] from |xp| of [N, C, 1, spatial...] (|lead| 3: the
  // dims before the spatial ones, taken whole).
  // |every| > 1: of the last lead dim, from index |first|, every |every|th
  // (its size then that dim's divided by |every|: a channel of each group).
  Value *windowSlice(Value *xp, const Window &w, const std::vector<int64_t> &k,
                     const std::vector<int64_t> &outDims, size_t lead, int64_t first = 0,
                     int64_t every = 1);
  // One slice per window position, row-major.
  std::vector<Value *> windowSlices(Value *xp, const Window &w,
                                    const std::vector<int64_t> &outDims, size_t lead = 2,
                                    int64_t first = 0, int64_t every = 1);
  // map over |operands| (one shape, |shape|'s type) with a body built by |body|
  // from the block arguments.
  using BodyFn = std::function<Value *(std::vector<Value *> &)>;
  Value *map(const std::vector<Value *> &operands, const Type &type,
             const BodyFn &body);
  Value *bodyOp(OpKind kind, DType t, std::vector<Value *> operands) {
    return b_.bodyOp(kind, t, std::move(operands));
  }
  // Folds |args| from the first with |kind|.
  Value *fold(OpKind kind, DType t, std::vector<Value *> args, size_t count) {
    Value *acc = args[0];
    for (size_t i = 1; i < count; ++i)
      acc = bodyOp(kind, t, {acc, args[i]});
    return acc;
  }
  // The output size along spatial dim |d| of |w| over |x|
  // (Window::outputSize), computed when the graph runs where |x|'s size is
  // '?': max(0, (in + pads - span + stride) / stride).
  Size outputSize(Value *x, const Window &w, size_t d) {
    if (x->type.dims[d + 2] != kDynamic)
      return Size{w.outputSize(d, x->type.dims[d + 2])};
    Size room = arith(OpKind::Add, dimOf(x, d + 2),
                      Size{w.padsBegin[d] + w.padsEnd[d] + w.strides[d] - w.span(d)});
    Type index = Type::scalar(DType::Index);
    Value *n = b_.add(OpKind::Div, {indexValue(room), intConstant(DType::Index, w.strides[d])}, index);
    return arith(OpKind::Max, Size{0}, Size{kDynamic, n});
  }
  // The output sizes [O...] as declared where static, else computed.
  std::vector<int64_t> outputDims(const Window &w, const Type &in) {
    std::vector<int64_t> dims;
    for (size_t d = 0; d < w.rank(); ++d)
      dims.push_back(in.dims[d + 2] == kDynamic
                         ? kDynamic
                         : w.outputSize(d, in.dims[d + 2]));
    return dims;
  }
  // Makes |op_| the op that defines |last| (dropping |last|'s own op), so
  // the result value of the conv or pool stays what its users read.
  void becomeLast(Value *last) {
    Op *def = last->def;
    assert(!b_.ops.empty() && b_.ops.back() == def &&
           "the last op of an expansion");
    b_.ops.pop_back();
    op_.kind = def->kind;
    op_.operands = def->operands;
    op_.attrs = def->attrs;
    op_.region = std::move(def->region);
  }

  Op &op_;
  OpBuilder b_; // its ops: the expansion, in program order, before op_
};

// One constant-mode `pad` over the spatial dims (a no-op without padding).
Value *Expander::padded(Value *x, const Window &w, Value *pad, int64_t extraRows) {
  std::vector<int64_t> low(2, 0), high(2, 0), dims = x->type.dims;
  bool any = false;
  for (size_t d = 0; d < w.rank(); ++d) {
    int64_t end = w.padsEnd[d] + (d == 0 ? extraRows : 0);
    low.push_back(w.padsBegin[d]);
    high.push_back(end);
    any = any || w.padsBegin[d] || end;
    if (dims[d + 2] != kDynamic)
      dims[d + 2] += w.padsBegin[d] + end;
  }
  if (!any)
    return x;
  return b_.add(OpKind::Pad, {x, pad}, Type::tensorOf(x->type.elem, dims),
                {OpBuilder::attr("low", low), OpBuilder::attr("high", high)});
}

// Along spatial dim d: from k*dilation, every stride, up to where the last
// window position still fits (an end counted from the back, so that the
// count is right for run-time sizes too).
Value *Expander::windowSlice(Value *xp, const Window &w,
                             const std::vector<int64_t> &k,
                             const std::vector<int64_t> &outDims, size_t lead,
                             int64_t first, int64_t every) {
  std::vector<int64_t> starts(lead, 0), ends(lead, kToEnd), steps(lead, 1);
  bool identity = every == 1;
  starts.back() = first;
  steps.back() = every;
  for (size_t d = 0; d < w.rank(); ++d) {
    int64_t start = k[d] * w.dilations[d],
            back = w.dilations[d] * (w.size[d] - 1 - k[d]);
    starts.push_back(start);
    ends.push_back(back == 0 ? kToEnd : -back);
    steps.push_back(w.strides[d]);
    identity = identity && start == 0 && back == 0 && w.strides[d] == 1;
  }
  if (identity)
    return xp;
  std::vector<int64_t> dims(xp->type.dims.begin(), xp->type.dims.begin() + lead);
  if (every != 1)
    dims.back() /= every;
  dims.insert(dims.end(), outDims.begin(), outDims.end());
  return b_.add(OpKind::Slice, {xp}, Type::tensorOf(xp->type.elem, dims),
                {OpBuilder::attr("starts", starts),
                 OpBuilder::attr("ends", ends),
                 OpBuilder::attr("steps", steps)});
}

std::vector<Value *>
Expander::windowSlices(Value *xp, const Window &w,
                       const std::vector<int64_t> &outDims, size_t lead,
                       int64_t first, int64_t every) {
  std::vector<Value *> slices;
  std::vector<int64_t> k(w.rank(), 0);
  for (;;) {
    slices.push_back(windowSlice(xp, w, k, outDims, lead, first, every));
    size_t d = w.rank();
    while (d-- > 0 && ++k[d] == w.size[d])
      k[d] = 0;
    if (d == size_t(-1))
      return slices;
  }
}

Value *Expander::map(const std::vector<Value *> &operands, const Type &type,
                     const BodyFn &body) {
  Value *result = b_.map(operands, type);
  b_.yield(body(b_.body->args));
  return result;
}

void Expander::conv() {
  Value *x = op_.operands[0], *wt = op_.operands[1];
  DType elem = x->type.elem;
  const std::vector<int64_t> &wd = wt->type.dims;
  Window w = Window::of(op_, std::vector<int64_t>(wd.begin() + 2, wd.end()));
  int64_t groups = op_.intAttr("group", 1), channels = x->type.dims[1],
          filters = wd[0];
  int64_t window = 1;
  for (int64_t s : w.size)
    window *= s;
  std::vector<int64_t> outDims = outputDims(w, x->type);
  // (Several channels a group: a map of at most as many multiply-adds as
  // a fused dispatch's body holds, Formation.cpp. A result of at most the
  // rank a buffer has.)
  const int64_t perGroup = groups > 0 ? channels / groups : 0,
                fgMap = groups > 0 ? filters / groups : 0;
  if ((groups > 1 || channels == 1) && perGroup >= 1 && fgMap >= 1 &&
      fgMap <= kMapFiltersPerGroup &&
      (perGroup == 1 || size_t(perGroup * window) * 2 <= kMaxFusedScalarOps) &&
      w.rank() + (fgMap > 1 ? 3 : 2) <= GRAFT_MAX_RANK) {
    grouped(x, wt, w, outDims, groups);
    return;
  }

  if (rowsPay(x, w, window)) {
    rowsConv(x, wt, w, groups, window);
    return;
  }

  Size batch = dimOf(x, 0);
  // The columns of each image, [N, C, K, O...] ([N, C * K, P]: channel,
  // then window position, then output point): the window's slices of the
  // padded input, each [N, C, 1, O...], concatenated along dim 2. The
  // slices are views the concat reads (Views.cpp), one operand a row: one
  // dispatch writes the columns. A window of one element at every point
  // (1x1, stride 1, no padding) is the input itself: no copy.
  Value *xp = padded(x, w, padValue(elem, false));
  std::vector<Size> unitDim = {batch, Size{channels}, Size{1}};
  for (size_t d = 0; d < w.rank(); ++d)
    unitDim.push_back(dimOf(xp, d + 2));
  std::vector<Value *> slices = windowSlices(reshape(xp, unitDim), w, outDims, 3);
  Value *cols = slices[0];
  if (slices.size() > 1) {
    std::vector<int64_t> colDims = {batch.n, channels, window};
    colDims.insert(colDims.end(), slices[0]->type.dims.begin() + 3, slices[0]->type.dims.end());
    cols = b_.add(OpKind::Concat, slices, Type::tensorOf(elem, colDims),
                  {OpBuilder::attr("axis", 2)});
  }
  // Output points per image (read from the columns: a `dim` of a slice
  // would keep it from being a view).
  Size points{1, nullptr};
  std::vector<Size> outSizes;
  for (size_t d = 0; d < w.rank(); ++d) {
    outSizes.push_back(dimOf(cols, d + 3));
    points = mul(points, outSizes.back());
  }
  Value *mm = groupMatmul(wt, cols, batch, mul(batch, Size{groups}), groups,
                          channels / groups * window, points);
  std::vector<Size> final = {batch, Size{filters}};
  final.insert(final.end(), outSizes.begin(), outSizes.end());
  becomeLast(reshape(mm, final));
}

// One matmul per image and group: the weights [g, F/g, C/g * K] by the
// image's columns [g, C/g * K, P] give [g, F/g, P], the image's [F, O...]
// as it lies in memory, so the result needs no transpose. Where there is
// more than one (image, group) pair, a batch matmul over them, the weights
// broadcast over the images: with one group, one [F, C * K] broadcast over
// the images, a view the packed matmul reads as one matrix (and packs once
// when building where they are a constant); with several, [g, F/g, C/g * K]
// broadcast over the images and regrouped.
Value *Expander::groupMatmul(Value *wt, Value *cols, const Size &batch, const Size &pairs,
                             int64_t groups, int64_t k, const Size &points) {
  DType elem = wt->type.elem;
  Size depth{k}, perGroup{wt->type.dims[0] / groups}, g{groups};
  if (pairs.n == 1) {
    Value *rhs = reshape(cols, {depth, points});
    Value *lhs = reshape(wt, {perGroup, depth});
    Value *acc = filled(padValue(elem, false), {perGroup, points});
    return b_.add(OpKind::Matmul, {lhs, rhs, acc}, acc->type);
  }
  Value *rhs = reshape(cols, {pairs, depth, points});
  Value *lhs = groups == 1 ? reshape(wt, {perGroup, depth}) : reshape(wt, {g, perGroup, depth});
  if (batch.n != 1) {
    lhs = overImages(lhs, batch);
    if (groups != 1)
      lhs = reshape(lhs, {pairs, perGroup, depth});
  }
  Value *acc = filled(padValue(elem, false), {pairs, perGroup, points});
  return b_.add(OpKind::BatchMatmul, {lhs, rhs, acc}, acc->type);
}

// A conv of stride 1 (f32) as one (batch) matmul whose rhs rows are
// contiguous runs of the padded input, no columns of each window position
// and point. Each image's output is computed at every point of the padded
// grid's rows, [O0, P1, ..., P(r-1)] (P the padded sizes, O0 the output
// rows): flat, point p of that grid reads window position (k0, .., k(r-1))
// of channel c at c * L + start(k) + p, start(k) = sum over d of k_d *
// dilation_d * S_d (S_d the padded grid's row-major strides, L a
// channel's size), so the rhs row of (c, k), the K order the evaluator
// sums in, is the run [c * L + start(k), + O0 * S0) of the channel: a
// concat of 1-D slices of the padded input seen as [N * g, C/g, 1, L]
// along a new dim 2 (a view the packed matmul reads as rows,
// Views.cpp). The points past each output row (P_d - O_d of them along
// dim d) are computed from the next row's values and dropped by a slice
// of the result; one more padded row at the end of dim 0 keeps the last
// output row's reads inside the input.
void Expander::rowsConv(Value *x, Value *wt, const Window &w, int64_t groups,
                        int64_t window) {
  DType elem = x->type.elem;
  const size_t r = w.rank();
  const int64_t channels = x->type.dims[1], filters = wt->type.dims[0];
  const int64_t cg = channels / groups;
  Value *xp = padded(x, w, padValue(elem, false), 1);
  Size batch = dimOf(x, 0);
  std::vector<Size> padDims;
  for (size_t d = 0; d < r; ++d)
    padDims.push_back(dimOf(xp, d + 2));
  // Strides of the padded grid (without the extra row), a channel's size.
  std::vector<Size> stride(r, Size{1});
  for (size_t d = r - 1; d-- > 0;)
    stride[d] = mul(stride[d + 1], padDims[d + 1]);
  Size channel = mul(stride[0], padDims[0]);
  // Output sizes: only the first may be empty (rowsPay: the others are
  // known, and not).
  std::vector<Size> out(r);
  for (size_t d = 0; d < r; ++d) {
    out[d] = outputSize(x, w, d);
    assert((d == 0 || (!out[d].value && out[d].n > 0)) && "rowsPay: known output rows");
  }
  // The points of each image: O0 rows of the grid.
  Size points = mul(out[0], stride[0]);
  Size pairs = mul(batch, Size{groups});
  std::vector<Size> flat = {pairs, Size{cg}, Size{1}, channel};
  Value *xr = reshape(xp, flat);
  std::vector<Value *> rows;
  std::vector<int64_t> k(r, 0);
  for (;;) {
    Size start{0};
    for (size_t d = 0; d < r; ++d)
      start = arith(OpKind::Add, start, mul(Size{k[d] * w.dilations[d]}, stride[d]));
    Size end = arith(OpKind::Add, start, points);
    std::vector<int64_t> starts(3, 0), ends(3, kToEnd);
    std::vector<Value *> operands = {xr};
    starts.push_back(start.value ? kRunTimeBound : start.n);
    ends.push_back(end.value ? kRunTimeBound : end.n);
    if (start.value)
      operands.push_back(start.value);
    if (end.value)
      operands.push_back(end.value);
    rows.push_back(b_.add(OpKind::Slice, operands,
                          Type::tensorOf(elem, {pairs.value ? kDynamic : pairs.n, cg, 1,
                                                points.value ? kDynamic : points.n}),
                          {OpBuilder::attr("starts", starts), OpBuilder::attr("ends", ends),
                           OpBuilder::attr("steps", std::vector<int64_t>{1, 1, 1, 1})}));
    size_t d = r;
    while (d-- > 0 && ++k[d] == w.size[d])
      k[d] = 0;
    if (d == size_t(-1))
      break;
  }
  Value *cols = b_.add(OpKind::Concat, rows,
                       Type::tensorOf(elem, {pairs.value ? kDynamic : pairs.n, cg, window,
                                             points.value ? kDynamic : points.n}),
                       {OpBuilder::attr("axis", 2)});
  Value *mm = groupMatmul(wt, cols, batch, pairs, groups, cg * window, points);
  // [N, F, O0, P1, ...], then the output points of each row.
  std::vector<Size> grid = {batch, Size{filters}, out[0]};
  for (size_t d = 1; d < r; ++d)
    grid.push_back(padDims[d]);
  Value *y = reshape(mm, grid);
  if (r == 1) {
    becomeLast(y);
    return;
  }
  std::vector<int64_t> starts(2 + r, 0), ends(2 + r, kToEnd), outDims = {batch.n, filters};
  std::vector<Value *> operands = {y};
  outDims.push_back(out[0].value ? kDynamic : out[0].n);
  for (size_t d = 1; d < r; ++d) {
    ends[2 + d] = out[d].value ? kRunTimeBound : out[d].n;
    if (out[d].value)
      operands.push_back(out[d].value);
    outDims.push_back(out[d].value ? kDynamic : out[d].n);
  }
  becomeLast(b_.add(OpKind::Slice, operands, Type::tensorOf(elem, outDims),
                    {OpBuilder::attr("starts", starts), OpBuilder::attr("ends", ends),
                     OpBuilder::attr("steps", std::vector<int64_t>(2 + r, 1))}));
}

// out[n, f, o] = 0 + sum over the group's channels c, then the window
// positions k, in order, of w[f, c, k] * x_padded[n, g(f) * C/g + c, o + k]:
// one map over, per (c, k), the window's slice of channel c of every group
// (a strided slice of the padded input, [N, g, O...]) and the weights
// w[., c, k] (a strided slice of them as [g, F/g * C/g * K]), all views.
// With one filter per group (depthwise) the map is [N, F, O...], the conv's
// own shape, so that its consumers (a bias, an activation) fuse into it;
// with several it is [N, g, F/g, O...], the slices broadcast over the
// group's filters and the weights over the images and points.
void Expander::grouped(Value *x, Value *wt, const Window &w,
                       const std::vector<int64_t> &outDims, int64_t groups) {
  DType elem = x->type.elem;
  const size_t r = w.rank();
  int64_t channels = x->type.dims[1], filters = wt->type.dims[0];
  int64_t cg = channels / groups, fg = filters / groups;
  Value *xp = padded(x, w, padValue(elem, false));
  // The result's sizes, for the broadcasts' '?'s: computed from the padded
  // input's (a `dim` of a slice would keep it from being a view).
  std::vector<Size> sizes = {dimOf(x, 0), Size{groups}};
  if (fg > 1)
    sizes.push_back(Size{fg});
  for (size_t d = 0; d < r; ++d)
    sizes.push_back(outputSize(x, w, d));
  std::vector<int64_t> dims;
  for (const Size &s : sizes)
    dims.push_back(s.value ? kDynamic : s.n);
  const Type space = Type::tensorOf(elem, dims);
  const size_t lead = fg > 1 ? 3 : 2; // [N, g(, F/g)]
  // |t| broadcast into the result space, its dims at |at|.
  auto spread = [&](Value *t, const std::vector<int64_t> &at) {
    std::vector<Value *> operands = {t};
    for (size_t d = 0; d < sizes.size(); ++d)
      if (sizes[d].value && std::find(at.begin(), at.end(), int64_t(d)) == at.end())
        operands.push_back(sizes[d].value);
    return b_.add(OpKind::Broadcast, operands, space, {OpBuilder::attr("dims", at)});
  };
  std::vector<int64_t> inputAt = {0, 1};
  for (size_t d = 0; d < r; ++d)
    inputAt.push_back(int64_t(lead + d));
  std::vector<Value *> inputs, weights;
  for (int64_t c = 0; c < cg; ++c)
    for (Value *slice : windowSlices(xp, w, outDims, 2, c, cg))
      inputs.push_back(fg > 1 ? spread(slice, inputAt) : slice);
  const int64_t terms = int64_t(inputs.size());
  // The weights of term t: [g, F/g] of them as [g, F/g * terms] (or [F]
  // of them flat, with one filter per group), every terms-th from t.
  Value *wg = fg > 1 ? reshape(wt, {Size{groups}, Size{fg * terms}})
                     : reshape(wt, {Size{filters * terms}});
  for (int64_t t = 0; t < terms; ++t) {
    std::vector<int64_t> starts = {t}, ends = {kToEnd}, steps = {terms}, wdims = {filters};
    if (fg > 1) {
      starts.insert(starts.begin(), 0);
      ends.insert(ends.begin(), kToEnd);
      steps.insert(steps.begin(), 1);
      wdims = {groups, fg};
    }
    Value *wk = b_.add(OpKind::Slice, {wg}, Type::tensorOf(elem, wdims),
                       {OpBuilder::attr("starts", starts), OpBuilder::attr("ends", ends),
                        OpBuilder::attr("steps", steps)});
    weights.push_back(fg > 1 ? spread(wk, {1, 2}) : spread(wk, {1}));
  }
  std::vector<Value *> operands = inputs;
  operands.insert(operands.end(), weights.begin(), weights.end());
  Value *zero = padValue(elem, false);
  const Type &result = op_.result()->type;
  Value *m = map(operands, fg > 1 ? space : result, [&](std::vector<Value *> &args) {
    Value *acc = zero;
    for (int64_t t = 0; t < terms; ++t)
      acc = bodyOp(OpKind::Add, elem, {acc, bodyOp(OpKind::Mul, elem, {args[terms + t], args[t]})});
    return acc;
  });
  if (fg == 1) {
    becomeLast(m);
    return;
  }
  std::vector<Size> final = {sizes[0], Size{filters}};
  final.insert(final.end(), sizes.begin() + 3, sizes.end());
  becomeLast(reshape(m, final));
}

void Expander::pool() {
  Value *x = op_.operands[0];
  DType elem = x->type.elem;
  Window w = Window::of(op_, op_.listAttr("window"));
  bool avg = op_.identAttr("kind") == "avg";
  std::vector<int64_t> outDims = outputDims(w, x->type);
  std::vector<Value *> slices =
      windowSlices(padded(x, w, padValue(elem, !avg)), w, outDims);
  size_t window = slices.size();
  const Type &type = op_.result()->type;
  if (!avg) {
    becomeLast(map(slices, type, [&](std::vector<Value *> &args) {
      return window == 1 ? bodyOp(OpKind::Max, elem, {args[0], args[0]})
                         : fold(OpKind::Max, elem, args, window);
    }));
    return;
  }
  Value *windowCount = nullptr;
  if (op_.intAttr("count_include_pad") != 0 || !w.hasPadding()) {
    windowCount = floatConstant(elem, static_cast<double>(window));
  } else {
    // How many of each output point's window elements are inside the input.
    std::vector<Size> spatial;
    for (size_t d = 0; d < w.rank(); ++d)
      spatial.push_back(dimOf(x, d + 2));
    std::vector<Size> oneImage = {Size{1}, Size{1}};
    oneImage.insert(oneImage.end(), spatial.begin(), spatial.end());
    Value *ones = filled(intConstant(DType::I32, 1), oneImage);
    std::vector<Value *> onesSlices =
        windowSlices(padded(ones, w, intConstant(DType::I32, 0)), w, outDims);
    std::vector<int64_t> countDims = {1, 1};
    countDims.insert(countDims.end(), outDims.begin(), outDims.end());
    Value *counts = map(onesSlices, Type::tensorOf(DType::I32, countDims),
                        [&](std::vector<Value *> &args) {
                          return fold(OpKind::Add, DType::I32, args, window);
                        });
    std::vector<Size> outSizes, broadcastSizes;
    std::vector<int64_t> spatialDims;
    for (size_t d = 0; d < w.rank(); ++d) {
      outSizes.push_back(dimOf(counts, d + 2));
      spatialDims.push_back(static_cast<int64_t>(d + 2));
    }
    Value *flat = reshape(counts, outSizes);
    // Broadcast over batch and channels: index operands for their '?'s.
    std::vector<Value *> operands = {flat};
    Size batch = dimOf(x, 0), channels = dimOf(x, 1);
    for (const Size &s : {batch, channels})
      if (s.value)
        operands.push_back(s.value);
    std::vector<int64_t> dims = {batch.n, channels.n};
    dims.insert(dims.end(), outDims.begin(), outDims.end());
    slices.push_back(b_.add(OpKind::Broadcast, operands,
                            Type::tensorOf(DType::I32, dims),
                            {OpBuilder::attr("dims", spatialDims)}));
  }
  becomeLast(map(slices, type, [&](std::vector<Value *> &args) {
    Value *sum = fold(OpKind::Add, elem, args, window);
    Value *divisor =
        windowCount ? windowCount : bodyOp(OpKind::Cast, elem, {args[window]});
    return bodyOp(OpKind::Div, elem, {sum, divisor});
  }));
}

} // namespace

void lowerWindowOps(Function &fn) {
  for (size_t i = 0; i < fn.ops.size(); ++i) {
    Op *op = fn.ops[i];
    if (op->kind != OpKind::Conv && op->kind != OpKind::Pool)
      continue;
    Expander ex(fn, *op);
    if (op->kind == OpKind::Conv)
      ex.conv();
    else
      ex.pool();
    fn.ops.insert(fn.ops.begin() + static_cast<std::ptrdiff_t>(i),
                  ex.ops().begin(), ex.ops().end());
    i += ex.ops().size();
  }
}

} // namespace graft
