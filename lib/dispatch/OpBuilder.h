// Making ops while rewriting a function before dispatch formation (Splats,
// MapOperands, ReduceForms, Windows): each op gets one fresh result and the
// location of the op it stands in for. Top-level ops are collected in |ops|
// for the caller to insert in program order; a map's body is filled by
// bodyOp / bodyConstant between beginBody and the caller's yield.
#pragma once

#include "ir/IR.h"

#include <vector>

namespace graft {

struct Literal;

struct OpBuilder {
  Function &fn;
  SourceLoc loc;
  std::vector<Op *> ops;
  Region *body = nullptr; // the map body being built

  OpBuilder(Function &fn, SourceLoc loc) : fn(fn), loc(loc) {}

  Value *add(OpKind kind, std::vector<Value *> operands, Type type,
             std::vector<NamedAttr> attrs = {});
  // `dim %v {axis = d}`.
  Value *dim(Value *v, unsigned d);
  // A scalar `constant` of |t|: the literal, or the integer or float value.
  Value *constant(DType t, const Literal &lit);
  Value *intConstant(DType t, int64_t i);
  Value *floatConstant(DType t, double f);
  // A scalar `constant` holding |data| (one element of type |t|).
  Value *constant(DType t, ConstantData data);

  // A `map` over |operands| to |type|, its body begun (beginBody).
  Value *map(std::vector<Value *> operands, Type type);
  // Gives |map| an empty body with one argument per operand (of its element
  // type) and makes it the body that bodyOp / bodyConstant fill.
  void beginBody(Op &map);
  // Ends the body: it yields |v|; body values are named like a parsed
  // body's (%0, %1, ...).
  void yield(Value *v);
  Value *bodyOp(OpKind kind, DType t, std::vector<Value *> operands,
                std::vector<NamedAttr> attrs = {});
  Value *bodyIntConstant(DType t, int64_t i);

  static NamedAttr attr(const char *name, int64_t i);
  static NamedAttr attr(const char *name, std::vector<int64_t> list);
  static NamedAttr attr(const char *name, const char *ident);

private:
  Op *newOp(OpKind kind, Type type, std::vector<Value *> operands,
            std::vector<NamedAttr> attrs);
  Value *scalarConstant(DType t, const Literal &lit, std::vector<Op *> &into);
};

} // namespace graft
