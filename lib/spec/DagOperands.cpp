// See DagOperands.h.
#include "spec/DagOperands.h"

#include <algorithm>
#include <set>

namespace graft {

std::vector<Value *> capturedValues(const Region &region) {
  std::set<const Value *> local(region.args.begin(), region.args.end());
  std::vector<Value *> captured;
  auto visit = [&](Value *v) {
    if (!v || local.count(v))
      return;
    if (std::find(captured.begin(), captured.end(), v) == captured.end())
      captured.push_back(v);
  };
  for (const Op *op : region.ops) {
    for (Value *v : op->operands)
      visit(v);
    for (Value *r : op->results)
      local.insert(r);
  }
  visit(region.yield);
  return captured;
}

std::vector<Value *> dagOperands(const Op &op) {
  std::vector<Value *> out = op.operands;
  if (op.region) {
    std::vector<Value *> captured = capturedValues(*op.region);
    out.insert(out.end(), captured.begin(), captured.end());
  }
  return out;
}

} // namespace graft
