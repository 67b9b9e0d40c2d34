// The lowering of each ONNX op onto graft ops (docs/onnx.md has the table).
// Each lowering reads its inputs and attributes from ImportContext, emits
// graft statements through the GraphWriter and binds the node's outputs;
// what it cannot express it reports (ctx.fail / ctx.unsupported).
#include "onnx/ImportContext.h"
#include "onnx/OnnxCompress.h"
#include "onnx/OnnxConv.h"
#include "onnx/OnnxDataMovement.h"
#include "onnx/OnnxEinsum.h"
#include "onnx/OnnxLoss.h"
#include "onnx/OnnxOneHot.h"
#include "onnx/OnnxReductions.h"
#include "onnx/OnnxResize.h"
#include "onnx/OnnxSpaceDepth.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

namespace graft::onnx_import {

namespace {

bool isFloat(const std::string &elem) { return elem[0] == 'f' || elem == "bf16"; }

// f16 and bf16: graft's storage floats, computed in f32.
bool isNarrowFloat(const std::string &elem) { return elem == "f16" || elem == "bf16"; }

bool needFloat(ImportContext &ctx, const Value &v) { return ctx.needFloat(v); }

bool needNumeric(ImportContext &ctx, const Value &v) {
  if (v.type.elem != "i1")
    return true;
  return ctx.fail("element type i1 (BOOL) is not supported: the op needs numbers");
}

bool bind(ImportContext &ctx, const Value &v) {
  if (v.name.empty())
    return ctx.fail("input shapes do not broadcast (numpy rules)");
  ctx.setOutput(0, v);
  return true;
}

// One-operand elementwise ops: |fn| computes the result from the block
// argument inside the body.
using Scalar1 = std::function<std::string(Body &, const std::string &x, const std::string &t)>;

bool unary(ImportContext &ctx, bool floatOnly, const Scalar1 &fn, const std::string &resultElem = "") {
  Value x;
  if (!ctx.input(0, x) || !(floatOnly ? needFloat(ctx, x) : needNumeric(ctx, x)))
    return false;
  std::string t = x.type.elem;
  return bind(ctx, ctx.w.elementwise(
                       {x}, resultElem.empty() ? t : resultElem,
                       [&](Body &b, const std::vector<std::string> &a) { return fn(b, a[0], t); },
                       ctx.hint()));
}

std::string scalarOp(Body &b, const char *op, const std::string &x, const std::string &t) {
  return b.op(std::string(op) + " " + x, t);
}
std::string binOp(Body &b, const char *op, const std::string &x, const std::string &y,
                  const std::string &t) {
  return b.op(std::string(op) + " " + x + ", " + y, t);
}
std::string cmpOp(Body &b, const char *pred, const std::string &x, const std::string &y) {
  return b.op("cmp " + x + ", " + y + " {pred = " + pred + "}", "i1");
}
std::string selectOp(Body &b, const std::string &c, const std::string &x, const std::string &y,
                     const std::string &t) {
  return b.op("select " + c + ", " + x + ", " + y, t);
}

// A simple one-op unary lowering.
bool simpleUnary(ImportContext &ctx, const char *op, bool floatOnly) {
  if (!ctx.onlyAttrs({}))
    return false;
  return unary(ctx, floatOnly, [op](Body &b, const std::string &x, const std::string &t) {
    return scalarOp(b, op, x, t);
  });
}

bool lowerAbs(ImportContext &ctx) { return simpleUnary(ctx, "abs", false); }
bool lowerNeg(ImportContext &ctx) { return simpleUnary(ctx, "neg", false); }
bool lowerExp(ImportContext &ctx) { return simpleUnary(ctx, "exp", true); }
bool lowerLog(ImportContext &ctx) { return simpleUnary(ctx, "log", true); }
bool lowerTanh(ImportContext &ctx) { return simpleUnary(ctx, "tanh", true); }
bool lowerSqrt(ImportContext &ctx) { return simpleUnary(ctx, "sqrt", true); }
bool lowerSigmoid(ImportContext &ctx) { return simpleUnary(ctx, "sigmoid", true); }
bool lowerSign(ImportContext &ctx) { return simpleUnary(ctx, "sign", false); }
bool lowerFloor(ImportContext &ctx) { return simpleUnary(ctx, "floor", true); }
bool lowerCeil(ImportContext &ctx) { return simpleUnary(ctx, "ceil", true); }
bool lowerRound(ImportContext &ctx) { return simpleUnary(ctx, "round", true); }
bool lowerErf(ImportContext &ctx) { return simpleUnary(ctx, "erf", true); }
bool lowerSin(ImportContext &ctx) { return simpleUnary(ctx, "sin", true); }
bool lowerCos(ImportContext &ctx) { return simpleUnary(ctx, "cos", true); }

// sin x / cos x
bool lowerTan(ImportContext &ctx) {
  return ctx.onlyAttrs({}) && unary(ctx, true, [](Body &b, const std::string &x, const std::string &t) {
           return binOp(b, "div", scalarOp(b, "sin", x, t), scalarOp(b, "cos", x, t), t);
         });
}

// (expm1(x) - expm1(-x)) / 2: no cancellation near 0.
bool lowerSinh(ImportContext &ctx) {
  return ctx.onlyAttrs({}) && unary(ctx, true, [](Body &b, const std::string &x, const std::string &t) {
           std::string d = binOp(b, "sub", scalarOp(b, "expm1", x, t),
                                 scalarOp(b, "expm1", scalarOp(b, "neg", x, t), t), t);
           return binOp(b, "mul", d, b.constant(0.5, t), t);
         });
}

// (exp(x) + exp(-x)) / 2
bool lowerCosh(ImportContext &ctx) {
  return ctx.onlyAttrs({}) && unary(ctx, true, [](Body &b, const std::string &x, const std::string &t) {
           std::string s = binOp(b, "add", scalarOp(b, "exp", x, t),
                                 scalarOp(b, "exp", scalarOp(b, "neg", x, t), t), t);
           return binOp(b, "mul", s, b.constant(0.5, t), t);
         });
}

bool lowerIsNaN(ImportContext &ctx) {
  return ctx.onlyAttrs({}) && unary(
                                  ctx, true,
                                  [](Body &b, const std::string &x, const std::string &) {
                                    return b.op("isnan " + x, "i1");
                                  },
                                  "i1");
}

// isinf, or x == +inf / x == -inf when one sign is not detected.
bool lowerIsInf(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"detect_negative", "detect_positive"}))
    return false;
  bool neg = ctx.attrInt("detect_negative", 1) != 0, pos = ctx.attrInt("detect_positive", 1) != 0;
  return unary(
      ctx, true,
      [=](Body &b, const std::string &x, const std::string &t) {
        if (neg && pos)
          return b.op("isinf " + x, "i1");
        if (!neg && !pos)
          return b.boolean(false);
        return cmpOp(b, "eq", x, b.constant(pos ? INFINITY : -INFINITY, t));
      },
      "i1");
}

bool lowerRelu(ImportContext &ctx) {
  return ctx.onlyAttrs({}) && unary(ctx, false, [](Body &b, const std::string &x, const std::string &t) {
           return binOp(b, "max", x, b.constant(0, t), t);
         });
}

bool lowerReciprocal(ImportContext &ctx) {
  return ctx.onlyAttrs({}) && unary(ctx, true, [](Body &b, const std::string &x, const std::string &t) {
           return binOp(b, "div", b.constant(1, t), x, t);
         });
}

// log(exp(x) + 1)
bool lowerSoftplus(ImportContext &ctx) {
  return ctx.onlyAttrs({}) && unary(ctx, true, [](Body &b, const std::string &x, const std::string &t) {
           std::string e = scalarOp(b, "exp", x, t);
           return scalarOp(b, "log", binOp(b, "add", e, b.constant(1, t), t), t);
         });
}

// x < 0 ? alpha * (exp(x) - 1) : x
bool lowerElu(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"alpha"}))
    return false;
  double alpha = ctx.attrFloat("alpha", 1.0f);
  return unary(ctx, true, [alpha](Body &b, const std::string &x, const std::string &t) {
    std::string em1 = binOp(b, "sub", scalarOp(b, "exp", x, t), b.constant(1, t), t);
    std::string neg = binOp(b, "mul", b.constant(alpha, t), em1, t);
    return selectOp(b, cmpOp(b, "lt", x, b.constant(0, t)), neg, x, t);
  });
}

// x > 0 ? gamma * x : gamma * (alpha * exp(x) - alpha)
bool lowerSelu(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"alpha", "gamma"}))
    return false;
  double alpha = ctx.attrFloat("alpha", 1.67326319217681884765625f);
  double gamma = ctx.attrFloat("gamma", 1.05070102214813232421875f);
  return unary(ctx, true, [=](Body &b, const std::string &x, const std::string &t) {
    std::string a = b.constant(alpha, t), g = b.constant(gamma, t);
    std::string neg =
        binOp(b, "sub", binOp(b, "mul", a, scalarOp(b, "exp", x, t), t), a, t);
    std::string v = selectOp(b, cmpOp(b, "gt", x, b.constant(0, t)), x, neg, t);
    return binOp(b, "mul", g, v, t);
  });
}

// x < 0 ? alpha * x : x
bool lowerLeakyRelu(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"alpha"}))
    return false;
  double alpha = ctx.attrFloat("alpha", 0.01f);
  return unary(ctx, true, [alpha](Body &b, const std::string &x, const std::string &t) {
    std::string ax = binOp(b, "mul", b.constant(alpha, t), x, t);
    return selectOp(b, cmpOp(b, "lt", x, b.constant(0, t)), ax, x, t);
  });
}

// max(0, min(1, alpha * x + beta))
std::string hardSigmoid(Body &b, const std::string &x, const std::string &t, double alpha,
                        double beta) {
  std::string v =
      binOp(b, "add", binOp(b, "mul", b.constant(alpha, t), x, t), b.constant(beta, t), t);
  v = binOp(b, "min", b.constant(1, t), v, t);
  return binOp(b, "max", b.constant(0, t), v, t);
}

bool lowerHardSigmoid(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"alpha", "beta"}))
    return false;
  double alpha = ctx.attrFloat("alpha", 0.2f), beta = ctx.attrFloat("beta", 0.5f);
  return unary(ctx, true, [=](Body &b, const std::string &x, const std::string &t) {
    return hardSigmoid(b, x, t, alpha, beta);
  });
}

// x > alpha ? x : 0
bool lowerThresholdedRelu(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"alpha"}))
    return false;
  double alpha = ctx.attrFloat("alpha", 1.0f);
  return unary(ctx, true, [alpha](Body &b, const std::string &x, const std::string &t) {
    return selectOp(b, cmpOp(b, "gt", x, b.constant(alpha, t)), x, b.constant(0, t), t);
  });
}

