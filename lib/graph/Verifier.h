// Type and shape rules of the graph language (docs/graph-format.md): operand
// counts and types, static shape agreement, attributes, map bodies, return
// values. Every problem is reported at the op (or value) it concerns, with
// what was expected and what was found; verification goes on after an error
// so that one run reports them all.
#pragma once

#include "ir/IR.h"
#include "support/Diagnostics.h"

namespace graft {

// False if any error was reported.
bool verifyModule(Module &m, DiagEngine &diag);
bool verifyFunction(Function &f, DiagEngine &diag);

} // namespace graft
