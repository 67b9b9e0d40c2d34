// Scalar semantics of the reference evaluator: one element at a time,
// computed in the element type exactly as C would (f32 math in float, integer
// math wrapping in its width, floor division), and the checked index
// arithmetic of function-level ops. Internal to lib/eval; the rules are listed in
// docs/graph-format.md ("Semantics").
#pragma once

#include "ir/IR.h"

#include <string>

namespace graft {

// One element in a wide, exact form: integers sign-extended to 64 bits (i1 is
// 0 or 1), floats as a double holding a value representable in the type.
struct Scalar {
  int64_t i = 0;
  double f = 0;
};

Scalar loadScalar(DType t, const uint8_t *p);
void storeScalar(DType t, uint8_t *p, Scalar s);

// Rounds |v| to the nearest value of float type |t| (once: no double
// rounding on the way to f16 / bf16).
double roundToType(DType t, double v);

// Applies scalar op |op| (Add..Bitcast) of a map body to |args| (operand types
// |argTypes|, result type |resultType|) with the element rules: integers
// wrap, integer division never fails (graft/expr.h).
Scalar applyScalarOp(const Op &op, const DType *argTypes, const Scalar *args,
                     DType resultType);

// Applies a function-level scalar op (index arithmetic, the host program's
// rules): false with |error| set when the result overflows int64 or a
// divisor is zero.
bool applyIndexOp(const Op &op, const Scalar *args, Scalar &out, std::string &error);

// Converts between any two element types (see docs for the rules).
Scalar castScalar(Scalar v, DType from, DType to);
// Reads the bits of |v| as type |to| of the same width; a NaN's bits are
// canonicalNaNBits(from).
Scalar bitcastScalar(Scalar v, DType from, DType to);

// reduce: identity of |kind| (sum, prod, max, min, mean), one step of it,
// and the result from the folded |acc| of |count| elements (mean: the sum
// divided by the count, in the element type).
Scalar reduceInit(const std::string &kind, DType t);
Scalar reduceStep(const std::string &kind, DType t, Scalar acc, Scalar x);
Scalar reduceFinish(const std::string &kind, DType t, Scalar acc, int64_t count);

// Matmul's inner step acc + a * b (separate multiply and add, no fma).
Scalar multiplyAdd(DType t, Scalar acc, Scalar a, Scalar b);

} // namespace graft