// x / (1 + |x|)
bool lowerSoftsign(ImportContext &ctx) {
  return ctx.onlyAttrs({}) && unary(ctx, true, [](Body &b, const std::string &x, const std::string &t) {
           std::string d = binOp(b, "add", b.constant(1, t), scalarOp(b, "abs", x, t), t);
           return binOp(b, "div", x, d, t);
         });
}

// x * HardSigmoid(x) with alpha 1/6, beta 0.5
bool lowerHardSwish(ImportContext &ctx) {
  return ctx.onlyAttrs({}) && unary(ctx, true, [](Body &b, const std::string &x, const std::string &t) {
           return binOp(b, "mul", x, hardSigmoid(b, x, t, 1.0 / 6.0, 0.5), t);
         });
}

// max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
bool lowerCelu(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"alpha"}))
    return false;
  double alpha = ctx.attrFloat("alpha", 1.0f);
  return unary(ctx, true, [alpha](Body &b, const std::string &x, const std::string &t) {
    std::string zero = b.constant(0, t), a = b.constant(alpha, t);
    std::string e = scalarOp(b, "exp", binOp(b, "div", x, a, t), t);
    std::string neg = binOp(b, "mul", a, binOp(b, "sub", e, b.constant(1, t), t), t);
    return binOp(b, "add", binOp(b, "max", zero, x, t), binOp(b, "min", zero, neg, t), t);
  });
}

// x * tanh(log(1 + exp(x)))
bool lowerMish(ImportContext &ctx) {
  return ctx.onlyAttrs({}) && unary(ctx, true, [](Body &b, const std::string &x, const std::string &t) {
           std::string sp = scalarOp(b, "log", binOp(b, "add", b.constant(1, t), scalarOp(b, "exp", x, t), t), t);
           return binOp(b, "mul", x, scalarOp(b, "tanh", sp, t), t);
         });
}

bool lowerNot(ImportContext &ctx) {
  Value x;
  if (!ctx.onlyAttrs({}) || !ctx.input(0, x))
    return false;
  if (x.type.elem != "i1")
    return ctx.fail("element type " + x.type.elem + " is not supported (BOOL only)");
  return bind(ctx, ctx.w.elementwise(
                       {x}, "i1",
                       [](Body &b, const std::vector<std::string> &a) {
                         return selectOp(b, a[0], b.boolean(false), b.boolean(true), "i1");
                       },
                       ctx.hint()));
}

// Output 0 is |x| converted to element type |to| (graft's `cast`, element
// by element), or |x| itself when it has that type: Cast and CastLike.
bool bindCast(ImportContext &ctx, const Value &x, const std::string &to) {
  if (to == x.type.elem) {
    ctx.setOutput(0, x);
    return true;
  }
  return bind(ctx, ctx.w.elementwise(
                       {x}, to,
                       [&](Body &b, const std::vector<std::string> &a) {
                         return b.op("cast " + a[0], to);
                       },
                       ctx.hint()));
}

bool lowerCast(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"to", "saturate"}))
    return false;
  Value x;
  if (!ctx.input(0, x))
    return false;
  std::string onnxName;
  std::string to = elemForOnnxType(int32_t(ctx.attrInt("to", 0)), &onnxName);
  if (to.empty())
    return ctx.fail("cast to " + onnxName + " " +
                    noElemTypeReason(int32_t(ctx.attrInt("to", 0))));
  return bindCast(ctx, x, to);
}

// Cast to the element type of input 1.
bool lowerCastLike(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"saturate"}))
    return false;
  Value x, like;
  if (!ctx.input(0, x) || !ctx.input(1, like))
    return false;
  return bindCast(ctx, x, like.type.elem);
}

bool lowerIdentity(ImportContext &ctx) {
  Value x;
  if (!ctx.onlyAttrs({}) || !ctx.input(0, x))
    return false;
  ctx.setOutput(0, x);
  return true;
}

// The output is the input, the mask all true: in inference, and in
// training with ratio 0 (nothing dropped, a scale of 1 / (1 - 0)). Any
// other training ratio draws a random mask, which graft does not.
bool lowerDropout(ImportContext &ctx) {
  // Before opset 12 the ratio is an attribute (inference ignores it).
  if (!(ctx.opset < 12 ? ctx.onlyAttrs({"ratio"}) : ctx.onlyAttrs({"seed"})))
    return false;
  Value x;
  if (!ctx.input(0, x))
    return false;
  if (ctx.hasInput(2)) {
    ConstTensor training;
    if (!ctx.constantInput(2, "training_mode", training))
      return false;
    bool train = training.count() != 1 || training.i.empty() || training.i[0] != 0;
    ConstTensor ratio;
    if (train && !ctx.hasInput(1))
      return ctx.unsupported("random", "training_mode = true with the default ratio 0.5 draws "
                                       "random numbers; only ratio 0 is supported in training");
    if (train && !ctx.constantInput(1, "ratio", ratio))
      return false;
    if (train && (ratio.count() != 1 || !ratio.isFloat() || ratio.f[0] != 0.0))
      return ctx.unsupported("random", "training_mode = true with ratio " +
                                           (ratio.count() == 1 ? ratio.literal(0) : std::string("?")) +
                                           " draws random numbers; only ratio 0 is supported in training");
  }
  ctx.setOutput(0, x);
  if (ctx.wantsOutput(1)) {
    std::string t = ctx.w.emit(ctx.hint() + ".true", "constant true", Type{"i1", {}, true}).name;
    ctx.setOutput(1, ctx.w.splat(t, "i1", ctx.w.shapeOf(x), ctx.node->output(1)));
  }
  return true;
}

// max(x, min) then min(., max); min and max are optional scalars.
bool lowerClip(ImportContext &ctx) {
  if (!ctx.onlyAttrs({}))
    return false;
  Value x, lo, hi;
  if (!ctx.input(0, x) || !needNumeric(ctx, x))
    return false;
  std::vector<Value> ops{x};
  bool hasLo = ctx.hasInput(1), hasHi = ctx.hasInput(2);
  if (hasLo) {
    if (!ctx.input(1, lo))
      return false;
    ops.push_back(lo);
  }
  if (hasHi) {
    if (!ctx.input(2, hi))
      return false;
    ops.push_back(hi);
  }
  for (const Value &v : ops)
    if (v.type.elem != x.type.elem)
      return ctx.fail("min and max must have the input's element type " + x.type.elem);
  std::string t = x.type.elem;
  return bind(ctx, ctx.w.elementwise(
                       ops, t,
                       [&](Body &b, const std::vector<std::string> &a) {
                         std::string v = a[0];
                         size_t k = 1;
                         if (hasLo)
                           v = binOp(b, "max", v, a[k++], t);
                         if (hasHi)
                           v = binOp(b, "min", v, a[k], t);
                         return v;
                       },
                       ctx.hint()));
}

// Two (or more, for the variadic ops) operands with numpy broadcasting.
using ScalarN = std::function<std::string(Body &, const std::vector<std::string> &, const std::string &t)>;

bool nary(ImportContext &ctx, size_t minInputs, bool sameType, const std::string &resultElem,
          const ScalarN &fn, bool (*check)(ImportContext &, const Value &) = needNumeric) {
  if (!ctx.onlyAttrs({}))
    return false;
  std::vector<Value> ops;
  for (int k = 0; k < ctx.node->input_size(); ++k) {
    Value v;
    if (!ctx.input(size_t(k), v) || (check && !check(ctx, v)))
      return false;
    ops.push_back(v);
  }
  if (ops.size() < minInputs)
    return ctx.fail("needs at least " + std::to_string(minInputs) + " inputs, has " +
                    std::to_string(ops.size()));
  if (sameType)
    for (const Value &v : ops)
      if (v.type.elem != ops[0].type.elem)
        return ctx.fail("inputs have different element types: " + ops[0].type.elem + " and " +
                        v.type.elem);
  std::string t = ops[0].type.elem;
  return bind(ctx, ctx.w.elementwise(
                       ops, resultElem.empty() ? t : resultElem,
                       [&](Body &b, const std::vector<std::string> &a) { return fn(b, a, t); },
                       ctx.hint()));
}

ScalarN fold(const char *op) {
  return [op](Body &b, const std::vector<std::string> &a, const std::string &t) {
    std::string v = a[0];
    for (size_t k = 1; k < a.size(); ++k)
      v = binOp(b, op, v, a[k], t);
    return v;
  };
}

// X ^ Y with numpy broadcasting: the result has X's element type, Y may be
// of any numeric type. A float X: Y is converted to it and graft's pow
// does the rest. An integer X: pow in f64, then cast back (truncating, as
// numpy's astype), where an f64 result within 2^-40 (relative) of an
// integer is taken as that integer: graft's f64 pow is not correctly
// rounded (3^6 may come out as 728.9999999999999). Exact while the result
// is below 2^53; a result outside the type saturates where numpy wraps.
bool lowerPow(ImportContext &ctx) {
  Value x, y;
  if (!ctx.onlyAttrs({}) || !ctx.input(0, x) || !ctx.input(1, y) || !needNumeric(ctx, x) ||
      !needNumeric(ctx, y))
    return false;
  std::string t = x.type.elem;
  bool floatBase = isFloat(t);
  return bind(ctx, ctx.w.elementwise(
                       {x, y}, t,
                       [&](Body &b, const std::vector<std::string> &a) {
                         std::string pt = floatBase ? t : "f64";
                         std::string base = floatBase ? a[0] : b.op("cast " + a[0], pt);
                         std::string e = y.type.elem == pt ? a[1] : b.op("cast " + a[1], pt);
                         std::string p = binOp(b, "pow", base, e, pt);
                         if (floatBase)
                           return p;
                         std::string n = scalarOp(b, "round", p, pt);
                         std::string off = scalarOp(b, "abs", binOp(b, "sub", p, n, pt), pt);
                         std::string tol = binOp(b, "mul", scalarOp(b, "abs", p, pt),
                                                 b.constant(0x1p-40, pt), pt);
                         std::string near = cmpOp(b, "le", off, tol);
                         return b.op("cast " + selectOp(b, near, n, p, pt), t);
                       },
                       ctx.hint()));
}

bool lowerAdd(ImportContext &ctx) { return nary(ctx, 2, true, "", fold("add")); }
bool lowerSub(ImportContext &ctx) { return nary(ctx, 2, true, "", fold("sub")); }
bool lowerMul(ImportContext &ctx) { return nary(ctx, 2, true, "", fold("mul")); }
bool lowerMax(ImportContext &ctx) { return nary(ctx, 1, true, "", fold("max")); }
bool lowerMin(ImportContext &ctx) { return nary(ctx, 1, true, "", fold("min")); }
bool lowerSum(ImportContext &ctx) { return nary(ctx, 1, true, "", fold("add")); }

bool lowerMean(ImportContext &ctx) {
  return nary(
      ctx, 1, true, "",
      [](Body &b, const std::vector<std::string> &a, const std::string &t) {
        std::string v = fold("add")(b, a, t);
        return a.size() == 1 ? v : binOp(b, "div", v, b.constant(double(a.size()), t), t);
      },
      needFloat);
}

