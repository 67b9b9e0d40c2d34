// OneHot: out[..., j, ...] (j along 'axis', of size depth) is on_value
// where j equals the index (a negative index counts from depth; an index
// outside [-depth, depth) matches nothing), off_value elsewhere. An `iota`
// along the axis against the indices with a size-1 dim inserted there, in
// one `map`. depth and values ([off, on]) must be known when building: the
// depth is a size, the values become literals. Float indices are truncated
// toward zero, as ONNX casts them to int64.
#include "onnx/OnnxOneHot.h"

namespace graft::onnx_import {

bool lowerOneHot(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"axis"}))
    return false;
  Value indices;
  ConstTensor depthC, values;
  if (!ctx.input(0, indices) || !ctx.constantInput(1, "depth", depthC) ||
      !ctx.constantInput(2, "values", values))
    return false;
  if (indices.type.elem == "i1")
    return ctx.fail("indices have element type i1 (BOOL); ONNX needs numbers");
  if (depthC.count() != 1)
    return ctx.fail("depth must hold one element, holds " + std::to_string(depthC.count()));
  int64_t depth = depthC.isFloat() ? int64_t(depthC.f[0]) : depthC.i[0];
  if (depth < 1 || depth > (int64_t(1) << 32))
    return ctx.fail("depth " + std::to_string(depth) + " is out of range (1 to 2^32)");
  if (values.count() != 2 || values.type.rank() != 1)
    return ctx.fail("values must be [off_value, on_value], holds " +
                    std::to_string(values.count()) + " elements");
  size_t r = indices.type.rank();
  int64_t axis;
  if (!ctx.normAxis(ctx.attrInt("axis", -1), r + 1, axis, "axis"))
    return false;
  if (r + 1 > 8)
    return ctx.fail("the result has rank " + std::to_string(r + 1) +
                    "; graft tensors have rank 8 at most");
  GraphWriter &w = ctx.w;
  Shape in = w.shapeOf(indices), unit = in, out = in;
  unit.insert(unit.begin() + axis, DimRef{1, "", 0, ""});
  out.insert(out.begin() + axis, DimRef{depth, "", 0, ""});
  Value idx = w.reshape(indices, unit, ctx.hint() + ".idx");
  Value pos = w.iota(out, unsigned(axis), "i64", ctx.hint() + ".pos");
  std::string t = values.type.elem, it = indices.type.elem;
  std::string off = values.literal(0), on = values.literal(1);
  ctx.setOutput(0, w.elementwise(
                       {pos, idx}, t,
                       [&](Body &b, const std::vector<std::string> &a) {
                         std::string i = it == "i64" ? a[1] : b.op("cast " + a[1], "i64");
                         std::string d = b.op("constant " + std::to_string(depth), "i64");
                         std::string neg = b.op("cmp " + i + ", " + b.op("constant 0", "i64") +
                                                    " {pred = lt}",
                                                "i1");
                         std::string wrapped = b.op("add " + i + ", " + d, "i64");
                         i = b.op("select " + neg + ", " + wrapped + ", " + i, "i64");
                         std::string hit = b.op("cmp " + a[0] + ", " + i + " {pred = eq}", "i1");
                         return b.op("select " + hit + ", " + b.op("constant " + on, t) + ", " +
                                         b.op("constant " + off, t),
                                     t);
                       },
                       ctx.hint()));
  return true;
}

} // namespace graft::onnx_import
