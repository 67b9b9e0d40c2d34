// CumSum: y[.., j, ..] = the sum of x[.., i, ..] over the i before j along
// 'axis' (i <= j; i < j with exclusive; i >= j / i > j with reverse).
// graft has no scan op, so the axis is moved last and flattened to
// [rows, n], broadcast to [rows, n, n], each (i, j) kept or zeroed by a
// `select` of two iotas, and summed over i with `reduce`. A select, not a
// product with a 0/1 matrix, so inf and NaN stay where they belong. It
// costs n * n per row: fine for the short axes of shape arithmetic and
// masks, quadratic for long ones (a `scan` op would make it linear). The
// axis size must be known when building.
#include "onnx/OnnxReductions.h"

#include <numeric>

namespace graft::onnx_import {

bool lowerCumSum(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"exclusive", "reverse"}))
    return false;
  Value x;
  ConstTensor axisC;
  if (!ctx.input(0, x) || !ctx.constantInput(1, "axis", axisC))
    return false;
  if (x.type.elem == "i1")
    return ctx.fail("element type i1 (BOOL) is not supported: the op needs numbers");
  if (axisC.count() != 1 || axisC.isFloat())
    return ctx.fail("axis must be one integer");
  size_t r = x.type.rank();
  int64_t axis;
  if (!ctx.needRank(x, 1) || !ctx.normAxis(axisC.i[0], r, axis, "axis"))
    return false;
  int64_t n = x.type.dims[size_t(axis)];
  if (n == kDynamic)
    return ctx.fail("the size along axis " + std::to_string(axis) +
                    " is dynamic; graft needs it when building");
  bool exclusive = ctx.attrInt("exclusive", 0) != 0, reverse = ctx.attrInt("reverse", 0) != 0;
  GraphWriter &w = ctx.w;
  std::string h = ctx.hint(), t = x.type.elem;
  // The axis last, then [rows, n].
  std::vector<int64_t> perm(r);
  std::iota(perm.begin(), perm.end(), 0);
  perm.erase(perm.begin() + axis);
  perm.push_back(axis);
  bool moved = axis != int64_t(r) - 1;
  Value xt = moved ? w.transpose(x, perm, h + ".last") : x;
  Shape st = w.shapeOf(xt);
  DimRef rows = w.product(st, 0, r - 1), len{n, "", 0, ""};
  Value x2 = w.reshape(xt, Shape{rows, len}, h + ".rows");
  Shape cube{rows, len, len};
  Value xb = w.broadcastInDims(x2, {0, 1}, cube, h + ".b");
  Value i = w.iota(cube, 1, "index", h + ".i"), j = w.iota(cube, 2, "index", h + ".j");
  const char *pred = reverse ? (exclusive ? "gt" : "ge") : (exclusive ? "lt" : "le");
  Value kept = w.elementwise(
      {xb, i, j}, t,
      [&](Body &b, const std::vector<std::string> &a) {
        std::string in = b.op("cmp " + a[1] + ", " + a[2] + " {pred = " + pred + "}", "i1");
        return b.op("select " + in + ", " + a[0] + ", " + b.constant(0, t), t);
      },
      h + ".kept");
  Value sums = w.reduce(kept, {1}, "sum", h + ".sum");
  if (!moved) {
    ctx.setOutput(0, w.reshape(sums, w.shapeOf(x), h));
    return true;
  }
  Value back = w.reshape(sums, st, h + ".t");
  std::vector<int64_t> inverse(r);
  for (size_t k = 0; k < r; ++k)
    inverse[size_t(perm[k])] = int64_t(k);
  ctx.setOutput(0, w.transpose(back, inverse, h));
  return true;
}

} // namespace graft::onnx_import
