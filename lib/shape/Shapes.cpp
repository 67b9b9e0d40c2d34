#include "shape/Shapes.h"

#include "ir/MapBroadcast.h"

#include "ir/KernelCall.h"

#include "support/InternalError.h"

#include <algorithm>
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

struct SliceExprArith {
  ExprTable &ex;
  uint32_t c(int64_t x) { return ex.constant(x); }
  uint32_t add(uint32_t x, uint32_t y) { return ex.binary(GRAFT_EXPR_ADD, x, y); }
  uint32_t sub(uint32_t x, uint32_t y) { return ex.binary(GRAFT_EXPR_SUB, x, y); }
  uint32_t min(uint32_t x, uint32_t y) { return ex.binary(GRAFT_EXPR_MIN, x, y); }
  uint32_t max(uint32_t x, uint32_t y) { return ex.binary(GRAFT_EXPR_MAX, x, y); }
  uint32_t mul(uint32_t x, uint32_t y) { return ex.binary(GRAFT_EXPR_MUL, x, y); }
  uint32_t lt(uint32_t x, uint32_t y) { return ex.binary(GRAFT_EXPR_LT, x, y); }
  uint32_t ceilDiv(uint32_t x, uint32_t y) { return ex.binary(GRAFT_EXPR_CEILDIV, x, y); }
};

} // namespace

SliceDim<uint32_t> sliceDimExprs(ShapeInfo &info, const Op &op, size_t d,
                                 const std::vector<uint32_t> &in) {
  ExprTable &ex = info.exprs;
  std::vector<int64_t> steps = op.listAttr("steps");
  int64_t step = steps.empty() ? 1 : steps.at(d);
  std::vector<int64_t> starts = op.listAttr("starts"), ends = op.listAttr("ends");
  // The operand of a '?' bound: the starts' '?'s come first, then the ends'.
  auto bound = [&](const std::vector<int64_t> &list, size_t before) {
    SliceBound<uint32_t> b{list.at(d)};
    if (list[d] != kRunTimeBound)
      return b;
    size_t k = 1 + before + std::count(list.begin(), list.begin() + d, kRunTimeBound);
    b.dynamic = info.scalarOf(op.operands.at(k), b.value);
    GRAFT_CHECK(b.dynamic, "a slice bound operand without a shape expression");
    return b;
  };
  SliceBound<uint32_t> start = bound(starts, 0);
  SliceBound<uint32_t> end =
      bound(ends, std::count(starts.begin(), starts.end(), kRunTimeBound));
  std::optional<int64_t> n = ex.constValue(in.at(d));
  if (n && !start.dynamic && !end.dynamic) {
    SliceDim<int64_t> s = sliceBounds(start.literal, end.literal, step, *n);
    return {ex.constant(s.start), ex.constant(s.count)};
  }
  SliceExprArith a{ex};
  return sliceBounds<uint32_t>(start, end, step, in[d], a);
}

namespace {

struct Analyzer {
  const Function &fn;
  DiagEngine &diag;
  ShapeInfo &info;
  ExprTable &ex;

  // Requires a == b at run time (no check when already known equal).
  void requireEqual(uint32_t a, uint32_t b, const Op &op, const std::string &what) {
    std::string full = std::string(opName(op.kind)) + ": " + what;
    requireEqualMessage(a, b, diag.sources().formatShort(op.loc) + ": " + full, op.loc, full);
  }
  void requireEqualMessage(uint32_t a, uint32_t b, const std::string &message,
                           SourceLoc loc = {}, const std::string &what = "") {
    if (a == b)
      return;
    auto ca = ex.constValue(a), cb = ex.constValue(b);
    if (ca && cb && *ca == *cb)
      return;
    info.checks.push_back({a, b, message, loc, what});
  }

