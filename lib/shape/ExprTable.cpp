#include "shape/ExprTable.h"

#include <string>

namespace graft {

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

static int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

uint32_t ExprTable::binary(graft_expr_op_t op, uint32_t a, uint32_t b) {
  auto ca = constValue(a), cb = constValue(b);
  if (ca && cb) {
    int64_t x = *ca, y = *cb, r;
    bool ok = true;
    switch (op) {
    case GRAFT_EXPR_ADD: ok = !__builtin_add_overflow(x, y, &r); break;
    case GRAFT_EXPR_SUB: ok = !__builtin_sub_overflow(x, y, &r); break;
    case GRAFT_EXPR_MUL: ok = !__builtin_mul_overflow(x, y, &r); break;
    case GRAFT_EXPR_DIV: ok = y != 0; r = ok ? floorDiv(x, y) : 0; break;
    case GRAFT_EXPR_CEILDIV: ok = y != 0; r = ok ? -floorDiv(-x, y) : 0; break;
    case GRAFT_EXPR_REM: ok = y != 0; r = ok ? x - floorDiv(x, y) * y : 0; break;
    case GRAFT_EXPR_MIN: r = x < y ? x : y; break;
    case GRAFT_EXPR_MAX: r = x > y ? x : y; break;
    default: ok = false; r = 0; break;
    }
    if (ok)
      return constant(r);
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
  // Canonical operand order for commutative ops so that equal sizes share ids.
  if ((op == GRAFT_EXPR_ADD || op == GRAFT_EXPR_MUL || op == GRAFT_EXPR_MIN ||
       op == GRAFT_EXPR_MAX) &&
      a > b)
    std::swap(a, b);
  return intern(op, a, b);
}

std::string ExprTable::str(uint32_t id) const {
  if (id >= exprs_.size())
    return "<bad expr>";
  const graft_expr_v1_t &e = exprs_[id];
  auto bin = [&](const char *o) {
    return "(" + str(e.a) + " " + o + " " + str(static_cast<uint32_t>(e.imm)) + ")";
  };
  auto fn = [&](const char *o) {
    return std::string(o) + "(" + str(e.a) + ", " + str(static_cast<uint32_t>(e.imm)) + ")";
  };
  switch (e.op) {
  case GRAFT_EXPR_CONST: return std::to_string(e.imm);
  case GRAFT_EXPR_ARG_DIM:
    return "arg" + std::to_string(e.a) + ".dim" + std::to_string(e.imm);
  case GRAFT_EXPR_ARG_SCALAR: return "arg" + std::to_string(e.a);
  case GRAFT_EXPR_ADD: return bin("+");
  case GRAFT_EXPR_SUB: return bin("-");
  case GRAFT_EXPR_MUL: return bin("*");
  case GRAFT_EXPR_DIV: return bin("/");
  case GRAFT_EXPR_REM: return bin("%");
  case GRAFT_EXPR_CEILDIV: return fn("ceildiv");
  case GRAFT_EXPR_MIN: return fn("min");
  case GRAFT_EXPR_MAX: return fn("max");
  }
  return "<bad expr>";
}

} // namespace graft
