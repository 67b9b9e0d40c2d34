// Inlining `call`s (ir/Inline.h): the callee is cloned (ir/Clone.h) and its
// objects move into the caller's stores; its argument values are dropped.
#include "ir/Inline.h"

#include "ir/Clone.h"
#include "support/InternalError.h"

#include <algorithm>
#include <iterator>
#include <unordered_map>

namespace graft {

namespace {

// The clone's ops and values belong to |fn| from now on, but for its
// arguments, which the call's operands replace.
void adopt(Function &fn, Function &callee, const std::vector<Value *> &operands) {
  std::unordered_map<const Value *, Value *> argTo;
  for (size_t i = 0; i < callee.args.size(); ++i)
    argTo[callee.args[i]] = operands[i];
  auto fix = [&](std::vector<Value *> &vs) {
    for (Value *&v : vs) {
      auto it = argTo.find(v);
      if (it != argTo.end())
        v = it->second;
    }
  };
  for (const auto &op : callee.opStore) {
    fix(op->operands);
    if (Region *r = op->region.get()) {
      if (argTo.count(r->yield))
        r->yield = argTo[r->yield];
    }
  }
  fix(callee.results);
  for (auto &v : callee.valueStore)
    if (!argTo.count(v.get()))
      fn.valueStore.push_back(std::move(v));
  std::move(callee.opStore.begin(), callee.opStore.end(), std::back_inserter(fn.opStore));
  std::move(callee.regionStore.begin(), callee.regionStore.end(),
            std::back_inserter(fn.regionStore));
}

} // namespace

unsigned inlineCalls(Function &fn) {
  unsigned n = 0;
  for (size_t i = 0; i < fn.ops.size();) {
    Op *call = fn.ops[i];
    if (call->kind != OpKind::Call) {
      ++i;
      continue;
    }
    GRAFT_CHECK(call->func && call->func != &fn, "call without a callee passed the verifier");
    std::unique_ptr<Function> body = cloneFunction(*call->func);
    GRAFT_CHECK(body->results.size() == call->results.size() &&
                    body->args.size() == call->operands.size(),
                "call does not match its callee's signature");
    adopt(fn, *body, call->operands);
    fn.ops.erase(fn.ops.begin() + static_cast<std::ptrdiff_t>(i));
    fn.ops.insert(fn.ops.begin() + static_cast<std::ptrdiff_t>(i), body->ops.begin(),
                  body->ops.end());
    // Uses of the call's results read what the callee returns; the
    // inserted ops are scanned next, so calls inside the callee are
    // inlined in turn.
    size_t after = i + body->ops.size();
    for (size_t k = 0; k < call->results.size(); ++k)
      replaceUses(fn, after, call->results[k], body->results[k]);
    ++n;
  }
  return n;
}

} // namespace graft
