// ArgMax and ArgMin: graft's `argmax` / `argmin` with the node's axis,
// keepdims and select_last_index, giving i64 as ONNX does. The table of
// every lowering is in OnnxOps.cpp.
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
bool lowerArgMin(ImportContext &ctx) { return argReduce(ctx, "argmin"); }

} // namespace graft::onnx_import
