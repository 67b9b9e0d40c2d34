// DepthToSpace and SpaceToDepth move blocks of b x b pixels between the
// channel dim and the spatial dims of an N x C x H x W tensor. Each is a
// `reshape` to 6-D, a `transpose` and a `reshape` back, as the ONNX
// definitions spell them out:
//
//   DepthToSpace DCR: [N, b, b, C/b², H, W] perm [0, 3, 4, 1, 5, 2]
//   DepthToSpace CRD: [N, C/b², b, b, H, W] perm [0, 1, 4, 2, 5, 3]
//   -> [N, C/b², H*b, W*b]
//   SpaceToDepth:     [N, C, H/b, b, W/b, b] perm [0, 3, 5, 1, 2, 4]
//   -> [N, C*b², H/b, W/b]
//
// The channel count must be known when building (it is split); N, and for
// DepthToSpace H and W, may be dynamic.
#include "onnx/OnnxSpaceDepth.h"

namespace graft::onnx_import {

namespace {

DimRef fixed(int64_t n) { return DimRef{n, "", 0, ""}; }

// The blocksize attribute and the checks both ops share; |in| gets x's shape.
bool blockArgs(ImportContext &ctx, const Value &x, int64_t &b, Shape &in) {
  if (x.type.rank() != 4)
    return ctx.fail("the input must have rank 4 (N x C x H x W), has rank " +
                    std::to_string(x.type.rank()));
  if (!ctx.attr("blocksize"))
    return ctx.fail("attribute 'blocksize' is required");
  b = ctx.attrInt("blocksize", 0);
  if (b < 1 || b > (int64_t(1) << 16))
    return ctx.fail("blocksize " + std::to_string(b) + " is out of range (1 to 65536)");
  in = ctx.w.shapeOf(x);
  if (in[1].size == kDynamic)
    return ctx.fail("the channel count is dynamic; graft needs it when building");
  return true;
}

} // namespace

bool lowerDepthToSpace(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"blocksize", "mode"}))
    return false;
  Value x;
  int64_t b;
  Shape in;
  if (!ctx.input(0, x) || !blockArgs(ctx, x, b, in))
    return false;
  std::string mode = "DCR";
  if (const auto *a = ctx.attr("mode"))
    mode = a->s();
  if (mode != "DCR" && mode != "CRD")
    return ctx.fail("mode '" + mode + "' is not supported (DCR, CRD)");
  int64_t c = in[1].size;
  if (c % (b * b) != 0)
    return ctx.fail("the channel count " + std::to_string(c) + " is not a multiple of blocksize² " +
                    std::to_string(b * b));
  DimRef n = in[0], h = in[2], w = in[3], cb = fixed(c / (b * b)), bb = fixed(b);
  bool dcr = mode == "DCR";
  Shape six = dcr ? Shape{n, bb, bb, cb, h, w} : Shape{n, cb, bb, bb, h, w};
  std::vector<int64_t> perm = dcr ? std::vector<int64_t>{0, 3, 4, 1, 5, 2}
                                  : std::vector<int64_t>{0, 1, 4, 2, 5, 3};
  GraphWriter &gw = ctx.w;
  Value t = gw.transpose(gw.reshape(x, six, ctx.hint() + ".blocks"), perm, ctx.hint() + ".moved");
  Shape out{n, cb, gw.product(Shape{h, bb}, 0, 2), gw.product(Shape{w, bb}, 0, 2)};
  ctx.setOutput(0, gw.reshape(t, out, ctx.hint()));
  return true;
}

bool lowerSpaceToDepth(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"blocksize"}))
    return false;
  Value x;
  int64_t b;
  Shape in;
  if (!ctx.input(0, x) || !blockArgs(ctx, x, b, in))
    return false;
  for (unsigned d = 2; d < 4; ++d) {
    if (in[d].size == kDynamic)
      return ctx.fail("spatial dim " + std::to_string(d) +
                      " is dynamic; graft needs it when building (it is split into blocks)");
    if (in[d].size % b != 0)
      return ctx.fail("spatial dim " + std::to_string(d) + " has size " +
                      std::to_string(in[d].size) + ", not a multiple of blocksize " +
                      std::to_string(b));
  }
  DimRef n = in[0], c = in[1], bb = fixed(b), hb = fixed(in[2].size / b), wb = fixed(in[3].size / b);
  GraphWriter &gw = ctx.w;
  Value t = gw.transpose(gw.reshape(x, Shape{n, c, hb, bb, wb, bb}, ctx.hint() + ".blocks"),
                         {0, 3, 5, 1, 2, 4}, ctx.hint() + ".moved");
  ctx.setOutput(0, gw.reshape(t, Shape{n, fixed(c.size * b * b), hb, wb}, ctx.hint()));
  return true;
}

} // namespace graft::onnx_import
