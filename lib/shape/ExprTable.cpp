#include "shape/ExprTable.h"

#include "ir/ExprText.h"

#include <string>

namespace graft {

std::string FoldError::message() const { return exprFailureText(op, a, b, status); }

uint32_t ExprTable::intern(uint32_t op, uint32_t a, int64_t imm) {
  auto key = std::make_tuple(op, a, imm);
  auto it = index_.find(key);
  if (it != index_.end())
    return it->second;
  uint32_t id = static_cast<uint32_t>(exprs_.size());
  exprs_.push_back(graft_expr_v1_t{op, a, imm});
  index_.emplace(key, id);
  return id;
}

uint32_t ExprTable::constant(int64_t v) { return intern(GRAFT_EXPR_CONST, 0, v); }
uint32_t ExprTable::argDim(uint32_t arg, uint32_t dim) {
  return intern(GRAFT_EXPR_ARG_DIM, arg, dim);
}
uint32_t ExprTable::argScalar(uint32_t arg) {
  return intern(GRAFT_EXPR_ARG_SCALAR, arg, 0);
}

std::optional<int64_t> ExprTable::constValue(uint32_t id) const {
  if (id < exprs_.size() && exprs_[id].op == GRAFT_EXPR_CONST)
    return exprs_[id].imm;
  return std::nullopt;
}

std::vector<FoldError> ExprTable::takeFoldErrors() {
  std::vector<FoldError> out;
  out.swap(foldErrors_);
  return out;
}

uint32_t ExprTable::binary(graft_expr_op_t op, uint32_t a, uint32_t b) {
  auto ca = constValue(a), cb = constValue(b);
  if (ca && cb) {
    int64_t r = 0;
    graft_expr_status_t status = graft_expr_apply(op, *ca, *cb, &r);
    if (status == GRAFT_EXPR_STATUS_OK)
      return constant(r);
    foldErrors_.push_back({op, *ca, *cb, status});
    return intern(op, a, b);
  }
  if (cb && *cb == 1 &&
      (op == GRAFT_EXPR_MUL || op == GRAFT_EXPR_DIV || op == GRAFT_EXPR_CEILDIV))
    return a;
  if (ca && *ca == 1 && op == GRAFT_EXPR_MUL)
    return b;
  if (cb && *cb == 0 && (op == GRAFT_EXPR_ADD || op == GRAFT_EXPR_SUB))
    return a;
  if (ca && *ca == 0 && op == GRAFT_EXPR_ADD)
    return b;
  if (a == b && (op == GRAFT_EXPR_MIN || op == GRAFT_EXPR_MAX))
    return a;
  if (a == b && (op == GRAFT_EXPR_EQ || op == GRAFT_EXPR_LT))
    return constant(op == GRAFT_EXPR_EQ ? 1 : 0);
  // Canonical operand order for commutative ops so that equal sizes share ids.
  if ((op == GRAFT_EXPR_ADD || op == GRAFT_EXPR_MUL || op == GRAFT_EXPR_MIN ||
       op == GRAFT_EXPR_MAX || op == GRAFT_EXPR_EQ) &&
      a > b)
    std::swap(a, b);
  return intern(op, a, b);
}

std::string ExprTable::str(uint32_t id) const {
  if (id >= exprs_.size())
    return "<bad expr>";
  const graft_expr_v1_t &e = exprs_[id];
  switch (e.op) {
  case GRAFT_EXPR_CONST: return std::to_string(e.imm);
  case GRAFT_EXPR_ARG_DIM:
    return "arg" + std::to_string(e.a) + ".dim" + std::to_string(e.imm);
  case GRAFT_EXPR_ARG_SCALAR: return "arg" + std::to_string(e.a);
  default: break;
  }
  std::string sym = graft_expr_op_symbol(e.op);
  std::string lhs = str(e.a), rhs = str(static_cast<uint32_t>(e.imm));
  if (sym.size() > 2)
    return sym + "(" + lhs + ", " + rhs + ")";
  return "(" + lhs + " " + sym + " " + rhs + ")";
}

} // namespace graft