  // The checks of kernel call |op|'s plan (what the matched pattern
  // requires of its sizes, which replace the matched ops' own, and what the
  // kernel's arguments need): a failing one names the graph op as well as
  // the rule. Sizes known to differ now are an error at both places. A call
  // under a run-time guard checks only when its guard holds (when it does
  // not, its fallback runs, with the matched ops' own checks).
  void callChecks(const Op &op, const std::vector<uint32_t> &ids) {
    const KernelCall &plan = *op.call;
    const SourceManager &sm = diag.sources();
    bool guarded = op.operands.size() > plan.inputCount && plan.link != KernelLink::Optional;
    for (const KernelCallCheck &c : plan.checks) {
      uint32_t a = ids.at(c.lhs), b = ids.at(c.rhs);
      if (guarded) {
        // guard * a + (1 - guard) * b: a where the guard holds, else b
        // (the guard is 0 or 1, so nothing here can overflow).
        GRAFT_CHECK(plan.guard != KernelCall::kNoGuard,
                    "kernel_call @" + plan.name + " has a fallback but no guard");
        uint32_t g = ids.at(plan.guard);
        uint32_t notG = ex.binary(GRAFT_EXPR_SUB, ex.constant(1), g);
        a = ex.binary(GRAFT_EXPR_ADD, ex.binary(GRAFT_EXPR_MUL, g, a),
                      ex.binary(GRAFT_EXPR_MUL, notG, b));
      }
      auto ca = ex.constValue(a), cb = ex.constValue(b);
      if (ca && cb && *ca != *cb) {
        diag.error(op.loc, "rule '" + plan.name + "' matched here, but " + c.what + ": " +
                               std::to_string(*ca) + " != " + std::to_string(*cb));
        if (c.loc.valid())
          diag.note(c.loc, "required by rule '" + plan.name + "' here");
        continue;
      }
      requireEqualMessage(a, b, sm.formatShort(op.loc) + ": rule '" + plan.name +
                                    "' matched here, but " + c.message);
    }
  }

  uint32_t scalar(const Value *v) {
    uint32_t id = 0;
    GRAFT_CHECK(info.scalarOf(v, id), "index scalar %" + v->name + " has no host expression");
    return id;
  }

  // Dims of a result type, taking '?' dims from |dynOperands| in order.
  std::vector<uint32_t> fromType(const Type &t, const std::vector<Value *> &ops,
                                 size_t firstDyn) {
    std::vector<uint32_t> d;
    size_t k = firstDyn;
    for (int64_t s : t.dims) {
      if (s != kDynamic)
        d.push_back(ex.constant(s));
      else {
        GRAFT_CHECK(k < ops.size(), "'?' dim without a size operand passed the verifier");
        d.push_back(scalar(ops[k++]));
      }
    }
    return d;
  }

