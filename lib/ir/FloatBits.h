// Conversions between float and the 16-bit float formats (IEEE half, bfloat16)
// in their memory representation. Shared by constant literals (IR) and the
// reference evaluator, which must round exactly like the hardware does:
// round to nearest, ties to even; NaN stays NaN.
#pragma once

#include "ir/IR.h"

#include <cstdint>

namespace graft {

// The bits `bitcast` gives for any NaN of float type |t| (docs/graph-format.md):
// the positive quiet NaN with an empty payload, since CPUs differ in the
// payload and sign of the NaNs their arithmetic makes.
uint64_t canonicalNaNBits(DType t);

uint16_t floatToHalfBits(float f);
float halfBitsToFloat(uint16_t h);
uint16_t floatToBF16Bits(float f);
float bf16BitsToFloat(uint16_t h);

} // namespace graft
