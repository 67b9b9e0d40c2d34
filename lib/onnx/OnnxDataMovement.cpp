// Lowerings of ONNX's data-movement ops (Gather, Slice, Concat, Tile, Pad,
// Split, Range, Trilu) to graft's `gather`, `slice`, `concat`, `tile`, `pad`,
// `split` and `iota` (docs/graph-format.md, "Data movement"). The table of
// every lowering is in OnnxOps.cpp.
#include "onnx/OnnxDataMovement.h"

#include "ir/SliceBounds.h"

#include <cmath>
#include <limits>

namespace graft::onnx_import {

bool lowerGather(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"axis"}))
    return false;
  Value x, indices;
  if (!ctx.input(0, x) || !ctx.input(1, indices))
    return false;
  if (indices.type.elem != "i32" && indices.type.elem != "i64")
    return ctx.fail("indices have element type " + indices.type.elem +
                    "; ONNX allows i32 and i64");
  int64_t axis;
  if (!ctx.normAxis(ctx.attrInt("axis", 0), x.type.rank(), axis, "axis"))
    return false;
  size_t a = size_t(axis);
  Type t{x.type.elem, {}, false};
  t.dims.assign(x.type.dims.begin(), x.type.dims.begin() + axis);
  t.dims.insert(t.dims.end(), indices.type.dims.begin(),
                indices.type.dims.end());
  t.dims.insert(t.dims.end(), x.type.dims.begin() + axis + 1,
                x.type.dims.end());
  if (t.rank() > 8)
    return ctx.fail("the result has rank " + std::to_string(t.rank()) +
                    "; graft tensors have rank 8 at most");
  ctx.setOutput(0, ctx.w.emit(ctx.hint(),
                              "gather " + x.name + ", " + indices.name +
                                  " {axis = " + std::to_string(a) + "}",
                              t));
  return true;
}

bool lowerConcat(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"axis"}))
    return false;
  if (!ctx.attr("axis"))
    return ctx.fail("attribute 'axis' is required");
  // 1-D integer constants (shapes being computed for a Reshape) stay
  // constants, so that what consumes them still knows them when building.
  ConstTensor folded;
  folded.type.elem = "i64";
  bool constant = true;
  for (int k = 0; k < ctx.node->input_size() && constant; ++k) {
    auto c = ctx.constants.find(ctx.node->input(k));
    constant = c != ctx.constants.end() && !c->second.isFloat() &&
               c->second.type.rank() == 1 && c->second.type.elem == "i64";
    if (constant)
      folded.i.insert(folded.i.end(), c->second.i.begin(), c->second.i.end());
  }
  if (constant && ctx.node->input_size() > 0) {
    folded.type.dims = {int64_t(folded.i.size())};
    ctx.constants[ctx.node->output(0)] = folded;
    return true;
  }
  std::vector<Value> xs;
  for (int k = 0; k < ctx.node->input_size(); ++k) {
    Value x;
    if (!ctx.input(size_t(k), x))
      return false;
    if (!xs.empty() &&
        (x.type.elem != xs[0].type.elem || x.type.rank() != xs[0].type.rank()))
      return ctx.fail("input " + std::to_string(k) + " is " + x.type.text() +
                      ", input 0 " + xs[0].type.text() +
                      "; inputs need one rank and element type");
    xs.push_back(x);
  }
  if (xs.empty())
    return ctx.fail("Concat needs at least one input");
  int64_t axis;
  if (!ctx.normAxis(ctx.attrInt("axis", 0), xs[0].type.rank(), axis, "axis"))
    return false;
  if (xs.size() == 1) {
    ctx.setOutput(0, xs[0]);
    return true;
  }
  Type t = xs[0].type;
  std::string names;
  for (size_t i = 0; i < xs.size(); ++i) {
    names += (i ? ", " : "") + xs[i].name;
    for (size_t d = 0; d < t.rank(); ++d) {
      int64_t a = t.dims[d], b = xs[i].type.dims[d];
      if (i == 0)
        continue;
      if (int64_t(d) == axis)
        t.dims[d] = a == kDynamic || b == kDynamic ? kDynamic : a + b;
      else if (a != kDynamic && b != kDynamic && a != b)
        return ctx.fail("input " + std::to_string(i) + " has size " +
                        std::to_string(b) + " in dim " + std::to_string(d) +
                        ", input 0 " + std::to_string(a));
      else if (a == kDynamic)
        t.dims[d] = b;
    }
  }
  ctx.setOutput(0, ctx.w.emit(ctx.hint(),
                              "concat " + names +
                                  " {axis = " + std::to_string(axis) + "}",
                              t));
  return true;
}

