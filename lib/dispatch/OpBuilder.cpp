// Making top-level ops while rewriting a function (OpBuilder.h).
#include "dispatch/OpBuilder.h"

namespace graft {

Value *OpBuilder::add(OpKind kind, std::vector<Value *> operands, Type type,
                      std::vector<NamedAttr> attrs) {
  Op *op = fn.newOp(kind, loc);
  Value *v = fn.newValue(std::move(type), "", loc);
  v->def = op;
  op->operands = std::move(operands);
  op->results.push_back(v);
  op->attrs = std::move(attrs);
  ops.push_back(op);
  return v;
}

Value *OpBuilder::dim(Value *v, unsigned d) {
  return add(OpKind::Dim, {v}, Type::scalar(DType::Index), {attr("axis", d)});
}

NamedAttr OpBuilder::attr(const char *name, int64_t i) {
  NamedAttr a;
  a.name = name;
  a.value.kind = Attr::Kind::Int;
  a.value.i = i;
  return a;
}

NamedAttr OpBuilder::attr(const char *name, std::vector<int64_t> list) {
  NamedAttr a;
  a.name = name;
  a.value.kind = Attr::Kind::IntList;
  a.value.list = std::move(list);
  return a;
}

NamedAttr OpBuilder::attr(const char *name, const char *ident) {
  NamedAttr a;
  a.name = name;
  a.value.kind = Attr::Kind::Ident;
  a.value.s = ident;
  return a;
}

} // namespace graft
