// See DirectCalls.h.
#include "spec/DirectCalls.h"

#include "spec/CallPlan.h"

#include <map>
#include <set>

namespace graft {

std::unique_ptr<Module> declarationPattern(const KernelDecl &k) {
  auto m = std::make_unique<Module>();
  auto fn = std::make_unique<Function>();
  fn->name = k.name;
  fn->loc = k.loc;
  fn->isPattern = true;
  std::set<std::string> names(k.argNames.begin(), k.argNames.end());
  for (size_t i = 0; i < k.argTypes.size(); ++i) {
    Value *a = fn->newValue(k.argTypes[i], k.argNames[i], k.argLocs[i]);
    a->argIndex = static_cast<int>(i);
    fn->args.push_back(a);
  }
  Op *empty = fn->newOp(OpKind::Empty, k.loc);
  // `like %a`: the result's '?' sizes are %a's dims.
  for (size_t d = 0; k.resultLike >= 0 && d < k.resultType.rank(); ++d) {
    if (k.resultType.dims[d] != kDynamic)
      continue;
    Op *dim = fn->newOp(OpKind::Dim, k.loc);
    dim->operands.push_back(fn->args[k.resultLike]);
    Attr axis;
    axis.kind = Attr::Kind::Int;
    axis.i = static_cast<int64_t>(d);
    dim->attrs.push_back({"axis", axis, k.loc});
    Value *v = fn->newValue(Type::scalar(DType::Index), "", k.loc);
    v->def = dim;
    dim->results.push_back(v);
    fn->ops.push_back(dim);
    empty->operands.push_back(v);
  }
  for (unsigned d = 0; d < k.dynamicResultDims(); ++d) {
    std::string name = "dim" + std::to_string(d);
    while (names.count(name))
      name += "_";
    names.insert(name);
    Value *a = fn->newValue(Type::scalar(DType::Index), name, k.loc);
    a->argIndex = static_cast<int>(fn->args.size());
    fn->args.push_back(a);
    empty->operands.push_back(a);
  }
  Value *r = fn->newValue(k.resultType, "result", k.loc);
  r->def = empty;
  empty->results.push_back(r);
  fn->ops.push_back(empty);
  fn->resultTypes.push_back(k.resultType);
  fn->results.push_back(r);
  fn->returnLoc = k.loc;
  m->functions.push_back(std::move(fn));
  return m;
}

bool bindDirectCalls(Module &m, const SpecSet &specs, const std::string &target,
                     const std::string &level, DiagEngine &diag, std::string *explain) {
  const SourceManager &sm = diag.sources();
  // One plan per rule, shared by all its calls.
  std::map<const Rule *, std::shared_ptr<const KernelCall>> plans;
  bool ok = true;
  for (auto &fn : m.functions) {
    for (Op *op : fn->ops) {
      if (op->kind != OpKind::KernelCall || !op->callee)
        continue;
      const std::string &name = op->callee->name;
      const Rule *provider = nullptr, *elsewhere = nullptr;
      for (const auto &r : specs.rules) {
        if (r->kernel != name)
          continue;
        if (r->appliesTo(target, level)) {
          provider = r.get();
          break;
        }
        elsewhere = elsewhere ? elsewhere : r.get();
      }
      if (!provider) {
        std::string why = elsewhere ? "; rule '" + elsewhere->name + "' (" +
                                          sm.format(elsewhere->loc) + ") has no kernel for it"
                                    : "; a spec rule with 'kernel: " + name +
                                          "' says where its code comes from";
        diag.error(op->loc, "no spec rule provides kernel @" + name + " for target " + target +
                                (level.empty() ? "" : " (feature level " + level + ")") + why);
        ok = false;
        continue;
      }
      std::shared_ptr<const KernelCall> &plan = plans[provider];
      if (!plan)
        plan = planKernelCall(*provider, target, level, diag);
      op->call = plan;
      if (explain)
        *explain += "@" + fn->name + ": kernel_call @" + name + " (" + sm.format(op->loc) +
                    ") calls rule '" + provider->name + "' (" + sm.format(provider->loc) + ")\n";
    }
  }
  return ok;
}

void warnUncalledKernels(const Module &graph, const SpecSet &specs, DiagEngine &diag) {
  std::set<std::string> called;
  for (const auto &fn : graph.functions)
    for (const Op *op : fn->ops)
      if (op->kind == OpKind::KernelCall && op->callee)
        called.insert(op->callee->name);
  for (const auto &r : specs.rules)
    if (r->direct() && !called.count(r->kernel))
      diag.warning(r->kernelLoc, "rule '" + r->name + "' provides kernel @" + r->kernel +
                                     ", which the graph never calls");
}

} // namespace graft