Value gatherAt(ImportContext &ctx, const Value &x, size_t axis, const std::vector<int64_t> &indices,
               const std::string &hint) {
  ConstTensor c;
  c.type = Type{"i64", {int64_t(indices.size())}, false};
  c.i = indices;
  Value idx = ctx.constantValue(c, hint + ".idx");
  Type t = x.type;
  t.dims[axis] = int64_t(indices.size());
  return ctx.w.emit(hint, "gather " + x.name + ", " + idx.name + " {axis = " + std::to_string(axis) + "}", t);
}

// graft's `tile`: one repeat count per axis, known when building.
bool lowerTile(ImportContext &ctx) {
  if (!ctx.onlyAttrs({}))
    return false;
  Value x;
  ConstTensor repeats;
  if (!ctx.input(0, x) || !ctx.constantInput(1, "repeats", repeats))
    return false;
  if (repeats.i.size() != x.type.rank())
    return ctx.fail("repeats has " + std::to_string(repeats.i.size()) + " entries for an input of rank " +
                    std::to_string(x.type.rank()));
  Type t = x.type;
  for (size_t a = 0; a < x.type.rank(); ++a) {
    int64_t r = repeats.i[a], n = x.type.dims[a];
    if (r < 0)
      return ctx.fail("repeats[" + std::to_string(a) + "] is " + std::to_string(r) +
                      "; a repeat count is at least 0");
    if (n != kDynamic && n * r > (int64_t(1) << 32))
      return ctx.fail("the result has more than 2^32 elements along axis " + std::to_string(a));
    t.dims[a] = r == 0 ? 0 : n == kDynamic ? kDynamic : n * r;
  }
  ctx.setOutput(0, ctx.w.emit(ctx.hint(), "tile " + x.name + " {repeats = " + intList(repeats.i) + "}", t));
  return true;
}

// graft's `pad`: pads known when building (opset 11+ inputs), not negative.
bool lowerPad(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"mode"}))
    return false;
  Value x;
  ConstTensor pads;
  if (!ctx.input(0, x) || !ctx.constantInput(1, "pads", pads))
    return false;
  size_t r = x.type.rank();
  if (ctx.hasInput(3))
    return ctx.fail("input 'axes' is not supported (opset 18); pads must cover every axis");
  if (pads.i.size() != 2 * r)
    return ctx.fail("pads has " + std::to_string(pads.i.size()) + " entries, expected " +
                    std::to_string(2 * r) + " (two per axis)");
  std::string mode = "constant";
  if (const auto *m = ctx.attr("mode"))
    mode = m->s();
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    return ctx.fail("mode '" + mode + "' is not supported (constant, edge, reflect)");
  std::string fillValue = x.type.elem == "i1" ? "false" : x.type.elem[0] == 'i' ? "0" : "0.0";
  if (ctx.hasInput(2)) {
    if (mode != "constant")
      return ctx.fail("constant_value is given but mode is '" + mode + "'");
    ConstTensor cv;
    if (!ctx.constantInput(2, "constant_value", cv))
      return false;
    if (cv.count() != 1)
      return ctx.fail("constant_value must hold one element");
    fillValue = cv.literal(0);
  }
  std::vector<int64_t> low(pads.i.begin(), pads.i.begin() + long(r)),
      high(pads.i.begin() + long(r), pads.i.end());
  Type t = x.type;
  for (size_t a = 0; a < r; ++a) {
    if (low[a] < 0 || high[a] < 0)
      return ctx.fail("negative pads are not supported (axis " + std::to_string(a) + ")");
    if (mode != "constant" && (low[a] || high[a]) && x.type.dims[a] == 0)
      return ctx.fail(mode + " padding of axis " + std::to_string(a) + ", which is empty");
    if (t.dims[a] != kDynamic)
      t.dims[a] += low[a] + high[a];
  }
  std::string operands = x.name;
  if (mode == "constant")
    operands += ", " + ctx.w.emit(ctx.hint() + ".pad", "constant " + fillValue,
                                  Type{x.type.elem, {}, true})
                           .name;
  ctx.setOutput(0, ctx.w.emit(ctx.hint(),
                              "pad " + operands + " {low = " + intList(low) + ", high = " +
                                  intList(high) + ", mode = " + mode + "}",
                              t));
  return true;
}

