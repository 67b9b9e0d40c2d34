// Dispatch formation: groups a function's ops into dispatches and builds its
// host program.
//
// Pass 1 walks the ops in program order and assigns every compute op to a
// group: a fill whose only user is a matmul accumulator is absorbed into the
// matmul (the accumulator starts at the fill value); an elementwise `map` is
// fused into the group of its latest producer when it iterates over that
// group's parallel domain and its other operands are ready before that group
// runs; everything else starts a group. Pass 2 turns each group into a
// LoopKernel (or a CallKernel for spec kernel calls) and the buffers and
// steps of the host program.
#include "dispatch/Dispatch.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

namespace graft {
namespace {

constexpr uint32_t kNone = ~0u;

bool isCompute(OpKind k) {
  switch (k) {
  case OpKind::Fill: case OpKind::Matmul: case OpKind::BatchMatmul:
  case OpKind::Map: case OpKind::Broadcast: case OpKind::Transpose:
  case OpKind::Reduce: case OpKind::KernelCall:
    return true;
  default:
    return false;
  }
}

struct Former {
  const Function &fn;
  ShapeInfo &shapes;
  const SpecSet *specs;
  const SourceManager &sm;
  ProgramSet &out;
  FunctionProgram &prog;
  unsigned vectorBits;

  // Pass 1 results.
  std::map<const Op *, int> groupOf;     // -1: no dispatch, -2: absorbed fill
  std::vector<std::vector<const Op *>> groups;
  std::map<const Value *, int> readyAfter; // group that must run first (-1: none)
  std::map<const Value *, uint32_t> bufferOf;
  std::set<const Value *> returned;

  Former(const Function &f, ShapeInfo &s, const SpecSet *sp, const SourceManager &m,
         ProgramSet &o, FunctionProgram &p, unsigned vb)
      : fn(f), shapes(s), specs(sp), sm(m), out(o), prog(p), vectorBits(vb) {}

  // ---- Pass 1 -------------------------------------------------------------

  int ready(const Value *v) {
    auto it = readyAfter.find(v);
    return it == readyAfter.end() ? -1 : it->second;
  }

  bool absorbedFill(const Op *op) {
    if (op->kind != OpKind::Fill || returned.count(op->result()))
      return false;
    std::vector<Op *> users = fn.users(op->result());
    if (users.size() != 1)
      return false;
    const Op *u = users[0];
    return (u->kind == OpKind::Matmul || u->kind == OpKind::BatchMatmul) &&
           u->operands[2] == op->result() && u->operands[0] != op->result() &&
           u->operands[1] != op->result();
  }

  int tryFuseMap(const Op *op) {
    int g = -1;
    for (const Value *v : op->operands)
      g = std::max(g, ready(v));
    if (g < 0)
      return -1;
    const Op *root = groups[g].front();
    if (root->kind == OpKind::KernelCall)
      return -1;
    // The map must iterate over the group's parallel domain.
    const Value *rootVal = root->result();
    if (shapes.dimsOf(op->result()) != shapes.dimsOf(rootVal))
      return -1;
    for (const Value *v : op->operands) {
      int r = ready(v);
      bool inGroup = v->def && groupOf.count(v->def) && groupOf[v->def] == g;
      if (!inGroup && r >= g)
        return -1; // e.g. an alias of a value this group writes
    }
    return g;
  }

  void pass1() {
    for (const Value *v : fn.results)
      returned.insert(v);
    for (const Op *op : fn.ops) {
      if (!isCompute(op->kind)) {
        groupOf[op] = -1;
        if (op->kind == OpKind::Reshape && op->result())
          readyAfter[op->result()] = ready(op->operands[0]);
        continue;
      }
      if (absorbedFill(op)) {
        groupOf[op] = -2;
        continue;
      }
      int g = op->kind == OpKind::Map ? tryFuseMap(op) : -1;
      if (g < 0) {
        g = static_cast<int>(groups.size());
        groups.emplace_back();
      }
      groups[g].push_back(op);
      groupOf[op] = g;
      for (const Value *r : op->results)
        readyAfter[r] = g;
    }
  }

  // ---- Buffers ------------------------------------------------------------

