#include "shape/Shapes.h"

#include <cassert>

namespace graft {

const std::vector<uint32_t> &ShapeInfo::dimsOf(const Value *v) const {
  auto it = dims.find(v);
  assert(it != dims.end() && "value without shape");
  return it->second;
}

bool ShapeInfo::scalarOf(const Value *v, uint32_t &out) const {
  auto it = scalars.find(v);
  if (it == scalars.end())
    return false;
  out = it->second;
  return true;
}

namespace {

struct Analyzer {
  const Function &fn;
  const SourceManager &sm;
  const SpecSet *specs;
  ShapeInfo &info;
  ExprTable &ex;

  // Requires a == b at run time (no check when already known equal).
  void requireEqual(uint32_t a, uint32_t b, const Op &op, const std::string &what) {
    if (a == b)
      return;
    auto ca = ex.constValue(a), cb = ex.constValue(b);
    if (ca && cb && *ca == *cb)
      return;
    info.checks.push_back(
        {a, b, sm.formatShort(op.loc) + ": " + opName(op.kind) + ": " + what});
  }

  uint32_t scalar(const Value *v) {
    uint32_t id = 0;
    if (info.scalarOf(v, id))
      return id;
    assert(false && "index scalar without expression");
    return ex.constant(0);
  }

  // Dims of a result type, taking '?' dims from |dynOperands| in order.
  std::vector<uint32_t> fromType(const Type &t, const std::vector<Value *> &ops,
                                 size_t firstDyn) {
    std::vector<uint32_t> d;
    size_t k = firstDyn;
    for (int64_t s : t.dims) {
      if (s != kDynamic)
        d.push_back(ex.constant(s));
      else if (k < ops.size())
        d.push_back(scalar(ops[k++]));
      else
        d.push_back(ex.constant(0)); // verifier rejects this
    }
    return d;
  }

  // Result dims must agree with its declared static sizes.
  void refine(const Op &op, std::vector<uint32_t> &d) {
    const Type &t = op.result()->type;
    for (size_t i = 0; i < d.size() && i < t.dims.size(); ++i) {
      if (t.dims[i] == kDynamic)
        continue;
      uint32_t c = ex.constant(t.dims[i]);
      requireEqual(d[i], c, op, "result dim " + std::to_string(i) +
                                    " does not match the declared size " +
                                    std::to_string(t.dims[i]));
      d[i] = c;
    }
  }

  void scalarOp(const Op &op) {
    const Value *r = op.result();
    if (r->type.elem != DType::Index && !isInteger(r->type.elem))
      return;
    auto bin = [&](graft_expr_op_t e) {
      info.scalars[r] = ex.binary(e, scalar(op.operands[0]), scalar(op.operands[1]));
    };
    switch (op.kind) {
    case OpKind::Add: bin(GRAFT_EXPR_ADD); break;
    case OpKind::Sub: bin(GRAFT_EXPR_SUB); break;
    case OpKind::Mul: bin(GRAFT_EXPR_MUL); break;
    case OpKind::Div: bin(GRAFT_EXPR_DIV); break;
    case OpKind::Rem: bin(GRAFT_EXPR_REM); break;
    case OpKind::Max: bin(GRAFT_EXPR_MAX); break;
    case OpKind::Min: bin(GRAFT_EXPR_MIN); break;
    case OpKind::Cast: info.scalars[r] = scalar(op.operands[0]); break;
    default: break;
    }
  }

  void run() {
    for (size_t i = 0; i < fn.args.size(); ++i) {
      const Value *a = fn.args[i];
      if (a->type.tensor) {
        std::vector<uint32_t> d;
        for (size_t k = 0; k < a->type.dims.size(); ++k)
          d.push_back(a->type.dims[k] == kDynamic
                          ? ex.argDim(static_cast<uint32_t>(i), static_cast<uint32_t>(k))
                          : ex.constant(a->type.dims[k]));
        info.dims[a] = d;
      } else {
        info.scalars[a] = ex.argScalar(static_cast<uint32_t>(i));
      }
    }
    for (const Op *op : fn.ops)
      visit(*op);
  }

