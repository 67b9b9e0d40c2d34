// Inlining `call`s (docs/graph-format.md, "Calls"): graft builds every
// function as its own entry point, with the functions it calls copied into
// its body, before spec matching and dispatch formation, so patterns match
// across the call and the callee's ops fuse with the caller's.
#pragma once

#include "ir/IR.h"

namespace graft {

// Replaces every `call` of |fn| by a copy of its callee's ops, the callee's
// arguments by the call's operands and the call's results by the values
// the callee returns; calls in the callee are inlined too (the verifier
// rejects recursion). Returns how many calls were inlined.
unsigned inlineCalls(Function &fn);

} // namespace graft
