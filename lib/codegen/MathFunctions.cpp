// The float functions of map bodies as inline IR (MathFunctions.h).
#include "codegen/MathFunctions.h"

#include <llvm/IR/Intrinsics.h>

#include <cmath>
#include <vector>

namespace graft::codegen {

using namespace llvm;

namespace {

Value *fconst(IRBuilder<> &b, Type *t, double v) { return ConstantFP::get(t, v); }

// Horner evaluation of sum(c[i] * x^i).
Value *poly(IRBuilder<> &b, Value *x, const std::vector<double> &c) {
  Type *t = x->getType();
  Value *acc = fconst(b, t, c.back());
  for (size_t i = c.size() - 1; i-- > 0;)
    acc = b.CreateFAdd(b.CreateFMul(acc, x), fconst(b, t, c[i]));
  return acc;
}

// The same with each step a multiply-add that the level may fuse
// (llvm.fmuladd: one FMA where the CPU has it, else the two rounded ops
// of poly()).
Value *polyFused(IRBuilder<> &b, Value *x, const std::vector<double> &c) {
  Type *t = x->getType();
  Value *acc = fconst(b, t, c.back());
  for (size_t i = c.size() - 1; i-- > 0;)
    acc = b.CreateIntrinsic(Intrinsic::fmuladd, {t}, {acc, x, fconst(b, t, c[i])});
  return acc;
}

bool isF64(Type *t) { return t->getScalarType()->isDoubleTy(); }

// The integer type of |t|'s width: i32 or i64, per lane for a vector.
Type *intLike(IRBuilder<> &b, Type *t) {
  return t->getWithNewType(isF64(t) ? b.getInt64Ty() : b.getInt32Ty());
}

// Computes |fn| in double for a float (f32, or f16/bf16 held in a float)
// |x|, rounding the result once: within 1 ulp when |fn| is accurate to a few
// f64 ulp.
template <typename Fn> Value *inDouble(IRBuilder<> &b, Value *x, Fn fn) {
  if (isF64(x->getType()))
    return fn(x);
  return b.CreateFPTrunc(fn(b.CreateFPExt(x, x->getType()->getWithNewType(b.getDoubleTy()))), x->getType());
}

} // namespace

// exp(x): x = n*ln2 + r, |r| <= ln2/2; e^r by its Taylor polynomial; the
// result is scaled by 2^n built directly in the exponent field, in two
// halves so that results below the smallest normal come out subnormal
// (rounded once) rather than 0.
Value *emitExp(IRBuilder<> &b, Value *x) {
  Type *t = x->getType();
  bool d = isF64(t);
  Type *it = intLike(b, t);
  // Past hi the result overflows (and clamped to hi the arithmetic below
  // overflows to inf too: hi is above ln of the largest finite value,
  // 88.7228 and 709.7827, so results just under that stay finite); below
  // lo it is under half the smallest subnormal.
  double hi = d ? 710.0 : 89.0, lo = d ? -745.2 : -104.0;
  Value *xc = b.CreateBinaryIntrinsic(Intrinsic::minnum,
                                      b.CreateBinaryIntrinsic(Intrinsic::maxnum, x, fconst(b, t, lo)),
                                      fconst(b, t, hi));
  Value *n = b.CreateUnaryIntrinsic(Intrinsic::rint, b.CreateFMul(xc, fconst(b, t, 1.4426950408889634)));
  // n * ln2's high part is exact (few significant bits), so its
  // subtraction rounds once fused or not (one FMA where the level has it);
  // the low part's product may fuse into its subtraction.
  Value *r = b.CreateIntrinsic(
      Intrinsic::fmuladd, {t},
      {b.CreateFNeg(n), fconst(b, t, d ? 6.93147180369123816490e-01 : 0.693145751953125), xc});
  r = b.CreateIntrinsic(Intrinsic::fmuladd, {t},
                        {b.CreateFNeg(n), fconst(b, t, d ? 1.90821492927058770002e-10 : 1.428606765330187045e-06), r});
  std::vector<double> c;
  double f = 1;
  for (int i = 0; i <= (d ? 13 : 7); ++i) {
    if (i)
      f *= i;
    c.push_back(1.0 / f);
  }
  Value *p = polyFused(b, r, c);
  unsigned mant = d ? 52 : 23;
  int bias = d ? 1023 : 127;
  Value *ni = b.CreateFPToSI(n, it);
  Value *half = b.CreateAShr(ni, 1);
  auto pow2 = [&](Value *e) {
    return b.CreateBitCast(b.CreateShl(b.CreateAdd(e, ConstantInt::get(it, bias)), mant), t);
  };
  Value *res = b.CreateFMul(b.CreateFMul(p, pow2(half)), pow2(b.CreateSub(ni, half)));
  // Overflow to +inf and underflow to 0 need no selects: every x above hi
  // (+inf too) computes exp(hi), which is past the largest finite value
  // and rounds to +inf (f32: 1.32 * 2^128; f64: 1.24 * 2^1024), every x
  // below lo (-inf too) exp(lo), under half the smallest subnormal, which
  // rounds to 0 (f32: 0.97 * 2^-150; f64: 0.94 * 2^-1075). NaN, which
  // the clamp turns into lo, is passed through.
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, res);
}

