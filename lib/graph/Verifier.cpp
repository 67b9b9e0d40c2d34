// The verifier's driver: walks functions, map bodies and returns, checks the
// scalar ops itself and hands tensor ops to VerifyTensorOps.cpp.
//
// Scalar ops are the language of map bodies. At function level they are only
// shape arithmetic: operands and results of type index (cmp gives i1, select
// takes an i1 condition, cast converts any integer to index).
#include "graph/Verifier.h"

#include "graph/VerifierImpl.h"

namespace graft {

std::string valueRef(const Value *v) {
  if (!v->name.empty())
    return "'%" + v->name + "'";
  return "(unnamed value)";
}

std::string dimStr(int64_t d) { return d == kDynamic ? "?" : std::to_string(d); }

bool dimsCompatible(int64_t a, int64_t b) {
  return a == kDynamic || b == kDynamic || a == b;
}

int64_t mergeDims(int64_t a, int64_t b) { return a == kDynamic ? b : a; }

bool typesCompatible(const Type &a, const Type &b) {
  if (a.tensor != b.tensor || a.elem != b.elem || a.rank() != b.rank())
    return false;
  for (size_t i = 0; i < a.rank(); ++i)
    if (!dimsCompatible(a.dims[i], b.dims[i]))
      return false;
  return true;
}

bool checkAttrNames(const Op &op, const char *const *allowed, VerifyContext &cx) {
  bool ok = true;
  for (const NamedAttr &a : op.attrs) {
    bool known = false;
    std::string list;
    for (const char *const *p = allowed; *p; ++p) {
      known |= a.name == *p;
      list += (list.empty() ? "'" : ", '") + std::string(*p) + "'";
    }
    if (!known) {
      cx.error(a.nameLoc.valid() ? a.nameLoc : a.value.loc, "unknown attribute '" + a.name + "' for '" +
                                opName(op.kind) + "'" +
                                (list.empty() ? std::string(" (it takes none)")
                                              : ", expected " + list));
      ok = false;
    }
  }
  return ok;
}

namespace {

class FunctionVerifier {
public:
  FunctionVerifier(Function &f, VerifyContext &cx) : f_(f), cx_(cx) {}

  void run() {
    for (Op *op : f_.ops) {
      if (isScalarOp(op->kind)) {
        if (verifyScalarOp(*op))
          checkShapeArithmetic(*op);
        continue;
      }
      if (verifyTensorOp(*op, cx_) && op->kind == OpKind::Map)
        verifyBody(*op);
    }
    verifyReturn();
  }

private:
  bool fail(const Op &op, const std::string &msg) {
    cx_.error(op.loc, msg);
    return false;
  }

  bool verifyScalarOp(const Op &op);
  bool verifyBitcast(const Op &op, const Type &from, const Type &to);
  void checkShapeArithmetic(const Op &op);
  void verifyBody(const Op &map);
  void verifyReturn();

