// See CallPlan.h. The size program is built with the host program's own
// ExprTable over the pattern, whose arguments stand for the call's operands
// (ARG_DIM / ARG_SCALAR of argument i = operand i), then cut down to the
// entries the plan uses.
#include "spec/CallPlan.h"

#include "shape/Shapes.h"
#include "support/InternalError.h"

#include <climits>

namespace graft {

namespace {

class PlanBuilder {
public:
  PlanBuilder(const Rule &rule, DiagEngine &diag) : rule_(rule), diag_(diag) {}

  std::shared_ptr<KernelCall> build(const KernelSource &source) {
    const Function &pat = *rule_.pattern;
    analyzeShapes(pat, diag_, info_);
    auto plan = std::make_shared<KernelCall>();
    plan->name = rule_.name;
    plan->loc = rule_.loc;
    plan->symbol = rule_.symbol;
    plan->form = rule_.form;
    plan->link = rule_.link;
    plan->returnsStatus = rule_.returnsStatus || rule_.link != KernelLink::Static;
    plan->inputCount = static_cast<unsigned>(pat.args.size());
    plan->source = source;
    for (const Value *r : pat.results)
      plan->resultDims.push_back(info_.dimsOf(r));
    plan->resultInit = rule_.outputInit;
    for (const ShapeCheck &c : info_.checks)
      plan->checks.push_back({c.lhs, c.rhs, c.message, c.loc, c.what});
    for (const KernelArg &a : rule_.args)
      plan->args.push_back(arg(a, *plan));
    for (const SpecExpr &e : rule_.constants)
      plan->constants.push_back(expr(e));
    for (int i = 0; i < 3; ++i)
      plan->grid[i] = expr(rule_.grid[i]);
    plan->guard = guard();
    compact(*plan);
    return plan;
  }

private:
  // The entry of a spec expression; undefined folds are errors at |e|.
  uint32_t expr(const SpecExpr &e) {
    ExprTable &ex = info_.exprs;
    uint32_t id = 0;
    switch (e.kind) {
    case SpecExpr::Kind::Const:
      id = ex.constant(e.value);
      break;
    case SpecExpr::Kind::Dim: {
      const Value *v = e.input >= 0 ? rule_.pattern->args[e.input] : rule_.pattern->results[e.output];
      id = info_.dimsOf(v).at(e.axis);
      break;
    }
    case SpecExpr::Kind::Scalar:
      id = info_.scalars.at(rule_.pattern->args[e.input]);
      break;
    case SpecExpr::Kind::Binary:
      id = ex.binary(e.op, expr(e.operands[0]), expr(e.operands[1]));
      break;
    case SpecExpr::Kind::WorkgroupId:
    case SpecExpr::Kind::WorkgroupCount:
    case SpecExpr::Kind::ProcessorId:
      GRAFT_CHECK(false, "a per-workgroup spec expression in the size program");
    }
    for (const FoldError &f : ex.takeFoldErrors())
      diag_.error(e.loc, "in rule '" + rule_.name + "': " + f.message());
    return id;
  }

  // The entry that is 1 when every size constraint of the rule holds (0
  // otherwise), or kNoGuard without any: the run-time guard of a match
  // whose constraints needed dynamic sizes.
  uint32_t guard() {
    ExprTable &ex = info_.exprs;
    uint32_t all = KernelCall::kNoGuard;
    auto isFalse = [&](uint32_t e) { return ex.binary(GRAFT_EXPR_EQ, e, ex.constant(0)); };
    for (const Constraint &c : rule_.constraints) {
      if (c.kind == Constraint::Kind::ElementTypes)
        continue;
      uint32_t v = expr(c.value), holds = 0;
      if (c.kind == Constraint::Kind::DivisibleBy) {
        holds = ex.binary(GRAFT_EXPR_EQ,
                          ex.binary(GRAFT_EXPR_REM, v, ex.constant(c.divisor)), ex.constant(0));
      } else {
        // min <= v <= max: neither v < min nor max < v.
        holds = isFalse(ex.binary(GRAFT_EXPR_LT, v, ex.constant(c.min)));
        if (c.max != INT64_MAX)
          holds = ex.binary(GRAFT_EXPR_MUL, holds,
                            isFalse(ex.binary(GRAFT_EXPR_LT, ex.constant(c.max), v)));
      }
      // Both are 0 or 1: their product is their conjunction.
      all = all == KernelCall::kNoGuard ? holds : ex.binary(GRAFT_EXPR_MUL, all, holds);
    }
    return all;
  }