  uint32_t addBuffer(uint32_t kind, uint32_t index, DType t, std::vector<uint32_t> dims) {
    BufferDesc b;
    b.kind = kind;
    b.index = index;
    b.dtype = t;
    b.dims = std::move(dims);
    prog.buffers.push_back(std::move(b));
    return static_cast<uint32_t>(prog.buffers.size() - 1);
  }

  // Buffer of a value that is not produced by a dispatch, or was assigned.
  uint32_t buffer(const Value *v) {
    auto it = bufferOf.find(v);
    if (it != bufferOf.end())
      return it->second;
    uint32_t id;
    if (v->isArg()) {
      id = addBuffer(GRAFT_BUFFER_ARG, static_cast<uint32_t>(v->argIndex), v->type.elem,
                     shapes.dimsOf(v));
    } else if (v->def->kind == OpKind::Constant) {
      id = addBuffer(GRAFT_BUFFER_CONST, 0, v->type.elem, shapes.dimsOf(v));
      const ConstantData &c = v->def->constant;
      size_t n = 1;
      for (int64_t d : v->type.dims)
        n *= static_cast<size_t>(d);
      size_t es = dtypeSize(v->type.elem);
      std::vector<uint8_t> &data = prog.buffers[id].data;
      if (c.splat) {
        for (size_t i = 0; i < n; ++i)
          data.insert(data.end(), c.bytes.begin(), c.bytes.begin() + es);
      } else {
        data = c.bytes;
      }
    } else if (v->def->kind == OpKind::Reshape) {
      uint32_t src = buffer(v->def->operands[0]);
      id = addBuffer(GRAFT_BUFFER_ALIAS, src, v->type.elem, shapes.dimsOf(v));
    } else {
      // Empty tensors and dispatch results not yet assigned.
      id = addBuffer(GRAFT_BUFFER_TEMP, 0, v->type.elem, shapes.dimsOf(v));
    }
    bufferOf[v] = id;
    return id;
  }

  // Output buffer of a value a dispatch produces.
  uint32_t outputBuffer(const Value *v) {
    auto it = bufferOf.find(v);
    if (it != bufferOf.end())
      return it->second;
    uint32_t id = addBuffer(GRAFT_BUFFER_TEMP, 0, v->type.elem, shapes.dimsOf(v));
    bufferOf[v] = id;
    return id;
  }

  bool usedOutside(const Value *v, int g) {
    if (returned.count(v))
      return true;
    for (const Op *u : fn.users(v)) {
      auto it = groupOf.find(u);
      if (it == groupOf.end() || it->second != g)
        return true;
    }
    return false;
  }

  // ---- Loop kernels -------------------------------------------------------

  struct KB {
    Dispatch &d;
    std::map<uint32_t, unsigned> paramIndex;
    std::map<const Value *, int> nodeOf;
    std::map<std::pair<uint32_t, std::vector<int>>, unsigned> inputIndex;
    std::vector<uint32_t> domain;
  };

  unsigned param(KB &kb, uint32_t expr) {
    auto it = kb.paramIndex.find(expr);
    if (it != kb.paramIndex.end())
      return it->second;
    unsigned p = static_cast<unsigned>(kb.d.params.size());
    kb.d.params.push_back(expr);
    kb.paramIndex[expr] = p;
    return p;
  }

  int node(KB &kb, SNode n) {
    kb.d.loop.nodes.push_back(std::move(n));
    return static_cast<int>(kb.d.loop.nodes.size() - 1);
  }

  int constNode(KB &kb, DType t, double f, int64_t i) {
    SNode n{SNode::Kind::Const, t};
    n.f = f;
    n.i = i;
    return node(kb, n);
  }

  int loadNode(KB &kb, const Value *v, std::vector<int> map) {
    uint32_t buf = buffer(v);
    auto key = std::make_pair(buf, map);
    auto it = kb.inputIndex.find(key);
    unsigned idx;
    if (it != kb.inputIndex.end()) {
      idx = it->second;
    } else {
      KernelInput in;
      in.buffer = buf;
      in.elem = v->type.elem;
      in.map = map;
      for (uint32_t e : shapes.dimsOf(v))
        in.dimParams.push_back(param(kb, e));
      idx = static_cast<unsigned>(kb.d.loop.inputs.size());
      kb.d.loop.inputs.push_back(std::move(in));
      kb.inputIndex[key] = idx;
    }
    SNode n{SNode::Kind::Load, v->type.elem};
    n.input = idx;
    return node(kb, n);
  }

