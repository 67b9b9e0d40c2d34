// Deep copies of the graph IR. The driver verifies the graph once and
// lowers a clone of it for every (target, feature level): spec rewriting,
// splat expansion and dispatch formation edit the function in place, and
// each variant must start from the graph as written.
#pragma once

#include "ir/IR.h"

#include <memory>

namespace graft {

// A function that shares nothing mutable with |f|: every value, op and
// region is new, with the same names, types, attributes, constants and
// source locations, in the same order in the function's stores (passes that
// walk a store see the clone as they would see the original). A kernel
// call's plan is immutable and shared.
std::unique_ptr<Function> cloneFunction(const Function &f);
// A module of cloned functions and copied kernel declarations; a direct
// call's callee points at the copy.
std::unique_ptr<Module> cloneModule(const Module &m);

} // namespace graft
