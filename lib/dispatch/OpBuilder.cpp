// Making ops while rewriting a function (OpBuilder.h).
#include "dispatch/OpBuilder.h"

#include "graph/Literal.h"
#include "support/InternalError.h"

#include <cassert>

namespace graft {

Op *OpBuilder::newOp(OpKind kind, Type type, std::vector<Value *> operands,
                     std::vector<NamedAttr> attrs) {
  Op *op = fn.newOp(kind, loc);
  Value *v = fn.newValue(std::move(type), "", loc);
  v->def = op;
  op->operands = std::move(operands);
  op->results.push_back(v);
  op->attrs = std::move(attrs);
  for (NamedAttr &a : op->attrs)
    a.nameLoc = a.value.loc = loc;
  return op;
}

Value *OpBuilder::add(OpKind kind, std::vector<Value *> operands, Type type,
                      std::vector<NamedAttr> attrs) {
  Op *op = newOp(kind, std::move(type), std::move(operands), std::move(attrs));
  ops.push_back(op);
  return op->result();
}

Value *OpBuilder::dim(Value *v, unsigned d) {
  return add(OpKind::Dim, {v}, Type::scalar(DType::Index), {attr("axis", d)});
}

Value *OpBuilder::scalarConstant(DType t, const Literal &lit,
                                 std::vector<Op *> &into) {
  Op *op = newOp(OpKind::Constant, Type::scalar(t), {}, {});
  std::string err;
  SourceLoc errLoc;
  if (!encodeLiteral(lit, Type::scalar(t), op->constant, err, errLoc))
    GRAFT_INTERNAL_ERROR("a lowering's constant of " +
                         std::string(dtypeName(t)) + ": " + err);
  into.push_back(op);
  return op->result();
}

Value *OpBuilder::constant(DType t, const Literal &lit) {
  return scalarConstant(t, lit, ops);
}

Value *OpBuilder::intConstant(DType t, int64_t i) {
  Literal lit;
  lit.i = i;
  return constant(t, lit);
}

Value *OpBuilder::floatConstant(DType t, double f) {
  Literal lit;
  lit.kind = Literal::Kind::Float;
  lit.f = f;
  return constant(t, lit);
}

Value *OpBuilder::constant(DType t, ConstantData data) {
  Op *op = newOp(OpKind::Constant, Type::scalar(t), {}, {});
  op->constant = std::move(data);
  ops.push_back(op);
  return op->result();
}

Value *OpBuilder::map(std::vector<Value *> operands, Type type) {
  Value *v = add(OpKind::Map, std::move(operands), std::move(type));
  beginBody(*v->def);
  return v;
}

void OpBuilder::beginBody(Op &map) {
  assert(!body && "a map body begun inside another");
  map.region = std::make_unique<Region>();
  body = map.region.get();
  for (Value *o : map.operands) {
    Value *a = fn.newValue(Type::scalar(o->type.elem),
                           "x" + std::to_string(body->args.size()), loc);
    a->argIndex = static_cast<int>(body->args.size());
    a->region = body;
    body->args.push_back(a);
  }
}

void OpBuilder::yield(Value *v) {
  assert(body && "a yield outside a map body");
  body->yield = v;
  body->yieldLoc = loc;
  for (size_t i = 0; i < body->ops.size(); ++i)
    body->ops[i]->result()->name = std::to_string(i);
  body = nullptr;
}

Value *OpBuilder::bodyOp(OpKind kind, DType t, std::vector<Value *> operands,
                         std::vector<NamedAttr> attrs) {
  assert(body && "a body op outside a map body");
  Op *op = newOp(kind, Type::scalar(t), std::move(operands), std::move(attrs));
  body->ops.push_back(op);
  return op->result();
}

Value *OpBuilder::bodyIntConstant(DType t, int64_t i) {
  assert(body && "a body constant outside a map body");
  Literal lit;
  lit.i = i;
  return scalarConstant(t, lit, body->ops);
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