  // A tensor value at the current parallel point.
  int atPoint(KB &kb, const Value *v) {
    auto it = kb.nodeOf.find(v);
    if (it != kb.nodeOf.end())
      return it->second;
    std::vector<int> map;
    for (unsigned i = 0; i < v->type.rank(); ++i)
      map.push_back(static_cast<int>(i));
    return loadNode(kb, v, map);
  }

  // A scalar defined outside any body (constant, dim, scalar argument).
  int outerScalar(KB &kb, const Value *v) {
    if (v->def && v->def->kind == OpKind::Constant) {
      DType t = v->type.elem;
      return constNode(kb, t, isFloat(t) ? v->def->constant.getFloat(t, 0) : 0,
                       isFloat(t) ? 0 : v->def->constant.getInt(t, 0));
    }
    uint32_t e = 0;
    bool ok = shapes.scalarOf(v, e);
    assert(ok && "captured scalar without host expression");
    (void)ok;
    SNode n{SNode::Kind::Param, v->type.elem};
    n.param = param(kb, e);
    return node(kb, n);
  }

  void emitMap(KB &kb, const Op *op) {
    const Region &r = *op->region;
    std::map<const Value *, int> local;
    for (size_t i = 0; i < r.args.size(); ++i)
      local[r.args[i]] = atPoint(kb, op->operands[i]);
    auto get = [&](const Value *v) {
      auto it = local.find(v);
      return it != local.end() ? it->second : outerScalar(kb, v);
    };
    for (const Op *b : r.ops) {
      const Value *res = b->result();
      if (b->kind == OpKind::Constant) {
        local[res] = outerScalar(kb, res);
        continue;
      }
      SNode n{SNode::Kind::Op, res->type.elem};
      n.op = b->kind;
      if (b->kind == OpKind::Cmp)
        n.pred = b->identAttr("pred");
      for (const Value *o : b->operands)
        n.operands.push_back(get(o));
      local[res] = node(kb, n);
    }
    kb.nodeOf[op->result()] = get(r.yield);
  }

  std::vector<int> identity(unsigned n) {
    std::vector<int> m;
    for (unsigned i = 0; i < n; ++i)
      m.push_back(static_cast<int>(i));
    return m;
  }

  int reduceIdentity(KB &kb, const std::string &kind, DType t) {
    bool fl = isFloat(t);
    double inf = std::numeric_limits<double>::infinity();
    int64_t imax = 0, imin = 0;
    switch (t) {
    case DType::I1: imax = 1; imin = 0; break;
    case DType::I8: imax = INT8_MAX; imin = INT8_MIN; break;
    case DType::I16: imax = INT16_MAX; imin = INT16_MIN; break;
    case DType::I32: imax = INT32_MAX; imin = INT32_MIN; break;
    default: imax = INT64_MAX; imin = INT64_MIN; break;
    }
    if (kind == "max")
      return constNode(kb, t, -inf, imin);
    if (kind == "min")
      return constNode(kb, t, inf, imax);
    if (kind == "prod")
      return constNode(kb, t, 1.0, 1);
    return constNode(kb, t, fl ? 0.0 : 0.0, 0);
  }