// Whether an integer floor division of |a| by |d| (floor remainder |r|)
// differs from the truncating one: |r| is nonzero and the signs differ.
std::string truncFix(Body &b, const std::string &r, const std::string &a, const std::string &d,
                     const std::string &t) {
  std::string zero = b.constant(0, t);
  std::string inexact = cmpOp(b, "ne", r, zero);
  std::string signs = cmpOp(b, "ne", cmpOp(b, "lt", a, zero), cmpOp(b, "lt", d, zero));
  return selectOp(b, inexact, signs, b.boolean(false), "i1");
}

// ONNX divides integers toward zero; graft's div floors: add one back where
// they differ.
bool lowerDiv(ImportContext &ctx) {
  return nary(ctx, 2, true, "", [](Body &b, const std::vector<std::string> &a, const std::string &t) {
    std::string q = binOp(b, "div", a[0], a[1], t);
    if (isFloat(t))
      return q;
    std::string fix = truncFix(b, binOp(b, "rem", a[0], a[1], t), a[0], a[1], t);
    return selectOp(b, fix, binOp(b, "add", q, b.constant(1, t), t), q, t);
  });
}

// fmod = 0 (integers): the remainder has the divisor's sign, which is
// graft's rem. fmod = 1: the dividend's sign (C's fmod), which is graft's
// float rem; for integers the floor remainder is corrected.
bool lowerMod(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"fmod"}))
    return false;
  bool fmod = ctx.attrInt("fmod", 0) != 0;
  Value a;
  if (!ctx.input(0, a))
    return false;
  if (isFloat(a.type.elem) && !fmod)
    return ctx.fail("fmod = 0 with float inputs is not valid ONNX (float Mod needs fmod = 1)");
  std::vector<Value> ops;
  for (size_t k = 0; k < 2; ++k) {
    Value v;
    if (!ctx.input(k, v) || !needNumeric(ctx, v))
      return false;
    ops.push_back(v);
  }
  if (ops[0].type.elem != ops[1].type.elem)
    return ctx.fail("inputs have different element types: " + ops[0].type.elem + " and " +
                    ops[1].type.elem);
  std::string t = a.type.elem;
  return bind(ctx, ctx.w.elementwise(
                       ops, t,
                       [&](Body &b, const std::vector<std::string> &x) {
                         std::string r = binOp(b, "rem", x[0], x[1], t);
                         if (!fmod || isFloat(t))
                           return r;
                         std::string fix = truncFix(b, r, x[0], x[1], t);
                         return selectOp(b, fix, binOp(b, "sub", r, x[1], t), r, t);
                       },
                       ctx.hint()));
}

bool compare(ImportContext &ctx, const char *pred, bool allowBool) {
  return nary(
      ctx, 2, true, "i1",
      [pred](Body &b, const std::vector<std::string> &a, const std::string &) {
        return cmpOp(b, pred, a[0], a[1]);
      },
      allowBool ? nullptr : needNumeric);
}

bool lowerEqual(ImportContext &ctx) { return compare(ctx, "eq", true); }
bool lowerGreater(ImportContext &ctx) { return compare(ctx, "gt", false); }
bool lowerLess(ImportContext &ctx) { return compare(ctx, "lt", false); }
bool lowerGreaterOrEqual(ImportContext &ctx) { return compare(ctx, "ge", false); }
bool lowerLessOrEqual(ImportContext &ctx) { return compare(ctx, "le", false); }

bool needBool(ImportContext &ctx, const Value &v) {
  if (v.type.elem == "i1")
    return true;
  return ctx.fail("element type " + v.type.elem + " is not supported (BOOL only)");
}

bool lowerAnd(ImportContext &ctx) {
  return nary(
      ctx, 2, true, "i1",
      [](Body &b, const std::vector<std::string> &a, const std::string &) {
        return selectOp(b, a[0], a[1], b.boolean(false), "i1");
      },
      needBool);
}
bool lowerOr(ImportContext &ctx) {
  return nary(
      ctx, 2, true, "i1",
      [](Body &b, const std::vector<std::string> &a, const std::string &) {
        return selectOp(b, a[0], b.boolean(true), a[1], "i1");
      },
      needBool);
}
bool lowerXor(ImportContext &ctx) {
  return nary(
      ctx, 2, true, "i1",
      [](Body &b, const std::vector<std::string> &a, const std::string &) {
        return cmpOp(b, "ne", a[0], a[1]);
      },
      needBool);
}

bool lowerWhere(ImportContext &ctx) {
  if (!ctx.onlyAttrs({}))
    return false;
  Value c, x, y;
  if (!ctx.input(0, c) || !ctx.input(1, x) || !ctx.input(2, y))
    return false;
  if (c.type.elem != "i1")
    return ctx.fail("condition has element type " + c.type.elem + "; expected BOOL");
  if (x.type.elem != y.type.elem)
    return ctx.fail("X and Y have different element types: " + x.type.elem + " and " +
                    y.type.elem);
  std::string t = x.type.elem;
  return bind(ctx, ctx.w.elementwise(
                       {c, x, y}, t,
                       [&](Body &b, const std::vector<std::string> &a) {
                         return selectOp(b, a[0], a[1], a[2], t);
                       },
                       ctx.hint()));
}

// x < 0 ? slope * x : x
bool lowerPRelu(ImportContext &ctx) {
  return nary(
      ctx, 2, true, "",
      [](Body &b, const std::vector<std::string> &a, const std::string &t) {
        std::string sx = binOp(b, "mul", a[1], a[0], t);
        return selectOp(b, cmpOp(b, "lt", a[0], b.constant(0, t)), sx, a[0], t);
      },
      needFloat);
}

// ---- matrix products --------------------------------------------------

Value zeroAccumulator(ImportContext &ctx, const std::string &elem, const Shape &s) {
  Body unused;
  std::string zero = ctx.w.emit("zero", isFloat(elem) ? "constant 0.0" : "constant 0",
                                Type{elem, {}, true})
                         .name;
  return ctx.w.splat(zero, elem, s, ctx.hint() + ".acc");
}

// numpy matmul: 1-D operands get a unit dim, batch dims broadcast. f16
// and bf16 operands accumulate in f32 (graft's mixed-precision matmul,
// whose packed microkernel takes them), and the result is rounded back to
// their type once: what ONNX Runtime's CPU provider computes for them
// (it runs such a MatMul in f32), more exact than sums rounded at every
// step, and the fast path. With |sumElem| (MatMulInteger: i32) the sums
// and the result are of that type.
bool matmul(ImportContext &ctx, const Value &a0, const Value &b0, const std::string &hint,
            Value &out, const std::string &sumElem = "") {
  GraphWriter &w = ctx.w;
  if (!ctx.needRank(a0, 1, "operand A") || !ctx.needRank(b0, 1, "operand B"))
    return false;
  if (a0.type.elem != b0.type.elem)
    return ctx.fail("operands have different element types: " + a0.type.elem + " and " +
                    b0.type.elem);
  if (a0.type.elem == "i1")
    return ctx.fail("element type i1 (BOOL) is not supported");
  Shape sa = w.shapeOf(a0), sb = w.shapeOf(b0);
  Value a = a0, b = b0;
  bool vecA = sa.size() == 1, vecB = sb.size() == 1;
  if (vecA) {
    sa.insert(sa.begin(), DimRef{1, "", 0, ""});
    a = w.reshape(a, sa, hint + ".lhs");
  }
  if (vecB) {
    sb.push_back(DimRef{1, "", 0, ""});
    b = w.reshape(b, sb, hint + ".rhs");
  }
  DimRef m = sa[sa.size() - 2], k = sa.back(), k2 = sb[sb.size() - 2], n = sb.back();
  if (k.size != kDynamic && k2.size != kDynamic && k.size != k2.size)
    return ctx.fail("inner dimensions differ: " + std::to_string(k.size) + " and " +
                    std::to_string(k2.size));
  Shape batch;
  if (!GraphWriter::broadcastShape({Shape(sa.begin(), sa.end() - 2), Shape(sb.begin(), sb.end() - 2)},
                                   batch))
    return ctx.fail("batch dimensions do not broadcast (numpy rules)");
  Shape rs = batch;
  rs.push_back(m);
  rs.push_back(n);
  Value r;
  const std::string elem = a.type.elem;
  const std::string accElem = !sumElem.empty() ? sumElem : isNarrowFloat(elem) ? "f32" : elem;
  const bool castBack = sumElem.empty() && accElem != elem;
  bool reshaped = vecA || vecB || batch.size() > 1 || castBack;
  std::string mmHint = reshaped ? hint + ".mm" : hint;
  if (batch.empty()) {
    Value acc = zeroAccumulator(ctx, accElem, rs);
    Type t{accElem, {m.size, n.size}, false};
    r = w.emit(mmHint, "matmul " + a.name + ", " + b.name + ", " + acc.name, t);
  } else if (sb.size() == 2) {
    // A batched lhs against a 2-D rhs (the weights of a layer over
    // [batch, seq, hidden]): the batch dims fold into the lhs's rows, one
    // matmul instead of a batch_matmul of the rhs broadcast to every batch
    // (a copy per call); a constant rhs then stays a constant, packed when
    // building (lib/dispatch/PackConstants.cpp). Each element adds its
    // products in the same order either way.
    DimRef rows = w.product(sa, 0, sa.size() - 1);
    Value a2 = w.reshape(a, Shape{rows, k}, hint + ".lhs");
    Value acc = zeroAccumulator(ctx, accElem, Shape{rows, n});
    Type t{accElem, {rows.size, n.size}, false};
    r = w.emit(hint + ".mm2", "matmul " + a2.name + ", " + b.name + ", " + acc.name, t);
    r = w.reshape(r, rs, vecB || castBack ? hint + ".mm" : hint);
  } else {
    Shape fa = batch, fb = batch;
    fa.push_back(m), fa.push_back(k), fb.push_back(k2), fb.push_back(n);
    a = w.broadcastTo(a, fa, hint + ".lhs");
    b = w.broadcastTo(b, fb, hint + ".rhs");
    DimRef bn = w.product(batch, 0, batch.size());
    if (batch.size() != 1) {
      a = w.reshape(a, Shape{bn, m, k}, hint + ".lhs");
      b = w.reshape(b, Shape{bn, k2, n}, hint + ".rhs");
    }
    Shape s3{bn, m, n};
    Value acc = zeroAccumulator(ctx, accElem, s3);
    Type t{accElem, {bn.size, m.size, n.size}, false};
    r = w.emit(mmHint, "batch_matmul " + a.name + ", " + b.name + ", " + acc.name, t);
    if (batch.size() != 1)
      r = w.reshape(r, rs, vecA || vecB || castBack ? hint + ".mm" : hint);
  }
  if (vecA || vecB) {
    Shape final = batch;
    if (!vecA)
      final.push_back(m);
    if (!vecB)
      final.push_back(n);
    r = w.reshape(r, final, castBack ? hint + ".mm" : hint);
  }
  if (castBack)
    r = w.elementwise(
        {r}, elem,
        [&](Body &bd, const std::vector<std::string> &x) { return bd.op("cast " + x[0], elem); },
        hint);
  out = r;
  return true;
}

