// float <-> half / bfloat16 bit conversions (round to nearest even).
#include "ir/FloatBits.h"

#include <cstring>

namespace graft {

static uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

static float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t floatToHalfBits(float f) {
  uint32_t u = bitsOf(f);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  uint32_t exp = (u >> 23) & 0xffu;
  uint32_t mant = u & 0x7fffffu;
  if (exp == 0xff) // inf or NaN; keep NaNs quiet and non-zero
    return sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0u);
  int32_t e = static_cast<int32_t>(exp) - 127 + 15;
  if (e >= 31)
    return sign | 0x7c00u; // overflow to infinity
  if (e <= 0) {
    // Subnormal half (or zero): shift the mantissa with its implicit bit in.
    if (e < -10)
      return sign;
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1)))
      ++half;
    return sign | static_cast<uint16_t>(half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  // A carry out of the mantissa correctly bumps the exponent (up to inf).
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1)))
    ++half;
  return sign | static_cast<uint16_t>(half);
}

float halfBitsToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f)
    return floatOf(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    if (mant == 0)
      return floatOf(sign);
    // Subnormal: value is mant * 2^-24.
    float v = static_cast<float>(mant) * (1.0f / 16777216.0f);
    return sign ? -v : v;
  }
  return floatOf(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

uint16_t floatToBF16Bits(float f) {
  uint32_t u = bitsOf(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: keep it quiet
    return static_cast<uint16_t>((u >> 16) | 0x40u);
  uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>((u + rounding) >> 16);
}

uint64_t canonicalNaNBits(DType t) {
  switch (t) {
  case DType::F16: return 0x7e00u;
  case DType::BF16: return 0x7fc0u;
  case DType::F32: return 0x7fc00000u;
  default: return 0x7ff8000000000000u; // f64
  }
}

float bf16BitsToFloat(uint16_t h) { return floatOf(static_cast<uint32_t>(h) << 16); }

} // namespace graft
