// Kernel-call dispatches: the bindings, constants and grid of a kernel_call
// op, from its plan (ir/KernelCall.h) instantiated by shape analysis over the
// call's operands (ShapeInfo::callExprs).
#include "dispatch/Former.h"
#include "ir/FloatBits.h"
#include "support/InternalError.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

namespace graft {

unsigned Former::importIndex(const KernelCall &plan) {
  std::string name = plan.importName();
  auto it = std::find(out.imports.begin(), out.imports.end(), name);
  if (it == out.imports.end())
    it = out.imports.insert(it, name);
  return static_cast<unsigned>(it - out.imports.begin());
}

uint32_t Former::guardOf(const Op *root) {
  const Op *call = root->kind == OpKind::KernelCall ? root : root->fallbackFor;
  if (!call || (call == root && call->operands.size() == call->call->inputCount))
    return 0; // not a call with a fallback, nor one of a fallback's ops
  const KernelCall &plan = *call->call;
  bool isCall = call == root;
  if (plan.link == KernelLink::Optional)
    return (isCall ? GRAFT_STEP_GUARD_IMPORT_RESOLVED : GRAFT_STEP_GUARD_IMPORT_MISSING) |
           importIndex(plan);
  GRAFT_CHECK(plan.guard != KernelCall::kNoGuard,
              "kernel_call @" + plan.name + " has a fallback but neither a guard nor an import");
  uint32_t e = shapes.callExprs.at(call).at(plan.guard);
  GRAFT_CHECK(e <= GRAFT_STEP_GUARD_INDEX_MASK, "guard expression index past the guard's field");
  return (isCall ? GRAFT_STEP_GUARD_EXPR_NONZERO : GRAFT_STEP_GUARD_EXPR_ZERO) | e;
}

// The buffer of output |out| of |call|, which starts as |in|: |in|'s own
// storage when the call is its only use and the storage is graft's (a
// temporary), else a new buffer with a copy of |in| made before the call.
uint32_t Former::inPlaceOutput(const Value *out, const Value *in, const Op *call) {
  std::vector<uint32_t> outDims = shapes.dimsOf(out), inDims = shapes.dimsOf(in);
  for (size_t i = 0; i < outDims.size(); ++i) {
    if (outDims[i] == inDims[i])
      continue;
    std::string what = "kernel_call @" + call->call->name + ": dim " + std::to_string(i) +
                       " of output %" + out->name + " differs from its initial value %" + in->name;
    shapes.checks.push_back(
        {outDims[i], inDims[i], sm.formatShort(call->loc) + ": " + what, call->loc, what});
  }
  uint32_t inBuffer = buffer(in);
  const std::vector<Op *> &users = uses.users(in);
  bool dead = users.size() == 1 && users[0] == call && !returned.count(in) &&
              !bufferOf.count(out) && prog.buffers[inBuffer].kind == GRAFT_BUFFER_TEMP;
  if (dead) {
    bufferOf[out] = inBuffer;
    return inBuffer;
  }
  uint32_t b = outputBuffer(out);
  StepDesc copy;
  copy.kind = GRAFT_STEP_COPY;
  copy.bindings = {inBuffer, b};
  copy.guard = stepGuard; // a guarded call's copy runs only with the call
  prog.steps.push_back(copy);
  return b;
}

unsigned Former::argNode(KernelDraft &draft, CallKernel &c, const KernelCall &plan, unsigned node,
                         const std::vector<uint32_t> &sizes) {
  const KernelCallArgNode &n = plan.argNodes.at(node);
  ArgExprNode out;
  switch (n.kind) {
  case KernelCallArgNode::Kind::Entry: out.index = param(draft, sizes.at(n.index)); break;
  case KernelCallArgNode::Kind::WorkgroupId:
    out.kind = ArgExprNode::Kind::WorkgroupId, out.index = n.index;
    break;
  case KernelCallArgNode::Kind::WorkgroupCount:
    out.kind = ArgExprNode::Kind::WorkgroupCount, out.index = n.index;
    break;
  case KernelCallArgNode::Kind::ProcessorId: out.kind = ArgExprNode::Kind::ProcessorId; break;
  case KernelCallArgNode::Kind::Binary:
    out.kind = ArgExprNode::Kind::Binary;
    out.op = n.op;
    out.lhs = argNode(draft, c, plan, n.lhs, sizes);
    out.rhs = argNode(draft, c, plan, n.rhs, sizes);
    break;
  }
  c.argNodes.push_back(out);
  return static_cast<unsigned>(c.argNodes.size() - 1);
}

void Former::callGroup(int g) {
  const Op *op = groups[g].front();
  const KernelCall &plan = *op->call;
  // The plan's size program, as expressions of this function.
  const std::vector<uint32_t> &sizes = shapes.callExprs.at(op);
  Dispatch d;
  d.name = dispatchName(op);
  d.loc = op->loc;
  d.source = sm.formatShort(d.loc);
  d.isCall = true;
  KernelDraft draft{d, {}, {}, {}, {}};
  CallKernel &c = d.call;
  c.plan = &plan;
  if (plan.imported())
    c.importIndex = importIndex(plan);
  for (unsigned i = 0; i < plan.inputCount; ++i) {
    const Value *v = op->operands[i];
    c.inputTypes.push_back(v->type.elem);
    c.inputRanks.push_back(v->type.rank());
    std::vector<unsigned> dp;
    if (v->type.tensor) {
      c.inputBuffers.push_back(buffer(v));
      d.bindings.push_back(c.inputBuffers.back());
      for (uint32_t e : shapes.dimsOf(v))
        dp.push_back(param(draft, e));
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
      c.inputScalarParam.push_back(static_cast<int>(param(draft, e)));
    }
    c.inputDimParams.push_back(dp);
  }
  // A call with a fallback (an optional import, a run-time guard) writes
  // the buffers its fallback writes (the trailing operands): whichever of
  // the two runs, consumers read one place.
  for (size_t k = 0; k + plan.inputCount < op->operands.size(); ++k) {
    uint32_t b = buffer(op->operands[plan.inputCount + k]);
    if (prog.buffers[b].kind != GRAFT_BUFFER_TEMP)
      diag.error(op->loc, "rule '" + plan.name + "' (" +
                              (plan.link == KernelLink::Optional ? "link: optional"
                                                                 : "guarded at run time") +
                              "): output " + std::to_string(k) +
                              " has no buffer of its own (it is an argument, a constant or "
                              "a reshape's view) for both the call and graft's fallback "
                              "to write; " +
                              (plan.link == KernelLink::Optional
                                   ? "use link: import"
                                   : "make the constraint provable at compile time"));
    bufferOf[op->results.at(k)] = b;
  }
  for (size_t o = 0; o < op->results.size(); ++o) {
    const Value *v = op->results[o];
    int init = o < plan.resultInit.size() ? plan.resultInit[o] : -1;
    c.outputTypes.push_back(v->type.elem);
    c.outputRanks.push_back(v->type.rank());
    c.outputBuffers.push_back(init >= 0 ? inPlaceOutput(v, op->operands.at(init), op)
                                        : outputBuffer(v));
    d.bindings.push_back(c.outputBuffers.back());
    std::vector<unsigned> dp;
    for (uint32_t e : shapes.dimsOf(v))
      dp.push_back(param(draft, e));
    c.outputDimParams.push_back(dp);
  }
  if (plan.form == KernelForm::Call) {
    for (const KernelCallArg &a : plan.args) {
      if (a.kind == KernelCallArg::Kind::Size) {
        ArgExprNode n;
        n.index = param(draft, sizes.at(a.expr));
        c.argNodes.push_back(n);
        c.exprRoots.push_back(static_cast<unsigned>(c.argNodes.size() - 1));
      } else if (a.kind == KernelCallArg::Kind::PerWorkgroup) {
        c.exprRoots.push_back(argNode(draft, c, plan, a.expr, sizes));
      }
    }
  } else {
    // Whole-dispatch kernels see exactly the constants the rule lists.
    d.params.clear();
    draft.paramIndex.clear();
    for (uint32_t e : plan.constants)
      d.params.push_back(sizes.at(e));
  }
  for (int i = 0; i < 3; ++i)
    d.grid[i] = sizes.at(plan.grid[i]);
  addDispatchStep(std::move(d));
}

} // namespace graft