// log(x): x = m * 2^e with m in [sqrt(1/2), sqrt(2)); log(m) = 2 atanh(s),
// s = (m-1)/(m+1), by its odd series.
Value *emitLog(IRBuilder<> &b, Value *x) {
  Type *t = x->getType();
  bool d = isF64(t);
  Type *it = intLike(b, t);
  unsigned mant = d ? 52 : 23;
  int64_t bias = d ? 1023 : 127;
  uint64_t mantMask = d ? 0x000FFFFFFFFFFFFFull : 0x7FFFFFull;
  uint64_t oneBits = d ? 0x3FF0000000000000ull : 0x3F800000ull;
  // Denormals: scale into the normal range first (x * 2^mant), and take the
  // scale back out of the exponent.
  Value *denormal = b.CreateFCmpOLT(b.CreateUnaryIntrinsic(Intrinsic::fabs, x),
                                    fconst(b, t, d ? 2.2250738585072014e-308 : 1.1754943508222875e-38));
  Value *xs = b.CreateSelect(denormal, b.CreateFMul(x, fconst(b, t, d ? 0x1p52 : 0x1p23)), x);
  Value *bits = b.CreateBitCast(xs, it);
  Value *e = b.CreateSub(b.CreateLShr(bits, mant), ConstantInt::get(it, bias));
  e = b.CreateSelect(denormal, b.CreateSub(e, ConstantInt::get(it, mant)), e);
  Value *m = b.CreateBitCast(b.CreateOr(b.CreateAnd(bits, ConstantInt::get(it, mantMask)),
                                        ConstantInt::get(it, oneBits)),
                             t);
  Value *big = b.CreateFCmpOGT(m, fconst(b, t, 1.4142135623730951));
  m = b.CreateSelect(big, b.CreateFMul(m, fconst(b, t, 0.5)), m);
  e = b.CreateSelect(big, b.CreateAdd(e, ConstantInt::get(it, 1)), e);
  Value *s = b.CreateFDiv(b.CreateFSub(m, fconst(b, t, 1.0)), b.CreateFAdd(m, fconst(b, t, 1.0)));
  Value *s2 = b.CreateFMul(s, s);
  std::vector<double> c;
  for (int k = 0; k <= (d ? 10 : 5); ++k)
    c.push_back(2.0 / (2 * k + 1));
  Value *lm = b.CreateFMul(s, poly(b, s2, c));
  Value *res = b.CreateFAdd(b.CreateFMul(b.CreateSIToFP(e, t), fconst(b, t, 0.6931471805599453)), lm);
  res = b.CreateSelect(b.CreateFCmpOEQ(x, fconst(b, t, 0.0)), fconst(b, t, -INFINITY), res);
  res = b.CreateSelect(b.CreateFCmpOLT(x, fconst(b, t, 0.0)), fconst(b, t, NAN), res);
  res = b.CreateSelect(b.CreateFCmpOEQ(x, fconst(b, t, INFINITY)), x, res);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, res);
}

