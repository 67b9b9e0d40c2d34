// ONNX Conv, MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool and LRN onto
// graft's `conv`, `pool` and `reduce` (docs/onnx.md). The window attributes
// are checked here and written out explicitly: auto_pad and ceil_mode become
// pads (which need the static sizes of the spatial dims), so the graph reads
// as what it computes.
#include "onnx/OnnxConv.h"

#include <algorithm>

namespace graft::onnx_import {

namespace {

// The window of a Conv or pool node over the spatial dims of |x|, with the
// output size per spatial dim (kDynamic where the input's is).
struct OnnxWindow {
  std::vector<int64_t> kernel, strides, dilations,
      pads; // pads: begins, then ends
  std::vector<int64_t> out;
};

// A per-spatial-dim list attribute: |n| entries of at least |min|, else
// |dflt| for each.
bool spatialList(ImportContext &ctx, const char *name, size_t n, int64_t min,
                 int64_t dflt, std::vector<int64_t> &out) {
  if (!ctx.attrInts(name, out)) {
    out.assign(n, dflt);
    return true;
  }
  if (out.size() != n)
    return ctx.fail(std::string(name) + " has " + std::to_string(out.size()) +
                    " entries, expected " + std::to_string(n) +
                    " (one per spatial dim)");
  for (int64_t v : out)
    if (v < min)
      return ctx.fail(std::string(name) + " " + intList(out) +
                      " has an entry below " + std::to_string(min));
  return true;
}

// Reads strides, dilations, pads, auto_pad and (pools) ceil_mode for |kernel|
// over input |x|; fills |w|.
bool readWindow(ImportContext &ctx, const Value &x, std::vector<int64_t> kernel,
                bool ceilMode, OnnxWindow &w) {
  size_t n = kernel.size();
  w.kernel = std::move(kernel);
  if (!spatialList(ctx, "strides", n, 1, 1, w.strides) ||
      !spatialList(ctx, "dilations", n, 1, 1, w.dilations))
    return false;
  std::string autoPad = "NOTSET";
  if (const auto *a = ctx.attr("auto_pad"))
    autoPad = a->s();
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER")
    return ctx.fail(
        "auto_pad '" + autoPad +
        "' is not supported (NOTSET, VALID, SAME_UPPER, SAME_LOWER)");
  if (autoPad != "NOTSET" && ctx.attr("pads"))
    return ctx.fail("pads are given with auto_pad '" + autoPad +
                    "'; ONNX allows them only with NOTSET");
  if (autoPad == "NOTSET" && !spatialList(ctx, "pads", 2 * n, 0, 0, w.pads))
    return false;
  if (autoPad != "NOTSET")
    w.pads.assign(2 * n, 0);
  for (size_t d = 0; d < n; ++d) {
    int64_t in = x.type.dims[d + 2],
            span = w.dilations[d] * (w.kernel[d] - 1) + 1;
    bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
    if (in == kDynamic) {
      if (same || ceilMode)
        return ctx.fail(
            "spatial dim " + std::to_string(d) +
            " of the input has a run-time size; " +
            (same ? "auto_pad " + autoPad : std::string("ceil_mode")) +
            " needs it when building");
      w.out.push_back(kDynamic);
      continue;
    }
    if (same) {
      // The output covers ceil(in / stride) positions; the padding that
      // needs is split evenly, the odd element at the end (UPPER) or the
      // beginning (LOWER).
      int64_t out = (in + w.strides[d] - 1) / w.strides[d];
      int64_t total =
          std::max<int64_t>(0, (out - 1) * w.strides[d] + span - in);
      int64_t small = total / 2, large = total - small;
      w.pads[d] = autoPad == "SAME_UPPER" ? small : large;
      w.pads[d + n] = autoPad == "SAME_UPPER" ? large : small;
    }
    int64_t room = in + w.pads[d] + w.pads[d + n] - span;
    if (room < 0)
      return ctx.fail("the window spans " + std::to_string(span) +
                      " elements, more than spatial dim " + std::to_string(d) +
                      " of size " + std::to_string(in) + " with pads " +
                      std::to_string(w.pads[d]) + " and " +
                      std::to_string(w.pads[d + n]));
    int64_t out = room / w.strides[d] + 1;
    if (ceilMode && room % w.strides[d] != 0) {
      // One more window, as long as it starts inside the input or the
      // leading padding; the padding at the end grows to hold it.
      if (out * w.strides[d] < in + w.pads[d]) {
        w.pads[d + n] += w.strides[d] - room % w.strides[d];
        ++out;
      }
    }
    w.out.push_back(out);
  }
  return true;
}

// The window attributes as graft writes them.
std::string windowAttrs(const OnnxWindow &w) {
  return "strides = " + intList(w.strides) + ", pads = " + intList(w.pads) +
         ", dilations = " + intList(w.dilations);
}

bool spatialInput(ImportContext &ctx, const Value &x) {
  return ctx.needRank(x, 3, "input X", "batch, channels, spatial dims") && ctx.needFloat(x);
}

// kernel_shape, where given, must be |kernel|.
bool checkKernelShape(ImportContext &ctx, const std::vector<int64_t> &kernel) {
  std::vector<int64_t> ks;
  if (ctx.attrInts("kernel_shape", ks) && ks != kernel)
    return ctx.fail("kernel_shape " + intList(ks) +
                    " does not match the weights' kernel " + intList(kernel));
  return true;
}

} // namespace

// Y = conv(X, W) (+ B along the channels).
bool lowerConv(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"auto_pad", "dilations", "group", "kernel_shape", "pads",
                      "strides"}))
    return false;
  Value x, wt, b;
  if (!ctx.input(0, x) || !ctx.input(1, wt) || !spatialInput(ctx, x))
    return false;
  if (wt.type.rank() != x.type.rank() || !wt.type.isStatic())
    return ctx.fail("weights W must have a static shape of rank " +
                    std::to_string(x.type.rank()) + ", have " + wt.type.text());
  if (wt.type.elem != x.type.elem)
    return ctx.fail("weights W have element type " + wt.type.elem + ", X " +
                    x.type.elem);
  if (x.type.dims[1] == kDynamic)
    return ctx.fail("the input's channel count (dim 1) has a run-time size; "
                    "graft needs it when building");
  int64_t group = ctx.attrInt("group", 1);
  int64_t channels = x.type.dims[1], filters = wt.type.dims[0];
  if (group < 1 || channels % group != 0 || filters % group != 0 ||
      wt.type.dims[1] * group != channels)
    return ctx.fail("group " + std::to_string(group) + " does not fit " +
                    std::to_string(channels) + " input channels and weights " +
                    wt.type.text());
  std::vector<int64_t> kernel(wt.type.dims.begin() + 2, wt.type.dims.end());
  OnnxWindow w;
  if (!checkKernelShape(ctx, kernel) || !readWindow(ctx, x, kernel, false, w))
    return false;
  Type t{x.type.elem, {x.type.dims[0], filters}};
  t.dims.insert(t.dims.end(), w.out.begin(), w.out.end());
  Value y =
      ctx.w.emit(ctx.hint(),
                 "conv " + x.name + ", " + wt.name + " {" + windowAttrs(w) +
                     ", group = " + std::to_string(group) + "}",
                 t);
  if (ctx.hasInput(2)) {
    if (!ctx.input(2, b))
      return false;
    if (b.type.rank() != 1 || b.type.elem != x.type.elem ||
        (b.type.dims[0] != kDynamic && b.type.dims[0] != filters))
      return ctx.fail("bias B must be a " + x.type.elem + " vector of " +
                      std::to_string(filters) + " elements, has type " +
                      b.type.text());
    Value bb =
        ctx.w.broadcastInDims(b, {1}, ctx.w.shapeOf(y), ctx.hint() + ".bias");
    y = ctx.w.elementwise(
        {y, bb}, t.elem,
        [&](Body &bd, const std::vector<std::string> &a) {
          return bd.op("add " + a[0] + ", " + a[1], t.elem);
        },
        ctx.hint());
  }
  ctx.setOutput(0, y);
  return true;
}

