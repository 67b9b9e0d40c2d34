// Dispatch formation: groups a function's ops into dispatches and builds its
// host program.
//
// Grouping (formGroups) walks the ops in program order and assigns every compute op to a
// group: a fill whose only user is a matmul accumulator is absorbed into the
// matmul (the accumulator starts at the fill value); an elementwise `map` is
// fused into the group of its latest producer when it iterates over that
// group's parallel domain and its other operands are ready before that group
// runs, and the group's body stays under kMaxFusedScalarOps; broadcasts,
// row reductions and maps their consumers compute (Views.cpp: a map read
// only by a reduction is computed by it) are no group; everything else
// starts a group. Then each group becomes each group into a
// LoopKernel (or a CallKernel for spec kernel calls) and the buffers and
// steps of the host program.
#include "dispatch/Former.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

namespace graft {
namespace {

bool isCompute(OpKind k) {
  switch (k) {
  case OpKind::Fill: case OpKind::Matmul: case OpKind::BatchMatmul:
  case OpKind::Map: case OpKind::Broadcast: case OpKind::Transpose:
  case OpKind::Gather: case OpKind::Slice: case OpKind::Iota: case OpKind::Concat:
  case OpKind::Pad: case OpKind::Tile:
  case OpKind::Reduce: case OpKind::KernelCall:
    return true;
  default:
    return false;
  }
}

} // namespace

void Former::reportFoldErrors(SourceLoc loc) {
  for (const FoldError &e : shapes.exprs.takeFoldErrors())
    diag.error(loc, "size of this dispatch: " + e.message());
}

void Former::run() {
  formGroups();
  for (size_t g = 0; g < groups.size(); ++g) {
    stepGuard = guardOf(groups[g].front());
    if (groups[g].front()->kind == OpKind::KernelCall)
      callGroup(static_cast<int>(g));
    else
      loopGroup(static_cast<int>(g));
    reportFoldErrors(groups[g].front()->loc);
  }
  stepGuard = 0;
  // Scalar results (a dim, a scalar argument, a constant) are written to a
  // rank-0 buffer by a one-workgroup dispatch.
  for (const Value *v : fn.results)
    if (!v->type.tensor && !bufferOf.count(v))
      scalarResult(v);
  // Results: returned dispatch outputs become RESULT buffers; a value
  // returned twice, or an argument/constant/alias, is copied by a step or
  // by the runtime. A reshape (through any chain of them) of a dispatch's
  // output (a conv's [N, F, O...], the view of its matmul's or map's
  // result) makes that output the RESULT buffer, with the result's dims:
  // the dispatch writes it in place, in the caller's storage, where it was
  // copied there after the call.
  std::set<uint32_t> taken;
  for (size_t i = 0; i < fn.results.size(); ++i) {
    const Value *v = fn.results[i];
    uint32_t b = buffer(v);
    if (prog.buffers[b].kind == GRAFT_BUFFER_ALIAS) {
      uint32_t s = b;
      while (prog.buffers[s].kind == GRAFT_BUFFER_ALIAS)
        s = prog.buffers[s].index;
      if (prog.buffers[s].kind == GRAFT_BUFFER_TEMP && !taken.count(s)) {
        prog.buffers[s].dims = shapes.dimsOf(v);
        b = s;
      }
    }
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
  planArena();
  emptyUnusedConstants();
  reportFoldErrors(fn.loc);
}

int Former::ready(const Value *v) {
  auto it = readyAfter.find(v);
  return it == readyAfter.end() ? -1 : it->second;
}

bool Former::absorbedFill(const Op *op) {
  if (op->kind != OpKind::Fill || returned.count(op->result()))
    return false;
  const std::vector<Op *> &users = uses.users(op->result());
  if (users.size() != 1)
    return false;
  const Op *u = users[0];
  return u->fallbackFor == op->fallbackFor &&
         (u->kind == OpKind::Matmul || u->kind == OpKind::BatchMatmul) &&
         u->operands[2] == op->result() && u->operands[0] != op->result() &&
         u->operands[1] != op->result();
}

// Scalar ops a map adds to the body of the group it joins.
static size_t bodySize(const Op *op) { return op->region ? op->region->ops.size() : 1; }

int Former::tryFuseMap(const Op *op) {
  int g = -1;
  for (const Value *v : op->operands)
    g = std::max(g, ready(v));
  if (g < 0)
    return -1;
  if (groupBodySize[g] + bodySize(op) > kMaxFusedScalarOps)
    return -1;
  const Op *root = groups[g].front();
  if (root->kind == OpKind::KernelCall)
    return -1;
  // A fallback's ops run only without their import: they share groups with
  // nothing else.
  if (root->fallbackFor != op->fallbackFor)
    return -1;
  // The map must iterate over the group's parallel domain.
  const Value *rootVal = root->result();
  if (shapes.dimsOf(op->result()) != shapes.dimsOf(rootVal))
    return -1;
  for (const Value *v : op->operands)
    if (!availableIn(v, g))
      return -1; // e.g. an alias of a value this group writes
  return g;
}

bool Former::inGroup(const Op *op, int g) const {
  auto it = groupOf.find(op);
  return it != groupOf.end() && it->second == g;
}

// Whether the kernel of group |g| can read |v| at any point of its domain:
// ready before g runs, computed in g, or a view or row statistic of such
// values (a statistic over g's own values only when g is pointwise).
bool Former::availableIn(const Value *v, int g) {
  if (ready(v) < g)
    return true;
  if (!v->def)
    return false;
  if (views.count(v)) {
    const Value *src = v->def->operands[0];
    return src->def && rowStats.count(src->def) && availableIn(src, g);
  }
  if (rowStats.count(v->def)) {
    const Value *in = v->def->operands[0];
    return inGroup(in->def, g) ? pointwiseGroup(g) : availableIn(in, g);
  }
  return inGroup(v->def, g);
}

void Former::formGroups() {
  for (const Value *v : fn.results)
    returned.insert(v);
  for (const Op *op : fn.ops) {
    if (!isCompute(op->kind)) {
      if (op->kind == OpKind::Reshape && op->result())
        readyAfter[op->result()] = ready(op->operands[0]);
      continue;
    }
    if (isView(op) || isRowStat(op) || isReducedMap(op)) {
      if (op->kind == OpKind::Reduce)
        rowStats.insert(op);
      else
        views.insert(op->result());
      int r = -1;
      for (const Value *o : op->operands)
        if (o->type.tensor)
          r = std::max(r, ready(o));
      readyAfter[op->result()] = r;
      continue;
    }
    if (absorbedFill(op)) {
      absorbedFills.insert(op);
      continue;
    }
    int g = op->kind == OpKind::Map ? tryFuseMap(op) : -1;
    if (g < 0) {
      g = static_cast<int>(groups.size());
      groups.emplace_back();
      groupBodySize.push_back(0);
    }
    groups[g].push_back(op);
    groupBodySize[g] += bodySize(op);
    groupOf[op] = g;
    for (const Value *r : op->results)
      readyAfter[r] = g;
  }
}

// Dispatches are numbered in order over all functions; the dispatch that
// packs a matmul's operands (PackOperands.cpp) is named after its matmul instead.
unsigned Former::dispatchNumber() const {
  return static_cast<unsigned>(
      std::count_if(out.dispatches.begin(), out.dispatches.end(),
                    [](const Dispatch &d) { return d.isCall || !d.loop.packed.packOnly; }));
}

std::string Former::dispatchName(const Op *root) {
  return fn.name + "_dispatch_" + std::to_string(dispatchNumber()) + "_" +
         (root->kind == OpKind::KernelCall ? root->call->name : std::string(opName(root->kind)));
}

void Former::addDispatchStep(Dispatch d) {
  StepDesc s;
  // A host command's dispatch runs on the invoking thread (abi.h).
  bool hostCall = d.isCall && d.call.plan->link == KernelLink::Host;
  s.kind = hostCall ? GRAFT_STEP_HOST_CALL : GRAFT_STEP_DISPATCH;
  s.import = hostCall ? d.call.importIndex : 0;
  s.dispatch = static_cast<uint32_t>(out.dispatches.size());
  s.guard = stepGuard;
  s.bindings = d.bindings;
  prog.steps.push_back(s);
  out.dispatches.push_back(std::move(d));
}

void Former::scalarResult(const Value *v) {
  Dispatch d;
  d.name = fn.name + "_dispatch_" + std::to_string(dispatchNumber()) + "_result";
  d.loc = v->loc;
  d.source = sm.formatShort(d.loc);
  KernelDraft draft{d, {}, {}, {}, {}};
  KernelOutput o;
  o.buffer = addBuffer(GRAFT_BUFFER_TEMP, 0, v->type.elem, {});
  o.node = outerScalar(draft, v);
  o.elem = v->type.elem;
  d.loop.outputs.push_back(o);
  bufferOf[v] = o.buffer;
  finishLoop(draft);
  d.bindings.push_back(o.buffer);
  addDispatchStep(std::move(d));
}

void formDispatches(const Function &fn, ShapeInfo shapes, DiagEngine &diag,
                    const FeatureLevel &level, ProgramSet &out) {
  out.functions.emplace_back();
  FunctionProgram &prog = out.functions.back();
  prog.fn = &fn;
  prog.shapes = std::move(shapes);
  Former f(fn, prog.shapes, diag, out, prog, level);
  f.run();
}

} // namespace graft