// tanh(x) = sign(x) (1 - 2 / (e^{2|x|} + 1)); a short series near 0 where
// that form cancels.
Value *emitTanh(IRBuilder<> &b, Value *x) {
  Type *t = x->getType();
  Value *ax = b.CreateUnaryIntrinsic(Intrinsic::fabs, x);
  Value *e = emitExp(b, b.CreateFMul(ax, fconst(b, t, 2.0)));
  Value *big = b.CreateFSub(fconst(b, t, 1.0),
                            b.CreateFDiv(fconst(b, t, 2.0), b.CreateFAdd(e, fconst(b, t, 1.0))));
  big = b.CreateBinaryIntrinsic(Intrinsic::copysign, big, x);
  Value *x2 = b.CreateFMul(x, x);
  Value *small = b.CreateFMul(
      x, poly(b, x2, {1.0, -1.0 / 3, 2.0 / 15, -17.0 / 315, 62.0 / 2835}));
  Value *res = b.CreateSelect(b.CreateFCmpOLT(ax, fconst(b, t, 0.125)), small, big);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, res);
}

Value *emitFloor(IRBuilder<> &b, Value *x) { return b.CreateUnaryIntrinsic(Intrinsic::floor, x); }
Value *emitCeil(IRBuilder<> &b, Value *x) { return b.CreateUnaryIntrinsic(Intrinsic::ceil, x); }
Value *emitRoundHalfEven(IRBuilder<> &b, Value *x) {
  return b.CreateUnaryIntrinsic(Intrinsic::roundeven, x);
}

// sigmoid(x) = 1 / (1 + e^-x), and e^x / (1 + e^x) for x < 0 so that
// neither side overflows and small results keep their precision.
Value *emitSigmoid(IRBuilder<> &b, Value *x) {
  return inDouble(b, x, [&](Value *d) {
    Type *t = d->getType();
    Value *e = emitExp(b, b.CreateFNeg(b.CreateUnaryIntrinsic(Intrinsic::fabs, d)));
    Value *s = b.CreateFDiv(fconst(b, t, 1.0), b.CreateFAdd(fconst(b, t, 1.0), e));
    return b.CreateSelect(b.CreateFCmpOLT(d, fconst(b, t, 0.0)), b.CreateFMul(e, s), s);
  });
}