  KernelCallArg arg(const KernelArg &a, KernelCall &plan) {
    KernelCallArg out;
    out.text = a.text;
    out.loc = a.loc;
    out.operand = a.input;
    out.result = a.output;
    out.type = a.type;
    if (a.input >= 0 || a.output >= 0) {
      const Value *v = a.input >= 0 ? rule_.pattern->args[a.input] : rule_.pattern->results[a.output];
      out.type = v->type.elem;
      out.name = a.input >= 0 ? v->name : rule_.outputNames.at(a.output);
    }
    switch (a.kind) {
    case KernelArg::Kind::Tensor:
      out.kind = KernelCallArg::Kind::Buffer;
      break;
    case KernelArg::Kind::Memref:
      out.kind = KernelCallArg::Kind::Memref;
      out.rank = (a.input >= 0 ? rule_.pattern->args[a.input]->type
                               : rule_.pattern->resultTypes[a.output])
                     .rank();
      break;
    case KernelArg::Kind::Scalar:
      out.kind = KernelCallArg::Kind::Scalar;
      break;
    case KernelArg::Kind::ProcessorData:
      out.kind = KernelCallArg::Kind::ProcessorData;
      break;
    case KernelArg::Kind::Expr:
      if (a.expr.perWorkgroup()) {
        out.kind = KernelCallArg::Kind::PerWorkgroup;
        out.expr = node(a.expr, plan);
        break;
      }
      out.kind = KernelCallArg::Kind::Size;
      out.expr = expr(a.expr);
      if (a.type == DType::I32)
        requireI32(out, plan);
      break;
    }
    return out;
  }

  // The nodes computing per-workgroup expression |e|; its parts that are
  // the same for every workgroup are one program entry each.
  unsigned node(const SpecExpr &e, KernelCall &plan) {
    KernelCallArgNode n;
    if (!e.perWorkgroup()) {
      n.index = expr(e);
    } else if (e.kind == SpecExpr::Kind::Binary) {
      n.kind = KernelCallArgNode::Kind::Binary;
      n.op = e.op;
      n.lhs = node(e.operands[0], plan);
      n.rhs = node(e.operands[1], plan);
    } else {
      n.kind = e.kind == SpecExpr::Kind::WorkgroupId      ? KernelCallArgNode::Kind::WorkgroupId
               : e.kind == SpecExpr::Kind::WorkgroupCount ? KernelCallArgNode::Kind::WorkgroupCount
                                                          : KernelCallArgNode::Kind::ProcessorId;
      n.index = static_cast<uint32_t>(e.axis);
    }
    plan.argNodes.push_back(n);
    return static_cast<unsigned>(plan.argNodes.size() - 1);
  }

  // An `: i32` size must fit, not be truncated: clamping it to the i32
  // range must leave it unchanged (a run-time check, or an error now when
  // the size is static).
  void requireI32(const KernelCallArg &a, KernelCall &plan) {
    ExprTable &ex = info_.exprs;
    uint32_t clamped = ex.binary(GRAFT_EXPR_MIN,
                                 ex.binary(GRAFT_EXPR_MAX, a.expr, ex.constant(INT32_MIN)),
                                 ex.constant(INT32_MAX));
    std::string what = "kernel argument '" + a.text + "' of rule '" + rule_.name +
                       "' does not fit in i32";
    auto value = ex.constValue(a.expr);
    if (value && (*value < INT32_MIN || *value > INT32_MAX)) {
      diag_.error(a.loc, what + ": it is " + std::to_string(*value));
      return;
    }
    if (clamped != a.expr)
      plan.checks.push_back(
          {clamped, a.expr, diag_.sources().formatShort(a.loc) + ": " + what, a.loc, what});
  }