  void visit(const Op &op) {
    const Value *r = op.result();
    auto D = [&](size_t i) -> const std::vector<uint32_t> & {
      return info.dimsOf(op.operands[i]);
    };
    std::vector<uint32_t> d;
    switch (op.kind) {
    case OpKind::Constant:
      if (r->type.tensor)
        d = fromType(r->type, {}, 0);
      else if (isInteger(r->type.elem))
        info.scalars[r] = ex.constant(op.constant.getInt(r->type.elem, 0));
      break;
    case OpKind::Dim: {
      int64_t axis = op.intAttr("axis");
      const auto &sd = D(0);
      info.scalars[r] = axis >= 0 && static_cast<size_t>(axis) < sd.size()
                            ? sd[axis] : ex.constant(0);
      return;
    }
    case OpKind::Empty:
      d = fromType(r->type, op.operands, 0);
      break;
    case OpKind::Fill:
      d = D(1);
      break;
    case OpKind::Matmul:
    case OpKind::BatchMatmul: {
      const auto &a = D(0), &b = D(1), &c = D(2);
      size_t o = op.kind == OpKind::BatchMatmul ? 1 : 0;
      if (o)
        requireEqual(a[0], b[0], op, "batch dimensions of lhs and rhs differ");
      requireEqual(a[o + 1], b[o], op, "inner dimensions (K) of lhs and rhs differ");
      if (o)
        d.push_back(a[0]);
      d.push_back(a[o]);
      d.push_back(b[o + 1]);
      for (size_t i = 0; i < d.size(); ++i)
        requireEqual(c[i], d[i], op, "accumulator dim " + std::to_string(i) +
                                         " does not match the product");
      break;
    }
    case OpKind::Map:
      d = D(0);
      for (size_t i = 1; i < op.operands.size(); ++i)
        for (size_t k = 0; k < d.size(); ++k)
          requireEqual(D(i)[k], d[k], op, "operand " + std::to_string(i) +
                                              " dim " + std::to_string(k) +
                                              " differs from operand 0");
      break;
    case OpKind::Broadcast: {
      std::vector<int64_t> map = op.listAttr("dims");
      d.assign(r->type.dims.size(), UINT32_MAX);
      for (size_t i = 0; i < map.size(); ++i)
        if (map[i] >= 0 && static_cast<size_t>(map[i]) < d.size())
          d[map[i]] = D(0)[i];
      size_t k = 1;
      for (size_t i = 0; i < d.size(); ++i) {
        if (d[i] != UINT32_MAX)
          continue;
        if (r->type.dims[i] != kDynamic)
          d[i] = ex.constant(r->type.dims[i]);
        else
          d[i] = k < op.operands.size() ? scalar(op.operands[k++]) : ex.constant(0);
      }
      break;
    }
    case OpKind::Transpose: {
      std::vector<int64_t> perm = op.listAttr("perm");
      for (int64_t p : perm)
        d.push_back(D(0)[p]);
      break;
    }
    case OpKind::Reshape: {
      d = fromType(r->type, op.operands, 1);
      uint32_t in = ex.constant(1), out = ex.constant(1);
      for (uint32_t x : D(0))
        in = ex.binary(GRAFT_EXPR_MUL, in, x);
      for (uint32_t x : d)
        out = ex.binary(GRAFT_EXPR_MUL, out, x);
      requireEqual(in, out, op, "element counts of operand and result differ");
      break;
    }
    case OpKind::Reduce: {
      std::vector<int64_t> rd = op.listAttr("dims");
      for (size_t i = 0; i < D(0).size(); ++i) {
        bool reduced = false;
        for (int64_t x : rd)
          reduced |= x == static_cast<int64_t>(i);
        if (!reduced)
          d.push_back(D(0)[i]);
      }
      break;
    }
    case OpKind::KernelCall: {
      // The outputs have the shapes the rule's pattern computes from the
      // call's operands (the pattern's checks apply too).
      assert(specs && op.call.rule < specs->rules.size());
      const Function &pat = *specs->rules[op.call.rule]->pattern;
      for (size_t i = 0; i < pat.args.size() && i < op.operands.size(); ++i) {
        const Value *a = op.operands[i];
        if (a->type.tensor)
          info.dims[pat.args[i]] = info.dimsOf(a);
        else if (info.scalars.count(a))
          info.scalars[pat.args[i]] = info.scalars[a];
      }
      Analyzer sub{pat, sm, specs, info, ex};
      for (const Op *p : pat.ops)
        sub.visit(*p);
      for (size_t k = 0; k < op.results.size() && k < pat.results.size(); ++k)
        info.dims[op.results[k]] = info.dimsOf(pat.results[k]);
      return;
    }
    default:
      if (isScalarOp(op.kind))
        scalarOp(op);
      return;
    }
    if (r && r->type.tensor) {
      refine(op, d);
      info.dims[r] = d;
    }
  }
};

} // namespace

void analyzeShapes(const Function &fn, const SourceManager &sm, const SpecSet *specs,
                   ShapeInfo &info) {
  Analyzer a{fn, sm, specs, info, info.exprs};
  a.run();
}

} // namespace graft