namespace {

// Chebyshev series of degree 20 for erf on three intervals of |x|
// (lib/codegen/tools/erf_coefficients.py prints them): erf(x) / x on
// [0, 1], erfc(x) * e^(x^2) on [1, 2.5] and on [2.5, 6].
constexpr int kErfDegree = 20;
struct ErfPiece {
  double lo, hi;
  double c[kErfDegree + 1];
};
const ErfPiece kErfPieces[3] = {
    {0, 1, {1.013017938436931, -0.14750420530926206, -0.027729634080096602, 0.004752966284637892, 0.00025196196008550934, -8.912601846903248e-05, -2.543514614684977e-07, 1.1901332279884313e-06, -3.256505357133642e-08, -1.2263965511606946e-08, 6.297474950250667e-10, 1.0161866833434493e-10, -7.609212205474058e-12, -6.906471246826706e-13, 7.089623326506998e-14, 3.8543595497375916e-15, -5.473479956300059e-16, -1.715488156485752e-17, 3.63178777639807e-18, 5.3895772521523783e-20, -2.128876683664941e-20}},
    {1, 2.5, {0.3017138902444292, -0.10574990110152695, 0.017104848474406763, -0.002587682261135065, 0.0003696145268036729, -5.0198560605167956e-05, 6.517935170561901e-06, -8.126449775613485e-07, 9.763690285483578e-08, -1.133813656364367e-08, 1.2757869239497698e-09, -1.3939984728303207e-10, 1.4818660272094163e-11, -1.535083855929386e-12, 1.5518968060622173e-13, -1.533073757449703e-14, 1.4816184838312305e-15, -1.402287179332859e-16, 1.3009967499563953e-17, -1.1841441839262096e-18, 1.050349352224609e-19}},
    {2.5, 6, {0.14016047004976134, -0.05677604943259737, 0.011209463278240392, -0.0021611166170954787, 0.00040747765264847823, -7.523771561693374e-05, 1.3620051895515644e-05, -2.4198114237545286e-06, 4.223228134648387e-07, -7.246499552340511e-08, 1.223372886245904e-08, -2.0334473033647613e-09, 3.329826004203616e-10, -5.3749377494884076e-11, 8.556925347813952e-12, -1.3442073414723102e-12, 2.0845649474483269e-13, -3.192624789168429e-14, 4.830923660247152e-15, -7.221696252691666e-16, 1.0457036280207626e-16}},
};

// The constant of piece 0, 1 or 2 chosen per value by |mid| and |large|.
Value *pick(IRBuilder<> &b, Type *t, Value *mid, Value *large, double c0, double c1, double c2) {
  return b.CreateSelect(large, fconst(b, t, c2), b.CreateSelect(mid, fconst(b, t, c1), fconst(b, t, c0)));
}

Value *erfDouble(IRBuilder<> &b, Value *x) {
  Type *t = x->getType();
  const ErfPiece &p0 = kErfPieces[0], &p1 = kErfPieces[1], &p2 = kErfPieces[2];
  Value *ax = b.CreateUnaryIntrinsic(Intrinsic::fabs, x);
  // Past 6, erf is 1 in double: clamp there (NaN stays NaN).
  ax = b.CreateSelect(b.CreateFCmpOGT(ax, fconst(b, t, p2.hi)), fconst(b, t, p2.hi), ax);
  Value *mid = b.CreateFCmpOGE(ax, fconst(b, t, p1.lo));
  Value *large = b.CreateFCmpOGE(ax, fconst(b, t, p2.lo));
  // u = (2|x| - lo - hi) / (hi - lo) in [-1, 1]; Clenshaw's recurrence
  // with each value's own coefficients (one series, not three and a select).
  auto scale = [](const ErfPiece &p) { return 2 / (p.hi - p.lo); };
  auto offset = [](const ErfPiece &p) { return (p.hi + p.lo) / (p.hi - p.lo); };
  Value *u = b.CreateFSub(b.CreateFMul(ax, pick(b, t, mid, large, scale(p0), scale(p1), scale(p2))),
                          pick(b, t, mid, large, offset(p0), offset(p1), offset(p2)));
  Value *u2 = b.CreateFMul(u, fconst(b, t, 2.0));
  Value *b1 = fconst(b, t, 0.0), *b2 = fconst(b, t, 0.0);
  for (int j = kErfDegree; j >= 1; --j) {
    Value *c = pick(b, t, mid, large, p0.c[j], p1.c[j], p2.c[j]);
    Value *next = b.CreateFAdd(b.CreateFSub(b.CreateFMul(u2, b1), b2), c);
    b2 = b1;
    b1 = next;
  }
  Value *series = b.CreateFAdd(b.CreateFSub(b.CreateFMul(u, b1), b2),
                               pick(b, t, mid, large, p0.c[0], p1.c[0], p2.c[0]));
  Value *small = b.CreateFMul(ax, series);
  Value *expNegSq = emitExp(b, b.CreateFNeg(b.CreateFMul(ax, ax)));
  Value *big = b.CreateFSub(fconst(b, t, 1.0), b.CreateFMul(expNegSq, series));
  // erf is odd: the sign of x (also of -0) on |erf(|x|)|.
  return b.CreateBinaryIntrinsic(Intrinsic::copysign, b.CreateSelect(mid, big, small), x);
}

// sin or cos of a double. Argument reduction: x = k * pi/2 + r with
// |r| <= pi/4, k the nearest integer to x * 2/pi, and pi/2 split in three
// parts (24, 24 and 53 bits) so that k * part is exact for |k| < 2^29 (Cody
// and Waite). Then sin(r) and cos(r) by their Taylor series (to r^19 and
// r^20, below 2^-60 for |r| <= pi/4), the quadrant k mod 4 choosing which
// and its sign. For |x| >= 2^29 * pi/2 the reduction would be wrong: those
// give NaN (docs/graph-format.md).
Value *sinCosDouble(IRBuilder<> &b, Value *x, bool cosine) {
  Type *t = x->getType();
  const double kRange = 0x1p29 * 1.5707963267948966;
  Value *k = b.CreateUnaryIntrinsic(Intrinsic::rint, b.CreateFMul(x, fconst(b, t, 0x1.45f306dc9c883p-1)));
  Value *r = b.CreateFSub(x, b.CreateFMul(k, fconst(b, t, 0x1.921fb40000000p+0)));
  r = b.CreateFSub(r, b.CreateFMul(k, fconst(b, t, 0x1.4442d00000000p-24)));
  r = b.CreateFSub(r, b.CreateFMul(k, fconst(b, t, 0x1.8469898cc5170p-48)));
  Value *r2 = b.CreateFMul(r, r);
  std::vector<double> sc, cc; // sin r = r * S(r^2), cos r = C(r^2)
  double f = 1;
  for (int n = 0; n <= 20; ++n) {
    if (n)
      f *= n;
    double term = (n / 2 % 2 ? -1.0 : 1.0) / f;
    (n % 2 ? sc : cc).push_back(term);
  }
  Value *s = b.CreateFMul(r, poly(b, r2, sc));
  Value *c = poly(b, r2, cc);
  // Quadrant: k mod 4, plus one for cos (cos x = sin(x + pi/2)).
  // (Per lane on a vector.)
  Type *it = t->getWithNewType(b.getInt64Ty());
  auto ic = [&](int64_t v) { return ConstantInt::get(it, v); };
  Value *ki = b.CreateIntrinsic(Intrinsic::fptosi_sat, {it, t}, {k});
  if (cosine)
    ki = b.CreateAdd(ki, ic(1));
  Value *odd = b.CreateICmpNE(b.CreateAnd(ki, ic(1)), ic(0));
  Value *negate = b.CreateICmpNE(b.CreateAnd(ki, ic(2)), ic(0));
  Value *v = b.CreateSelect(odd, c, s);
  v = b.CreateSelect(negate, b.CreateFNeg(v), v);
  if (!cosine) // sin(-0) = -0
    v = b.CreateSelect(b.CreateFCmpOEQ(x, fconst(b, t, 0.0)), x, v);
  Value *outside = b.CreateFCmpOGE(b.CreateUnaryIntrinsic(Intrinsic::fabs, x), fconst(b, t, kRange));
  return b.CreateSelect(outside, ConstantFP::getQNaN(t), v);
}

} // namespace

