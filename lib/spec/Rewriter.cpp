// See Rewriter.h. Matching runs on the untouched function first (so every
// rule sees the original graph); the accepted matches are then rewritten in
// program order, each KernelCall placed right after its root, which is the
// last op of the match because every pattern op feeds the root.
#include "spec/Rewriter.h"

#include "spec/CallPlan.h"

#include <algorithm>
#include <map>
#include <set>

namespace graft {

namespace {

std::string nameOf(const Value *v) {
  return v && !v->name.empty() ? "%" + v->name : "<unnamed>";
}

// "%relu = map (mlp.graph:11:11)"
std::string describeOp(const SourceManager &sm, const Op *op) {
  std::string s = op->result() ? nameOf(op->result()) + " = " : "";
  return s + opName(op->kind) + " (" + sm.format(op->loc) + ")";
}

// Builds the --explain text.
class Explainer {
public:
  Explainer(const SourceManager &sm, bool enabled) : sm_(sm), on_(enabled) {}

  void header(const std::string &target) {
    if (on_)
      text += "explain: spec rules for target " + target + "\n";
  }
  void skipped(const Function &fn, const Rule &rule, const std::string &target) {
    if (on_)
      text += "@" + fn.name + ": rule '" + rule.name + "' skipped: no kernel for target " +
              target + " (" + sm_.format(rule.loc) + ")\n";
  }
  void matched(const Function &fn, const Match &m) {
    if (!on_)
      return;
    const Op *root = m.outputs[0]->def;
    text += "@" + fn.name + ": rule '" + m.rule->name + "' matched at " +
            describe(root) + "\n";
    text += "  pattern: " + sm_.format(m.rule->pattern->results[0]->def->loc) + "\n";
    text += "  ops:\n";
    for (const Op *op : m.ops)
      text += "    " + describe(op) + "\n";
    text += "  inputs:";
    for (size_t i = 0; i < m.inputs.size(); ++i)
      text += std::string(i ? ", " : " ") + "%" + m.rule->pattern->args[i]->name + " = " +
              nameOf(m.inputs[i]);
    text += "\n  outputs:";
    for (size_t i = 0; i < m.outputs.size(); ++i)
      text += std::string(i ? ", " : " ") + m.rule->outputNames[i] + " = " +
              nameOf(m.outputs[i]);
    text += "\n";
    if (m.guards.empty())
      return;
    text += "  guarded: the kernel runs when these hold, graft's own code for the same ops "
            "otherwise (checked per invocation):\n";
    for (const Match::Guard &g : m.guards)
      text += "    " + g.constraint->text + " (" + sm_.format(g.constraint->loc) + "): " +
              g.why + "\n";
  }
  void missed(const Function &fn, const Rule &rule, const Op *root,
              const MatchFailure &f) {
    if (!on_)
      return;
    text += "@" + fn.name + ": rule '" + rule.name + "' did not match at " +
            describe(root) + ": " + f.why + "\n";
    if (f.payloadLoc.valid())
      text += "  graph:   " + sm_.format(f.payloadLoc) + "\n";
    text += "  pattern: " +
            sm_.format(f.patternLoc.valid() ? f.patternLoc : rule.loc) + "\n";
  }