  Function &f_;
  VerifyContext &cx_;
};

// Rules shared by body ops and function-level shape arithmetic.
bool FunctionVerifier::verifyScalarOp(const Op &op) {
  std::string name = opName(op.kind);
  static const char *const kNone[] = {nullptr};
  static const char *const kPred[] = {"pred", nullptr};
  if (!checkAttrNames(op, op.kind == OpKind::Cmp ? kPred : kNone, cx_))
    return false;
  size_t arity = op.kind == OpKind::Select ? 3
                 : op.kind == OpKind::Cast || op.kind == OpKind::Bitcast ||
                           isUnaryScalarOp(op.kind)
                       ? 1
                                                                      : 2;
  if (op.operands.size() != arity)
    return fail(op, "'" + name + "' expects " + countOf(arity, "operand") + ", found " +
                        std::to_string(op.operands.size()));
  for (const Value *v : op.operands)
    if (v->type.tensor)
      return fail(op, "'" + name + "' works on scalars, but operand " + valueRef(v) +
                          " is " + v->type.str());
  const Type &res = op.result()->type;
  if (res.tensor)
    return fail(op, "'" + name + "' result must be a scalar, found " + res.str());
  const Type &a = op.operands[0]->type;
  switch (op.kind) {
  case OpKind::Cast:
    return true;
  case OpKind::Bitcast:
    return verifyBitcast(op, a, res);
  case OpKind::Select: {
    const Type &b = op.operands[1]->type, &c = op.operands[2]->type;
    if (a.elem != DType::I1)
      return fail(op, "'select' condition " + valueRef(op.operands[0]) +
                          " must be i1, found " + a.str());
    if (b != c)
      return fail(op, "'select' operands have different types: " + b.str() +
                          " and " + c.str());
    if (res != b)
      return fail(op, "'select' result type " + res.str() +
                          " does not match operand type " + b.str());
    return true;
  }
  case OpKind::Cmp: {
    const Type &b = op.operands[1]->type;
    if (a != b)
      return fail(op, "'cmp' operands have different types: " + a.str() + " and " +
                          b.str());
    const Attr *pred = op.attr("pred");
    static const char *const kPreds[] = {"eq", "ne", "lt", "le", "gt", "ge"};
    bool known = false;
    for (const char *p : kPreds)
      known |= pred && pred->kind == Attr::Kind::Ident && pred->s == p;
    if (!known) {
      cx_.error(pred ? pred->loc : op.loc,
                std::string("'cmp' needs attribute 'pred' = eq, ne, lt, le, gt or ge") +
                    (pred ? ", found " + pred->str() : std::string(", found none")));
      return false;
    }
    if (res.elem != DType::I1)
      return fail(op, "'cmp' result must be i1, found " + res.str());
    return true;
  }
  default:
    break;
  }
  if (a.elem == DType::I1)
    return fail(op, "'" + name + "' does not support i1 operands");
  if (isFloatScalarOp(op.kind) && !isFloat(a.elem))
    return fail(op, "'" + name + "' needs " + (arity == 2 ? "float operands" : "a float operand") +
                        ", found " + a.str());
  if (arity == 2 && op.operands[1]->type != a)
    return fail(op, "'" + name + "' operands have different types: " + a.str() +
                        " and " + op.operands[1]->type.str());
  if (isPredicateOp(op.kind)) {
    if (res.elem != DType::I1)
      return fail(op, "'" + name + "' result must be i1, found " + res.str());
    return true;
  }
  if (res != a)
    return fail(op, "'" + name + "' result type " + res.str() +
                        " does not match operand type " + a.str());
  return true;
}

// bitcast reinterprets the bits: both types are numbers of one width (i1
// has no bytes of its own, index no fixed width in a tensor).
bool FunctionVerifier::verifyBitcast(const Op &op, const Type &from, const Type &to) {
  for (const Type *t : {&from, &to})
    if (t->elem == DType::I1 || t->elem == DType::Index)
      return fail(op, "'bitcast' works on i8, i16, i32, i64, f16, bf16, f32 and f64, found " +
                          t->str());
  if (dtypeSize(from.elem) != dtypeSize(to.elem))
    return fail(op, "'bitcast' needs types of one width: " + from.str() + " has " +
                        std::to_string(dtypeSize(from.elem) * 8) + " bits, " + to.str() +
                        " has " + std::to_string(dtypeSize(to.elem) * 8));
  return true;
}

// At function level, scalar ops compute sizes: index in, index out.
void FunctionVerifier::checkShapeArithmetic(const Op &op) {
  std::string name = opName(op.kind);
  if (!isIndexArithmeticOp(op.kind)) {
    fail(op, "'" + name + "' is only allowed in a map body (function-level scalar ops are "
             "shape arithmetic: add, sub, mul, div, rem, max, min, neg, abs, cmp, select, cast)");
    return;
  }
  size_t first = op.kind == OpKind::Select ? 1 : 0;
  for (size_t i = first; i < op.operands.size(); ++i) {
    const Type &t = op.operands[i]->type;
    bool ok = t.elem == DType::Index ||
              (op.kind == OpKind::Cast && isInteger(t.elem));
    if (!ok) {
      fail(op, "function-level '" + name + "' is shape arithmetic and needs index "
               "operands, found " + valueRef(op.operands[i]) + " of type " + t.str());
      return;
    }
  }
  const Type &res = op.result()->type;
  DType want = op.kind == OpKind::Cmp ? DType::I1 : DType::Index;
  if (res.elem != want)
    fail(op, "function-level '" + name + "' must give " + dtypeName(want) +
                 ", found " + res.str());
}

void FunctionVerifier::verifyBody(const Op &map) {
  const Region &r = *map.region;
  if (r.args.size() != map.operands.size()) {
    fail(map, "'map' body has " + countOf(r.args.size(), "argument") + ", expected " +
                  std::to_string(map.operands.size()) + " (one per operand)");
    return;
  }
  for (size_t i = 0; i < r.args.size(); ++i) {
    Type want = Type::scalar(map.operands[i]->type.elem);
    if (r.args[i]->type != want)
      cx_.error(r.args[i]->loc, "body argument " + valueRef(r.args[i]) + " has type " +
                                    r.args[i]->type.str() + ", expected " + want.str() +
                                    " (the element type of " +
                                    valueRef(map.operands[i]) + ")");
  }
  for (const Op *op : r.ops) {
    if (op->kind == OpKind::Constant) {
      if (op->result()->type.tensor)
        fail(*op, "a map body can only hold scalar constants, found " +
                      op->result()->type.str());
      continue;
    }
    if (!isScalarOp(op->kind)) {
      fail(*op, "op '" + std::string(opName(op->kind)) +
                    "' is not allowed in a map body (only scalar ops are)");
      continue;
    }
    verifyScalarOp(*op);
  }
  if (!r.yield)
    return;
  const Type &y = r.yield->type;
  if (y.tensor) {
    cx_.error(r.yieldLoc, "'yield' needs a scalar, found " + valueRef(r.yield) +
                              " of type " + y.str());
    return;
  }
  DType resElem = map.result()->type.elem;
  if (y.elem != resElem)
    cx_.error(r.yieldLoc, "'map' body yields " + y.str() +
                              " but the result element type is " + dtypeName(resElem));
}

void FunctionVerifier::verifyReturn() {
  SourceLoc loc = f_.returnLoc.valid() ? f_.returnLoc : f_.loc;
  if (f_.results.size() != f_.resultTypes.size()) {
    cx_.error(loc, "'return' has " + countOf(f_.results.size(), "value") + ", but '@" +
                       f_.name + "' declares " + countOf(f_.resultTypes.size(), "result"));
    return;
  }
  for (size_t i = 0; i < f_.results.size(); ++i) {
    const Type &have = f_.results[i]->type, &want = f_.resultTypes[i];
    // A declared '?' accepts any size; a declared size must be known equal.
    bool ok = have.tensor == want.tensor && have.elem == want.elem &&
              have.rank() == want.rank();
    for (size_t d = 0; ok && d < want.rank(); ++d)
      ok = want.dims[d] == kDynamic || want.dims[d] == have.dims[d];
    if (!ok)
      cx_.error(loc, "return value " + std::to_string(i) + " " +
                         valueRef(f_.results[i]) + " has type " + have.str() +
                         ", but '@" + f_.name + "' declares " + want.str());
  }
}

} // namespace

bool verifyFunction(Function &f, DiagEngine &diag) {
  VerifyContext cx{diag};
  FunctionVerifier(f, cx).run();
  return cx.ok;
}

bool verifyModule(Module &m, DiagEngine &diag) {
  bool ok = true;
  for (auto &f : m.functions)
    ok &= verifyFunction(*f, diag);
  VerifyContext cx{diag};
  return verifyCallGraph(m, cx) && ok;
}

} // namespace graft
