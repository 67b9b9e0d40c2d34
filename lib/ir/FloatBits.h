// Conversions between float and the 16-bit float formats (IEEE half, bfloat16)
// in their memory representation. Shared by constant literals (IR) and the
// reference evaluator, which must round exactly like the hardware does:
// round to nearest, ties to even; NaN stays NaN.
#pragma once

#include <cstdint>

namespace graft {

uint16_t floatToHalfBits(float f);
float halfBitsToFloat(uint16_t h);
uint16_t floatToBF16Bits(float f);
float bf16BitsToFloat(uint16_t h);

} // namespace graft
