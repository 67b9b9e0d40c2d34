// Shared helpers of the verifier (Verifier.cpp: functions, bodies, scalar
// ops; VerifyTensorOps.cpp: tensor ops). Internal to lib/graph.
#pragma once

#include "ir/IR.h"
#include "support/Diagnostics.h"

#include <string>

namespace graft {

struct VerifyContext {
  DiagEngine &diag;
  bool ok = true;
  void error(SourceLoc loc, const std::string &msg) {
    diag.error(loc, msg);
    ok = false;
  }
};

// "'%lhs'" (or "operand N" for unnamed values).
std::string valueRef(const Value *v);
std::string dimStr(int64_t d); // "?" or the number
bool dimsCompatible(int64_t a, int64_t b);
// The more static of two compatible sizes.
int64_t mergeDims(int64_t a, int64_t b);
// Same tensor-ness, element type and rank, every dim compatible.
bool typesCompatible(const Type &a, const Type &b);
// Reports unknown attribute names; |allowed| is null-terminated.
bool checkAttrNames(const Op &op, const char *const *allowed, VerifyContext &cx);

// Per-op rules for tensor ops (Constant..Reduce). False if reported.
bool verifyTensorOp(const Op &op, VerifyContext &cx);
// A kernel_call written in the graph, against its kernel's declaration
// (VerifyKernelCall.cpp). False if reported.
bool verifyKernelCall(const Op &op, VerifyContext &cx);
// A `call` against its callee's signature (VerifyCall.cpp). False if
// reported.
bool verifyCall(const Op &op, VerifyContext &cx);
// That no function reaches itself through calls (VerifyCall.cpp).
bool verifyCallGraph(const Module &m, VerifyContext &cx);
// Rules for `conv` and `pool` (VerifyWindowOps.cpp). False if reported.
bool verifyWindowOp(const Op &op, VerifyContext &cx);

} // namespace graft