  void rootKernel(KB &kb, const Op *op) {
    LoopKernel &L = kb.d.loop;
    const Value *res = op->result();
    std::vector<uint32_t> domain = shapes.dimsOf(res);
    L.numParallel = static_cast<unsigned>(domain.size());
    switch (op->kind) {
    case OpKind::Matmul:
    case OpKind::BatchMatmul: {
      bool batch = op->kind == OpKind::BatchMatmul;
      const auto &ld = shapes.dimsOf(op->operands[0]);
      domain.push_back(ld.back()); // K
      std::vector<int> lm = batch ? std::vector<int>{0, 1, 3} : std::vector<int>{0, 2};
      std::vector<int> rm = batch ? std::vector<int>{0, 3, 2} : std::vector<int>{2, 1};
      const Value *acc = op->operands[2];
      L.accType = res->type.elem;
      if (acc->def && acc->def->kind == OpKind::Fill && groupOf[acc->def] == -2) {
        const Value *s = acc->def->operands[0];
        L.accInit = outerScalar(kb, s);
      } else {
        L.accInit = atPoint(kb, acc);
      }
      int a = loadNode(kb, op->operands[0], lm);
      int b = loadNode(kb, op->operands[1], rm);
      SNode mul{SNode::Kind::Op, L.accType};
      mul.op = OpKind::Mul;
      mul.operands = {a, b};
      int m = node(kb, mul);
      SNode accN{SNode::Kind::Acc, L.accType};
      int ac = node(kb, accN);
      SNode add{SNode::Kind::Op, L.accType};
      add.op = OpKind::Add;
      add.operands = {ac, m};
      L.accUpdate = node(kb, add);
      kb.nodeOf[res] = ac;
      break;
    }
    case OpKind::Reduce: {
      const Value *in = op->operands[0];
      std::vector<int64_t> rd = op->listAttr("dims");
      std::sort(rd.begin(), rd.end());
      const auto &id = shapes.dimsOf(in);
      std::vector<int> map(id.size());
      int kept = 0;
      for (size_t i = 0; i < id.size(); ++i) {
        auto pos = std::find(rd.begin(), rd.end(), static_cast<int64_t>(i));
        if (pos != rd.end()) {
          map[i] = static_cast<int>(L.numParallel + (pos - rd.begin()));
          domain.push_back(id[i]);
        } else {
          map[i] = kept++;
        }
      }
      std::string kind = op->identAttr("kind");
      L.accType = res->type.elem;
      L.accInit = reduceIdentity(kb, kind, L.accType);
      int ld = loadNode(kb, in, map);
      SNode accN{SNode::Kind::Acc, L.accType};
      int ac = node(kb, accN);
      SNode upd{SNode::Kind::Op, L.accType};
      upd.op = kind == "max" ? OpKind::Max
               : kind == "min" ? OpKind::Min
               : kind == "prod" ? OpKind::Mul : OpKind::Add;
      upd.operands = {ac, ld};
      L.accUpdate = node(kb, upd);
      kb.nodeOf[res] = ac;
      break;
    }
    case OpKind::Fill:
      kb.nodeOf[res] = outerScalar(kb, op->operands[0]);
      break;
    case OpKind::Broadcast: {
      std::vector<int64_t> dims = op->listAttr("dims");
      kb.nodeOf[res] = loadNode(kb, op->operands[0],
                                std::vector<int>(dims.begin(), dims.end()));
      break;
    }
    case OpKind::Transpose: {
      std::vector<int64_t> perm = op->listAttr("perm");
      std::vector<int> map(perm.size());
      for (size_t i = 0; i < perm.size(); ++i)
        map[perm[i]] = static_cast<int>(i);
      kb.nodeOf[res] = loadNode(kb, op->operands[0], map);
      break;
    }
    case OpKind::Map:
      emitMap(kb, op);
      break;
    default:
      assert(false && "not a loop-kernel root");
    }
    kb.domain = domain;
  }

