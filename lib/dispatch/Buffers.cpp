// Host-program buffers: which buffer holds each value (arguments, constants
// embedded in the slice, reshape aliases, dispatch results).
#include "dispatch/Former.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

namespace graft {

uint32_t Former::addBuffer(uint32_t kind, uint32_t index, DType t, std::vector<uint32_t> dims) {
  BufferDesc b;
  b.kind = kind;
  b.index = index;
  b.dtype = t;
  b.dims = std::move(dims);
  prog.buffers.push_back(std::move(b));
  return static_cast<uint32_t>(prog.buffers.size() - 1);
}

// Buffer of a value that is not produced by a dispatch, or was assigned.
uint32_t Former::buffer(const Value *v) {
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
uint32_t Former::outputBuffer(const Value *v) {
  auto it = bufferOf.find(v);
  if (it != bufferOf.end())
    return it->second;
  uint32_t id = addBuffer(GRAFT_BUFFER_TEMP, 0, v->type.elem, shapes.dimsOf(v));
  bufferOf[v] = id;
  return id;
}

bool Former::usedOutside(const Value *v, int g) { return !consumedOnlyIn(v, g); }

void Former::emptyUnusedConstants() {
  std::vector<bool> used(prog.buffers.size(), false);
  for (const StepDesc &s : prog.steps)
    for (uint32_t b : s.bindings)
      used[b] = true;
  for (uint32_t b : prog.resultBuffers)
    used[b] = true;
  // Aliases refer to earlier buffers: from the last, a used alias's target.
  for (size_t b = prog.buffers.size(); b-- > 0;)
    if (used[b] && prog.buffers[b].kind == GRAFT_BUFFER_ALIAS)
      used[prog.buffers[b].index] = true;
  // A rank-1 constant of no elements: what the loader validates, with no
  // data in the slice.
  // So is an unused alias (of such a constant, or of anything: nothing
  // reads it, and an alias of no elements fits in any buffer).
  for (uint32_t b = 0; b < prog.buffers.size(); ++b)
    if (prog.buffers[b].kind == GRAFT_BUFFER_CONST && !used[b]) {
      prog.buffers[b].dims = {shapes.exprs.constant(0)};
      prog.buffers[b].data.clear();
    } else if (prog.buffers[b].kind == GRAFT_BUFFER_ALIAS && !used[b]) {
      prog.buffers[b].dims = {shapes.exprs.constant(0)};
    }
}

} // namespace graft