  // Result dims must agree with its declared static sizes.
  void refine(const Op &op, const Value &result, std::vector<uint32_t> &d) {
    const Type &t = result.type;
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

  // Function-level scalar ops are index arithmetic; every one of them has a
  // host expression (the verifier allows nothing else at function level).
  // Those without an op of their own are built from exact identities:
  // neg x = 0 - x, abs x = max(x, 0 - x), select c a b = c*a + (1-c)*b
  // (c is 0 or 1, so neither product nor the sum can overflow where the
  // result does not), comparisons from == and <.
  void scalarOp(const Op &op) {
    const Value *r = op.result();
    auto in = [&](size_t i) { return scalar(op.operands[i]); };
    auto bin = [&](graft_expr_op_t e, uint32_t a, uint32_t b) { return ex.binary(e, a, b); };
    auto negate = [&](uint32_t x) { return bin(GRAFT_EXPR_SUB, ex.constant(0), x); };
    auto notOf = [&](uint32_t x) { return bin(GRAFT_EXPR_SUB, ex.constant(1), x); };
    uint32_t v = 0;
    switch (op.kind) {
    case OpKind::Add: v = bin(GRAFT_EXPR_ADD, in(0), in(1)); break;
    case OpKind::Sub: v = bin(GRAFT_EXPR_SUB, in(0), in(1)); break;
    case OpKind::Mul: v = bin(GRAFT_EXPR_MUL, in(0), in(1)); break;
    case OpKind::Div: v = bin(GRAFT_EXPR_DIV, in(0), in(1)); break;
    case OpKind::Rem: v = bin(GRAFT_EXPR_REM, in(0), in(1)); break;
    case OpKind::Max: v = bin(GRAFT_EXPR_MAX, in(0), in(1)); break;
    case OpKind::Min: v = bin(GRAFT_EXPR_MIN, in(0), in(1)); break;
    case OpKind::Neg: v = negate(in(0)); break;
    case OpKind::Abs: v = bin(GRAFT_EXPR_MAX, in(0), negate(in(0))); break;
    case OpKind::Cast: v = in(0); break; // integer -> index keeps the value
    case OpKind::Select:
      v = bin(GRAFT_EXPR_ADD, bin(GRAFT_EXPR_MUL, in(0), in(1)),
              bin(GRAFT_EXPR_MUL, notOf(in(0)), in(2)));
      break;
    case OpKind::Cmp: {
      std::string pred = op.identAttr("pred");
      uint32_t a = in(0), b = in(1);
      if (pred == "eq") v = bin(GRAFT_EXPR_EQ, a, b);
      else if (pred == "ne") v = notOf(bin(GRAFT_EXPR_EQ, a, b));
      else if (pred == "lt") v = bin(GRAFT_EXPR_LT, a, b);
      else if (pred == "gt") v = bin(GRAFT_EXPR_LT, b, a);
      else if (pred == "le") v = notOf(bin(GRAFT_EXPR_LT, b, a));
      else if (pred == "ge") v = notOf(bin(GRAFT_EXPR_LT, a, b));
      else GRAFT_INTERNAL_ERROR("cmp with unverified predicate '" + pred + "'");
      break;
    }
    default:
      GRAFT_INTERNAL_ERROR(std::string("function-level '") + opName(op.kind) +
                           "' has no host expression");
    }
    info.scalars[r] = v;
  }

  // Reports the folds of |op| that overflowed or divided by zero.
  void reportFoldErrors(const Op &op) {
    for (const FoldError &e : ex.takeFoldErrors())
      diag.error(op.loc, std::string("'") + opName(op.kind) + "': " + e.message());
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
    for (const Op *op : fn.ops) {
      visit(*op);
      reportFoldErrors(*op);
    }
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
      GRAFT_CHECK(axis >= 0 && static_cast<size_t>(axis) < sd.size(),
                  "dim axis out of range passed the verifier");
      info.scalars[r] = sd[axis];
      return;
    }
    case OpKind::Empty:
    case OpKind::Iota:
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
    case OpKind::Map: {
      // Each result dim is the first operand dim that does not repeat
      // along it (ir/MapBroadcast.h); the others that do not must equal it.
      std::vector<std::optional<uint32_t>> sizes;
      mapResultSizes<uint32_t>(
          op, [&](size_t i, size_t k) { return D(i)[k]; },
          [&](size_t first, uint32_t size, size_t i, size_t k, uint32_t n) {
            requireEqual(n, size, op,
                         "operand " + std::to_string(i) + " dim " +
                             std::to_string(k) + " differs from operand " +
                             std::to_string(first));
            return true;
          },
          sizes);
      d.clear();
      for (const std::optional<uint32_t> &x : sizes)
        d.push_back(x ? *x : ex.constant(1)); // every operand repeats or lacks it
      break;
    }
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
        if (r->type.dims[i] != kDynamic) {
          d[i] = ex.constant(r->type.dims[i]);
        } else {
          GRAFT_CHECK(k < op.operands.size(), "broadcast '?' dim without a size operand");
          d[i] = scalar(op.operands[k++]);
        }
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
    case OpKind::Gather: {
      size_t axis = static_cast<size_t>(op.intAttr("axis"));
      d.assign(D(0).begin(), D(0).begin() + axis);
      d.insert(d.end(), D(1).begin(), D(1).end());
      d.insert(d.end(), D(0).begin() + axis + 1, D(0).end());
      break;
    }
    case OpKind::Concat: {
      size_t axis = static_cast<size_t>(op.intAttr("axis"));
      d = D(0);
      for (size_t i = 1; i < op.operands.size(); ++i)
        for (size_t k = 0; k < d.size(); ++k) {
          if (k == axis)
            d[k] = ex.binary(GRAFT_EXPR_ADD, d[k], D(i)[k]);
          else
            requireEqual(D(i)[k], d[k], op, "operand " + std::to_string(i) + " dim " +
                                                std::to_string(k) + " differs from operand 0");
        }
      break;
    }
    case OpKind::Pad: {
      // Edge and reflect padding read the input's elements: a padded dim
      // must have one (the verifier rejects a static 0).
      std::vector<int64_t> low = op.listAttr("low"), high = op.listAttr("high");
      bool copies = op.identAttr("mode") == "edge" || op.identAttr("mode") == "reflect";
      for (size_t k = 0; k < D(0).size(); ++k) {
        uint32_t n = D(0)[k];
        if (copies && (low[k] || high[k]))
          requireEqual(ex.binary(GRAFT_EXPR_MIN, n, ex.constant(1)), ex.constant(1), op,
                       "dim " + std::to_string(k) + " is empty; " + op.identAttr("mode") +
                           " padding needs an element to copy");
        d.push_back(ex.binary(GRAFT_EXPR_ADD, n, ex.constant(low[k] + high[k])));
      }
      break;
    }
    case OpKind::Tile: {
      std::vector<int64_t> repeats = op.listAttr("repeats");
      for (size_t k = 0; k < D(0).size(); ++k)
        d.push_back(ex.binary(GRAFT_EXPR_MUL, D(0)[k], ex.constant(repeats[k])));
      break;
    }
    case OpKind::Slice:
      for (size_t k = 0; k < D(0).size(); ++k)
        d.push_back(sliceDimExprs(info, op, k, D(0)).count);
      break;
    case OpKind::Reduce: {
      std::vector<int64_t> rd = op.listAttr("dims");
      for (size_t i = 0; i < D(0).size(); ++i) {
        bool reduced = false;
        for (int64_t x : rd)
          reduced |= x == static_cast<int64_t>(i);
        if (!reduced)
          d.push_back(D(0)[i]);
        else if (op.intAttr("keepdims"))
          d.push_back(ex.constant(1));
      }
      break;
    }
    case OpKind::ArgMax:
    case OpKind::ArgMin: {
      size_t axis = static_cast<size_t>(op.intAttr("axis"));
      for (size_t i = 0; i < D(0).size(); ++i)
        if (i != axis)
          d.push_back(D(0)[i]);
        else if (op.intAttr("keepdims"))
          d.push_back(ex.constant(1));
      break;
    }
    case OpKind::KernelCall: {
      // The call's size program, instantiated over this call's operands:
      // its outputs' dims and the checks of the pattern it replaced.
      const KernelCall &plan = *op.call;
      std::vector<uint32_t> &ids = info.callExprs[&op];
      ids.clear();
      for (const graft_expr_v1_t &e : plan.exprs) {
        switch (e.op) {
        case GRAFT_EXPR_CONST: ids.push_back(ex.constant(e.imm)); break;
        case GRAFT_EXPR_ARG_DIM:
          ids.push_back(info.dimsOf(op.operands.at(e.a)).at(static_cast<size_t>(e.imm)));
          break;
        case GRAFT_EXPR_ARG_SCALAR: ids.push_back(scalar(op.operands.at(e.a))); break;
        default:
          ids.push_back(ex.binary(static_cast<graft_expr_op_t>(e.op), ids.at(e.a),
                                  ids.at(static_cast<size_t>(e.imm))));
        }
      }
      callChecks(op, ids);
      for (size_t k = 0; k < op.results.size(); ++k) {
        std::vector<uint32_t> rd;
        for (uint32_t e : plan.resultDims.at(k))
          rd.push_back(ids[e]);
        refine(op, *op.results[k], rd);
        info.dims[op.results[k]] = rd;
      }
      return;
    }
    default:
      // A tensor op without a rule here would leave its result without dims.
      GRAFT_CHECK(isScalarOp(op.kind),
                  std::string("no shape rule for '") + opName(op.kind) + "'");
      scalarOp(op);
      return;
    }
    if (r && r->type.tensor) {
      refine(op, *r, d);
      info.dims[r] = d;
    }
  }
};

} // namespace

void analyzeShapes(const Function &fn, DiagEngine &diag, ShapeInfo &info) {
  Analyzer a{fn, diag, info, info.exprs};
  a.run();
}

} // namespace graft