// graft's `split`, with one result per output; the sizes along the axis
// must be known when building.
bool lowerSplit(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"axis", "num_outputs"}))
    return false;
  Value x;
  if (!ctx.input(0, x))
    return false;
  int64_t axis;
  if (!ctx.normAxis(ctx.attrInt("axis", 0), x.type.rank(), axis, "axis"))
    return false;
  int64_t n = x.type.dims[size_t(axis)];
  int64_t outputs = ctx.node->output_size();
  std::vector<int64_t> sizes;
  if (ctx.hasInput(1)) {
    ConstTensor c;
    if (!ctx.constantInput(1, "split", c))
      return false;
    sizes = c.i;
  } else {
    if (n == kDynamic)
      return ctx.fail("the input's size along axis " + std::to_string(axis) +
                      " is dynamic; graft needs the split sizes when building");
    int64_t parts = ctx.attrInt("num_outputs", outputs);
    if (parts < 1 || parts != outputs)
      return ctx.fail("num_outputs is " + std::to_string(parts) + " but the node has " +
                      std::to_string(outputs) + " outputs");
    // Equal parts; the last one smaller when they do not divide (opset 18).
    int64_t part = (n + parts - 1) / parts;
    for (int64_t k = 0, left = n; k < parts; ++k, left -= part)
      sizes.push_back(std::max<int64_t>(0, std::min(part, left)));
  }
  if (int64_t(sizes.size()) != outputs)
    return ctx.fail("split has " + std::to_string(sizes.size()) + " sizes for " +
                    std::to_string(outputs) + " outputs");
  int64_t sum = 0;
  for (int64_t v : sizes) {
    if (v < 0)
      return ctx.fail("a split size is " + std::to_string(v) + "; sizes are at least 0");
    sum += v;
  }
  if (n != kDynamic && sum != n)
    return ctx.fail("the split sizes add up to " + std::to_string(sum) + ", the axis has " +
                    std::to_string(n));
  std::vector<Value> parts;
  std::string names, types;
  for (int64_t k = 0; k < outputs; ++k) {
    Value v{ctx.w.freshName(ctx.node->output(int(k)).empty() ? ctx.hint() : ctx.node->output(int(k))),
            x.type, {}};
    v.type.dims[size_t(axis)] = sizes[size_t(k)];
    names += (k ? ", " : "") + v.name;
    types += (k ? ", " : "") + v.type.text();
    parts.push_back(v);
  }
  ctx.w.lines += "  " + names + " = split " + x.name + " {axis = " + std::to_string(axis) +
                 ", sizes = " + intList(sizes) + "} : " + types + "\n";
  for (int64_t k = 0; k < outputs; ++k)
    ctx.setOutput(size_t(k), parts[size_t(k)]);
  return true;
}

// starts/ends/axes/steps are inputs (opset 10+) graft needs when building.
bool lowerSlice(ImportContext &ctx) {
  if (!ctx.onlyAttrs({}))
    return false;
  Value x;
  ConstTensor starts, ends, axesT, stepsT;
  if (!ctx.input(0, x) || !ctx.constantInput(1, "starts", starts) ||
      !ctx.constantInput(2, "ends", ends))
    return false;
  size_t r = x.type.rank(), n = starts.i.size();
  if (ends.i.size() != n)
    return ctx.fail("starts has " + std::to_string(n) + " entries, ends " +
                    std::to_string(ends.i.size()));
  std::vector<int64_t> axes, steps(n, 1);
  if (ctx.hasInput(3)) {
    if (!ctx.constantInput(3, "axes", axesT))
      return false;
    axes = axesT.i;
  } else {
    for (size_t i = 0; i < n; ++i)
      axes.push_back(int64_t(i));
  }
  if (ctx.hasInput(4)) {
    if (!ctx.constantInput(4, "steps", stepsT))
      return false;
    steps = stepsT.i;
  }
  if (axes.size() != n || steps.size() != n)
    return ctx.fail("starts has " + std::to_string(n) + " entries, axes " +
                    std::to_string(axes.size()) + ", steps " +
                    std::to_string(steps.size()));
  // Every dim of graft's slice: the whole dim unless an axis names it.
  std::vector<int64_t> s(r, 0), e(r, std::numeric_limits<int64_t>::max()),
      st(r, 1);
  std::vector<bool> seen(r, false);
  for (size_t i = 0; i < n; ++i) {
    int64_t a;
    if (!ctx.normAxis(axes[i], r, a, "axes"))
      return false;
    if (seen[size_t(a)])
      return ctx.fail("axis " + std::to_string(a) + " is sliced twice");
    if (steps[i] == 0)
      return ctx.fail("step of axis " + std::to_string(a) + " is 0");
    seen[size_t(a)] = true;
    s[size_t(a)] = starts.i[i];
    e[size_t(a)] = ends.i[i];
    st[size_t(a)] = steps[i];
  }
  Type t{x.type.elem, {}, false};
  for (size_t d = 0; d < r; ++d) {
    int64_t size = x.type.dims[d];
    if (size == kDynamic) {
      t.dims.push_back(kDynamic);
      continue;
    }
    int64_t count = sliceBounds(s[d], e[d], st[d], size).count;
    if (count == 0)
      return ctx.fail("the result is empty along axis " + std::to_string(d) +
                      "; graft tensors have no zero sizes");
    t.dims.push_back(count);
  }
  ctx.setOutput(0, ctx.w.emit(ctx.hint(),
                              "slice " + x.name + " {starts = " + intList(s) +
                                  ", ends = " + intList(e) +
                                  ", steps = " + intList(st) + "}",
                              t));
  return true;
}