bool lowerMatMul(ImportContext &ctx) {
  Value a, b, r;
  if (!ctx.onlyAttrs({}) || !ctx.input(0, a) || !ctx.input(1, b) ||
      !matmul(ctx, a, b, ctx.hint(), r))
    return false;
  ctx.setOutput(0, r);
  return true;
}

// MatMulInteger: int8 A and B (graft has no unsigned 8-bit type: a UINT8
// operand is refused where its type is read) summed exactly in int32,
// graft's i8 matmul (the packed microkernel of i8 pairs). Zero points:
// absent, or constants of one value (a scalar, or per-row or per-column
// ones that are all equal: per-channel weights quantized symmetrically
// have all zeros; differing ones are refused). Sum over k of (a - za)(b - zb) is
//   A @ B - zb * (A's row sums) - za * (B's column sums) + K * za * zb,
// all in i32 (each term wraps as the sum would, so the result is the
// exact sum wrapped to i32, as ONNX Runtime's): the matmul stays the fast
// i8 one, the row and column sums are reductions of the operands widened
// to i32, and one map adds the terms. Where B is a constant (weights), its
// terms, K * za * zb less za * (B's column sums), are one constant
// computed here: no call reads B but the matmul (which then reads it
// packed when built, and the slice carries no copy as written), where the
// reduction read all of it on every call (as much memory as a one-row
// matmul).
bool lowerMatMulInteger(ImportContext &ctx) {
  Value a, b, r;
  if (!ctx.onlyAttrs({}) || !ctx.input(0, a) || !ctx.input(1, b))
    return false;
  const char *roles[] = {"a_zero_point", "b_zero_point"};
  int64_t zero[2] = {0, 0};
  for (size_t k = 2; k < 4; ++k) {
    if (!ctx.hasInput(k))
      continue;
    ConstTensor zp;
    if (!ctx.constantInput(k, roles[k - 2], zp))
      return false;
    // (A's rows are its next-to-last dim, B's columns its last.)
    const Value &of = k == 2 ? a : b;
    const int64_t along = k == 2 ? (of.type.rank() >= 2 ? of.type.dims[of.type.rank() - 2] : 1)
                                 : (of.type.rank() >= 2 ? of.type.dims.back() : 1);
    const int64_t n = int64_t(zp.i.size());
    if (zp.type.rank() > 1 || n == 0 || (n != 1 && along != kDynamic && n != along))
      return ctx.fail(std::string(roles[k - 2]) + " must be a scalar or hold one value a " +
                      (k == 2 ? "row of A" : "column of B") + " (" +
                      (along == kDynamic ? std::string("?") : std::to_string(along)) + "), has " +
                      std::to_string(n) + " in " + std::to_string(zp.type.rank()) + " dims");
    for (int64_t v : zp.i)
      if (v != zp.i[0])
        return ctx.fail(std::string(roles[k - 2]) + " holds " + std::to_string(zp.i[0]) +
                        " and " + std::to_string(v) +
                        ": only one zero point per tensor is supported (the same for every " +
                        (k == 2 ? "row" : "column") + ")");
    zero[k - 2] = zp.i[0];
  }
  for (const Value *v : {&a, &b})
    if (v->type.elem != "i8")
      return ctx.fail("operands must be INT8 (graft's i8), " + std::string(v == &a ? "A" : "B") +
                      " is " + v->type.elem);
  const bool shifted = zero[0] != 0 || zero[1] != 0;
  if (!matmul(ctx, a, b, shifted ? ctx.hint() + ".ab" : ctx.hint(), r, "i32"))
    return false;
  if (shifted) {
    GraphWriter &w = ctx.w;
    const size_t ra = a.type.rank(), rb = b.type.rank();
    const int64_t K = a.type.dims.back();
    if (K == kDynamic)
      return ctx.fail("a nonzero zero point needs K (A's last dim) known when importing");
    auto widened = [&](const Value &v, const std::string &h) {
      return w.elementwise(
          {v}, "i32", [&](Body &bd, const std::vector<std::string> &x) { return bd.op("cast " + x[0], "i32"); },
          h);
    };
    std::vector<Value> ops{r};
    // A's row sums as [.., M, 1] (times zb), B's column sums as [N] or, B
    // batched, [.., 1, N] (times za), each broadcast against the product
    // by numpy rules; where the other operand is 1-D the product has no
    // N (or M) dim, and the sums no unit dim (a 1-D operand's own sum is
    // a scalar).
    if (zero[1] != 0) {
      Value rows = w.reduce(widened(a, ctx.hint() + ".a32"), {int64_t(ra - 1)}, "sum",
                            ctx.hint() + ".arows");
      if (ra >= 2 && rb >= 2) {
        Shape s = w.shapeOf(rows);
        s.push_back(DimRef{1, "", 0, ""});
        rows = w.reshape(rows, s, ctx.hint() + ".arows1");
      }
      ops.push_back(rows);
    }
    // K * za * zb, wrapped to i32 as the sum of its K terms would be.
    const int64_t kzz = int64_t(int32_t(uint32_t(uint64_t(K) * uint64_t(zero[0] * zero[1]))));
    // B a constant: K * za * zb - za * (B's column sums), wrapped to i32,
    // as [N] or [.., 1, N] (B batched), or one number (B 1-D).
    auto bConst = ctx.constants.find(ctx.node->input(1));
    const bool foldB = zero[0] != 0 && bConst != ctx.constants.end();
    int64_t bTerm = 0; // (B 1-D)
    if (foldB) {
      const ConstTensor &bc = bConst->second;
      const std::vector<int64_t> &bd = bc.type.dims;
      const int64_t cols = rb >= 2 ? bd.back() : 1;
      int64_t batches = 1;
      for (size_t d = 0; d + 2 < rb; ++d)
        batches *= bd[d];
      ConstTensor terms;
      terms.type.elem = "i32";
      terms.type.dims = bd;
      for (int64_t q = 0; q < batches; ++q)
        for (int64_t n = 0; n < cols; ++n) {
          int64_t sum = 0;
          for (int64_t k = 0; k < K; ++k)
            sum += bc.i[size_t((q * K + k) * cols + n)];
          terms.i.push_back(int64_t(int32_t(uint32_t(uint64_t(kzz) - uint64_t(zero[0]) * uint64_t(sum)))));
        }
      if (rb >= 3 && ra >= 2)
        terms.type.dims[rb - 2] = 1;
      else if (rb >= 2)
        terms.type.dims.erase(terms.type.dims.begin() + long(rb - 2));
      if (rb >= 2)
        ops.push_back(ctx.constantValue(terms, ctx.hint() + ".bterms"));
      else
        bTerm = terms.i[0];
    } else if (zero[0] != 0) {
      Value cols = w.reduce(widened(b, ctx.hint() + ".b32"), {int64_t(rb >= 2 ? rb - 2 : 0)}, "sum",
                            ctx.hint() + ".bcols");
      if (rb >= 3 && ra >= 2) {
        Shape s = w.shapeOf(cols);
        s.insert(s.end() - 1, DimRef{1, "", 0, ""});
        cols = w.reshape(cols, s, ctx.hint() + ".bcols1");
      }
      ops.push_back(cols);
    }
    r = w.elementwise(
        ops, "i32",
        [&](Body &bd, const std::vector<std::string> &x) {
          const std::string t = "i32";
          std::string v = x[0];
          size_t next = 1;
          if (zero[1] != 0)
            v = binOp(bd, "sub", v, binOp(bd, "mul", bd.constant(double(zero[1]), t), x[next++], t), t);
          if (foldB && rb >= 2)
            return binOp(bd, "add", v, x[next], t);
          if (foldB)
            return bTerm ? binOp(bd, "add", v, bd.constant(double(bTerm), t), t) : v;
          if (zero[0] != 0)
            v = binOp(bd, "sub", v, binOp(bd, "mul", bd.constant(double(zero[0]), t), x[next++], t), t);
          if (kzz != 0)
            v = binOp(bd, "add", v, bd.constant(double(kzz), t), t);
          return v;
        },
        ctx.hint());
  }
  ctx.setOutput(0, r);
  return true;
}

// alpha * A' B' + beta * C
bool lowerGemm(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"alpha", "beta", "transA", "transB"}))
    return false;
  Value a, b, c;
  if (!ctx.input(0, a) || !ctx.input(1, b))
    return false;
  if (a.type.rank() != 2 || b.type.rank() != 2)
    return ctx.fail("A and B must have rank 2, have " + std::to_string(a.type.rank()) + " and " +
                    std::to_string(b.type.rank()));
  if (ctx.attrInt("transA", 0))
    a = ctx.w.transpose(a, {1, 0}, ctx.hint() + ".at");
  if (ctx.attrInt("transB", 0))
    b = ctx.w.transpose(b, {1, 0}, ctx.hint() + ".bt");
  Value ab;
  if (!matmul(ctx, a, b, ctx.hint(), ab))
    return false;
  double alpha = ctx.attrFloat("alpha", 1.0f), beta = ctx.attrFloat("beta", 1.0f);
  bool hasC = ctx.hasInput(2);
  if (hasC && !ctx.input(2, c))
    return false;
  if (!hasC && alpha == 1.0) {
    ctx.setOutput(0, ab);
    return true;
  }
  std::vector<Value> ops{ab};
  if (hasC)
    ops.push_back(c);
  std::string t = ab.type.elem;
  if (hasC && c.type.elem != t)
    return ctx.fail("C has element type " + c.type.elem + ", A and B " + t);
  Shape target = ctx.w.shapeOf(ab), joint;
  if (hasC && (!GraphWriter::broadcastShape({target, ctx.w.shapeOf(c)}, joint) ||
               joint.size() != 2 ||
               (joint[0].size != target[0].size) || (joint[1].size != target[1].size)))
    return ctx.fail("C does not broadcast to the product's shape (unidirectional numpy rules)");
  return bind(ctx, ctx.w.elementwise(
                       ops, t,
                       [&](Body &bd, const std::vector<std::string> &x) {
                         std::string v = x[0];
                         if (alpha != 1.0)
                           v = binOp(bd, "mul", bd.constant(alpha, t), v, t);
                         if (hasC) {
                           std::string cv = x[1];
                           if (beta != 1.0)
                             cv = binOp(bd, "mul", bd.constant(beta, t), cv, t);
                           v = binOp(bd, "add", v, cv, t);
                         }
                         return v;
                       },
                       ctx.hint()));
}