  // After fusion: flattens pure elementwise kernels, picks tile sizes from
  // the target's vector width and computes the grid.
  void finishLoop(KB &kb) {
    LoopKernel &L = kb.d.loop;
    ExprTable &ex = shapes.exprs;
    std::vector<uint32_t> domain = kb.domain;
    bool reduction = domain.size() > L.numParallel;
    // An elementwise kernel whose inputs are all read at the output point
    // walks one contiguous index space: one loop, whatever the rank.
    bool flat = !reduction && L.numParallel >= 2;
    for (const KernelInput &in : L.inputs)
      flat &= in.map == identity(L.numParallel);
    if (flat) {
      uint32_t total = ex.constant(1);
      for (uint32_t e : domain)
        total = ex.binary(GRAFT_EXPR_MUL, total, e);
      domain = {total};
      L.numParallel = 1;
      for (KernelInput &in : L.inputs) {
        in.map = {0};
        in.dimParams = {param(kb, total)};
      }
    }
    for (uint32_t e : domain)
      L.domainParams.push_back(param(kb, e));
    if (reduction) {
      // Which loop order reads memory contiguously: the innermost output dim
      // (a row of accumulators, matmul's i-k-j) or a reduced dim (one point
      // at a time, reduction innermost).
      bool rowContiguous = false, reducedContiguous = false;
      for (const KernelInput &in : L.inputs) {
        if (in.map.empty())
          continue;
        int last = in.map.back();
        rowContiguous |= L.numParallel > 0 && last == static_cast<int>(L.numParallel) - 1;
        reducedContiguous |= last >= static_cast<int>(L.numParallel);
      }
      L.innerReduction = L.numParallel == 0 || (reducedContiguous && !rowContiguous);
    }
    // Lanes of the widest element type the kernel touches.
    unsigned maxBytes = static_cast<unsigned>(dtypeSize(reduction ? L.accType : DType::I8));
    for (const KernelInput &in : L.inputs)
      maxBytes = std::max(maxBytes, dtypeSize(in.elem));
    for (const KernelOutput &o : L.outputs)
      maxBytes = std::max(maxBytes, dtypeSize(o.elem));
    unsigned lanes = std::max(1u, vectorBits / 8 / std::max(1u, maxBytes));
    // Reductions keep one row of accumulators (tileX) in registers/stack;
    // elementwise tiles are large enough to amortise scheduling.
    L.tileX = reduction ? std::max(16u, lanes * 16) : std::max(256u, lanes * 256);
    L.tileY = reduction ? 8 : 1;
    if (reduction && !L.innerReduction && L.numParallel >= 2) {
      // 4 rows x 2 vectors of accumulators: 8 vector registers, within the
      // 16 of SSE and the 32 of NEON, with room for the operands.
      L.regRows = 4;
      L.regCols = std::min(16u, 2 * lanes);
    }
    // An input read across its rows (transpose, some broadcasts) gets tall,
    // narrow tiles: each of the tile's 8 input rows is read along 128
    // contiguous elements, and the output rows stay short. Measured on
    // tests/bench transpose: 2048x2048 in 4.3 ms instead of 39 ms.
    // (An input that varies along the innermost output dim through one of
    // its outer dims; a broadcast that does not vary along it is fine.)
    bool strided = false;
    int inner = static_cast<int>(L.numParallel) - 1;
    for (const KernelInput &in : L.inputs)
      for (size_t k = 0; k + 1 < in.map.size(); ++k)
        strided |= L.numParallel >= 2 && in.map[k] == inner;
    if (!reduction && strided) {
      L.tileX = 8;
      L.tileY = 128;
    }
    // Grid: x over the innermost parallel dim, y over the next, z over the
    // product of the rest.
    unsigned P = L.numParallel;
    kb.d.grid[0] = P >= 1 ? ex.binary(GRAFT_EXPR_CEILDIV, domain[P - 1], ex.constant(L.tileX))
                          : ex.constant(1);
    kb.d.grid[1] = P >= 2 ? ex.binary(GRAFT_EXPR_CEILDIV, domain[P - 2], ex.constant(L.tileY))
                          : ex.constant(1);
    uint32_t z = ex.constant(1);
    for (unsigned i = 0; i + 2 < P; ++i)
      z = ex.binary(GRAFT_EXPR_MUL, z, domain[i]);
    kb.d.grid[2] = z;
  }

  std::string dispatchName(const Op *root) {
    return fn.name + "_dispatch_" + std::to_string(out.dispatches.size()) + "_" +
           (root->kind == OpKind::KernelCall && specs
                ? specs->rules[root->call.rule]->name
                : std::string(opName(root->kind)));
  }

