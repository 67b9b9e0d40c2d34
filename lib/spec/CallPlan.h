// Turning a spec rule into the call plan of its kernel_call ops
// (ir/KernelCall.h) for one target: the pattern's shapes become the plan's
// size program, the rule's arguments, grid and constants refer to entries of
// it, and the kernel for the target is attached. After this nothing
// downstream needs the rule.
#pragma once

#include "spec/Spec.h"

#include <memory>

namespace graft {

// The plan of |rule| on |target| at feature level |level| ("" = the
// baseline; a static rule must have a kernel for it, Rule::kernelFor).
// Arithmetic that is undefined on static sizes (a grid of
// `ceildiv(dim(x, 0), 0)`) is reported to |diag| at the expression.
std::shared_ptr<const KernelCall> planKernelCall(const Rule &rule, const std::string &target,
                                                 const std::string &level, DiagEngine &diag);

} // namespace graft