// ---- reductions and normalisations -------------------------------------

// Sorted, unique, normalised axes; all axes when |axes| is empty and
// |emptyMeansAll|.
bool normAxes(ImportContext &ctx, std::vector<int64_t> axes, size_t rank,
              std::vector<int64_t> &out) {
  out.clear();
  for (int64_t a : axes) {
    int64_t n;
    if (!ctx.normAxis(a, rank, n, "axis"))
      return false;
    out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end())
    return ctx.fail("axes repeat an axis");
  return true;
}

// |reduced| (|x| reduced over |axes|) with size-1 dims put back.
Value keepDims(ImportContext &ctx, const Value &x, const Value &reduced,
               const std::vector<int64_t> &axes, const std::string &hint) {
  Shape s = ctx.w.shapeOf(x);
  for (int64_t a : axes)
    s[size_t(a)] = DimRef{1, "", 0, ""};
  return ctx.w.reshape(reduced, s, hint);
}

// |reduced| broadcast back to |x|'s shape.
Value expandBack(ImportContext &ctx, const Value &x, const Value &reduced,
                 const std::vector<int64_t> &axes, const std::string &hint) {
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < int64_t(x.type.rank()); ++i)
    if (!std::binary_search(axes.begin(), axes.end(), i))
      dims.push_back(i);
  return ctx.w.broadcastInDims(reduced, dims, ctx.w.shapeOf(x), hint);
}

// The element count over |axes| of |x|, as a scalar usable inside a body:
// a literal of type |t| (static) or a captured index to cast.
std::string countIn(Body &b, const DimRef &n, const std::string &t) {
  if (n.size != kDynamic)
    return b.constant(double(n.size), t);
  return b.op("cast " + n.index, t);
}

DimRef countOver(ImportContext &ctx, const Value &x, const std::vector<int64_t> &axes) {
  Shape s = ctx.w.shapeOf(x), sub;
  for (int64_t a : axes)
    sub.push_back(s[size_t(a)]);
  DimRef n = ctx.w.product(sub, 0, sub.size());
  if (n.size == kDynamic && n.index.empty())
    n.index = ctx.w.sizeValue(n);
  return n;
}

// A reduction with an elementwise step before (|pre|: ReduceSumSquare's
// x*x) and after (|post|: ReduceMean's division, ReduceL2's sqrt), either
// empty. ReduceSum takes its axes as an input from opset 13, the others
// from 18.
using Step = std::function<std::string(Body &, const std::string &x, const std::string &t,
                                       const std::string &count)>;

bool reduceOp(ImportContext &ctx, const char *kind, bool floatOnly, const Step &pre = {},
              const Step &post = {}) {
  bool axesInput = ctx.node->op_type() == "ReduceSum" && ctx.opset >= 13;
  if (!ctx.onlyAttrs(axesInput ? std::initializer_list<const char *>{"keepdims", "noop_with_empty_axes"}
                               : std::initializer_list<const char *>{"axes", "keepdims"}))
    return false;
  Value x;
  if (!ctx.input(0, x))
    return false;
  if (!(floatOnly ? needFloat(ctx, x) : needNumeric(ctx, x)))
    return false;
  std::vector<int64_t> raw;
  bool given = false;
  if (axesInput) {
    if (ctx.hasInput(1)) {
      ConstTensor c;
      if (!ctx.constantInput(1, "axes", c))
        return false;
      raw = c.i;
      given = !raw.empty();
    }
    if (!given && ctx.attrInt("noop_with_empty_axes", 0)) {
      ctx.setOutput(0, x);
      return true;
    }
  } else {
    // An empty 'axes' list means what an absent one does: every axis.
    given = ctx.attrInts("axes", raw) && !raw.empty();
  }
  if (x.type.rank() == 0)
    return ctx.fail("reducing a rank-0 tensor is not supported");
  std::vector<int64_t> axes;
  if (!given)
    for (size_t i = 0; i < x.type.rank(); ++i)
      axes.push_back(int64_t(i));
  else if (!normAxes(ctx, raw, x.type.rank(), axes))
    return false;
  bool keep = ctx.attrInt("keepdims", 1) != 0;
  std::string h = ctx.hint(), t = x.type.elem;
  Value in = x;
  if (pre)
    in = ctx.w.elementwise(
        {x}, t, [&](Body &b, const std::vector<std::string> &a) { return pre(b, a[0], t, ""); },
        h + ".pre");
  Value r = ctx.w.reduce(in, axes, kind, keep || post ? h + ".r" : h);
  if (post) {
    DimRef n = countOver(ctx, x, axes);
    r = ctx.w.elementwise(
        {r}, t,
        [&](Body &b, const std::vector<std::string> &a) {
          return post(b, a[0], t, countIn(b, n, t));
        },
        keep ? h + ".post" : h);
  }
  if (keep)
    r = keepDims(ctx, x, r, axes, h);
  ctx.setOutput(0, r);
  return true;
}

Step step(const char *op) {
  return [op](Body &b, const std::string &x, const std::string &t, const std::string &) {
    return scalarOp(b, op, x, t);
  };
}
std::string square(Body &b, const std::string &x, const std::string &t, const std::string &) {
  return binOp(b, "mul", x, x, t);
}

bool lowerReduceSum(ImportContext &ctx) { return reduceOp(ctx, "sum", false); }
bool lowerReduceMax(ImportContext &ctx) { return reduceOp(ctx, "max", false); }
bool lowerReduceMin(ImportContext &ctx) { return reduceOp(ctx, "min", false); }
bool lowerReduceProd(ImportContext &ctx) { return reduceOp(ctx, "prod", false); }
bool lowerReduceMean(ImportContext &ctx) {
  return reduceOp(ctx, "sum", true, {},
                  [](Body &b, const std::string &x, const std::string &t, const std::string &n) {
                    return binOp(b, "div", x, n, t);
                  });
}
bool lowerReduceSumSquare(ImportContext &ctx) { return reduceOp(ctx, "sum", false, square); }
bool lowerReduceL1(ImportContext &ctx) { return reduceOp(ctx, "sum", false, step("abs")); }
bool lowerReduceL2(ImportContext &ctx) { return reduceOp(ctx, "sum", true, square, step("sqrt")); }
bool lowerReduceLogSum(ImportContext &ctx) { return reduceOp(ctx, "sum", true, {}, step("log")); }
bool lowerReduceLogSumExp(ImportContext &ctx) {
  return reduceOp(ctx, "sum", true, step("exp"), step("log"));
}

} // namespace

// exp(x - max) / sum(exp(x - max)) over one axis; log variant:
// (x - max) - log(sum(exp(x - max))).
Value softmaxAlong(ImportContext &ctx, const Value &x, int64_t axis, bool logarithm,
                   const std::string &h) {
  std::string t = x.type.elem;
  std::vector<int64_t> axes{axis};
  GraphWriter &w = ctx.w;
  Value mx = expandBack(ctx, x, w.reduce(x, axes, "max", h + ".max"), axes, h + ".max");
  Value shifted = w.elementwise(
      {x, mx}, t, [&](Body &b, const std::vector<std::string> &a) { return binOp(b, "sub", a[0], a[1], t); },
      h + ".shift");
  Value e = w.elementwise(
      {shifted}, t, [&](Body &b, const std::vector<std::string> &a) { return scalarOp(b, "exp", a[0], t); },
      h + ".exp");
  Value sum = expandBack(ctx, x, w.reduce(e, axes, "sum", h + ".sum"), axes, h + ".sum");
  if (logarithm)
    return w.elementwise(
        {shifted, sum}, t,
        [&](Body &b, const std::vector<std::string> &a) {
          return binOp(b, "sub", a[0], scalarOp(b, "log", a[1], t), t);
        },
        h);
  return w.elementwise(
      {e, sum}, t,
      [&](Body &b, const std::vector<std::string> &a) { return binOp(b, "div", a[0], a[1], t); }, h);
}

namespace {

bool softmax(ImportContext &ctx, bool logarithm) {
  if (!ctx.onlyAttrs({"axis"}))
    return false;
  Value x;
  if (!ctx.input(0, x) || !needFloat(ctx, x))
    return false;
  int64_t axis;
  if (!ctx.needRank(x, 1) || !ctx.normAxis(ctx.attrInt("axis", -1), x.type.rank(), axis, "axis"))
    return false;
  return bind(ctx, softmaxAlong(ctx, x, axis, logarithm, ctx.hint()));
}

bool lowerSoftmax(ImportContext &ctx) { return softmax(ctx, false); }
bool lowerLogSoftmax(ImportContext &ctx) { return softmax(ctx, true); }

// The statistics of |x| over |axes|: the mean and the (population)
// variance, reduced, and x - mean at x's shape. LayerNormalization and
// BatchNormalization in training compute them alike.
struct Moments {
  Value mean, diff, var;
};

Moments moments(ImportContext &ctx, const Value &x, const std::vector<int64_t> &axes,
                const std::string &h) {
  GraphWriter &w = ctx.w;
  std::string t = x.type.elem;
  DimRef n = countOver(ctx, x, axes);
  auto divN = [&](const Value &v, const std::string &hh) {
    return w.elementwise(
        {v}, t,
        [&](Body &b, const std::vector<std::string> &a) {
          return binOp(b, "div", a[0], countIn(b, n, t), t);
        },
        hh);
  };
  Moments m;
  m.mean = divN(w.reduce(x, axes, "sum", h + ".sum"), h + ".mean");
  m.diff = w.elementwise(
      {x, expandBack(ctx, x, m.mean, axes, h + ".meanb")}, t,
      [&](Body &b, const std::vector<std::string> &a) { return binOp(b, "sub", a[0], a[1], t); },
      h + ".diff");
  Value sq = w.elementwise(
      {m.diff}, t, [&](Body &b, const std::vector<std::string> &a) { return binOp(b, "mul", a[0], a[0], t); },
      h + ".sq");
  m.var = divN(w.reduce(sq, axes, "sum", h + ".sqsum"), h + ".var");
  return m;
}

// Over axes [axis, rank): mean, 1/sqrt(var + eps), then (x - mean) * inv *
// scale + bias; the Mean and InvStdDev outputs keep the reduced dims as 1.
bool lowerLayerNormalization(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"axis", "epsilon", "stash_type"}))
    return false;
  Value x, scale, bias;
  if (!ctx.input(0, x) || !needFloat(ctx, x) || !ctx.input(1, scale))
    return false;
  bool hasBias = ctx.hasInput(2);
  if (hasBias && !ctx.input(2, bias))
    return false;
  std::string t = x.type.elem;
  if (isNarrowFloat(t) && ctx.attrInt("stash_type", 1) == 1)
    return ctx.fail("stash_type = 1 (statistics in FLOAT) with " + t +
                    " input is not supported; graft computes in the input's type");
  int64_t axis;
  if (!ctx.needRank(x, 1) || !ctx.normAxis(ctx.attrInt("axis", -1), x.type.rank(), axis, "axis"))
    return false;
  double eps = ctx.attrFloat("epsilon", 1e-5f);
  std::vector<int64_t> axes;
  for (int64_t i = axis; i < int64_t(x.type.rank()); ++i)
    axes.push_back(i);
  std::string h = ctx.hint();
  GraphWriter &w = ctx.w;
  Moments m = moments(ctx, x, axes, h);
  Value inv = w.elementwise(
      {m.var}, t,
      [&](Body &b, const std::vector<std::string> &a) {
        std::string s = scalarOp(b, "sqrt", binOp(b, "add", a[0], b.constant(eps, t), t), t);
        return binOp(b, "div", b.constant(1, t), s, t);
      },
      h + ".inv");
  std::vector<Value> ops{m.diff, expandBack(ctx, x, inv, axes, h + ".invb"), scale};
  if (hasBias)
    ops.push_back(bias);
  for (size_t k = 2; k < ops.size(); ++k)
    if (ops[k].type.elem != t)
      return ctx.fail("Scale and B must have the input's element type " + t);
  Value y = w.elementwise(
      ops, t,
      [&](Body &b, const std::vector<std::string> &a) {
        std::string v = binOp(b, "mul", binOp(b, "mul", a[0], a[1], t), a[2], t);
        return hasBias ? binOp(b, "add", v, a[3], t) : v;
      },
      h);
  if (y.name.empty())
    return ctx.fail("Scale or B does not broadcast to the normalised dims");
  ctx.setOutput(0, y);
  if (ctx.wantsOutput(1))
    ctx.setOutput(1, keepDims(ctx, x, m.mean, axes, ctx.node->output(1)));
  if (ctx.wantsOutput(2))
    ctx.setOutput(2, keepDims(ctx, x, inv, axes, ctx.node->output(2)));
  return true;
}