Value *emitErf(IRBuilder<> &b, Value *x) {
  return inDouble(b, x, [&](Value *d) { return erfDouble(b, d); });
}
Value *emitSin(IRBuilder<> &b, Value *x) {
  return inDouble(b, x, [&](Value *d) { return sinCosDouble(b, d, false); });
}
Value *emitCos(IRBuilder<> &b, Value *x) {
  return inDouble(b, x, [&](Value *d) { return sinCosDouble(b, d, true); });
}

// log1p(x) = log(u) - ((u - 1) - x) / u with u = 1 + x: the second term
// corrects the rounding of u to first order.
Value *emitLog1p(IRBuilder<> &b, Value *x) {
  return inDouble(b, x, [&](Value *d) {
    Type *t = d->getType();
    Value *one = fconst(b, t, 1.0);
    Value *u = b.CreateFAdd(one, d);
    Value *fix = b.CreateFDiv(b.CreateFSub(b.CreateFSub(u, one), d), u);
    Value *r = b.CreateFSub(emitLog(b, u), fix);
    r = b.CreateSelect(b.CreateFCmpOEQ(d, fconst(b, t, -1.0)), fconst(b, t, -INFINITY), r);
    r = b.CreateSelect(b.CreateFCmpOEQ(u, fconst(b, t, INFINITY)), u, r);
    // |x| below half an ulp of 1 (and +-0): log1p(x) is x.
    return b.CreateSelect(b.CreateFCmpOLT(b.CreateUnaryIntrinsic(Intrinsic::fabs, d), fconst(b, t, 0x1p-54)), d, r);
  });
}

