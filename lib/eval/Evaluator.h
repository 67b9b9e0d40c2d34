// The reference evaluator: runs a verified graph function on host tensors,
// one element at a time, in the element type exactly as C would compute it.
// It is the oracle that differential tests compare compiled bundles against,
// so it is written to be simple and obviously correct, not fast.
#pragma once

#include "graft/tensor.h"
#include "ir/IR.h"

#include <string>
#include <vector>

namespace graft {

// Runs |fn| (which must have passed verifyFunction) on |inputs| (borrowed).
// Inputs are checked against the signature: count, element type, rank and
// static sizes; scalar arguments take rank-0 tensors. On success |outputs|
// gets one tensor per result, owned by the caller (release each with
// graft_tensor_release; storage comes from malloc). On failure returns false
// with |error| naming the argument or the op (by line:col) and leaves
// |outputs| empty.
bool evaluate(const Function &fn, const std::vector<graft_tensor_t> &inputs,
              std::vector<graft_tensor_t> &outputs, std::string &error);

} // namespace graft