// |p| (rank 1: one value per channel) broadcast along dim 1 of |x|.
Value perChannel(ImportContext &ctx, const Value &p, const Value &x, const std::string &h) {
  return p.splat.empty() ? ctx.w.broadcastInDims(p, {1}, ctx.w.shapeOf(x), h + ".c") : p;
}

// Inputs |first|.. of the current node: rank 1 (one value per channel), of
// x's element type.
bool channelParams(ImportContext &ctx, const Value &x, size_t first, size_t count,
                   std::vector<Value> &out) {
  for (size_t k = first; k < first + count; ++k) {
    Value p;
    if (!ctx.input(k, p))
      return false;
    if (p.type.rank() != 1)
      return ctx.fail("input " + std::to_string(k) + " must have rank 1 (C), has rank " +
                      std::to_string(p.type.rank()));
    if (p.type.elem != x.type.elem)
      return ctx.fail("input " + std::to_string(k) + " has element type " + p.type.elem +
                      "; graft needs X's type " + x.type.elem);
    out.push_back(p);
  }
  return true;
}

// Output 0: (x - mean) / sqrt(var + eps) * scale + bias, with x's own
// statistics over |axes| and per-channel scale and bias: BatchNormalization
// in training (every dim but 1) and InstanceNormalization (the spatial
// dims). |m| gets the statistics.
bool normalizeOver(ImportContext &ctx, const Value &x, const std::vector<int64_t> &axes,
                   const Value &scale, const Value &bias, double eps, Moments &m) {
  std::string t = x.type.elem, h = ctx.hint();
  m = moments(ctx, x, axes, h);
  return bind(ctx, ctx.w.elementwise(
                       {m.diff, expandBack(ctx, x, m.var, axes, h + ".varb"),
                        perChannel(ctx, scale, x, h), perChannel(ctx, bias, x, h)},
                       t,
                       [&](Body &b, const std::vector<std::string> &a) {
                         std::string s = scalarOp(b, "sqrt", binOp(b, "add", a[1], b.constant(eps, t), t), t);
                         std::string v = binOp(b, "div", a[0], s, t);
                         return binOp(b, "add", binOp(b, "mul", a[2], v, t), a[3], t);
                       },
                       h));
}

// (x - mean) / sqrt(var + eps) * scale + bias, per channel (dim 1). In
// inference mean and var are inputs; in training (training_mode = 1) they
// are the batch's own statistics over every dim but 1, and the running
// statistics come out as input * momentum + batch * (1 - momentum), as the
// ONNX reference computes them (population variance).
bool lowerBatchNormalization(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"epsilon", "momentum", "training_mode"}))
    return false;
  bool training = ctx.attrInt("training_mode", 0) != 0;
  if (!training && (ctx.wantsOutput(1) || ctx.wantsOutput(2)))
    return ctx.fail("running_mean and running_var outputs exist only in training mode");
  Value x;
  if (!ctx.input(0, x) || !needFloat(ctx, x))
    return false;
  if (!ctx.needRank(x, 2, "X", "N x C x ..."))
    return false;
  std::string t = x.type.elem, h = ctx.hint();
  std::vector<Value> params; // scale, bias, mean, var
  if (!channelParams(ctx, x, 1, 4, params))
    return false;
  double eps = ctx.attrFloat("epsilon", 1e-5f);
  if (!training)
    return bind(ctx, ctx.w.elementwise(
                         {x, perChannel(ctx, params[0], x, h), perChannel(ctx, params[1], x, h),
                          perChannel(ctx, params[2], x, h), perChannel(ctx, params[3], x, h)},
                         t,
                         [&](Body &b, const std::vector<std::string> &a) {
                           std::string d = binOp(b, "sub", a[0], a[3], t);
                           std::string s = scalarOp(b, "sqrt", binOp(b, "add", a[4], b.constant(eps, t), t), t);
                           std::string v = binOp(b, "div", d, s, t);
                           return binOp(b, "add", binOp(b, "mul", a[1], v, t), a[2], t);
                         },
                         h));
  std::vector<int64_t> axes;
  for (int64_t i = 0; i < int64_t(x.type.rank()); ++i)
    if (i != 1)
      axes.push_back(i);
  Moments m;
  if (!normalizeOver(ctx, x, axes, params[0], params[1], eps, m))
    return false;
  double momentum = ctx.attrFloat("momentum", 0.9f);
  const Value batch[2] = {m.mean, m.var};
  for (size_t k = 1; k <= 2; ++k)
    if (ctx.wantsOutput(k))
      ctx.setOutput(k, ctx.w.elementwise(
                           {params[k + 1], batch[k - 1]}, t,
                           [&](Body &b, const std::vector<std::string> &a) {
                             std::string run = binOp(b, "mul", a[0], b.constant(momentum, t), t);
                             std::string cur = binOp(b, "mul", a[1], b.constant(1 - momentum, t), t);
                             return binOp(b, "add", run, cur, t);
                           },
                           ctx.node->output(int(k))));
  return true;
}

// Per instance and channel, over the spatial dims (2..).
bool lowerInstanceNormalization(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"epsilon"}))
    return false;
  Value x;
  if (!ctx.input(0, x) || !needFloat(ctx, x))
    return false;
  if (!ctx.needRank(x, 3, "the input", "N x C x D1 ..."))
    return false;
  std::vector<Value> params; // scale, bias
  if (!channelParams(ctx, x, 1, 2, params))
    return false;
  std::vector<int64_t> axes;
  for (int64_t i = 2; i < int64_t(x.type.rank()); ++i)
    axes.push_back(i);
  Moments m;
  return normalizeOver(ctx, x, axes, params[0], params[1], ctx.attrFloat("epsilon", 1e-5f), m);
}

// (x - mean) / (sqrt(var) + 1e-9) over 'axes' (default [0, 2, 3]), as the
// ONNX function body defines it.
bool lowerMeanVarianceNormalization(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"axes"}))
    return false;
  Value x;
  if (!ctx.input(0, x) || !needFloat(ctx, x))
    return false;
  std::vector<int64_t> raw = {0, 2, 3}, axes;
  ctx.attrInts("axes", raw);
  if (raw.empty() || !normAxes(ctx, raw, x.type.rank(), axes))
    return raw.empty() ? ctx.fail("axes is empty") : false;
  std::string t = x.type.elem, h = ctx.hint();
  Moments m = moments(ctx, x, axes, h);
  return bind(ctx, ctx.w.elementwise(
                       {m.diff, expandBack(ctx, x, m.var, axes, h + ".varb")}, t,
                       [&](Body &b, const std::vector<std::string> &a) {
                         std::string sd = binOp(b, "add", scalarOp(b, "sqrt", a[1], t),
                                                b.constant(1e-9, t), t);
                         return binOp(b, "div", a[0], sd, t);
                       },
                       h));
}

// x < -lambd ? x + bias : x > lambd ? x - bias : 0
bool lowerShrink(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"lambd", "bias"}))
    return false;
  double l = ctx.attrFloat("lambd", 0.5f), bias = ctx.attrFloat("bias", 0.0f);
  return unary(ctx, true, [=](Body &b, const std::string &x, const std::string &t) {
    std::string lo = binOp(b, "add", x, b.constant(bias, t), t);
    std::string hi = binOp(b, "sub", x, b.constant(bias, t), t);
    std::string v = selectOp(b, cmpOp(b, "gt", x, b.constant(l, t)), hi, b.constant(0, t), t);
    return selectOp(b, cmpOp(b, "lt", x, b.constant(-l, t)), lo, v, t);
  });
}

// Ones on the diagonal j - i = k of a 2-D tensor of the input's shape, of
// type 'dtype' (default: the input's): two iotas and a map.
bool lowerEyeLike(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"dtype", "k"}))
    return false;
  Value x;
  if (!ctx.input(0, x))
    return false;
  if (x.type.rank() != 2)
    return ctx.fail("the input must have rank 2, has rank " + std::to_string(x.type.rank()));
  std::string t = x.type.elem;
  if (const auto *a = ctx.attr("dtype")) {
    std::string onnxName;
    t = elemForOnnxType(int32_t(a->i()), &onnxName);
    if (t.empty())
      return ctx.fail("dtype " + onnxName + " " + noElemTypeReason(int32_t(a->i())));
  }
  int64_t k = std::clamp<int64_t>(ctx.attrInt("k", 0), -(int64_t(1) << 34), int64_t(1) << 34);
  Shape s = ctx.w.shapeOf(x);
  Value rows = ctx.w.iota(s, 0, "index", ctx.hint() + ".i");
  Value cols = ctx.w.iota(s, 1, "index", ctx.hint() + ".j");
  return bind(ctx, ctx.w.elementwise(
                       {rows, cols}, t,
                       [&](Body &b, const std::vector<std::string> &a) {
                         std::string d = b.op("sub " + a[1] + ", " + a[0], "index");
                         std::string on = cmpOp(b, "eq", d, b.op("constant " + std::to_string(k), "index"));
                         if (t == "i1")
                           return on;
                         return selectOp(b, on, b.constant(1, t), b.constant(0, t), t);
                       },
                       ctx.hint()));
}

