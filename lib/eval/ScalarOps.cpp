// Element-wise semantics of the reference evaluator. Every rule here is the
// plain C one where C defines it; where C does not, the choice is written
// next to the code and in docs/graph-format.md:
//  - float math of f32 (and of f16/bf16, computed in float and rounded back)
//    happens in float, f64 in double; no fma contraction.
//  - integers wrap in their width (two's complement); division is floor
//    division as graft/expr.h defines it for tensor elements: INT_MIN / -1
//    wraps to INT_MIN, x / 0 is 0 and x % 0 is x.
//  - max / min on floats return NaN if either operand is NaN, and order
//    -0 below +0 (like llvm.maximum / llvm.minimum).
//  - float -> integer casts truncate toward zero and saturate; NaN gives 0.
//    Casts to i1 give (x != 0).
//  - bitcast reads the bits as the other type; a float NaN gives the
//    canonical quiet NaN's bits (payloads differ between CPUs).
#include "eval/ScalarOps.h"

#include "graft/expr.h"
#include "ir/ExprText.h"
#include "ir/FloatBits.h"
#include "support/InternalError.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace graft {

namespace {

unsigned bitsOf(DType t) { return t == DType::I1 ? 1 : dtypeSize(t) * 8; }

// Truncates to the width of |t| and sign-extends back (i1: 0 or 1).
int64_t wrap(DType t, uint64_t v) {
  unsigned bits = bitsOf(t);
  if (t == DType::I1)
    return static_cast<int64_t>(v & 1);
  if (bits >= 64)
    return static_cast<int64_t>(v);
  uint64_t mask = (uint64_t(1) << bits) - 1, sign = uint64_t(1) << (bits - 1);
  v &= mask;
  return static_cast<int64_t>((v ^ sign) - sign);
}

int64_t minOf(DType t) {
  return t == DType::I1 ? 0 : bitsOf(t) >= 64 ? std::numeric_limits<int64_t>::min()
                                               : -(int64_t(1) << (bitsOf(t) - 1));
}
int64_t maxOf(DType t) {
  return t == DType::I1 ? 1 : bitsOf(t) >= 64 ? std::numeric_limits<int64_t>::max()
                                               : (int64_t(1) << (bitsOf(t) - 1)) - 1;
}

template <typename T> T fmaximum(T a, T b) {
  if (a != a || b != b)
    return std::numeric_limits<T>::quiet_NaN();
  if (a == b) // +0 vs -0: +0 is larger
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
template <typename T> T fminimum(T a, T b) {
  if (a != a || b != b)
    return std::numeric_limits<T>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

// Runs |fn| in float for f32/f16/bf16 and in double for f64, then rounds.
template <typename Fn> double inType(DType t, double a, double b, Fn fn) {
  if (t == DType::F64)
    return fn(a, b);
  return roundToType(t, fn(static_cast<float>(a), static_cast<float>(b)));
}

// Rounds to the nearest integer, halfway cases to the even one, whatever
// the current rounding mode.
double roundHalfEven(double x) {
  double r = std::round(x); // halfway cases away from zero
  if (std::fabs(r - x) == 0.5)
    r = 2.0 * std::round(x / 2.0);
  return r;
}

// 1 / (1 + e^-x), written so that neither branch overflows: for x < 0,
// e^x / (1 + e^x).
template <typename T> T sigmoid(T x) {
  T e = std::exp(-std::fabs(x));
  T s = static_cast<T>(1) / (static_cast<T>(1) + e);
  return x < 0 ? e * s : s;
}

Scalar floatResult(double f) {
  Scalar s;
  s.f = f;
  return s;
}
Scalar intResult(int64_t i) {
  Scalar s;
  s.i = i;
  return s;
}

bool compare(const std::string &pred, DType t, Scalar a, Scalar b) {
  if (isFloat(t)) {
    // Ordered comparisons as in C: anything with NaN is false except ne.
    if (pred == "eq") return a.f == b.f;
    if (pred == "ne") return a.f != b.f;
    if (pred == "lt") return a.f < b.f;
    if (pred == "le") return a.f <= b.f;
    if (pred == "gt") return a.f > b.f;
    return a.f >= b.f;
  }
  if (pred == "eq") return a.i == b.i;
  if (pred == "ne") return a.i != b.i;
  if (pred == "lt") return a.i < b.i;
  if (pred == "le") return a.i <= b.i;
  if (pred == "gt") return a.i > b.i;
  return a.i >= b.i;
}

} // namespace

Scalar loadScalar(DType t, const uint8_t *p) {
  Scalar s;
  switch (t) {
  case DType::F16:
  case DType::BF16: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    s.f = t == DType::F16 ? halfBitsToFloat(h) : bf16BitsToFloat(h);
    return s;
  }
  case DType::F32: {
    float f;
    std::memcpy(&f, p, 4);
    s.f = f;
    return s;
  }
  case DType::F64:
    std::memcpy(&s.f, p, 8);
    return s;
  default: {
    uint64_t v = 0;
    std::memcpy(&v, p, dtypeSize(t)); // little-endian host
    s.i = wrap(t, v);
    return s;
  }
  }
}

void storeScalar(DType t, uint8_t *p, Scalar s) {
  switch (t) {
  case DType::F16:
  case DType::BF16: {
    float f = static_cast<float>(roundToType(t, s.f));
    uint16_t h = t == DType::F16 ? floatToHalfBits(f) : floatToBF16Bits(f);
    std::memcpy(p, &h, 2);
    return;
  }
  case DType::F32: {
    float f = static_cast<float>(s.f);
    std::memcpy(p, &f, 4);
    return;
  }
  case DType::F64:
    std::memcpy(p, &s.f, 8);
    return;
  default:
    std::memcpy(p, &s.i, dtypeSize(t));
    return;
  }
}

double roundToType(DType t, double v) {
  if (t == DType::F64 || v != v || std::isinf(v))
    return v;
  float f = static_cast<float>(v);
  if (t == DType::F32)
    return f;
  // To f16/bf16 through float: make the float round-to-odd so that the
  // second rounding is correct (float has more than 2x the needed bits).
  if (static_cast<double>(f) != v && std::isfinite(f)) {
    if (std::fabs(static_cast<double>(f)) > std::fabs(v))
      f = std::nextafter(f, 0.0f);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    bits |= 1;
    std::memcpy(&f, &bits, 4);
  }
  return t == DType::F16 ? halfBitsToFloat(floatToHalfBits(f))
                         : bf16BitsToFloat(floatToBF16Bits(f));
}

Scalar bitcastScalar(Scalar v, DType from, DType to) {
  uint8_t bytes[8] = {};
  if (isFloat(from) && v.f != v.f) {
    uint64_t nan = canonicalNaNBits(from);
    std::memcpy(bytes, &nan, dtypeSize(from)); // little-endian host
  } else {
    storeScalar(from, bytes, v);
  }
  return loadScalar(to, bytes);
}

Scalar castScalar(Scalar v, DType from, DType to) {
  if (isFloat(from) && isFloat(to))
    return floatResult(roundToType(to, v.f));
  if (isFloat(from)) {
    if (to == DType::I1)
      return intResult(v.f != 0 ? 1 : 0);
    if (v.f != v.f)
      return intResult(0);
    double t = std::trunc(v.f);
    // Compare in double: the bounds of i64 are not exact doubles, so test
    // against 2^63 rather than INT64_MAX.
    if (t <= static_cast<double>(minOf(to)))
      return intResult(minOf(to));
    if (t >= std::ldexp(1.0, static_cast<int>(bitsOf(to)) - 1))
      return intResult(maxOf(to));
    return intResult(static_cast<int64_t>(t));
  }
  if (isFloat(to)) {
    // C's int -> float conversion (round to nearest) in the target type.
    if (to == DType::F32)
      return floatResult(static_cast<float>(v.i));
    return floatResult(roundToType(to, static_cast<double>(v.i)));
  }
  if (to == DType::I1)
    return intResult(v.i != 0 ? 1 : 0);
  return intResult(wrap(to, static_cast<uint64_t>(v.i)));
}

Scalar applyScalarOp(const Op &op, const DType *argTypes, const Scalar *args,
                     DType resultType) {
  DType t = argTypes[0];
  Scalar a = args[0];
  Scalar b = op.operands.size() > 1 ? args[1] : Scalar();
  uint64_t ua = static_cast<uint64_t>(a.i), ub = static_cast<uint64_t>(b.i);
  bool fl = isFloat(t);
  switch (op.kind) {
  case OpKind::Add:
    return fl ? floatResult(inType(t, a.f, b.f, [](auto x, auto y) { return x + y; }))
             : intResult(wrap(t, ua + ub));
  case OpKind::Sub:
    return fl ? floatResult(inType(t, a.f, b.f, [](auto x, auto y) { return x - y; }))
             : intResult(wrap(t, ua - ub));
  case OpKind::Mul:
    return fl ? floatResult(inType(t, a.f, b.f, [](auto x, auto y) { return x * y; }))
             : intResult(wrap(t, ua * ub));
  case OpKind::Div:
  case OpKind::Rem:
    if (fl) {
      return op.kind == OpKind::Div
                ? floatResult(inType(t, a.f, b.f, [](auto x, auto y) { return x / y; }))
                : floatResult(inType(t, a.f, b.f,
                                     [](auto x, auto y) { return std::fmod(x, y); }));
    }
    // Floor division that never fails (graft/expr.h): x / 0 is 0, x % 0 is
    // x, and INT_MIN / -1 wraps to INT_MIN.
    return intResult(wrap(t, static_cast<uint64_t>(op.kind == OpKind::Div
                                                      ? graft_wrapping_div(a.i, b.i)
                                                      : graft_wrapping_rem(a.i, b.i))));
  case OpKind::Max:
    return fl ? floatResult(inType(t, a.f, b.f, [](auto x, auto y) { return fmaximum(x, y); }))
             : intResult(a.i > b.i ? a.i : b.i);
  case OpKind::Min:
    return fl ? floatResult(inType(t, a.f, b.f, [](auto x, auto y) { return fminimum(x, y); }))
             : intResult(a.i < b.i ? a.i : b.i);
  case OpKind::Neg:
    return fl ? floatResult(-a.f) : intResult(wrap(t, 0 - ua));
  case OpKind::Abs:
    return fl ? floatResult(std::fabs(a.f)) : intResult(a.i < 0 ? wrap(t, 0 - ua) : a.i);
  case OpKind::Exp:
    return floatResult(inType(t, a.f, 0, [](auto x, auto) { return std::exp(x); }));
  case OpKind::Log:
    return floatResult(inType(t, a.f, 0, [](auto x, auto) { return std::log(x); }));
  case OpKind::Tanh:
    return floatResult(inType(t, a.f, 0, [](auto x, auto) { return std::tanh(x); }));
  case OpKind::Sqrt:
    return floatResult(inType(t, a.f, 0, [](auto x, auto) { return std::sqrt(x); }));
  case OpKind::Rsqrt:
    return floatResult(inType(t, a.f, 0, [](auto x, auto) {
      return static_cast<decltype(x)>(1) / std::sqrt(x);
    }));
  case OpKind::Pow:
    return floatResult(inType(t, a.f, b.f, [](auto x, auto y) { return std::pow(x, y); }));
  case OpKind::Sign:
    // NaN is its own sign; +-0 gives +0 (as numpy).
    if (fl)
      return floatResult(a.f > 0 ? 1.0 : a.f < 0 ? -1.0 : a.f + 0.0);
    return intResult(a.i > 0 ? 1 : a.i < 0 ? -1 : 0);
  case OpKind::Floor:
    return floatResult(std::floor(a.f));
  case OpKind::Ceil:
    return floatResult(std::ceil(a.f));
  case OpKind::Round:
    return floatResult(roundHalfEven(a.f));
  case OpKind::Sigmoid:
    return floatResult(inType(t, a.f, 0, [](auto x, auto) { return sigmoid(x); }));
  case OpKind::Erf:
    return floatResult(inType(t, a.f, 0, [](auto x, auto) { return std::erf(x); }));
  case OpKind::Sin:
    return floatResult(inType(t, a.f, 0, [](auto x, auto) { return std::sin(x); }));
  case OpKind::Cos:
    return floatResult(inType(t, a.f, 0, [](auto x, auto) { return std::cos(x); }));
  case OpKind::Log1p:
    return floatResult(inType(t, a.f, 0, [](auto x, auto) { return std::log1p(x); }));
  case OpKind::Expm1:
    return floatResult(inType(t, a.f, 0, [](auto x, auto) { return std::expm1(x); }));
  case OpKind::IsNan:
    return intResult(a.f != a.f ? 1 : 0);
  case OpKind::IsInf:
    return intResult(std::isinf(a.f) ? 1 : 0);
  case OpKind::Cmp:
    return intResult(compare(op.identAttr("pred"), t, a, b) ? 1 : 0);
  case OpKind::Select:
    return a.i ? b : args[2];
  case OpKind::Cast:
    return castScalar(a, t, resultType);
  case OpKind::Bitcast:
    return bitcastScalar(a, t, resultType);
  default:
    GRAFT_INTERNAL_ERROR(std::string("'") + opName(op.kind) + "' is not a scalar op");
  }
}

bool applyIndexOp(const Op &op, const Scalar *args, Scalar &out, std::string &error) {
  auto checked = [&](graft_expr_op_t e, int64_t a, int64_t b) {
    int64_t r = 0;
    graft_expr_status_t status = graft_expr_apply(e, a, b, &r);
    if (status != GRAFT_EXPR_STATUS_OK) {
      error = std::string("'") + opName(op.kind) + "' at line " + std::to_string(op.loc.line) +
              ":" + std::to_string(op.loc.col) + ": " + exprFailureText(e, a, b, status);
      return false;
    }
    out = intResult(r);
    return true;
  };
  int64_t a = args[0].i, b = op.operands.size() > 1 ? args[1].i : 0;
  switch (op.kind) {
  case OpKind::Add: return checked(GRAFT_EXPR_ADD, a, b);
  case OpKind::Sub: return checked(GRAFT_EXPR_SUB, a, b);
  case OpKind::Mul: return checked(GRAFT_EXPR_MUL, a, b);
  case OpKind::Div: return checked(GRAFT_EXPR_DIV, a, b);
  case OpKind::Rem: return checked(GRAFT_EXPR_REM, a, b);
  case OpKind::Max: return checked(GRAFT_EXPR_MAX, a, b);
  case OpKind::Min: return checked(GRAFT_EXPR_MIN, a, b);
  case OpKind::Neg: return checked(GRAFT_EXPR_SUB, 0, a);
  case OpKind::Abs: return a < 0 ? checked(GRAFT_EXPR_SUB, 0, a) : checked(GRAFT_EXPR_MAX, a, a);
  case OpKind::Cmp:
  case OpKind::Select:
  case OpKind::Cast: {
    // Exact on index values: comparisons, a choice, integer -> index.
    DType types[3] = {op.operands[0]->type.elem, op.operands.size() > 1 ? op.operands[1]->type.elem
                                                                         : DType::Index,
                      DType::Index};
    out = applyScalarOp(op, types, args, op.result()->type.elem);
    return true;
  }
  default:
    GRAFT_INTERNAL_ERROR(std::string("'") + opName(op.kind) + "' is not index arithmetic");
  }
}

Scalar reduceInit(const std::string &kind, DType t) {
  bool fl = isFloat(t);
  double inf = std::numeric_limits<double>::infinity();
  if (kind == "sum" || kind == "mean")
    return fl ? floatResult(0.0) : intResult(0);
  if (kind == "prod")
    return fl ? floatResult(1.0) : intResult(1);
  if (kind == "max")
    return fl ? floatResult(-inf) : intResult(minOf(t));
  return fl ? floatResult(inf) : intResult(maxOf(t)); // min
}

Scalar reduceStep(const std::string &kind, DType t, Scalar acc, Scalar x) {
  bool fl = isFloat(t);
  uint64_t ua = static_cast<uint64_t>(acc.i), ux = static_cast<uint64_t>(x.i);
  if (kind == "sum" || kind == "mean")
    return fl ? floatResult(inType(t, acc.f, x.f, [](auto p, auto q) { return p + q; }))
              : intResult(wrap(t, ua + ux));
  if (kind == "prod")
    return fl ? floatResult(inType(t, acc.f, x.f, [](auto p, auto q) { return p * q; }))
              : intResult(wrap(t, ua * ux));
  if (kind == "max")
    return fl ? floatResult(inType(t, acc.f, x.f, [](auto p, auto q) { return fmaximum(p, q); }))
              : intResult(acc.i > x.i ? acc.i : x.i);
  return fl ? floatResult(inType(t, acc.f, x.f, [](auto p, auto q) { return fminimum(p, q); }))
            : intResult(acc.i < x.i ? acc.i : x.i);
}

Scalar reduceFinish(const std::string &kind, DType t, Scalar acc, int64_t count) {
  if (kind != "mean")
    return acc;
  double n = roundToType(t, static_cast<double>(count));
  return floatResult(inType(t, acc.f, n, [](auto p, auto q) { return p / q; }));
}

Scalar multiplyAdd(DType t, Scalar acc, Scalar a, Scalar b) {
  if (isFloat(t)) {
    double prod = inType(t, a.f, b.f, [](auto x, auto y) { return x * y; });
    return floatResult(inType(t, acc.f, prod, [](auto x, auto y) { return x + y; }));
  }
  uint64_t p = static_cast<uint64_t>(a.i) * static_cast<uint64_t>(b.i);
  return intResult(wrap(t, static_cast<uint64_t>(acc.i) + static_cast<uint64_t>(wrap(t, p))));
}

} // namespace graft
