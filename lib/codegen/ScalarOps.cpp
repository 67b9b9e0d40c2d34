#include "codegen/ScalarOps.h"

#include "codegen/AbiTypes.h"
#include "codegen/MathFunctions.h"
#include "ir/FloatBits.h"
#include "support/InternalError.h"

#include <llvm/IR/Intrinsics.h>

#include <cmath>

namespace graft::codegen {

using namespace llvm;

namespace {

// Integer div/rem of tensor elements, exactly as graft/expr.h defines them
// (graft_wrapping_div / graft_wrapping_rem): floor division, x / 0 = 0,
// x % 0 = x, INT_MIN / -1 wraps to INT_MIN. All selects, no branches and no
// trap: the divisor is replaced by 1 where the hardware would fault, and the
// truncating quotient is moved down by one where the signs differ and the
// remainder is not zero.
Value *intDivRem(IRBuilder<> &b, Value *x, Value *y, bool rem) {
  Type *t = x->getType();
  Value *zero = ConstantInt::get(t, 0), *one = ConstantInt::get(t, 1);
  Value *isZero = b.CreateICmpEQ(y, zero);
  Value *isM1 = b.CreateICmpEQ(y, ConstantInt::getSigned(t, -1));
  Value *safe = b.CreateSelect(b.CreateOr(isZero, isM1), one, y);
  Value *q = b.CreateSDiv(x, safe);
  Value *r = b.CreateSRem(x, safe);
  Value *signsDiffer = b.CreateICmpSLT(b.CreateXor(r, safe), zero);
  Value *adjust = b.CreateAnd(b.CreateICmpNE(r, zero), signsDiffer);
  if (rem) {
    Value *floorRem = b.CreateSelect(adjust, b.CreateAdd(r, safe), r);
    return b.CreateSelect(isZero, x, b.CreateSelect(isM1, zero, floorRem));
  }
  Value *floorDiv = b.CreateSelect(adjust, b.CreateSub(q, one), q);
  return b.CreateSelect(isZero, zero, b.CreateSelect(isM1, b.CreateSub(zero, x), floorDiv));
}

// f64 -> f32 rounding to odd: truncate toward zero and set the lowest bit
// when inexact, so that a second rounding (to f16/bf16) is correct.
Value *truncRoundToOdd(IRBuilder<> &b, Value *d) {
  Value *f = b.CreateFPTrunc(d, b.getFloatTy());
  Value *back = b.CreateFPExt(f, b.getDoubleTy());
  Value *bits = b.CreateBitCast(f, b.getInt32Ty());
  Value *tooBig = b.CreateFCmpOGT(b.CreateUnaryIntrinsic(Intrinsic::fabs, back),
                                  b.CreateUnaryIntrinsic(Intrinsic::fabs, d));
  bits = b.CreateSelect(tooBig, b.CreateSub(bits, b.getInt32(1)), bits);
  Value *inexact = b.CreateFCmpONE(back, d);
  bits = b.CreateSelect(inexact, b.CreateOr(bits, b.getInt32(1)), bits);
  return b.CreateSelect(b.CreateFCmpUNO(d, d), f, b.CreateBitCast(bits, b.getFloatTy()));
}

Value *emitCast(IRBuilder<> &b, Value *v, DType from, DType to) {
  Type *dst = registerType(b.getContext(), to);
  if (from == to)
    return v;
  if (isStorageFloat(to)) {
    // Through float; from f64 with round-to-odd so the result is rounded once.
    Value *f = from == DType::F64 ? truncRoundToOdd(b, v)
                                  : emitCast(b, v, isStorageFloat(from) ? DType::F32 : from,
                                             DType::F32);
    return roundToStorage(b, f, to);
  }
  if (isStorageFloat(from))
    return emitCast(b, v, DType::F32, to);
  bool ff = isFloat(from), tf = isFloat(to);
  if (ff && tf)
    return b.CreateFPCast(v, dst);
  if (!ff && tf)
    return from == DType::I1 ? b.CreateUIToFP(v, dst) : b.CreateSIToFP(v, dst);
  if (ff && !tf) {
    if (to == DType::I1)
      return b.CreateFCmpUNE(v, ConstantFP::get(v->getType(), 0.0));
    return b.CreateIntrinsic(Intrinsic::fptosi_sat, {dst, v->getType()}, {v});
  }
  if (to == DType::I1)
    return b.CreateICmpNE(v, ConstantInt::get(v->getType(), 0));
  return from == DType::I1 ? b.CreateZExtOrTrunc(v, dst) : b.CreateSExtOrTrunc(v, dst);
}

} // namespace

bool isStorageFloat(DType t) { return t == DType::F16 || t == DType::BF16; }

Value *storageToFloat(IRBuilder<> &b, Value *h, DType t) {
  // (Types and constants take |h|'s shape: a scalar or a vector.)
  Type *i32 = h->getType()->getWithNewType(b.getInt32Ty());
  Type *f32 = h->getType()->getWithNewType(b.getFloatTy());
  auto k = [&](uint32_t v) { return ConstantInt::get(i32, v); };
  Value *w = b.CreateZExt(h, i32);
  if (t == DType::BF16)
    return b.CreateBitCast(b.CreateShl(w, 16), f32);
  // Binary16 -> binary32: move exponent and mantissa into place and rebias;
  // infinities/NaNs get the maximal exponent, subnormals are renormalised by
  // a float subtraction.
  Value *em = b.CreateShl(b.CreateAnd(w, 0x7fff), 13);
  Value *exp = b.CreateAnd(em, 0x0f800000);
  Value *o = b.CreateAdd(em, k((127 - 15) << 23));
  Value *isSpecial = b.CreateICmpEQ(exp, k(0x0f800000));
  Value *isSmall = b.CreateICmpEQ(exp, k(0));
  Value *special = b.CreateAdd(o, k((128 - 16) << 23));
  Value *small = b.CreateBitCast(
      b.CreateFSub(b.CreateBitCast(b.CreateAdd(o, k(1 << 23)), f32), ConstantFP::get(f32, 0x1p-14)),
      i32);
  o = b.CreateSelect(isSpecial, special, b.CreateSelect(isSmall, small, o));
  o = b.CreateOr(o, b.CreateShl(b.CreateAnd(w, 0x8000), 16));
  return b.CreateBitCast(o, f32);
}

Value *floatToStorage(IRBuilder<> &b, Value *f, DType t) {
  Type *i32 = b.getInt32Ty();
  Value *u = b.CreateBitCast(f, i32);
  if (t == DType::BF16) {
    // Round to nearest even on the upper half; NaNs stay (quiet) NaNs.
    Value *lsb = b.CreateAnd(b.CreateLShr(u, 16), 1);
    Value *r = b.CreateLShr(b.CreateAdd(u, b.CreateAdd(b.getInt32(0x7fff), lsb)), 16);
    Value *nan = b.CreateOr(b.CreateLShr(u, 16), b.getInt32(0x40));
    return b.CreateTrunc(b.CreateSelect(b.CreateFCmpUNO(f, f), nan, r), b.getInt16Ty());
  }
  // Binary32 -> binary16, round to nearest even.
  Value *sign = b.CreateAnd(u, 0x80000000u);
  Value *a = b.CreateXor(u, sign);
  // Inf or NaN (and everything that rounds to inf goes through the normal
  // path below, whose exponent overflows into 0x7c00).
  Value *big = b.CreateICmpUGE(a, b.getInt32((127 + 16) << 23));
  Value *special = b.CreateSelect(b.CreateICmpUGT(a, b.getInt32(0x7f800000)), b.getInt32(0x7e00),
                                  b.getInt32(0x7c00));
  // Results that are subnormal or zero: adding 0.5f aligns the 10 mantissa
  // bits at the bottom with a round-to-nearest-even float addition.
  Value *sub = b.CreateSub(
      b.CreateBitCast(b.CreateFAdd(b.CreateBitCast(a, b.getFloatTy()),
                                   ConstantFP::get(b.getFloatTy(), 0.5)),
                      i32),
      b.getInt32(126 << 23));
  // Normal results: rebias and round with the odd bit as tie breaker.
  Value *odd = b.CreateAnd(b.CreateLShr(a, 13), 1);
  Value *norm = b.CreateLShr(
      b.CreateAdd(b.CreateAdd(a, b.getInt32(0xc8000000u + 0xfff) /* (15 - 127) << 23, wrapped */), odd),
      13);
  Value *r = b.CreateSelect(big, special,
                            b.CreateSelect(b.CreateICmpULT(a, b.getInt32(113 << 23)), sub, norm));
  r = b.CreateOr(r, b.CreateLShr(sign, 16));
  return b.CreateTrunc(r, b.getInt16Ty());
}

Value *roundToStorage(IRBuilder<> &b, Value *f, DType t) {
  return storageToFloat(b, floatToStorage(b, f, t), t);
}

// bitcast: the bits of |v| (f16/bf16 live in float registers: their bits
// come from floatToStorage, exact for every value but NaN), read as |to|;
// any NaN first becomes the canonical one (ir/FloatBits.h), as in the
// evaluator, because CPUs make NaNs with different payloads and signs.
static Value *emitBitcast(IRBuilder<> &b, Value *v, DType from, DType to) {
  Type *bits = b.getIntNTy(dtypeSize(from) * 8);
  Value *raw = isStorageFloat(from) ? floatToStorage(b, v, from)
               : isFloat(from)      ? b.CreateBitCast(v, bits)
                                    : v;
  if (isFloat(from))
    raw = b.CreateSelect(b.CreateFCmpUNO(v, v), ConstantInt::get(bits, canonicalNaNBits(from)),
                         raw);
  if (isStorageFloat(to))
    return storageToFloat(b, raw, to);
  return isFloat(to) ? b.CreateBitCast(raw, registerType(b.getContext(), to)) : raw;
}

// IEEE maximum/minimum (NaN if either is NaN, +0 above -0) as compares and
// selects rather than llvm.maximum/minimum: on ARMv7 LLVM 19 lowers those to
// NEON VMAX/VMIN, which flush denormals (results would differ from the
// evaluator), and aborts on its own expansion of the f64 one (an i64 setcc
// created after type legalization). Same results everywhere.
static Value *ieeeMinMax(IRBuilder<> &b, Value *x, Value *y, bool max) {
  Value *nan = ConstantFP::getQNaN(x->getType());
  Value *unordered = b.CreateFCmpUNO(x, y);
  Value *pick = max ? b.CreateFCmpOGT(x, y) : b.CreateFCmpOLT(x, y);
  Value *ordered = b.CreateSelect(pick, x, y);
  // Equal operands: only +0 and -0 differ; x + y is the larger zero,
  // -((-x) + (-y)) the smaller one.
  Value *zeros = max ? b.CreateFAdd(x, y)
                     : b.CreateFNeg(b.CreateFAdd(b.CreateFNeg(x), b.CreateFNeg(y)));
  Value *equal = b.CreateSelect(b.CreateFCmpOEQ(x, ConstantFP::getZero(x->getType())), zeros, x);
  ordered = b.CreateSelect(b.CreateFCmpOEQ(x, y), equal, ordered);
  return b.CreateSelect(unordered, nan, ordered);
}

static Value *emitScalarOpImpl(IRBuilder<> &b, OpKind op, const std::string &pred,
                               DType resultType, DType operandType,
                               const std::vector<Value *> &o);

Value *emitScalarOp(IRBuilder<> &b, OpKind op, const std::string &pred, DType resultType,
                    DType operandType, const std::vector<Value *> &o) {
  Value *v = emitScalarOpImpl(b, op, pred, resultType, operandType, o);
  // f16/bf16 arithmetic happened in float: round like the evaluator. Casts
  // round themselves; select and comparisons produce no new value.
  if (isStorageFloat(resultType) && op != OpKind::Cast && op != OpKind::Select &&
      op != OpKind::Bitcast)
    v = roundToStorage(b, v, resultType);
  return v;
}

static Value *emitScalarOpImpl(IRBuilder<> &b, OpKind op, const std::string &pred,
                               DType resultType, DType operandType,
                               const std::vector<Value *> &o) {
  bool fl = isFloat(operandType);
  switch (op) {
  case OpKind::Add: return fl ? b.CreateFAdd(o[0], o[1]) : b.CreateAdd(o[0], o[1]);
  case OpKind::Sub: return fl ? b.CreateFSub(o[0], o[1]) : b.CreateSub(o[0], o[1]);
  case OpKind::Mul: return fl ? b.CreateFMul(o[0], o[1]) : b.CreateMul(o[0], o[1]);
  case OpKind::Div: return fl ? b.CreateFDiv(o[0], o[1]) : intDivRem(b, o[0], o[1], false);
  case OpKind::Rem: return fl ? b.CreateFRem(o[0], o[1]) : intDivRem(b, o[0], o[1], true);
  case OpKind::Max:
    return fl ? ieeeMinMax(b, o[0], o[1], true)
              : b.CreateBinaryIntrinsic(Intrinsic::smax, o[0], o[1]);
  case OpKind::Min:
    return fl ? ieeeMinMax(b, o[0], o[1], false)
              : b.CreateBinaryIntrinsic(Intrinsic::smin, o[0], o[1]);
  case OpKind::Neg: return fl ? b.CreateFNeg(o[0]) : b.CreateNeg(o[0]);
  case OpKind::Abs:
    return fl ? b.CreateUnaryIntrinsic(Intrinsic::fabs, o[0])
              : b.CreateBinaryIntrinsic(Intrinsic::abs, o[0], b.getFalse());
  case OpKind::Pow: return emitPow(b, o[0], o[1]);
  case OpKind::Sign: {
    // -1, 0 or 1; a float NaN stays NaN and -0 gives +0 (x + 0).
    Type *t = o[0]->getType();
    Value *pos = fl ? b.CreateFCmpOGT(o[0], ConstantFP::get(t, 0.0))
                    : b.CreateICmpSGT(o[0], ConstantInt::get(t, 0));
    Value *neg = fl ? b.CreateFCmpOLT(o[0], ConstantFP::get(t, 0.0))
                    : b.CreateICmpSLT(o[0], ConstantInt::get(t, 0));
    Value *one = fl ? ConstantFP::get(t, 1.0) : ConstantInt::get(t, 1);
    Value *minusOne = fl ? ConstantFP::get(t, -1.0) : ConstantInt::getSigned(t, -1);
    Value *rest = fl ? b.CreateFAdd(o[0], ConstantFP::get(t, 0.0)) : ConstantInt::get(t, 0);
    return b.CreateSelect(pos, one, b.CreateSelect(neg, minusOne, rest));
  }
  case OpKind::Exp: return emitExp(b, o[0]);
  case OpKind::Log: return emitLog(b, o[0]);
  case OpKind::Tanh: return emitTanh(b, o[0]);
  case OpKind::Sqrt: return b.CreateUnaryIntrinsic(Intrinsic::sqrt, o[0]);
  case OpKind::Rsqrt:
    return b.CreateFDiv(ConstantFP::get(o[0]->getType(), 1.0),
                        b.CreateUnaryIntrinsic(Intrinsic::sqrt, o[0]));
  case OpKind::Floor: return emitFloor(b, o[0]);
  case OpKind::Ceil: return emitCeil(b, o[0]);
  case OpKind::Round: return emitRoundHalfEven(b, o[0]);
  case OpKind::Sigmoid: return emitSigmoid(b, o[0]);
  case OpKind::Erf: return emitErf(b, o[0]);
  case OpKind::Sin: return emitSin(b, o[0]);
  case OpKind::Cos: return emitCos(b, o[0]);
  case OpKind::Log1p: return emitLog1p(b, o[0]);
  case OpKind::Expm1: return emitExpm1(b, o[0]);
  case OpKind::IsNan: return b.CreateFCmpUNO(o[0], o[0]);
  case OpKind::IsInf:
    return b.CreateFCmpOEQ(b.CreateUnaryIntrinsic(Intrinsic::fabs, o[0]),
                           ConstantFP::getInfinity(o[0]->getType()));
  case OpKind::Cmp: {
    if (fl) {
      if (pred == "eq") return b.CreateFCmpOEQ(o[0], o[1]);
      if (pred == "ne") return b.CreateFCmpUNE(o[0], o[1]);
      if (pred == "lt") return b.CreateFCmpOLT(o[0], o[1]);
      if (pred == "le") return b.CreateFCmpOLE(o[0], o[1]);
      if (pred == "gt") return b.CreateFCmpOGT(o[0], o[1]);
      GRAFT_CHECK(pred == "ge", "cmp with unverified predicate '" + pred + "'");
      return b.CreateFCmpOGE(o[0], o[1]);
    }
    if (pred == "eq") return b.CreateICmpEQ(o[0], o[1]);
    if (pred == "ne") return b.CreateICmpNE(o[0], o[1]);
    if (pred == "lt") return b.CreateICmpSLT(o[0], o[1]);
    if (pred == "le") return b.CreateICmpSLE(o[0], o[1]);
    if (pred == "gt") return b.CreateICmpSGT(o[0], o[1]);
    GRAFT_CHECK(pred == "ge", "cmp with unverified predicate '" + pred + "'");
    return b.CreateICmpSGE(o[0], o[1]);
  }
  case OpKind::Select: return b.CreateSelect(o[0], o[1], o[2]);
  case OpKind::Cast: return emitCast(b, o[0], operandType, resultType);
  case OpKind::Bitcast: return emitBitcast(b, o[0], operandType, resultType);
  default:
    GRAFT_INTERNAL_ERROR(std::string("'") + opName(op) + "' is not a scalar op");
  }
}

} // namespace graft::codegen