// start + i * delta for i in [0, max(0, ceil((limit - start) / delta))): an
// iota and a map. The bounds must be known when building (the size is).
bool lowerRange(ImportContext &ctx) {
  if (!ctx.onlyAttrs({}))
    return false;
  ConstTensor start, limit, delta;
  if (!ctx.constantInput(0, "start", start) ||
      !ctx.constantInput(1, "limit", limit) ||
      !ctx.constantInput(2, "delta", delta))
    return false;
  std::string t = start.type.elem;
  if (start.count() != 1 || limit.count() != 1 || delta.count() != 1)
    return ctx.fail("start, limit and delta must be scalars");
  if (limit.type.elem != t || delta.type.elem != t)
    return ctx.fail("start, limit and delta must have one element type");
  bool fl = start.isFloat();
  if (!fl && t != "i16" && t != "i32" && t != "i64")
    return ctx.fail("element type " + t +
                    " is not supported (f32, f64, i16, i32, i64)");
  double s = fl ? start.f[0] : double(start.i[0]),
         l = fl ? limit.f[0] : double(limit.i[0]),
         d = fl ? delta.f[0] : double(delta.i[0]);
  if (d == 0)
    return ctx.fail("delta is 0");
  double count = std::max(0.0, std::ceil((l - s) / d));
  if (!(count >= 1) || count > double(int64_t(1) << 32))
    return ctx.fail("the range has " + std::to_string(int64_t(count)) +
                    " elements; graft tensors have 1 to 2^32");
  Type it{t, {int64_t(count)}, false};
  Value i = ctx.w.emit(ctx.hint() + ".i", "iota {dim = 0}", it);
  std::string first = start.literal(0), step = delta.literal(0);
  ctx.setOutput(
      0, ctx.w.elementwise(
             {i}, t,
             [&](Body &b, const std::vector<std::string> &a) {
               std::string m =
                   b.op("mul " + a[0] + ", " + b.op("constant " + step, t), t);
               return b.op("add " + m + ", " + b.op("constant " + first, t), t);
             },
             ctx.hint()));
  return true;
}

// The upper (j - i >= k) or lower (j - i <= k) triangle of the last two
// dims, zero elsewhere: a map of the input and two iotas over its shape.
bool lowerTrilu(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"upper"}))
    return false;
  Value x;
  if (!ctx.input(0, x))
    return false;
  size_t r = x.type.rank();
  if (r < 2)
    return ctx.fail("the input has rank " + std::to_string(r) +
                    "; Trilu needs rank 2 or more");
  if (x.type.elem == "i1")
    return ctx.fail("element type i1 is not supported");
  int64_t k = 0;
  if (ctx.hasInput(1)) {
    ConstTensor kc;
    if (!ctx.constantInput(1, "k", kc))
      return false;
    if (kc.count() != 1 || kc.isFloat())
      return ctx.fail("k must be one integer");
    k = std::clamp(kc.i[0], -kSliceLiteralLimit, kSliceLiteralLimit);
  }
  bool upper = ctx.attrInt("upper", 1) != 0;
  Shape shape = ctx.w.shapeOf(x);
  Value rows = ctx.w.iota(shape, unsigned(r - 2), "index", ctx.hint() + ".i");
  Value cols = ctx.w.iota(shape, unsigned(r - 1), "index", ctx.hint() + ".j");
  std::string t = x.type.elem;
  ctx.setOutput(
      0, ctx.w.elementwise(
             {x, rows, cols}, t,
             [&](Body &b, const std::vector<std::string> &a) {
               std::string d = b.op("sub " + a[2] + ", " + a[1], "index");
               std::string kv = b.op("constant " + std::to_string(k), "index");
               std::string keep = b.op("cmp " + d + ", " + kv + " {pred = " +
                                           (upper ? "ge" : "le") + "}",
                                       "i1");
               std::string zero = b.constant(0, t);
               return b.op("select " + keep + ", " + a[0] + ", " + zero, t);
             },
             ctx.hint()));
  return true;
}

} // namespace graft::onnx_import
