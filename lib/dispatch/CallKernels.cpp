// Kernel-call dispatches: the bindings, constants and grid of a call of a
// spec rule's kernel.
#include "dispatch/Former.h"
#include "ir/FloatBits.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

namespace graft {

uint32_t Former::specExpr(const SpecExpr &e, const Op *call) {
  ExprTable &ex = shapes.exprs;
  switch (e.kind) {
  case SpecExpr::Kind::Const: return ex.constant(e.value);
  case SpecExpr::Kind::Dim: {
    const Value *v = e.input >= 0 ? call->operands[e.input] : call->results[e.output];
    return shapes.dimsOf(v).at(e.axis);
  }
  case SpecExpr::Kind::Binary: break;
  }
  return ex.binary(e.op, specExpr(e.operands[0], call), specExpr(e.operands[1], call));
}

void Former::callGroup(int g) {
  const Op *op = groups[g].front();
  const Rule *rule = specs->rules[op->call.rule].get();
  Dispatch d;
  d.name = dispatchName(op);
  d.loc = op->loc;
  d.source = sm.formatShort(d.loc);
  d.isCall = true;
  KB kb{d, {}, {}, {}, {}};
  CallKernel &c = d.call;
  c.rule = rule;
  for (const Value *v : op->operands) {
    c.inputTypes.push_back(v->type.elem);
    c.inputRanks.push_back(v->type.rank());
    std::vector<unsigned> dp;
    if (v->type.tensor) {
      c.inputBuffers.push_back(buffer(v));
      d.bindings.push_back(c.inputBuffers.back());
      for (uint32_t e : shapes.dimsOf(v))
        dp.push_back(param(kb, e));
      c.inputScalarParam.push_back(-1);
    } else {
      c.inputBuffers.push_back(kNoBuffer);
      uint32_t e = 0;
      if (v->def && v->def->kind == OpKind::Constant) {
        // Constant words: integers sign-extended, floats as bit patterns.
        DType t = v->type.elem;
        int64_t w = 0;
        if (t == DType::F32) {
          float f = static_cast<float>(v->def->constant.getFloat(t, 0));
          uint32_t bits;
          std::memcpy(&bits, &f, 4);
          w = bits;
        } else if (t == DType::F64) {
          double f = v->def->constant.getFloat(t, 0);
          std::memcpy(&w, &f, 8);
        } else if (t == DType::F16 || t == DType::BF16) {
          // The 16-bit pattern, as the runtime passes a scalar argument
          // (getInt would convert the value to an integer).
          float f = static_cast<float>(v->def->constant.getFloat(t, 0));
          w = t == DType::F16 ? floatToHalfBits(f) : floatToBF16Bits(f);
        } else {
          w = v->def->constant.getInt(t, 0);
        }
        e = shapes.exprs.constant(w);
      } else {
        bool ok = shapes.scalarOf(v, e);
        assert(ok);
        (void)ok;
      }
      c.inputScalarParam.push_back(static_cast<int>(param(kb, e)));
    }
    c.inputDimParams.push_back(dp);
  }
  for (const Value *v : op->results) {
    c.outputTypes.push_back(v->type.elem);
    c.outputRanks.push_back(v->type.rank());
    c.outputBuffers.push_back(outputBuffer(v));
    d.bindings.push_back(c.outputBuffers.back());
    std::vector<unsigned> dp;
    for (uint32_t e : shapes.dimsOf(v))
      dp.push_back(param(kb, e));
    c.outputDimParams.push_back(dp);
  }
  if (rule->form == Rule::Form::Call) {
    for (const KernelArg &a : rule->args)
      if (a.kind == KernelArg::Kind::Expr)
        c.exprParams.push_back(param(kb, specExpr(a.expr, op)));
  } else {
    // Whole-dispatch kernels see exactly the constants the rule lists.
    d.params.clear();
    kb.paramIndex.clear();
    for (const SpecExpr &e : rule->constants)
      d.params.push_back(specExpr(e, op));
  }
  for (int i = 0; i < 3; ++i)
    d.grid[i] = specExpr(rule->grid[i], op);
  addDispatchStep(std::move(d));
}

} // namespace graft