  std::string text;

private:
  std::string describe(const Op *op) const { return describeOp(sm_, op); }
  const SourceManager &sm_;
  bool on_;
};

// Every use of |v| in |fn|: operands of top-level and body ops, body yields
// and returned values; uses by the ops in |ignored| do not count.
bool isUsed(const Function &fn, const Value *v, const std::set<const Op *> &ignored = {}) {
  if (std::find(fn.results.begin(), fn.results.end(), v) != fn.results.end())
    return true;
  for (const Op *op : fn.ops) {
    if (ignored.count(op))
      continue;
    if (std::find(op->operands.begin(), op->operands.end(), v) != op->operands.end())
      return true;
    if (const Region *r = op->region.get()) {
      if (r->yield == v)
        return true;
      for (const Op *inner : r->ops)
        if (std::find(inner->operands.begin(), inner->operands.end(), v) !=
            inner->operands.end())
          return true;
    }
  }
  return false;
}

// Ops that use |v| (top level, or whose body uses it) placed before |limit|
// in program order and not in |inMatch|.
const Op *earlyUser(const Function &fn, const Value *v, size_t limit,
                    const std::set<const Op *> &inMatch) {
  for (size_t i = 0; i < limit && i < fn.ops.size(); ++i) {
    const Op *op = fn.ops[i];
    if (inMatch.count(op))
      continue;
    bool uses = std::find(op->operands.begin(), op->operands.end(), v) != op->operands.end();
    if (const Region *r = op->region.get()) {
      uses |= r->yield == v;
      for (const Op *inner : r->ops)
        uses |= std::find(inner->operands.begin(), inner->operands.end(), v) !=
                inner->operands.end();
    }
    if (uses)
      return op;
  }
  return nullptr;
}

std::string uniqueName(const Function &fn, const std::string &base) {
  std::set<std::string> names;
  for (const auto &v : fn.valueStore)
    names.insert(v->name);
  if (!names.count(base))
    return base;
  for (unsigned i = 1;; ++i)
    if (!names.count(base + "_" + std::to_string(i)))
      return base + "_" + std::to_string(i);
}

size_t positionOf(const Function &fn, const Op *op) {
  return std::find(fn.ops.begin(), fn.ops.end(), op) - fn.ops.begin();
}

// Replaces |m| in its function by a KernelCall; updates |m| to the call's
// values. |replaced| maps outputs of earlier rewrites to their new values;
// |plan| is the call plan of the match's rule on this target.
void rewrite(Match &m, std::shared_ptr<const KernelCall> plan,
             std::map<Value *, Value *> &replaced) {
  Function &fn = *m.fn;
  Op *root = m.outputs[0]->def;
  for (Value *&in : m.inputs) {
    auto it = replaced.find(in);
    if (it != replaced.end())
      in = it->second;
  }
  Op *call = fn.newOp(OpKind::KernelCall, root->loc);
  call->call = std::move(plan);
  call->operands = m.inputs;
  size_t at = positionOf(fn, root) + 1;
  fn.ops.insert(fn.ops.begin() + at, call);
  std::vector<Value *> oldOutputs = m.outputs, newOutputs;
  for (size_t i = 0; i < m.outputs.size(); ++i) {
    Value *old = m.outputs[i];
    Value *v = fn.newValue(old->type,
                           uniqueName(fn, m.rule->name + "_" + m.rule->outputNames[i]),
                           old->loc);
    v->def = call;
    call->results.push_back(v);
    replaceUses(fn, at + 1, old, v);
    replaced[old] = v;
    newOutputs.push_back(v);
  }
  m.outputs = newOutputs;
  // The covered ops that nothing uses any more, consumers first, are
  // dropped; for an optional import or a guarded match they stay as the
  // call's fallback, and the values the call replaces become its trailing
  // operands (the fallback computes them where no plugin provides the
  // import, or where the guard does not hold).
  std::vector<Op *> ops = m.ops;
  std::sort(ops.begin(), ops.end(), [&](Op *a, Op *b) {
    return positionOf(fn, a) > positionOf(fn, b);
  });
  std::set<const Op *> dropped;
  for (Op *op : ops) {
    bool used = false;
    for (Value *r : op->results)
      used |= isUsed(fn, r, dropped);
    if (!used)
      dropped.insert(op);
  }
  if (call->call->link == KernelLink::Optional || !m.guards.empty()) {
    for (Op *op : ops)
      if (dropped.count(op))
        op->fallbackFor = call;
    call->operands.insert(call->operands.end(), oldOutputs.begin(), oldOutputs.end());
    return;
  }
  for (Op *op : ops)
    if (dropped.count(op))
      fn.ops.erase(fn.ops.begin() + positionOf(fn, op));
}

// Finds the matches of one function (on the unmodified graph).
std::vector<Match> findMatches(Function &fn, const SpecSet &specs, const std::string &target,
                               const std::string &level, Explainer &ex, DiagEngine &diag) {
  std::vector<Match> accepted;
  std::map<const Op *, size_t> claimedBy; // non-constant op -> accepted index
  for (const auto &r : specs.rules)
    if (r->pattern && !r->direct() && !r->appliesTo(target, level))
      ex.skipped(fn, *r, target);
  for (size_t i = fn.ops.size(); i-- > 0;) {
    Op *root = fn.ops[i];
    for (unsigned ri = 0; ri < specs.rules.size(); ++ri) {
      const Rule &rule = *specs.rules[ri];
      if (!rule.pattern || rule.direct() || !rule.appliesTo(target, level) ||
          rule.pattern->results[0]->def->kind != root->kind)
        continue;
      if (claimedBy.count(root)) {
        MatchFailure f;
        f.why = "already covered by the match of rule '" +
                accepted[claimedBy[root]].rule->name + "'";
        ex.missed(fn, rule, root, f);
        continue;
      }
      Match m;
      MatchFailure f;
      if (!matchRule(rule, root, m, f)) {
        if (f.specError)
          diag.error(f.patternLoc, f.why + " (matching " + describeOp(diag.sources(), root) + ")");
        ex.missed(fn, rule, root, f);
        continue;
      }
      m.fn = &fn;
      m.ruleIndex = ri;
      std::sort(m.ops.begin(), m.ops.end(), [&](Op *a, Op *b) {
        return positionOf(fn, a) < positionOf(fn, b);
      });
      const Op *overlap = nullptr;
      for (const Op *op : m.ops)
        if (op->kind != OpKind::Constant && claimedBy.count(op))
          overlap = op;
      if (overlap) {
        f.why = "overlaps the match of rule '" + accepted[claimedBy[overlap]].rule->name +
                "' at " + (overlap->result() ? nameOf(overlap->result()) : "an op");
        f.payloadLoc = overlap->loc;
        ex.missed(fn, rule, root, f);
        continue;
      }
      if (!m.guards.empty() && rule.link == KernelLink::Optional) {
        // One step guard cannot test both the import and the sizes.
        const Match::Guard &g = m.guards.front();
        f.why = "constraint " + g.constraint->text + " cannot be proven: " + g.why +
                "; a run-time guard is not supported on a link: optional rule";
        f.payloadLoc = root->loc;
        f.patternLoc = g.constraint->loc;
        ex.missed(fn, rule, root, f);
        continue;
      }
      // The call goes after the root; an output used earlier could not see it.
      std::set<const Op *> inMatch(m.ops.begin(), m.ops.end());
      const Op *early = nullptr;
      const Value *earlyOut = nullptr;
      for (const Value *out : m.outputs)
        if (!early && (early = earlyUser(fn, out, positionOf(fn, root), inMatch)))
          earlyOut = out;
      if (early) {
        f.why = "output " + nameOf(earlyOut) + " is used before the end of the match, by " +
                (early->result() ? nameOf(early->result()) : opName(early->kind));
        f.payloadLoc = early->loc;
        ex.missed(fn, rule, root, f);
        continue;
      }
      for (Op *op : m.ops)
        if (op->kind != OpKind::Constant)
          claimedBy[op] = accepted.size();
      ex.matched(fn, m);
      accepted.push_back(std::move(m));
      break;
    }
  }
  return accepted;
}

} // namespace

unsigned applySpecs(Module &m, const SpecSet &specs, const std::string &targetName,
                    DiagEngine &diag, RewriteReport *report, const std::string &level) {
  Explainer ex(diag.sources(), report != nullptr);
  ex.header(targetName);
  unsigned count = 0;
  // One plan per rule on this target, shared by all its calls.
  std::map<unsigned, std::shared_ptr<const KernelCall>> plans;
  for (auto &fnPtr : m.functions) {
    Function &fn = *fnPtr;
    if (fn.isPattern)
      continue;
    std::vector<Match> matches = findMatches(fn, specs, targetName, level, ex, diag);
    std::sort(matches.begin(), matches.end(), [&](const Match &a, const Match &b) {
      return positionOf(fn, a.outputs[0]->def) < positionOf(fn, b.outputs[0]->def);
    });
    std::map<Value *, Value *> replaced;
    for (Match &match : matches) {
      std::shared_ptr<const KernelCall> &plan = plans[match.ruleIndex];
      if (!plan)
        plan = planKernelCall(*match.rule, targetName, level, diag);
      rewrite(match, plan, replaced);
      ++count;
      if (report)
        report->matches.push_back(match);
    }
  }
  if (report) {
    if (count == 0)
      ex.text += "no rule matched\n";
    report->explainText += ex.text;
  }
  return count;
}

} // namespace graft