  void loopGroup(int g) {
    const auto &ops = groups[g];
    Dispatch d;
    d.name = dispatchName(ops.front());
    d.loc = ops.front()->loc;
    d.source = sm.formatShort(d.loc);
    KB kb{d, {}, {}, {}, {}};
    rootKernel(kb, ops.front());
    for (size_t i = 1; i < ops.size(); ++i)
      emitMap(kb, ops[i]);
    // Inputs are bound first, outputs after; params are final.
    for (const Op *op : ops) {
      const Value *v = op->result();
      if (!usedOutside(v, g))
        continue;
      KernelOutput o;
      o.buffer = outputBuffer(v);
      o.node = kb.nodeOf[v];
      o.elem = v->type.elem;
      d.loop.outputs.push_back(o);
    }
    finishLoop(kb);
    for (const KernelInput &in : d.loop.inputs)
      d.bindings.push_back(in.buffer);
    for (const KernelOutput &o : d.loop.outputs)
      d.bindings.push_back(o.buffer);
    addDispatchStep(std::move(d));
  }

  void addDispatchStep(Dispatch d) {
    StepDesc s;
    s.kind = GRAFT_STEP_DISPATCH;
    s.dispatch = static_cast<uint32_t>(out.dispatches.size());
    s.bindings = d.bindings;
    prog.steps.push_back(s);
    out.dispatches.push_back(std::move(d));
  }

  // ---- Kernel calls -------------------------------------------------------

  uint32_t specExpr(const SpecExpr &e, const Op *call) {
    ExprTable &ex = shapes.exprs;
    auto bin = [&](graft_expr_op_t op) {
      return ex.binary(op, specExpr(e.operands[0], call), specExpr(e.operands[1], call));
    };
    switch (e.kind) {
    case SpecExpr::Kind::Const: return ex.constant(e.value);
    case SpecExpr::Kind::Dim: {
      const Value *v = e.input >= 0 ? call->operands[e.input] : call->results[e.output];
      const auto &d = shapes.dimsOf(v);
      return static_cast<size_t>(e.axis) < d.size() ? d[e.axis] : ex.constant(0);
    }
    case SpecExpr::Kind::Add: return bin(GRAFT_EXPR_ADD);
    case SpecExpr::Kind::Sub: return bin(GRAFT_EXPR_SUB);
    case SpecExpr::Kind::Mul: return bin(GRAFT_EXPR_MUL);
    case SpecExpr::Kind::Div: return bin(GRAFT_EXPR_DIV);
    case SpecExpr::Kind::CeilDiv: return bin(GRAFT_EXPR_CEILDIV);
    case SpecExpr::Kind::Min: return bin(GRAFT_EXPR_MIN);
    case SpecExpr::Kind::Max: return bin(GRAFT_EXPR_MAX);
    }
    return ex.constant(0);
  }

  void callGroup(int g) {
    const Op *op = groups[g].front();
    const Rule *rule = specs->rules[op->call.rule].get();
    Dispatch d;
    d.name = dispatchName(op);
    d.loc = op->loc;
    d.source = sm.formatShort(d.loc);
    d.isCall = true;
    KB kb{d, {}, {}, {}, {}};
    CallKernel &c = d.call;
    c.rule = rule;
    for (const Value *v : op->operands) {
      c.inputTypes.push_back(v->type.elem);
      c.inputRanks.push_back(v->type.rank());
      std::vector<unsigned> dp;
      if (v->type.tensor) {
        c.inputBuffers.push_back(buffer(v));
        d.bindings.push_back(c.inputBuffers.back());
        for (uint32_t e : shapes.dimsOf(v))
          dp.push_back(param(kb, e));
        c.inputScalarParam.push_back(-1);
      } else {
        c.inputBuffers.push_back(kNone);
        uint32_t e = 0;
        if (v->def && v->def->kind == OpKind::Constant) {
          // Constant words: integers sign-extended, floats as bit patterns.
          DType t = v->type.elem;
          int64_t w = 0;
          if (t == DType::F32) {
            float f = static_cast<float>(v->def->constant.getFloat(t, 0));
            uint32_t bits;
            std::memcpy(&bits, &f, 4);
            w = bits;
          } else if (t == DType::F64) {
            double f = v->def->constant.getFloat(t, 0);
            std::memcpy(&w, &f, 8);
          } else {
            w = v->def->constant.getInt(t, 0);
          }
          e = shapes.exprs.constant(w);
        } else {
          bool ok = shapes.scalarOf(v, e);
          assert(ok);
          (void)ok;
        }
        c.inputScalarParam.push_back(static_cast<int>(param(kb, e)));
      }
      c.inputDimParams.push_back(dp);
    }
    for (const Value *v : op->results) {
      c.outputTypes.push_back(v->type.elem);
      c.outputRanks.push_back(v->type.rank());
      c.outputBuffers.push_back(outputBuffer(v));
      d.bindings.push_back(c.outputBuffers.back());
      std::vector<unsigned> dp;
      for (uint32_t e : shapes.dimsOf(v))
        dp.push_back(param(kb, e));
      c.outputDimParams.push_back(dp);
    }
    if (rule->form == Rule::Form::Call) {
      for (const KernelArg &a : rule->args)
        if (a.kind == KernelArg::Kind::Expr)
          c.exprParams.push_back(param(kb, specExpr(a.expr, op)));
    } else {
      // Whole-dispatch kernels see exactly the constants the rule lists.
      d.params.clear();
      kb.paramIndex.clear();
      for (const SpecExpr &e : rule->constants)
        d.params.push_back(specExpr(e, op));
    }
    for (int i = 0; i < 3; ++i)
      d.grid[i] = specExpr(rule->grid[i], op);
    addDispatchStep(std::move(d));
  }