// ---- shapes -------------------------------------------------------------

bool lowerConstant(ImportContext &ctx) {
  if (ctx.node->attribute_size() != 1)
    return ctx.fail("expected exactly one value attribute, found " +
                    std::to_string(ctx.node->attribute_size()));
  const auto &a = ctx.node->attribute(0);
  ConstTensor c;
  std::string err;
  if (a.name() == "value") {
    if (!decodeTensor(a.t(), c, err))
      return ctx.fail("value: " + err);
  } else if (a.name() == "value_float") {
    c.type.elem = "f32", c.f = {a.f()};
  } else if (a.name() == "value_int") {
    c.type.elem = "i64", c.i = {a.i()};
  } else if (a.name() == "value_floats") {
    c.type.elem = "f32", c.type.dims = {a.floats_size()};
    c.f.assign(a.floats().begin(), a.floats().end());
  } else if (a.name() == "value_ints") {
    c.type.elem = "i64", c.type.dims = {a.ints_size()};
    c.i.assign(a.ints().begin(), a.ints().end());
  } else {
    return ctx.fail("attribute '" + a.name() +
                    "' is not supported (supported: value, value_float, value_floats, "
                    "value_int, value_ints)");
  }
  ctx.constants[ctx.node->output(0)] = c;
  return true;
}

bool lowerConstantOfShape(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"value"}))
    return false;
  ConstTensor shape, c;
  if (!ctx.constantInput(0, "shape", shape))
    return false;
  if (const auto *a = ctx.attr("value")) {
    std::string err;
    if (!decodeTensor(a->t(), c, err))
      return ctx.fail("value: " + err);
    if (c.count() != 1)
      return ctx.fail("value must hold one element, holds " + std::to_string(c.count()));
  } else {
    c.type.elem = "f32", c.f = {0.0};
  }
  uint64_t n = 1;
  c.type.dims.clear();
  for (int64_t d : shape.i) {
    if (d < 0 || d > (int64_t(1) << 32))
      return ctx.fail("shape has size " + std::to_string(d));
    c.type.dims.push_back(d);
    n *= uint64_t(d);
    if (n > (uint64_t(1) << 32))
      return ctx.fail("shape has more than 2^32 elements");
  }
  if (c.isFloat())
    c.f.assign(n, c.f[0]);
  else
    c.i.assign(n, c.i[0]);
  ctx.constants[ctx.node->output(0)] = c;
  return true;
}

bool lowerShape(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"start", "end"}))
    return false;
  Value x;
  if (!ctx.input(0, x))
    return false;
  int64_t r = int64_t(x.type.rank());
  auto clampAxis = [r](int64_t a) { return std::clamp(a < 0 ? a + r : a, int64_t(0), r); };
  int64_t start = clampAxis(ctx.attrInt("start", 0)), end = clampAxis(ctx.attrInt("end", r));
  ConstTensor c;
  c.type.elem = "i64";
  for (int64_t i = start; i < end; ++i) {
    if (x.type.dims[size_t(i)] == kDynamic)
      return ctx.fail("dim " + std::to_string(i) +
                      " of the input is dynamic; graft needs shapes it can compute when "
                      "building");
    c.i.push_back(x.type.dims[size_t(i)]);
  }
  c.type.dims = {int64_t(c.i.size())};
  ctx.constants[ctx.node->output(0)] = c;
  return true;
}

bool lowerSize(ImportContext &ctx) {
  Value x;
  if (!ctx.onlyAttrs({}) || !ctx.input(0, x))
    return false;
  int64_t n = x.type.staticCount();
  if (n < 0)
    return ctx.fail("the input has dynamic dims; graft needs sizes it can compute when building");
  ConstTensor c;
  c.type.elem = "i64";
  c.i = {n};
  ctx.constants[ctx.node->output(0)] = c;
  return true;
}

bool setReshaped(ImportContext &ctx, const Value &x, const Shape &s) {
  // Static element counts must agree.
  Type t{x.type.elem, {}, false};
  for (const DimRef &d : s)
    t.dims.push_back(d.size);
  int64_t a = x.type.staticCount(), b = t.staticCount();
  if (a >= 0 && b >= 0 && a != b)
    return ctx.fail("cannot reshape " + std::to_string(a) + " elements into " + t.text());
  ctx.setOutput(0, ctx.w.reshape(x, s, ctx.hint()));
  return true;
}

bool lowerReshape(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"allowzero"}))
    return false;
  Value x;
  ConstTensor shape;
  if (!ctx.input(0, x) || !ctx.constantInput(1, "shape", shape))
    return false;
  bool allowZero = ctx.attrInt("allowzero", 0) != 0;
  Shape in = ctx.w.shapeOf(x), out;
  int inferred = -1;
  for (size_t i = 0; i < shape.i.size(); ++i) {
    int64_t d = shape.i[i];
    if (d == 0 && !allowZero) {
      if (i >= in.size())
        return ctx.fail("shape[" + std::to_string(i) + "] = 0 copies a dim the input lacks");
      out.push_back(in[i]);
    } else if (d == -1) {
      if (inferred >= 0)
        return ctx.fail("shape has more than one -1");
      inferred = int(i);
      out.push_back(DimRef{});
    } else if (d < 1 || d > (int64_t(1) << 32)) {
      return ctx.fail("shape[" + std::to_string(i) + "] = " + std::to_string(d) +
                      " is not supported (sizes 1 to 2^32, 0 to copy, -1 to infer)");
    } else {
      out.push_back(DimRef{d, "", 0, ""});
    }
  }
  if (inferred >= 0) {
    DimRef total = ctx.w.product(in, 0, in.size());
    Shape rest = out;
    rest.erase(rest.begin() + inferred);
    DimRef known = ctx.w.product(rest, 0, rest.size());
    if (total.size != kDynamic && known.size != kDynamic) {
      if (known.size == 0 || total.size % known.size)
        return ctx.fail("cannot infer the -1 dim: " + std::to_string(total.size) +
                        " elements are not a multiple of " + std::to_string(known.size));
      out[size_t(inferred)] = DimRef{total.size / known.size, "", 0, ""};
    } else {
      std::string q = ctx.w.emit("size", "div " + ctx.w.sizeValue(total) + ", " + ctx.w.sizeValue(known),
                                 Type{"index", {}, true})
                          .name;
      out[size_t(inferred)] = DimRef{kDynamic, "", 0, q};
    }
  }
  return setReshaped(ctx, x, out);
}

bool lowerFlatten(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"axis"}))
    return false;
  Value x;
  if (!ctx.input(0, x))
    return false;
  int64_t r = int64_t(x.type.rank()), axis = ctx.attrInt("axis", 1);
  if (axis < -r || axis > r)
    return ctx.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r));
  if (axis < 0)
    axis += r;
  Shape in = ctx.w.shapeOf(x);
  return setReshaped(ctx, x, Shape{ctx.w.product(in, 0, size_t(axis)), ctx.w.product(in, size_t(axis), in.size())});
}

bool axesOperand(ImportContext &ctx, std::vector<int64_t> &raw, bool &given) {
  given = false;
  if (ctx.opset >= 13) {
    if (!ctx.onlyAttrs({}))
      return false;
    if (ctx.hasInput(1)) {
      ConstTensor c;
      if (!ctx.constantInput(1, "axes", c))
        return false;
      raw = c.i;
      given = true;
    }
    return true;
  }
  if (!ctx.onlyAttrs({"axes"}))
    return false;
  given = ctx.attrInts("axes", raw);
  return true;
}

bool lowerSqueeze(ImportContext &ctx) {
  Value x;
  std::vector<int64_t> raw, axes;
  bool given;
  if (!axesOperand(ctx, raw, given) || !ctx.input(0, x))
    return false;
  Shape in = ctx.w.shapeOf(x), out;
  if (given && !normAxes(ctx, raw, in.size(), axes))
    return false;
  for (size_t i = 0; i < in.size(); ++i) {
    bool listed = std::binary_search(axes.begin(), axes.end(), int64_t(i));
    if (given && listed && in[i].size != 1)
      return ctx.fail("axis " + std::to_string(i) + " has size " +
                      (in[i].size == kDynamic ? std::string("?") : std::to_string(in[i].size)) +
                      "; only size-1 dims can be squeezed");
    if (given ? listed : in[i].size == 1)
      continue;
    if (!given && in[i].size == kDynamic)
      return ctx.fail("dim " + std::to_string(i) +
                      " is dynamic; give axes to squeeze an input with dynamic dims");
    out.push_back(in[i]);
  }
  return setReshaped(ctx, x, out);
}

bool lowerUnsqueeze(ImportContext &ctx) {
  Value x;
  std::vector<int64_t> raw, axes;
  bool given;
  if (!axesOperand(ctx, raw, given) || !ctx.input(0, x))
    return false;
  if (!given)
    return ctx.fail("axes are required");
  Shape in = ctx.w.shapeOf(x), out;
  if (!normAxes(ctx, raw, in.size() + raw.size(), axes))
    return false;
  for (size_t i = 0, k = 0; i < in.size() + axes.size(); ++i)
    out.push_back(std::binary_search(axes.begin(), axes.end(), int64_t(i)) ? DimRef{1, "", 0, ""}
                                                                            : in[k++]);
  return setReshaped(ctx, x, out);
}

bool lowerExpand(ImportContext &ctx) {
  if (!ctx.onlyAttrs({}))
    return false;
  Value x;
  ConstTensor shape;
  if (!ctx.input(0, x) || !ctx.constantInput(1, "shape", shape))
    return false;
  Shape want, out;
  for (int64_t d : shape.i) {
    if (d < 1 || d > (int64_t(1) << 32))
      return ctx.fail("shape has size " + std::to_string(d) + "; graft sizes are 1 to 2^32");
    want.push_back(DimRef{d, "", 0, ""});
  }
  if (!GraphWriter::broadcastShape({ctx.w.shapeOf(x), want}, out))
    return ctx.fail("the input does not broadcast to the shape (numpy rules)");
  ctx.setOutput(0, ctx.w.broadcastTo(x, out, ctx.hint()));
  return true;
}

bool lowerTranspose(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"perm"}))
    return false;
  Value x;
  if (!ctx.input(0, x))
    return false;
  std::vector<int64_t> perm;
  size_t r = x.type.rank();
  if (!ctx.attrInts("perm", perm))
    for (size_t i = 0; i < r; ++i)
      perm.push_back(int64_t(r - 1 - i));
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != int64_t(i) || sorted.size() != r)
      return ctx.fail("perm is not a permutation of 0.." + std::to_string(int64_t(r) - 1));
  bool identity = true;
  for (size_t i = 0; i < r; ++i)
    identity = identity && perm[i] == int64_t(i);
  ctx.setOutput(0, identity ? x : ctx.w.transpose(x, perm, ctx.hint()));
  return true;
}

