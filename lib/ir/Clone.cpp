// Deep copies of the graph IR (ir/Clone.h): every object of the function's
// stores is copied first, then every pointer between them is translated.
#include "ir/Clone.h"

#include "support/InternalError.h"

#include <unordered_map>

namespace graft {

namespace {

// Old object -> its copy, for the three kinds of IR objects pointers refer to.
class Cloner {
public:
  Cloner(const Function &from, Function &to) : from_(from), to_(to) {}

  void run() {
    to_.name = from_.name;
    to_.loc = from_.loc;
    to_.resultTypes = from_.resultTypes;
    to_.returnLoc = from_.returnLoc;
    to_.isPattern = from_.isPattern;
    createObjects();
    for (const auto &v : from_.valueStore)
      linkValue(*v);
    for (const auto &op : from_.opStore)
      linkOp(*op);
    for (const auto &r : from_.regionStore)
      linkRegion(*r, *regions_.at(r.get()));
    to_.args = values(from_.args);
    to_.results = values(from_.results);
    to_.ops = ops(from_.ops);
  }

private:
  // The objects, in store order, with their plain fields; pointers later.
  void createObjects() {
    for (const auto &op : from_.opStore) {
      Op *copy = to_.newOp(op->kind, op->loc);
      copy->attrs = op->attrs;
      copy->constant = op->constant;
      copy->call = op->call;     // immutable, shared by design
      copy->callee = op->callee; // the module's declaration; cloneModule remaps it
      copy->func = op->func;     // the module's function; cloneModule remaps it
      if (op->region) {
        copy->region = std::make_unique<Region>();
        regions_[op->region.get()] = copy->region.get();
      }
      ops_[op.get()] = copy;
    }
    for (const auto &r : from_.regionStore)
      regions_[r.get()] = to_.newRegion();
    for (const auto &v : from_.valueStore) {
      Value *copy = to_.newValue(v->type, v->name, v->loc);
      copy->argIndex = v->argIndex;
      values_[v.get()] = copy;
    }
  }

  void linkValue(const Value &v) {
    Value &copy = *values_.at(&v);
    copy.def = op(v.def);
    copy.region = region(v.region);
  }

  void linkOp(const Op &o) {
    Op &copy = *ops_.at(&o);
    copy.operands = values(o.operands);
    copy.results = values(o.results);
    copy.fallbackFor = op(o.fallbackFor);
    if (o.region)
      linkRegion(*o.region, *copy.region);
  }

  void linkRegion(const Region &r, Region &copy) {
    copy.args = values(r.args);
    copy.ops = ops(r.ops);
    copy.yield = value(r.yield);
    copy.yieldLoc = r.yieldLoc;
  }

  // Every pointer of a well-formed function refers into its own stores.
  template <typename T>
  static T *lookup(const std::unordered_map<const T *, T *> &map, const T *old,
                   const char *what) {
    if (!old)
      return nullptr;
    auto it = map.find(old);
    GRAFT_CHECK(it != map.end(), std::string("cloning a function: a ") + what +
                                     " that its function does not own");
    return it->second;
  }
  Value *value(const Value *v) const { return lookup(values_, v, "value"); }
  Op *op(const Op *o) const { return lookup(ops_, o, "op"); }
  Region *region(const Region *r) const { return lookup(regions_, r, "region"); }

  std::vector<Value *> values(const std::vector<Value *> &vs) const {
    std::vector<Value *> out;
    out.reserve(vs.size());
    for (const Value *v : vs)
      out.push_back(value(v));
    return out;
  }
  std::vector<Op *> ops(const std::vector<Op *> &os) const {
    std::vector<Op *> out;
    out.reserve(os.size());
    for (const Op *o : os)
      out.push_back(op(o));
    return out;
  }

  const Function &from_;
  Function &to_;
  std::unordered_map<const Value *, Value *> values_;
  std::unordered_map<const Op *, Op *> ops_;
  std::unordered_map<const Region *, Region *> regions_;
};

} // namespace

std::unique_ptr<Function> cloneFunction(const Function &f) {
  auto copy = std::make_unique<Function>();
  Cloner(f, *copy).run();
  return copy;
}

std::unique_ptr<Module> cloneModule(const Module &m) {
  auto copy = std::make_unique<Module>();
  std::unordered_map<const KernelDecl *, const KernelDecl *> decls;
  for (const auto &k : m.kernels) {
    copy->kernels.push_back(std::make_unique<KernelDecl>(*k));
    decls[k.get()] = copy->kernels.back().get();
  }
  std::unordered_map<const Function *, const Function *> funcs;
  for (const auto &f : m.functions) {
    copy->functions.push_back(cloneFunction(*f));
    funcs[f.get()] = copy->functions.back().get();
  }
  // A direct call's declaration and a call's callee are the clone's own,
  // not the original's.
  for (const auto &f : copy->functions)
    for (const auto &op : f->opStore) {
      if (op->callee) {
        auto it = decls.find(op->callee);
        GRAFT_CHECK(it != decls.end(), "cloning a module: a kernel_call of a kernel it does not declare");
        op->callee = it->second;
      }
      if (op->func) {
        auto it = funcs.find(op->func);
        GRAFT_CHECK(it != funcs.end(), "cloning a module: a call of a function it does not hold");
        op->func = it->second;
      }
    }
  return copy;
}

} // namespace graft