// expm1(x): its Taylor series x + x^2/2! + ... + x^20/20! for |x| < 1
// (terms below 2^-60), e^x - 1 outside, where it loses no precision.
Value *emitExpm1(IRBuilder<> &b, Value *x) {
  return inDouble(b, x, [&](Value *d) {
    Type *t = d->getType();
    std::vector<double> c; // expm1(x) = x * P(x), P(x) = sum x^n / (n+1)!
    double f = 1;
    for (int n = 0; n <= 19; ++n) {
      f *= n + 1;
      c.push_back(1.0 / f);
    }
    Value *series = b.CreateFMul(d, poly(b, d, c));
    Value *direct = b.CreateFSub(emitExp(b, d), fconst(b, t, 1.0));
    Value *small = b.CreateFCmpOLT(b.CreateUnaryIntrinsic(Intrinsic::fabs, d), fconst(b, t, 1.0));
    return b.CreateSelect(small, series, direct);
  });
}

// pow(x, y) = e^(y log|x|) with C's rules (C11 F.10.4.4) for the cases that
// formula gets wrong: x^0 = 1 and 1^y = 1 even for NaN, (-1)^+-inf = 1, a
// negative x takes the sign of an odd integer y, and a finite negative x to
// a finite non-integer y is NaN.
Value *emitPow(IRBuilder<> &b, Value *x, Value *y) {
  Type *orig = x->getType();
  bool d = isF64(orig);
  Value *dx = d ? x : b.CreateFPExt(x, x->getType()->getWithNewType(b.getDoubleTy()));
  Value *dy = d ? y : b.CreateFPExt(y, y->getType()->getWithNewType(b.getDoubleTy()));
  Type *t = dx->getType();
  Value *one = fconst(b, t, 1.0), *inf = fconst(b, t, INFINITY);
  Value *ax = b.CreateUnaryIntrinsic(Intrinsic::fabs, dx);
  Value *r = emitExp(b, b.CreateFMul(dy, emitLog(b, ax)));
  Value *yInteger = b.CreateFCmpOEQ(b.CreateUnaryIntrinsic(Intrinsic::floor, dy), dy);
  Value *half = b.CreateFMul(dy, fconst(b, t, 0.5));
  Value *yOdd = b.CreateAnd(yInteger, b.CreateFCmpONE(b.CreateUnaryIntrinsic(Intrinsic::floor, half), half));
  Value *xNegative = b.CreateICmpSLT(b.CreateBitCast(dx, intLike(b, t)), ConstantInt::get(intLike(b, t), 0));
  r = b.CreateSelect(b.CreateAnd(xNegative, yOdd), b.CreateFNeg(r), r);
  Value *finiteNegative = b.CreateAnd(b.CreateFCmpOLT(dx, fconst(b, t, 0.0)), b.CreateFCmpONE(ax, inf));
  Value *yFinite = b.CreateFCmpONE(b.CreateUnaryIntrinsic(Intrinsic::fabs, dy), inf);
  Value *nan = b.CreateAnd(finiteNegative, b.CreateAnd(yFinite, b.CreateNot(yInteger)));
  r = b.CreateSelect(nan, ConstantFP::getQNaN(t), r);
  Value *yInfinite = b.CreateFCmpOEQ(b.CreateUnaryIntrinsic(Intrinsic::fabs, dy), inf);
  Value *unit = b.CreateOr(b.CreateFCmpOEQ(dy, fconst(b, t, 0.0)), b.CreateFCmpOEQ(dx, one));
  unit = b.CreateOr(unit, b.CreateAnd(b.CreateFCmpOEQ(ax, one), yInfinite));
  r = b.CreateSelect(unit, one, r);
  return d ? r : b.CreateFPTrunc(r, orig);
}

} // namespace graft::codegen
