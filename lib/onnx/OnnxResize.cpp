// Resize (and its opset-11 form): separable interpolation, one axis at a
// time from the last, each a weighted sum of `gather`s at build-time
// indices. For every output position of an axis, the source coordinate,
// the n neighbours (n = 2 for nearest and linear, 4 for cubic) and their
// weights are computed when building exactly as the ONNX reference
// (onnx/backend/test/case/node/resize.py) does: the coordinate
// transformation mode, the nearest mode, cubic_coeff_a, exclude_outside,
// and edge values for neighbours outside the input; tf_crop_and_resize
// positions outside the input take extrapolation_value. Nearest is then
// one `gather`; linear and cubic a `gather` per neighbour and a `map` that
// adds them with per-position weights. Scales or sizes (and roi) must be
// known when building, and so must the input's sizes along resized axes.
#include "onnx/OnnxDataMovement.h"
#include "onnx/OnnxResize.h"

#include <algorithm>
#include <cmath>

namespace graft::onnx_import {

namespace {

struct ResizeMode {
  std::string mode = "nearest", ctm = "half_pixel", nearest = "round_prefer_floor";
  double cubicA = -0.75, extrapolation = 0;
  bool excludeOutside = false;
};

// The taps of one axis: for tap k and output position o, the input index
// (edge-clamped) and its weight; |outside[o]|: extrapolation_value.
struct AxisTaps {
  std::vector<std::vector<int64_t>> index;
  std::vector<std::vector<double>> weight;
  std::vector<bool> outside;
};

std::vector<double> coefficients(const ResizeMode &m, double ratio) {
  if (m.mode == "nearest") {
    if (ratio == 1.0)
      return {0, 1};
    if (m.nearest == "round_prefer_floor")
      return {double(ratio <= 0.5), double(ratio > 0.5)};
    if (m.nearest == "round_prefer_ceil")
      return {double(ratio < 0.5), double(ratio >= 0.5)};
    if (m.nearest == "floor")
      return {1, 0};
    return {0, 1}; // ceil
  }
  if (m.mode == "linear")
    return {1 - ratio, ratio};
  double a = m.cubicA, r = ratio, q = 1 - ratio;
  return {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
          ((a + 2) * r - (a + 3)) * r * r + 1, ((a + 2) * q - (a + 3)) * q * q + 1,
          ((a * (q + 1) - 5 * a) * (q + 1) + 8 * a) * (q + 1) - 4 * a};
}

AxisTaps axisTaps(const ResizeMode &m, int64_t inLen, int64_t outLen, double scale,
                  double roiStart, double roiEnd) {
  AxisTaps taps;
  size_t n = m.mode == "cubic" ? 4 : 2;
  taps.index.assign(n, std::vector<int64_t>(size_t(outLen), 0));
  taps.weight.assign(n, std::vector<double>(size_t(outLen), 0.0));
  taps.outside.assign(size_t(outLen), false);
  double outWidth = scale * double(inLen), in1 = double(inLen - 1);
  for (int64_t o = 0; o < outLen; ++o) {
    double x = double(o), xo = 0;
    if (m.ctm == "align_corners")
      xo = outWidth == 1 ? 0 : x * in1 / (outWidth - 1);
    else if (m.ctm == "asymmetric")
      xo = x / scale;
    else if (m.ctm == "tf_crop_and_resize") {
      xo = outWidth == 1 ? (roiEnd - roiStart) * in1 / 2
                         : x * (roiEnd - roiStart) * in1 / (outWidth - 1);
      xo += roiStart * in1;
      if (xo < 0 || xo > in1) {
        taps.outside[size_t(o)] = true;
        continue;
      }
    } else if (m.ctm == "pytorch_half_pixel")
      xo = outWidth == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    else if (m.ctm == "half_pixel")
      xo = (x + 0.5) / scale - 0.5;
    else // tf_half_pixel_for_nn
      xo = (x + 0.5) / scale;
    double fl = std::floor(xo);
    std::vector<double> c = coefficients(m, xo == fl ? 1.0 : xo - fl);
    // The n indices nearest xo in the input padded by ceil(n / 2) edge
    // values (ties to the smaller index), in order.
    int64_t pad = int64_t((n + 1) / 2), limit = inLen + 2 * pad;
    double xp = xo + double(pad);
    std::vector<int64_t> cand;
    for (int64_t i = int64_t(std::floor(xp)) - int64_t(n); i <= int64_t(std::floor(xp)) + int64_t(n); ++i)
      if (i >= 0 && i < limit)
        cand.push_back(i);
    std::stable_sort(cand.begin(), cand.end(), [&](int64_t a, int64_t b) {
      double da = std::fabs(xp - double(a)), db = std::fabs(xp - double(b));
      return da != db ? da < db : a < b;
    });
    cand.resize(std::min(cand.size(), n));
    std::sort(cand.begin(), cand.end());
    double sum = 0;
    for (size_t k = 0; k < cand.size(); ++k) {
      int64_t raw = cand[k] - pad;
      if (m.excludeOutside && (raw < 0 || raw >= inLen))
        c[k] = 0;
      sum += c[k];
      taps.index[k][size_t(o)] = std::clamp<int64_t>(raw, 0, inLen - 1);
      taps.weight[k][size_t(o)] = c[k];
    }
    if (m.excludeOutside && sum != 0)
      for (size_t k = 0; k < cand.size(); ++k)
        taps.weight[k][size_t(o)] /= sum;
  }
  return taps;
}

// A build-time vector along |axis| of |like|'s shape.
Value alongAxis(ImportContext &ctx, ConstTensor c, const Value &like, size_t axis,
                const std::string &hint) {
  Value v = ctx.constantValue(c, hint);
  return ctx.w.broadcastInDims(v, {int64_t(axis)}, ctx.w.shapeOf(like), hint);
}

Value resizeAxis(ImportContext &ctx, const ResizeMode &m, const Value &x, size_t axis,
                 const AxisTaps &taps, const std::string &h) {
  std::string t = x.type.elem;
  if (m.mode == "nearest") {
    // One of the two taps has weight 1.
    std::vector<int64_t> idx(taps.outside.size());
    for (size_t o = 0; o < idx.size(); ++o)
      idx[o] = taps.weight[1][o] == 1 ? taps.index[1][o] : taps.index[0][o];
    return gatherAt(ctx, x, axis, idx, h);
  }
  std::vector<Value> ops;
  for (size_t k = 0; k < taps.index.size(); ++k) {
    if (std::all_of(taps.weight[k].begin(), taps.weight[k].end(), [](double v) { return v == 0; }))
      continue;
    std::string hk = h + ".t" + std::to_string(k);
    Value g = gatherAt(ctx, x, axis, taps.index[k], hk);
    ConstTensor w;
    w.type = Type{t, {int64_t(taps.weight[k].size())}, false};
    w.f = taps.weight[k];
    ops.push_back(g);
    ops.push_back(alongAxis(ctx, w, g, axis, hk + ".w"));
  }
  bool extrapolate = std::any_of(taps.outside.begin(), taps.outside.end(), [](bool b) { return b; });
  if (ops.empty()) // every position extrapolated
    return ctx.w.splat(ctx.w.emit(h + ".e", "constant " + std::to_string(m.extrapolation),
                                  Type{t, {}, true})
                           .name,
                       t, [&] {
                         Shape s = ctx.w.shapeOf(x);
                         s[axis] = DimRef{int64_t(taps.outside.size()), "", 0, ""};
                         return s;
                       }(), h);
  if (extrapolate) {
    ConstTensor mask;
    mask.type = Type{"i1", {int64_t(taps.outside.size())}, false};
    for (bool b : taps.outside)
      mask.i.push_back(b);
    ops.push_back(alongAxis(ctx, mask, ops[0], axis, h + ".outside"));
  }
  return ctx.w.elementwise(
      ops, t,
      [&](Body &b, const std::vector<std::string> &a) {
        size_t pairs = (ops.size() - (extrapolate ? 1 : 0)) / 2;
        std::string acc;
        for (size_t k = 0; k < pairs; ++k) {
          std::string p = b.op("mul " + a[2 * k] + ", " + a[2 * k + 1], t);
          acc = acc.empty() ? p : b.op("add " + acc + ", " + p, t);
        }
        if (extrapolate)
          acc = b.op("select " + a.back() + ", " + b.constant(m.extrapolation, t) + ", " + acc, t);
        return acc;
      },
      h);
}

// Input |k| as a constant, or none when absent or empty.
bool optionalConstant(ImportContext &ctx, size_t k, const char *role, ConstTensor &out,
                      bool &given) {
  given = false;
  if (!ctx.hasInput(k))
    return true;
  if (!ctx.constantInput(k, role, out))
    return false;
  given = out.count() > 0;
  return true;
}

} // namespace

bool lowerResize(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside",
                      "extrapolation_value", "mode", "nearest_mode"}))
    return false;
  ResizeMode m;
  auto str = [&](const char *name, std::string &out) {
    if (const auto *a = ctx.attr(name))
      out = a->s();
  };
  str("mode", m.mode);
  str("coordinate_transformation_mode", m.ctm);
  str("nearest_mode", m.nearest);
  m.cubicA = ctx.attrFloat("cubic_coeff_a", -0.75f);
  m.extrapolation = ctx.attrFloat("extrapolation_value", 0.0f);
  m.excludeOutside = ctx.attrInt("exclude_outside", 0) != 0;
  if (m.mode != "nearest" && m.mode != "linear" && m.mode != "cubic")
    return ctx.fail("mode '" + m.mode + "' is not supported (nearest, linear, cubic)");
  static const char *const kCtm[] = {"half_pixel", "asymmetric", "align_corners",
                                     "pytorch_half_pixel", "tf_half_pixel_for_nn",
                                     "tf_crop_and_resize"};
  if (std::find_if(std::begin(kCtm), std::end(kCtm), [&](const char *c) { return m.ctm == c; }) ==
      std::end(kCtm))
    return ctx.fail("coordinate_transformation_mode '" + m.ctm +
                    "' is not supported (half_pixel, asymmetric, align_corners, "
                    "pytorch_half_pixel, tf_half_pixel_for_nn, tf_crop_and_resize)");
  if (m.nearest != "round_prefer_floor" && m.nearest != "round_prefer_ceil" &&
      m.nearest != "floor" && m.nearest != "ceil")
    return ctx.fail("nearest_mode '" + m.nearest +
                    "' is not supported (round_prefer_floor, round_prefer_ceil, floor, ceil)");
  Value x;
  if (!ctx.input(0, x))
    return false;
  std::string t = x.type.elem;
  if (m.mode != "nearest" && t[0] != 'f' && t != "bf16")
    return ctx.fail("mode " + m.mode + " with element type " + t +
                    " is not supported (float types only; nearest takes any)");
  ConstTensor roi, scales, sizes;
  bool hasRoi, hasScales, hasSizes;
  if (!optionalConstant(ctx, 1, "roi", roi, hasRoi) ||
      !optionalConstant(ctx, 2, "scales", scales, hasScales) ||
      !optionalConstant(ctx, 3, "sizes", sizes, hasSizes))
    return false;
  size_t r = x.type.rank();
  if (hasScales == hasSizes)
    return ctx.fail("exactly one of scales and sizes must be given");
  if ((hasScales ? scales.count() : sizes.count()) != r)
    return ctx.fail(std::string(hasScales ? "scales" : "sizes") + " has " +
                    std::to_string(hasScales ? scales.count() : sizes.count()) +
                    " entries for an input of rank " + std::to_string(r));
  bool crop = m.ctm == "tf_crop_and_resize";
  if (crop && (!hasRoi || roi.count() != 2 * r))
    return ctx.fail("tf_crop_and_resize needs roi with " + std::to_string(2 * r) + " entries");
  // The axes that change, from the last; the final one gets the node's name.
  struct Step {
    size_t d;
    int64_t in, out;
    double scale, roiStart, roiEnd;
  };
  std::vector<Step> steps;
  for (size_t d = r; d-- > 0;) {
    int64_t in = x.type.dims[d];
    double scale = hasScales ? (scales.isFloat() ? scales.f[d] : double(scales.i[d])) : 0;
    if (scale == 1.0 && !crop && hasScales)
      continue;
    if (in == kDynamic)
      return ctx.fail("dim " + std::to_string(d) +
                      " of the input is dynamic; graft needs the sizes it resizes when building");
    int64_t out = hasSizes ? sizes.i[d] : int64_t(std::floor(scale * double(in)));
    if (hasSizes)
      scale = double(out) / double(in);
    if (out == in && !crop)
      continue;
    if (out < 1 || out > (int64_t(1) << 32) || !(scale > 0))
      return ctx.fail("the output size along dim " + std::to_string(d) + " is " +
                      std::to_string(out) + "; graft sizes are 1 to 2^32");
    double rs = crop ? (roi.isFloat() ? roi.f[d] : double(roi.i[d])) : 0;
    double re = crop ? (roi.isFloat() ? roi.f[d + r] : double(roi.i[d + r])) : 1;
    steps.push_back({d, in, out, scale, rs, re});
  }
  Value y = x;
  for (size_t k = 0; k < steps.size(); ++k) {
    const Step &s = steps[k];
    y = resizeAxis(ctx, m, y, s.d, axisTaps(m, s.in, s.out, s.scale, s.roiStart, s.roiEnd),
                   k + 1 == steps.size() ? ctx.hint() : ctx.hint() + ".d" + std::to_string(s.d));
  }
  ctx.setOutput(0, y);
  return true;
}

} // namespace graft::onnx_import