// MaxPool and AveragePool: one `pool`.
bool lowerPool(ImportContext &ctx) {
  bool max = ctx.node->op_type() == "MaxPool";
  if (!(max ? ctx.onlyAttrs({"auto_pad", "ceil_mode", "dilations",
                             "kernel_shape", "pads", "storage_order",
                             "strides"})
            : ctx.onlyAttrs({"auto_pad", "ceil_mode", "count_include_pad",
                             "dilations", "kernel_shape", "pads", "strides"})))
    return false;
  if (max && ctx.wantsOutput(1))
    return ctx.fail(
        "output Indices is not supported (graft's pool computes values only)");
  Value x;
  if (!ctx.input(0, x) || !spatialInput(ctx, x))
    return false;
  std::vector<int64_t> kernel;
  if (!ctx.attrInts("kernel_shape", kernel))
    return ctx.fail("attribute kernel_shape is required");
  if (kernel.size() != x.type.rank() - 2 ||
      std::any_of(kernel.begin(), kernel.end(),
                  [](int64_t k) { return k < 1; }))
    return ctx.fail("kernel_shape " + intList(kernel) +
                    " must have one size >= 1 per spatial dim (" +
                    std::to_string(x.type.rank() - 2) + ")");
  bool ceilMode = ctx.attrInt("ceil_mode", 0) != 0;
  int64_t includePad = max ? 0 : ctx.attrInt("count_include_pad", 0);
  OnnxWindow w;
  if (!readWindow(ctx, x, kernel, ceilMode, w))
    return false;
  if (includePad && ceilMode) {
    OnnxWindow plain;
    if (!readWindow(ctx, x, kernel, false, plain))
      return false;
    if (plain.pads != w.pads)
      return ctx.fail(
          "ceil_mode with count_include_pad adds windows past the padding; "
          "graft would count their missing elements (not supported)");
  }
  Type t{x.type.elem, {x.type.dims[0], x.type.dims[1]}};
  t.dims.insert(t.dims.end(), w.out.begin(), w.out.end());
  std::string attrs = std::string("kind = ") + (max ? "max" : "avg") +
                      ", window = " + intList(kernel) + ", " + windowAttrs(w);
  if (includePad)
    attrs += ", count_include_pad = 1";
  ctx.setOutput(
      0, ctx.w.emit(ctx.hint(), "pool " + x.name + " {" + attrs + "}", t));
  return true;
}