// Ops graft has no graph op for yet: the missing op is named, so the
// conformance runner's table says what to add.
struct Missing {
  const char *onnxOp;
  const char *graftOp;
};
const Missing kMissing[] = {
    {"LpPool", "lp_pool"},       {"ConvTranspose", "conv_transpose"},
    {"GatherElements", "gather_elements"},
    {"GatherND", "gather_nd"},   {"Asin", "asin"},
    {"Acos", "acos"},            {"Atan", "atan"},
    {"Asinh", "asinh"},          {"Acosh", "acosh"},
    {"Atanh", "atanh"},
    {"TopK", "topk"},
    {"ScatterElements", "scatter"},
    {"ScatterND", "scatter"},
    {"NonZero", "dynamic result shapes"},
};

// Ops whose definitions in opsets before 13 differ from their opset-13 one
// only in where an operand lives (an attribute then: the axes of Squeeze,
// Unsqueeze and ReduceSum, Dropout's ratio), in the element types they
// allow (most ops gained bfloat16 in 13, some integer types earlier) or in
// what later versions added (negative axes, select_last_index, optional
// Gemm C, more Constant value attributes): a model valid under the older
// definition means the same under the newer one, and the lowerings read
// the form ctx.opset says. Each maps to the oldest such version. Not here:
// versions with legacy broadcasting ('broadcast' attributes before Add-7,
// Pow-7, Gemm-7), Softmax/LogSoftmax before 13 (they flatten to 2-D),
// Dropout-7 (a non-bool mask), Clip-6 (attribute bounds), Split before 13
// (an attribute 'split' the lowering does not read).
const std::map<std::string, int> &olderForms() {
  static const std::map<std::string, int> t = {
      {"Abs", 6},        {"Add", 7},        {"ArgMax", 1},     {"ArgMin", 1},
      {"Cast", 6},       {"Ceil", 6},       {"Clip", 11},      {"Concat", 4},
      {"DepthToSpace", 1}, {"SpaceToDepth", 1},
      {"Constant", 1},   {"Div", 7},        {"Dropout", 10},   {"Equal", 7},
      {"Erf", 9},        {"Exp", 6},        {"Expand", 8},     {"Flatten", 1},
      {"Floor", 6},      {"Gather", 1},     {"Gemm", 7},       {"Greater", 7},
      {"Identity", 1},   {"Less", 7},       {"Log", 6},        {"MatMul", 1},
      {"MatMulInteger", 10},
      {"Max", 8},        {"Mean", 8},       {"Min", 8},        {"Mul", 7},
      {"Neg", 6},        {"Pad", 11},       {"Pow", 7},        {"Reciprocal", 6},
      {"ReduceL1", 1},   {"ReduceL2", 1},   {"ReduceLogSum", 1}, {"ReduceLogSumExp", 1},
      {"ReduceMax", 1},  {"ReduceMean", 1}, {"ReduceMin", 1},  {"ReduceProd", 1},
      {"ReduceSum", 1},  {"ReduceSumSquare", 1}, {"Relu", 6},  {"Reshape", 5},
      {"Resize", 11},
      {"Shape", 1},      {"Sigmoid", 6},    {"Sign", 9},       {"Size", 1},
      {"Slice", 10},     {"Sqrt", 6},       {"Squeeze", 1},    {"Sub", 7},
      {"Sum", 8},        {"Tanh", 6},       {"Tile", 6},       {"Transpose", 1},
      {"Unsqueeze", 1},
  };
  return t;
}

using Lowering = bool (*)(ImportContext &);
const std::map<std::string, Lowering> &table() {
  static const std::map<std::string, Lowering> t = {
      {"Abs", lowerAbs},
      {"ArgMax", lowerArgMax},
      {"ArgMin", lowerArgMin},
      {"Ceil", lowerCeil},
      {"Cos", lowerCos},
      {"Cosh", lowerCosh},
      {"Erf", lowerErf},
      {"Floor", lowerFloor},
      {"IsInf", lowerIsInf},
      {"IsNaN", lowerIsNaN},
      {"Pow", lowerPow},
      {"Round", lowerRound},
      {"Sin", lowerSin},
      {"Sinh", lowerSinh},
      {"Tan", lowerTan},
      {"Add", lowerAdd},
      {"And", lowerAnd},
      {"BatchNormalization", lowerBatchNormalization},
      {"Cast", lowerCast},
      {"CastLike", lowerCastLike},
      {"Mod", lowerMod},
      {"Clip", lowerClip},
      {"Concat", lowerConcat},
      {"Conv", lowerConv},
      {"AveragePool", lowerPool},
      {"MaxPool", lowerPool},
      {"GlobalAveragePool", lowerGlobalPool},
      {"GlobalMaxPool", lowerGlobalPool},
      {"Constant", lowerConstant},
      {"ConstantOfShape", lowerConstantOfShape},
      {"Div", lowerDiv},
      {"Dropout", lowerDropout},
      {"Elu", lowerElu},
      {"Equal", lowerEqual},
      {"Exp", lowerExp},
      {"Expand", lowerExpand},
      {"Flatten", lowerFlatten},
      {"Gather", lowerGather},
      {"Gemm", lowerGemm},
      {"Greater", lowerGreater},
      {"GreaterOrEqual", lowerGreaterOrEqual},
      {"HardSigmoid", lowerHardSigmoid},
      {"Hardmax", lowerHardmax},
      {"OneHot", lowerOneHot},
      {"CumSum", lowerCumSum},
      {"LRN", lowerLRN},
      {"Resize", lowerResize},
      {"Compress", lowerCompress},
      {"Einsum", lowerEinsum},
      {"NegativeLogLikelihoodLoss", lowerNegativeLogLikelihoodLoss},
      {"SoftmaxCrossEntropyLoss", lowerSoftmaxCrossEntropyLoss},
      {"InstanceNormalization", lowerInstanceNormalization},
      {"MeanVarianceNormalization", lowerMeanVarianceNormalization},
      {"Shrink", lowerShrink},
      {"EyeLike", lowerEyeLike},
      {"DepthToSpace", lowerDepthToSpace},
      {"SpaceToDepth", lowerSpaceToDepth},
      {"Identity", lowerIdentity},
      {"LayerNormalization", lowerLayerNormalization},
      {"LeakyRelu", lowerLeakyRelu},
      {"Less", lowerLess},
      {"LessOrEqual", lowerLessOrEqual},
      {"Log", lowerLog},
      {"LogSoftmax", lowerLogSoftmax},
      {"MatMul", lowerMatMul},
      {"MatMulInteger", lowerMatMulInteger},
      {"Max", lowerMax},
      {"Mean", lowerMean},
      {"Min", lowerMin},
      {"Mul", lowerMul},
      {"Neg", lowerNeg},
      {"Not", lowerNot},
      {"Or", lowerOr},
      {"Pad", lowerPad},
      {"PRelu", lowerPRelu},
      {"Range", lowerRange},
      {"Reciprocal", lowerReciprocal},
      {"ReduceMax", lowerReduceMax},
      {"ReduceMean", lowerReduceMean},
      {"ReduceMin", lowerReduceMin},
      {"ReduceProd", lowerReduceProd},
      {"ReduceSum", lowerReduceSum},
      {"ReduceSumSquare", lowerReduceSumSquare},
      {"ReduceL1", lowerReduceL1},
      {"ReduceL2", lowerReduceL2},
      {"ReduceLogSum", lowerReduceLogSum},
      {"ReduceLogSumExp", lowerReduceLogSumExp},
      {"ThresholdedRelu", lowerThresholdedRelu},
      {"Softsign", lowerSoftsign},
      {"HardSwish", lowerHardSwish},
      {"Celu", lowerCelu},
      {"Mish", lowerMish},
      {"Size", lowerSize},
      {"Slice", lowerSlice},
      {"Relu", lowerRelu},
      {"Reshape", lowerReshape},
      {"Selu", lowerSelu},
      {"Shape", lowerShape},
      {"Sigmoid", lowerSigmoid},
      {"Sign", lowerSign},
      {"Softmax", lowerSoftmax},
      {"Softplus", lowerSoftplus},
      {"Split", lowerSplit},
      {"Sqrt", lowerSqrt},
      {"Squeeze", lowerSqueeze},
      {"Sub", lowerSub},
      {"Sum", lowerSum},
      {"Tanh", lowerTanh},
      {"Tile", lowerTile},
      {"Transpose", lowerTranspose},
      {"Trilu", lowerTrilu},
      {"Unsqueeze", lowerUnsqueeze},
      {"Where", lowerWhere},
      {"Xor", lowerXor},
  };
  return t;
}

} // namespace

int oldestVersionRead(const std::string &op) {
  auto it = olderForms().find(op);
  return it == olderForms().end() ? 0 : it->second;
}

bool checkOpsKnown(ImportContext &ctx, const onnx::GraphProto &g) {
  for (int k = 0; k < g.node_size(); ++k) {
    ctx.node = &g.node(k);
    ctx.nodeIndex = k;
    const std::string &op = ctx.node->op_type();
    if (table().count(op))
      continue;
    for (const Missing &m : kMissing)
      if (op == m.onnxOp)
        return ctx.unsupported(m.graftOp);
    return ctx.fail("op type '" + op + "' is not supported (docs/onnx.md lists the ops graft imports)");
  }
  return true;
}

bool lowerNode(ImportContext &ctx) {
  const onnx::NodeProto &n = *ctx.node;
  if (!n.domain().empty() && n.domain() != "ai.onnx")
    return ctx.fail("domain '" + n.domain() + "' is not supported (only the default ONNX domain)");
  auto it = table().find(n.op_type());
  if (it != table().end()) {
    // The lowerings read the inputs and write the outputs the op's schema
    // promises; a node with fewer or more is refused here, once.
    if (const auto *s = onnx::OpSchemaRegistry::Schema(n.op_type(), int(ctx.opset))) {
      auto range = [](int lo, int hi) {
        return std::to_string(lo) + (hi == lo ? "" : hi > 1000 ? " or more" : " to " + std::to_string(hi));
      };
      if (n.output_size() < s->min_output() || n.output_size() > s->max_output())
        return ctx.fail("the node has " + countOf(size_t(n.output_size()), "output") + "; " +
                        n.op_type() + " has " + range(s->min_output(), s->max_output()));
      if (n.input_size() < s->min_input() || n.input_size() > s->max_input())
        return ctx.fail("the node has " + countOf(size_t(n.input_size()), "input") + "; " +
                        n.op_type() + " takes " + range(s->min_input(), s->max_input()));
    }
    return it->second(ctx);
  }
  for (const Missing &m : kMissing)
    if (n.op_type() == m.onnxOp)
      return ctx.unsupported(m.graftOp);
  return ctx.fail("op type '" + n.op_type() + "' is not supported (docs/onnx.md lists the ops graft imports)");
}

} // namespace graft::onnx_import
