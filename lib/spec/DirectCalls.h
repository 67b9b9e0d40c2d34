// Direct calls: a graph declares an external kernel (`kernel @k(...) -> T`)
// and calls it with kernel_call; a spec rule with `kernel: k` instead of a
// `match` says where its code comes from per target, with which arguments
// and on which grid (docs/spec-format.md, "Direct calls"). Such a rule goes
// through the same plan (CallPlan.h) as a matched one: its pattern is made
// from the declaration, so a direct call and a matched call differ only in
// who wrote the kernel_call op.
#pragma once

#include "spec/Spec.h"

#include <memory>
#include <string>

namespace graft {

// The pattern standing for |k|'s calls: its arguments are the call's
// operands (the declared arguments, then one index per '?' of the result,
// named dim0, dim1, ..., unless it is `like` an argument), its result an
// `empty` of the declared type whose sizes are those operands (or the
// `like` argument's dims).
std::unique_ptr<Module> declarationPattern(const KernelDecl &k);

// Gives every kernel_call written in |m| the plan of the first rule that
// provides its kernel on |target| at feature level |level|. A call no rule
// provides is an error at the call (a direct call has no graft code to fall
// back on). |explain| (may be null) receives a line per bound call.
bool bindDirectCalls(Module &m, const SpecSet &specs, const std::string &target,
                     const std::string &level, DiagEngine &diag, std::string *explain);

// Warns about each direct rule whose kernel no function of |graph| calls.
void warnUncalledKernels(const Module &graph, const SpecSet &specs, DiagEngine &diag);

} // namespace graft
