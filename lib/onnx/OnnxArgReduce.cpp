// ArgMax and ArgMin: graft's `argmax` / `argmin` with the node's axis,
// keepdims and select_last_index, giving i64 as ONNX does; Hardmax, the
// one-hot of ArgMax. The table of every lowering is in OnnxOps.cpp.
#include "onnx/OnnxReductions.h"

namespace graft::onnx_import {

namespace {

bool argReduce(ImportContext &ctx, const char *op) {
  if (!ctx.onlyAttrs({"axis", "keepdims", "select_last_index"}))
    return false;
  Value x;
  if (!ctx.input(0, x))
    return false;
  if (x.type.elem == "i1")
    return ctx.fail("element type i1 (BOOL) is not supported: the op needs numbers");
  if (x.type.rank() == 0)
    return ctx.fail("reducing a rank-0 tensor is not supported");
  int64_t axis;
  if (!ctx.normAxis(ctx.attrInt("axis", 0), x.type.rank(), axis, "axis"))
    return false;
  bool keep = ctx.attrInt("keepdims", 1) != 0;
  bool last = ctx.attrInt("select_last_index", 0) != 0;
  Type t{"i64", x.type.dims, false};
  if (keep)
    t.dims[size_t(axis)] = 1;
  else
    t.dims.erase(t.dims.begin() + axis);
  std::string attrs = "axis = " + std::to_string(axis);
  if (keep)
    attrs += ", keepdims = 1";
  if (last)
    attrs += ", select_last_index = 1";
  ctx.setOutput(0, ctx.w.emit(ctx.hint(), std::string(op) + " " + x.name + " {" + attrs + "}", t));
  return true;
}

} // namespace

bool lowerArgMax(ImportContext &ctx) { return argReduce(ctx, "argmax"); }

// 1 where an element is the first largest along 'axis' (default -1), 0
// elsewhere (opset 13's Hardmax): argmax with keepdims compared with an
// iota along the axis.
bool lowerHardmax(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"axis"}))
    return false;
  Value x;
  if (!ctx.input(0, x))
    return false;
  if (!ctx.needFloat(x))
    return false;
  std::string t = x.type.elem;
  if (!ctx.needRank(x, 1))
    return false;
  int64_t axis;
  if (!ctx.normAxis(ctx.attrInt("axis", -1), x.type.rank(), axis, "axis"))
    return false;
  Type it{"i64", x.type.dims, false};
  it.dims[size_t(axis)] = 1;
  Value am = ctx.w.emit(ctx.hint() + ".argmax",
                        "argmax " + x.name + " {axis = " + std::to_string(axis) + ", keepdims = 1}", it);
  Value pos = ctx.w.iota(ctx.w.shapeOf(x), unsigned(axis), "i64", ctx.hint() + ".pos");
  Value y = ctx.w.elementwise(
      {pos, am}, t,
      [&](Body &b, const std::vector<std::string> &a) {
        std::string on = b.op("cmp " + a[0] + ", " + a[1] + " {pred = eq}", "i1");
        return b.op("select " + on + ", " + b.constant(1, t) + ", " + b.constant(0, t), t);
      },
      ctx.hint());
  ctx.setOutput(0, y);
  return true;
}
bool lowerArgMin(ImportContext &ctx) { return argReduce(ctx, "argmin"); }

} // namespace graft::onnx_import
