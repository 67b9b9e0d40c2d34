// Compile-time buffer planning: intermediate buffers share one arena per
// invocation (abi.h, GRAFT_BUFFER_ARENA).
//
// A TEMP buffer goes into the arena when the first step that touches it (or
// an alias of it) writes it whole: the output of a generated loop dispatch
// (every parallel point is stored) or the destination of a copy. Its bytes
// are then never read before they are written, so storage left behind by an
// earlier buffer or an earlier call cannot show through and results stay
// deterministic. A buffer a user kernel writes first, or one no step writes
// (an `empty` that is read), keeps its own zeroed allocation.
//
// Liveness is the range of steps from that first write to the last step
// that binds the buffer (through any alias); a buffer the function returns
// through an alias lives to the end. Buffers take slots in order of their
// first step; a slot whose occupant died at an earlier step is reused
// (a buffer never shares storage with one bound by the same step). A slot is
// as large as the largest buffer it holds, rounded up to 64 bytes (abi.h's
// binding alignment); slots lie back to back, so each buffer's offset is a
// host expression (sizes may be dynamic) and the runtime derives the arena's
// size from the offsets and sizes.
#include "dispatch/Former.h"

#include <algorithm>

namespace graft {
namespace {

constexpr int64_t kArenaAlignment = 64;

struct Live {
  int first = -1, last = -1;
  uint32_t guard = 0; // of the first step
  bool writtenFirst = false;
};

} // namespace

// The buffer whose storage |b| uses (the end of its alias chain).
static uint32_t storageOf(const FunctionProgram &prog, uint32_t b) {
  while (prog.buffers[b].kind == GRAFT_BUFFER_ALIAS)
    b = prog.buffers[b].index;
  return b;
}

// Buffers step |s| writes whole: a loop dispatch's outputs, a copy's
// destination. (Kernel calls may write part of their outputs.)
static std::vector<uint32_t> wholeWrites(const ProgramSet &out, const StepDesc &s) {
  if (s.kind == GRAFT_STEP_COPY)
    return {s.bindings[1]};
  const Dispatch &d = out.dispatches[s.dispatch];
  if (d.isCall)
    return {};
  std::vector<uint32_t> w;
  for (const KernelOutput &o : d.loop.outputs)
    w.push_back(o.buffer);
  return w;
}

void Former::planArena() {
  ExprTable &ex = shapes.exprs;
  std::vector<Live> live(prog.buffers.size());
  for (size_t si = 0; si < prog.steps.size(); ++si) {
    const StepDesc &s = prog.steps[si];
    std::vector<uint32_t> writes = wholeWrites(out, s);
    for (uint32_t b : s.bindings) {
      Live &l = live[storageOf(prog, b)];
      if (l.first < 0) {
        l.first = static_cast<int>(si);
        l.guard = s.guard;
        l.writtenFirst = std::find(writes.begin(), writes.end(), b) != writes.end();
      }
      // A guarded step may not run; what runs instead (a kernel call) may
      // not write the buffer whole. Only steps under one guard can rely on
      // each other's writes.
      if (s.guard != l.guard)
        l.writtenFirst = false;
      l.last = static_cast<int>(si);
    }
  }
  // Results are read after the last step (copied out when aliased).
  for (uint32_t r : prog.resultBuffers)
    live[storageOf(prog, r)].last = static_cast<int>(prog.steps.size());

  std::vector<uint32_t> order;
  for (uint32_t b = 0; b < prog.buffers.size(); ++b)
    if (prog.buffers[b].kind == GRAFT_BUFFER_TEMP && live[b].writtenFirst)
      order.push_back(b);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return live[a].first < live[b].first; });

  struct Slot {
    uint32_t bytes;          // expr: the largest buffer it holds, rounded
    int freeAfter;           // last step of its current occupant
    std::vector<uint32_t> buffers;
  };
  std::vector<Slot> slots;
  uint32_t align = ex.constant(kArenaAlignment);
  for (uint32_t b : order) {
    const BufferDesc &bd = prog.buffers[b];
    uint32_t bytes = ex.constant(static_cast<int64_t>(dtypeSize(bd.dtype)));
    for (uint32_t d : bd.dims)
      bytes = ex.binary(GRAFT_EXPR_MUL, bytes, d);
    bytes = ex.binary(GRAFT_EXPR_MUL, ex.binary(GRAFT_EXPR_CEILDIV, bytes, align), align);
    // A free slot of the same size first, else any free slot, else a new one.
    Slot *pick = nullptr;
    for (Slot &s : slots)
      if (s.freeAfter < live[b].first && (!pick || (s.bytes == bytes && pick->bytes != bytes)))
        pick = &s;
    if (!pick) {
      slots.push_back({bytes, -1, {}});
      pick = &slots.back();
    }
    pick->bytes = pick->bytes == bytes ? bytes : ex.binary(GRAFT_EXPR_MAX, pick->bytes, bytes);
    pick->freeAfter = live[b].last;
    pick->buffers.push_back(b);
  }
  uint32_t offset = ex.constant(0);
  for (const Slot &s : slots) {
    for (uint32_t b : s.buffers) {
      prog.buffers[b].kind = GRAFT_BUFFER_ARENA;
      prog.buffers[b].index = offset;
    }
    offset = ex.binary(GRAFT_EXPR_ADD, offset, s.bytes);
  }
}

} // namespace graft
