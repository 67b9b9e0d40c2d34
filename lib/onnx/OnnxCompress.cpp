// Compress: the slices along 'axis' (of the flattened input without one)
// whose condition is true. The result's size depends on the condition, so
// graft needs the condition when building; the selection is then a
// `gather` at the build-time indices of the true entries (a condition
// shorter than the axis drops the rest, as ONNX says).
#include "onnx/OnnxCompress.h"

#include "onnx/OnnxDataMovement.h"

namespace graft::onnx_import {

bool lowerCompress(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"axis"}))
    return false;
  Value x;
  ConstTensor cond;
  if (!ctx.input(0, x) || !ctx.constantInput(1, "condition", cond))
    return false;
  if (cond.type.rank() != 1 || cond.isFloat())
    return ctx.fail("condition must be a 1-D BOOL tensor, is " + cond.type.text());
  Value in = x;
  int64_t axis = 0;
  if (ctx.attr("axis")) {
    if (!ctx.normAxis(ctx.attrInt("axis", 0), x.type.rank(), axis, "axis"))
      return false;
  } else {
    Shape s = ctx.w.shapeOf(x);
    in = ctx.w.reshape(x, Shape{ctx.w.product(s, 0, s.size())}, ctx.hint() + ".flat");
  }
  int64_t n = in.type.dims[size_t(axis)];
  if (n == kDynamic)
    return ctx.fail("the size along axis " + std::to_string(axis) +
                    " is dynamic; graft needs it when building");
  if (int64_t(cond.i.size()) > n)
    return ctx.fail("condition has " + std::to_string(cond.i.size()) +
                    " entries, more than the axis' " + std::to_string(n));
  std::vector<int64_t> kept;
  for (size_t i = 0; i < cond.i.size(); ++i)
    if (cond.i[i])
      kept.push_back(int64_t(i));
  if (kept.empty())
    return ctx.fail("the condition selects nothing; graft tensors have no zero sizes");
  ctx.setOutput(0, gatherAt(ctx, in, size_t(axis), kept, ctx.hint()));
  return true;
}

} // namespace graft::onnx_import