// GlobalAveragePool and GlobalMaxPool: a reduction over the spatial dims,
// kept as size-1 dims.
bool lowerGlobalPool(ImportContext &ctx) {
  if (!ctx.onlyAttrs({}))
    return false;
  bool max = ctx.node->op_type() == "GlobalMaxPool";
  Value x;
  if (!ctx.input(0, x) || !spatialInput(ctx, x))
    return false;
  std::vector<int64_t> axes;
  for (size_t d = 2; d < x.type.rank(); ++d)
    axes.push_back(static_cast<int64_t>(d));
  Shape shape = ctx.w.shapeOf(x);
  Value r = ctx.w.reduce(x, axes, max ? "max" : "sum", ctx.hint() + ".r");
  if (!max) {
    DimRef count = ctx.w.product(shape, 2, shape.size());
    std::string elem = x.type.elem;
    std::string countIndex =
        count.size == kDynamic ? ctx.w.sizeValue(count) : "";
    r = ctx.w.elementwise(
        {r}, elem,
        [&](Body &bd, const std::vector<std::string> &a) {
          std::string n = countIndex.empty()
                              ? bd.constant(double(count.size), elem)
                              : bd.op("cast " + countIndex, elem);
          return bd.op("div " + a[0] + ", " + n, elem);
        },
        ctx.hint() + ".mean");
  }
  Shape kept = {shape[0], shape[1]};
  for (size_t d = 2; d < shape.size(); ++d)
    kept.push_back(DimRef{1, "", 0, ""});
  ctx.setOutput(0, ctx.w.reshape(r, kept, ctx.hint()));
  return true;
}

// LRN: y = x / (bias + alpha / size * s)^beta, s the sum of x² over the
// channels [c - floor((size-1)/2), c + ceil((size-1)/2)] (those that
// exist). The channel dim becomes the first spatial dim of an
// N x 1 x C x rest tensor, and an average `pool` of window [size, 1] with
// zero padding counted (count_include_pad) is s / size.
bool lowerLRN(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"alpha", "beta", "bias", "size"}))
    return false;
  Value x;
  if (!ctx.input(0, x))
    return false;
  if (!ctx.needFloat(x))
    return false;
  std::string t = x.type.elem;
  if (!ctx.needRank(x, 2, "the input", "N x C x ..."))
    return false;
  if (!ctx.attr("size"))
    return ctx.fail("attribute 'size' is required");
  int64_t size = ctx.attrInt("size", 1);
  if (size < 1 || size > (int64_t(1) << 16))
    return ctx.fail("size " + std::to_string(size) + " is out of range (1 to 65536)");
  double alpha = ctx.attrFloat("alpha", 1e-4f), beta = ctx.attrFloat("beta", 0.75f),
         bias = ctx.attrFloat("bias", 1.0f);
  GraphWriter &w = ctx.w;
  std::string h = ctx.hint();
  Shape s = w.shapeOf(x);
  DimRef one{1, "", 0, ""};
  Value sq = w.elementwise(
      {x}, t, [&](Body &b, const std::vector<std::string> &a) { return b.op("mul " + a[0] + ", " + a[0], t); },
      h + ".sq");
  Shape planes{s[0], one, s[1], w.product(s, 2, s.size())};
  Value sq4 = w.reshape(sq, planes, h + ".planes");
  int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
  Type pt = sq4.type;
  Value avg = w.emit(h + ".avg",
                     "pool " + sq4.name + " {kind = avg, window = [" + std::to_string(size) +
                         ", 1], strides = [1, 1], pads = [" + std::to_string(lo) + ", 0, " +
                         std::to_string(hi) + ", 0], dilations = [1, 1], count_include_pad = 1}",
                     pt);
  Value avgx = w.reshape(avg, s, h + ".avgx");
  Value y = w.elementwise(
      {x, avgx}, t,
      [&](Body &b, const std::vector<std::string> &a) {
        std::string base = b.op("add " + b.constant(bias, t) + ", " +
                                    b.op("mul " + b.constant(alpha, t) + ", " + a[1], t),
                                t);
        return b.op("div " + a[0] + ", " + b.op("pow " + base + ", " + b.constant(beta, t), t), t);
      },
      h);
  ctx.setOutput(0, y);
  return true;
}

} // namespace graft::onnx_import
