// The DAG matcher. Step 1 walks pattern and payload from the root towards
// producers in lockstep (operands, then captured outer values of bodies),
// comparing op kinds, attributes, constants and result types, and binding
// pattern arguments. Step 2 compares map bodies structurally with a value
// mapping seeded by step 1, so a captured %cst in the pattern body must be
// the payload value that %cst matched. Step 3 checks the rule's constraints.
//
// Decision on constants: constants are values, not identities. A pattern
// constant op reached twice may meet two different payload constant ops as
// long as both have the pattern's type and value (payloads often repeat
// `constant 0.0` instead of sharing one). Every other op reached twice must
// meet the same payload op ("dag mismatch").
#include "spec/Matcher.h"

#include "spec/DagOperands.h"
#include "spec/SpecExpr.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace graft {

namespace {

std::string valueName(const Value *v) {
  if (!v)
    return "<none>";
  if (!v->name.empty())
    return "%" + v->name;
  if (v->def)
    return std::string("the ") + opName(v->def->kind) + " result";
  return "an argument";
}

std::string opLabel(const Op *op) {
  return op->result() ? valueName(op->result()) : std::string(opName(op->kind));
}

bool sameConstant(const Value *a, const Value *b) {
  return a && b && a->def && b->def && a->def->kind == OpKind::Constant &&
         b->def->kind == OpKind::Constant && a->type == b->type &&
         a->def->constant == b->def->constant;
}

std::string constantText(const Op *op) {
  const Type &t = op->result()->type;
  std::string s;
  if (isFloat(t.elem)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", op->constant.getFloat(t.elem, 0));
    s = buf;
    // Print floats as the graph syntax writes them (0.0, not 0).
    if (s.find_first_of(".eni") == std::string::npos)
      s += ".0";
  } else {
    s = std::to_string(op->constant.getInt(t.elem, 0));
  }
  if (!op->constant.splat)
    s = "[" + s + ", ...]";
  return s + " : " + t.str();
}

class DagMatcher {
public:
  DagMatcher(const Rule &rule, MatchFailure &failure) : rule_(rule), fail_(failure) {}

  bool run(Op *root, Match &out);

private:
  bool failAt(const Op *payload, const Op *pattern, std::string why) {
    fail_.why = std::move(why);
    fail_.payloadLoc = payload ? payload->loc : SourceLoc();
    fail_.patternLoc = pattern ? pattern->loc : SourceLoc();
    return false;
  }
  void cover(Op *op) {
    if (std::find(covered_.begin(), covered_.end(), op) == covered_.end())
      covered_.push_back(op);
  }
  bool compareOps(const Op *p, const Op *g, bool exactTypes);
  bool bindArg(const Value *p, Value *g, const Op *user, const Op *patternUser);
  bool walk(Op *root);
  bool compareBodies();
  bool compareRegion(const Op *pOp, const Op *gOp);
  bool checkConstraints(Match &m);