  void scalarResult(const Value *v) {
    Dispatch d;
    d.name = fn.name + "_dispatch_" + std::to_string(out.dispatches.size()) + "_result";
    d.loc = v->loc;
    d.source = sm.formatShort(d.loc);
    KB kb{d, {}, {}, {}, {}};
    KernelOutput o;
    o.buffer = addBuffer(GRAFT_BUFFER_TEMP, 0, v->type.elem, {});
    o.node = outerScalar(kb, v);
    o.elem = v->type.elem;
    d.loop.outputs.push_back(o);
    bufferOf[v] = o.buffer;
    finishLoop(kb);
    d.bindings.push_back(o.buffer);
    addDispatchStep(std::move(d));
  }

  // ---- Driver -------------------------------------------------------------

  void run() {
    pass1();
    for (size_t g = 0; g < groups.size(); ++g) {
      if (groups[g].front()->kind == OpKind::KernelCall)
        callGroup(static_cast<int>(g));
      else
        loopGroup(static_cast<int>(g));
    }
    // Scalar results (a dim, a scalar argument, a constant) are written to a
    // rank-0 buffer by a one-workgroup dispatch.
    for (const Value *v : fn.results)
      if (!v->type.tensor && !bufferOf.count(v))
        scalarResult(v);
    // Results: returned dispatch outputs become RESULT buffers; a value
    // returned twice, or an argument/constant/alias, is copied by a step or
    // by the runtime.
    std::set<uint32_t> taken;
    for (size_t i = 0; i < fn.results.size(); ++i) {
      const Value *v = fn.results[i];
      uint32_t b = buffer(v);
      BufferDesc &bd = prog.buffers[b];
      if (bd.kind == GRAFT_BUFFER_TEMP && !taken.count(b)) {
        bd.kind = GRAFT_BUFFER_RESULT;
        bd.index = static_cast<uint32_t>(i);
        taken.insert(b);
      } else if (bd.kind == GRAFT_BUFFER_RESULT) {
        uint32_t copy = addBuffer(GRAFT_BUFFER_RESULT, static_cast<uint32_t>(i),
                                  v->type.elem, shapes.dimsOf(v));
        StepDesc s;
        s.kind = GRAFT_STEP_COPY;
        s.bindings = {b, copy};
        prog.steps.push_back(s);
        b = copy;
      }
      prog.resultBuffers.push_back(b);
    }
  }
};

} // namespace

void formDispatches(const Function &fn, ShapeInfo shapes, const SpecSet *specs,
                    const SourceManager &sm, unsigned vectorBits, ProgramSet &out) {
  out.functions.emplace_back();
  FunctionProgram &prog = out.functions.back();
  prog.fn = &fn;
  prog.shapes = std::move(shapes);
  Former f(fn, prog.shapes, specs, sm, out, prog, vectorBits);
  f.run();
}

} // namespace graft
