// Prints functions back in graph syntax (docs/graph-format.md). The output
// parses again to the same IR, which the parser tests check by round trip.
#include "ir/IR.h"
#include "ir/KernelCall.h"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace graft {

namespace {

class Printer {
public:
  explicit Printer(const Function &f) : f_(f) {}

  std::string run() {
    out_ += f_.isPattern ? "pattern @" : "func @";
    out_ += f_.name + "(";
    for (size_t i = 0; i < f_.args.size(); ++i)
      out_ += (i ? ", " : "") + name(f_.args[i]) + ": " + f_.args[i]->type.str();
    out_ += ")";
    if (f_.resultTypes.size() == 1) {
      out_ += " -> " + f_.resultTypes[0].str();
    } else if (!f_.resultTypes.empty()) {
      out_ += " -> (";
      for (size_t i = 0; i < f_.resultTypes.size(); ++i)
        out_ += (i ? ", " : "") + f_.resultTypes[i].str();
      out_ += ")";
    }
    out_ += " {\n";
    for (const Op *op : f_.ops)
      printOp(*op, "  ");
    out_ += "  return";
    for (size_t i = 0; i < f_.results.size(); ++i)
      out_ += (i ? ", " : " ") + name(f_.results[i]);
    out_ += "\n}\n";
    return out_;
  }

private:
  // Values keep their written names; synthesized (unnamed) values and name
  // clashes get a fresh "_N" name so the output always parses.
  std::string name(const Value *v) {
    if (!v)
      return "%<null>";
    auto it = names_.find(v);
    if (it != names_.end())
      return "%" + it->second;
    std::string n = v->name;
    while (n.empty() || taken_.count(n))
      n = "_" + std::to_string(next_++);
    taken_.insert(n);
    takenLog_.push_back(n);
    names_[v] = n;
    return "%" + n;
  }

  void printConstant(const Op &op) {
    const Type &t = op.result()->type;
    size_t count = 1;
    for (int64_t d : t.dims)
      count *= d > 0 ? static_cast<size_t>(d) : 0;
    if (op.constant.splat || t.dims.empty()) {
      out_ += element(op, 0);
      return;
    }
    printNested(op, 0, 0, count);
  }

  // Nested list for dims[dim...], starting at flat element |base|.
  void printNested(const Op &op, size_t dim, size_t base, size_t count) {
    const std::vector<int64_t> &dims = op.result()->type.dims;
    if (dim == dims.size()) {
      out_ += element(op, base);
      return;
    }
    size_t inner = count / static_cast<size_t>(dims[dim] ? dims[dim] : 1);
    out_ += "[";
    for (int64_t i = 0; i < dims[dim]; ++i) {
      if (i)
        out_ += ", ";
      printNested(op, dim + 1, base + static_cast<size_t>(i) * inner, inner);
    }
    out_ += "]";
  }

  std::string element(const Op &op, size_t i) {
    DType t = op.result()->type.elem;
    if (t == DType::I1)
      return op.constant.getInt(t, i) ? "true" : "false";
    if (isFloat(t))
      return formatDouble(op.constant.getFloat(t, i), t != DType::F64);
    return std::to_string(op.constant.getInt(t, i));
  }

  void printOp(const Op &op, const std::string &indent) {
    out_ += indent;
    for (size_t i = 0; i < op.results.size(); ++i)
      out_ += (i ? ", " : "") + name(op.results[i]);
    out_ += " = ";
    out_ += opName(op.kind);
    if (op.kind == OpKind::KernelCall)
      out_ += " @" + (op.callee  ? op.callee->name
                      : op.call ? op.call->name
                                : std::string("<no plan>"));
    if (op.kind == OpKind::Call)
      out_ += " @" + (op.func ? op.func->name : std::string("<unresolved>"));
    if (op.kind == OpKind::Constant && op.result()) {
      out_ += " ";
      printConstant(op);
    }
    for (size_t i = 0; i < op.operands.size(); ++i)
      out_ += (i ? ", " : " ") + name(op.operands[i]);
    if (!op.attrs.empty()) {
      out_ += " {";
      for (size_t i = 0; i < op.attrs.size(); ++i)
        out_ += (i ? ", " : "") + op.attrs[i].name + " = " + op.attrs[i].value.str();
      out_ += "}";
    }
    out_ += " :";
    for (size_t i = 0; i < op.results.size(); ++i)
      out_ += (i ? ", " : " ") + op.results[i]->type.str();
    if (const Region *r = op.region.get()) {
      // Body names are local: forget what the body took when it ends, so
      // the next body may reuse the same names. Undoing only the body's own
      // names keeps printing linear in the number of ops.
      size_t mark = takenLog_.size();
      out_ += " {\n" + indent + "^bb0(";
      for (size_t i = 0; i < r->args.size(); ++i)
        out_ += (i ? ", " : "") + name(r->args[i]) + ": " + r->args[i]->type.str();
      out_ += "):\n";
      for (const Op *inner : r->ops)
        printOp(*inner, indent + "  ");
      out_ += indent + "  yield " + name(r->yield) + "\n" + indent + "}";
      for (const Value *a : r->args)
        names_.erase(a);
      for (const Op *inner : r->ops)
        for (const Value *v : inner->results)
          names_.erase(v);
      for (size_t i = mark; i < takenLog_.size(); ++i)
        taken_.erase(takenLog_[i]);
      takenLog_.resize(mark);
    }
    out_ += "\n";
  }

  const Function &f_;
  std::string out_;
  std::unordered_map<const Value *, std::string> names_;
  std::unordered_set<std::string> taken_;
  std::vector<std::string> takenLog_; // taken_ insertions, in order
  unsigned next_ = 0;
};

} // namespace

std::string printFunction(const Function &f) { return Printer(f).run(); }

std::string printKernelDecl(const KernelDecl &k) {
  std::string out = "kernel @" + k.name + "(";
  for (size_t i = 0; i < k.argTypes.size(); ++i)
    out += (i ? ", %" : "%") + k.argNames[i] + ": " + k.argTypes[i].str();
  out += ") -> " + k.resultType.str();
  if (k.resultLike >= 0)
    out += " like %" + k.argNames[k.resultLike];
  return out + "\n";
}

std::string printModule(const Module &m) {
  std::string out;
  for (const auto &k : m.kernels)
    out += printKernelDecl(*k);
  for (size_t i = 0; i < m.functions.size(); ++i)
    out += (i || !m.kernels.empty() ? "\n" : "") + printFunction(*m.functions[i]);
  return out;
}

} // namespace graft