  const Rule &rule_;
  MatchFailure &fail_;
  std::map<const Op *, Op *> opMap_;            // pattern op -> payload op
  std::vector<std::pair<const Op *, Op *>> order_; // in processing order
  std::map<const Value *, Value *> argBind_;    // pattern arg -> payload value
  std::vector<Op *> covered_;
  MatchFailure deferred_; // body capture mismatch found by the walk
};

bool DagMatcher::compareOps(const Op *p, const Op *g, bool exactTypes) {
  const std::string at = opLabel(g);
  if (p->kind != g->kind)
    return failAt(g, p, "op kind mismatch at " + at + ": expected " +
                            opName(p->kind) + ", found " + opName(g->kind));
  if (p->results.size() != g->results.size() || p->operands.size() != g->operands.size())
    return failAt(g, p, "operand or result count mismatch at " + at);
  for (size_t i = 0; i < p->results.size(); ++i) {
    const Type &pt = p->results[i]->type, &gt = g->results[i]->type;
    if (exactTypes ? pt != gt : !castCompatible(pt, gt))
      return failAt(g, p, "type mismatch at " + at + ": expected " + pt.str() +
                              ", found " + gt.str());
  }
  for (const NamedAttr &pa : p->attrs) {
    const Attr *ga = g->attr(pa.name);
    if (!ga)
      return failAt(g, p, "attribute mismatch at " + at + ": expected " + pa.name +
                              " = " + pa.value.str() + ", found no " + pa.name);
    if (!(*ga == pa.value))
      return failAt(g, p, "attribute mismatch at " + at + ": expected " + pa.name +
                              " = " + pa.value.str() + ", found " + pa.name + " = " +
                              ga->str());
  }
  for (const NamedAttr &ga : g->attrs)
    if (!p->attr(ga.name))
      return failAt(g, p, "attribute mismatch at " + at + ": unexpected " + ga.name +
                              " = " + ga.value.str());
  if (p->kind == OpKind::Constant && !(p->constant == g->constant))
    return failAt(g, p, "constant mismatch at " + at + ": expected " + constantText(p) +
                            ", found " + constantText(g));
  return true;
}

bool DagMatcher::bindArg(const Value *p, Value *g, const Op *user, const Op *patternUser) {
  auto it = argBind_.find(p);
  if (it != argBind_.end()) {
    if (it->second != g)
      return failAt(user, patternUser, "conflicting bindings for %" + p->name + ": " +
                                           valueName(it->second) + " and " +
                                           valueName(g));
    return true;
  }
  if (!castCompatible(p->type, g->type))
    return failAt(user, patternUser, "type mismatch for %" + p->name + ": expected " +
                                         p->type.str() + ", found " + valueName(g) +
                                         " of type " + g->type.str());
  argBind_[p] = g;
  return true;
}

bool DagMatcher::walk(Op *root) {
  std::vector<std::pair<const Op *, Op *>> work = {{rule_.pattern->results[0]->def, root}};
  while (!work.empty()) {
    auto [p, g] = work.back();
    work.pop_back();
    auto done = opMap_.find(p);
    if (done != opMap_.end()) {
      if (done->second == g)
        continue;
      if (p->kind == OpKind::Constant && sameConstant(done->second->result(), g->result())) {
        cover(g);
        continue;
      }
      return failAt(g, p, "dag mismatch: pattern op " + opLabel(p) + " already matched " +
                              opLabel(done->second) + ", now reached at " + opLabel(g));
    }
    if (!compareOps(p, g, /*exactTypes=*/false))
      return false;
    std::vector<Value *> pOperands = dagOperands(*p), gOperands = dagOperands(*g);
    if (pOperands.size() != gOperands.size()) {
      // The bodies differ. Keep walking the plain operands so a producer
      // mismatch is reported first; step 2 then names the differing body op.
      if (deferred_.why.empty()) {
        deferred_.why = "body mismatch in " + opLabel(g) + ": the pattern body captures " +
                        std::to_string(pOperands.size() - p->operands.size()) +
                        " outer value(s), the payload body " +
                        std::to_string(gOperands.size() - g->operands.size());
        deferred_.payloadLoc = g->loc;
        deferred_.patternLoc = p->loc;
      }
      pOperands.resize(p->operands.size());
      gOperands.resize(g->operands.size());
    }
    for (size_t i = 0; i < pOperands.size(); ++i) {
      const Value *pv = pOperands[i];
      Value *gv = gOperands[i];
      if (pv->isArg()) {
        if (!bindArg(pv, gv, g, p))
          return false;
        continue;
      }
      const Op *pd = pv->def;
      if (!gv->def)
        return failAt(g, pd, "operand mismatch at " + opLabel(g) + ": expected " +
                                 valueName(pv) + " produced by " + opName(pd->kind) +
                                 ", found argument " + valueName(gv));
      size_t k = std::find(pd->results.begin(), pd->results.end(), pv) - pd->results.begin();
      if (k >= gv->def->results.size() || gv->def->results[k] != gv)
        return failAt(g, pd, "operand mismatch at " + opLabel(g) + ": result index of " +
                                 valueName(gv) + " differs from the pattern");
      work.push_back({pd, gv->def});
    }
    opMap_[p] = g;
    order_.push_back({p, g});
    cover(g);
  }
  return true;
}

bool DagMatcher::compareRegion(const Op *pOp, const Op *gOp) {
  const Region &pr = *pOp->region, &gr = *gOp->region;
  std::map<const Value *, Value *> vmap;
  for (auto &[p, g] : argBind_)
    vmap[p] = g;
  for (auto &[p, g] : order_)
    for (size_t i = 0; i < p->results.size(); ++i)
      vmap[p->results[i]] = g->results[i];
  const std::string at = opLabel(gOp);
  if (pr.args.size() != gr.args.size())
    return failAt(gOp, pOp, "body mismatch at " + at + ": expected " +
                                std::to_string(pr.args.size()) + " body arguments, found " +
                                std::to_string(gr.args.size()));
  for (size_t i = 0; i < pr.args.size(); ++i) {
    if (pr.args[i]->type != gr.args[i]->type)
      return failAt(gOp, pOp, "body mismatch at " + at + ": argument " + std::to_string(i) +
                                  " is " + gr.args[i]->type.str() + ", expected " +
                                  pr.args[i]->type.str());
    vmap[pr.args[i]] = gr.args[i];
  }
  auto sameValue = [&](const Value *p, Value *g) {
    auto it = vmap.find(p);
    return it != vmap.end() && (it->second == g || sameConstant(it->second, g));
  };
  size_t n = std::min(pr.ops.size(), gr.ops.size());
  for (size_t i = 0; i < n; ++i) {
    const Op *p = pr.ops[i];
    Op *g = gr.ops[i];
    if (!compareOps(p, g, /*exactTypes=*/true)) {
      fail_.why = "body mismatch in " + at + ": " + fail_.why;
      return false;
    }
    for (size_t j = 0; j < p->operands.size(); ++j) {
      if (sameValue(p->operands[j], g->operands[j]))
        continue;
      return failAt(g, p, "body mismatch in " + at + ": operand " + std::to_string(j) +
                              " of " + opLabel(g) + " is " + valueName(g->operands[j]) +
                              ", expected the value matched by " +
                              valueName(p->operands[j]));
    }
    for (size_t j = 0; j < p->results.size(); ++j)
      vmap[p->results[j]] = g->results[j];
  }
  if (pr.ops.size() != gr.ops.size())
    return failAt(gOp, pOp, "body mismatch in " + at + ": expected " +
                                std::to_string(pr.ops.size()) + " body op(s), found " +
                                std::to_string(gr.ops.size()));
  if (!sameValue(pr.yield, gr.yield))
    return failAt(gOp, pOp, "body mismatch in " + at + ": yields " + valueName(gr.yield) +
                                ", expected the value matched by " + valueName(pr.yield));
  return true;
}

bool DagMatcher::compareBodies() {
  // Producers first, like IREE: the mapping then holds every value a body can
  // capture.
  for (auto it = order_.rbegin(); it != order_.rend(); ++it)
    if (it->first->region && !compareRegion(it->first, it->second))
      return false;
  return true;
}

bool DagMatcher::checkConstraints(Match &m) {
  SpecScope scope;
  scope.pattern = rule_.pattern;
  scope.outputNames = rule_.outputNames;
  std::vector<Type> in, outTypes;
  for (Value *v : m.inputs)
    in.push_back(v->type);
  for (Value *v : m.outputs)
    outTypes.push_back(v->type);
  Op *root = m.outputs[0]->def;
  for (const Constraint &c : rule_.constraints) {
    auto failC = [&](const std::string &detail) {
      fail_.why = "constraint " + c.text + " failed: " + detail;
      fail_.payloadLoc = root->loc;
      fail_.patternLoc = c.loc;
      return false;
    };
    if (c.kind == Constraint::Kind::ElementTypes) {
      DType t = in[c.input].elem;
      if (std::find(c.types.begin(), c.types.end(), t) == c.types.end())
        return failC(valueName(m.inputs[c.input]) + " has element type " + dtypeName(t));
      continue;
    }
    SpecEvalFailure why;
    std::optional<int64_t> v = evalSpecExprStatic(c.value, in, outTypes, scope, why);
    if (!v && why.undefined) {
      // Known sizes, undefined arithmetic: the spec is wrong, not the match.
      fail_.why = "constraint " + c.text + ": " + why.message;
      fail_.payloadLoc = root->loc;
      fail_.patternLoc = why.loc.valid() ? why.loc : c.loc;
      fail_.specError = true;
      return false;
    }
    if (!v) {
      // Unknown until run time: the match holds under a run-time guard,
      // which the rewriter accepts or refuses (Match::guards).
      m.guards.push_back({&c, why.message});
      continue;
    }
    if (c.kind == Constraint::Kind::DivisibleBy && *v % c.divisor != 0)
      return failC(formatSpecExpr(c.value, scope) + " = " + std::to_string(*v));
    if (c.kind == Constraint::Kind::DimRange && (*v < c.min || *v > c.max))
      return failC(formatSpecExpr(c.value, scope) + " = " + std::to_string(*v));
  }
  return true;
}

bool DagMatcher::run(Op *root, Match &out) {
  if (!rule_.pattern || rule_.pattern->results.empty())
    return failAt(root, nullptr, "rule has no pattern");
  if (!walk(root) || !compareBodies())
    return false;
  if (!deferred_.why.empty()) {
    fail_ = deferred_;
    return false;
  }
  out = Match();
  out.rule = &rule_;
  for (const Value *a : rule_.pattern->args) {
    auto it = argBind_.find(a);
    if (it == argBind_.end())
      return failAt(root, nullptr, "pattern argument %" + a->name + " was not bound");
    out.inputs.push_back(it->second);
  }
  for (const Value *r : rule_.pattern->results) {
    const Op *pd = r->def;
    auto it = opMap_.find(pd);
    if (it == opMap_.end())
      return failAt(root, pd, "pattern result %" + r->name + " was not matched");
    size_t k = std::find(pd->results.begin(), pd->results.end(), r) - pd->results.begin();
    out.outputs.push_back(it->second->results[k]);
  }
  out.ops = covered_;
  return checkConstraints(out);
}

} // namespace

bool matchRule(const Rule &rule, Op *root, Match &out, MatchFailure &failure) {
  failure = MatchFailure();
  DagMatcher m(rule, failure);
  return m.run(root, out);
}

bool matchRule(const Rule &rule, Op *root, Match &out, std::string &why,
               SourceLoc &whereLoc) {
  MatchFailure f;
  bool ok = matchRule(rule, root, out, f);
  why = f.why;
  whereLoc = f.payloadLoc;
  return ok;
}

} // namespace graft