  // Keeps the entries the plan refers to (and their operands), renumbered.
  void compact(KernelCall &plan) {
    const std::vector<graft_expr_v1_t> &all = info_.exprs.exprs();
    std::vector<bool> used(all.size(), false);
    auto root = [&](uint32_t e) { used.at(e) = true; };
    for (const auto &dims : plan.resultDims)
      for (uint32_t e : dims)
        root(e);
    for (const KernelCallCheck &c : plan.checks)
      root(c.lhs), root(c.rhs);
    for (const KernelCallArg &a : plan.args)
      if (a.kind == KernelCallArg::Kind::Size)
        root(a.expr);
    for (const KernelCallArgNode &n : plan.argNodes)
      if (n.kind == KernelCallArgNode::Kind::Entry)
        root(n.index);
    for (uint32_t e : plan.constants)
      root(e);
    for (uint32_t e : plan.grid)
      root(e);
    if (plan.guard != KernelCall::kNoGuard)
      root(plan.guard);
    // Operands come before their users: one backward sweep marks them all.
    for (size_t i = all.size(); i-- > 0;) {
      const graft_expr_v1_t &e = all[i];
      if (!used[i] || e.op == GRAFT_EXPR_CONST || e.op == GRAFT_EXPR_ARG_DIM ||
          e.op == GRAFT_EXPR_ARG_SCALAR)
        continue;
      used[e.a] = true;
      used[static_cast<size_t>(e.imm)] = true;
    }
    std::vector<uint32_t> newId(all.size(), UINT32_MAX);
    for (size_t i = 0; i < all.size(); ++i) {
      if (!used[i])
        continue;
      graft_expr_v1_t e = all[i];
      if (e.op != GRAFT_EXPR_CONST && e.op != GRAFT_EXPR_ARG_DIM && e.op != GRAFT_EXPR_ARG_SCALAR) {
        e.a = newId[e.a];
        e.imm = newId[static_cast<size_t>(e.imm)];
      }
      newId[i] = static_cast<uint32_t>(plan.exprs.size());
      plan.exprs.push_back(e);
    }
    auto remap = [&](uint32_t &e) { e = newId[e]; };
    for (auto &dims : plan.resultDims)
      for (uint32_t &e : dims)
        remap(e);
    for (KernelCallCheck &c : plan.checks)
      remap(c.lhs), remap(c.rhs);
    for (KernelCallArg &a : plan.args)
      if (a.kind == KernelCallArg::Kind::Size)
        remap(a.expr);
    for (KernelCallArgNode &n : plan.argNodes)
      if (n.kind == KernelCallArgNode::Kind::Entry)
        remap(n.index);
    for (uint32_t &e : plan.constants)
      remap(e);
    for (uint32_t &e : plan.grid)
      remap(e);
    if (plan.guard != KernelCall::kNoGuard)
      remap(plan.guard);
  }

  const Rule &rule_;
  DiagEngine &diag_;
  ShapeInfo info_;
};

} // namespace

std::shared_ptr<const KernelCall> planKernelCall(const Rule &rule, const std::string &target,
                                                 const std::string &level, DiagEngine &diag) {
  GRAFT_CHECK(rule.pattern, "planning a kernel call of a rule without a pattern");
  GRAFT_CHECK(rule.appliesTo(target, level), "planning rule '" + rule.name + "' on target " +
                                                 target + " it has no kernel for");
  KernelSource source;
  if (rule.link == KernelLink::Static)
    source = *rule.kernelFor(target, level);
  return PlanBuilder(rule, diag).build(source);
}

} // namespace graft
