/* The few libm and compiler-rt routines LLVM may call from code in a slice:
 * frem lowers to fmodf/fmod on every target, and half/bfloat conversions in
 * user kernels (_Float16, __bf16) lower to __extendhfsf2 & co. where the CPU
 * has no instruction for them (x86-64-v2, rv64gc). A slice has no libc or
 * compiler-rt, so these go into the builtins object of every slice.
 *
 * This file is compiled to LLVM IR when graft is built (see CMakeLists.txt)
 * and embedded in graft; at slice build time the IR is retargeted and emitted
 * with the rest of the builtins. Plain C on integer bit patterns: no headers,
 * no target assumptions beyond IEEE binary32/binary64 and 64-bit integers.
 *
 * fmod is exact: the result is x - n*y for the integer n = trunc(x/y), which
 * is always representable. It is computed by long division on the
 * significands, one bit per exponent step. */

typedef unsigned int u32;
typedef unsigned long long u64;

static u32 f32_bits(float f) { union { float f; u32 u; } v; v.f = f; return v.u; }
static float f32_from(u32 u) { union { float f; u32 u; } v; v.u = u; return v.f; }
static u64 f64_bits(double f) { union { double f; u64 u; } v; v.f = f; return v.u; }
static double f64_from(u64 u) { union { double f; u64 u; } v; v.u = u; return v.f; }

/* Generic over the format: |mbits| significand bits, |ebits| exponent bits. */
#define GRAFT_FMOD_BODY(T, U, BITS, FROM, mbits, emax)                          \
  U ux = BITS(x), uy = BITS(y);                                                \
  U sign = ux & ((U)1 << (sizeof(U) * 8 - 1));                                \
  int ex = (int)((ux >> mbits) & emax), ey = (int)((uy >> mbits) & emax);      \
  U absx = ux & ~sign, absy = uy & ~((U)1 << (sizeof(U) * 8 - 1));             \
  U implicit = (U)1 << mbits, inf = (U)emax << mbits;                          \
  /* NaN operands, y == 0, x infinite: NaN; y infinite: x. */                  \
  if (absy == 0 || absy > inf || ex == emax)                                   \
    return (x * y) / (x * y);                                                  \
  if (absy == inf)                                                             \
    return x;                                                                  \
  if (absx <= absy)                                                            \
    return absx == absy ? x * (T)0 : x;                                        \
  /* Significands with the implicit bit; subnormals normalised. */             \
  U mx, my;                                                                    \
  if (ex == 0) {                                                               \
    mx = absx;                                                                 \
    ex = 1;                                                                    \
    while (!(mx & implicit)) { mx <<= 1; --ex; }                               \
  } else {                                                                     \
    mx = (absx & (implicit - 1)) | implicit;                                   \
  }                                                                            \
  if (ey == 0) {                                                               \
    my = absy;                                                                 \
    ey = 1;                                                                    \
    while (!(my & implicit)) { my <<= 1; --ey; }                               \
  } else {                                                                     \
    my = (absy & (implicit - 1)) | implicit;                                   \
  }                                                                            \
  /* Long division: keep the remainder below my at every exponent step. */     \
  for (; ex > ey; --ex) {                                                      \
    if (mx >= my) mx -= my;                                                    \
    if (mx == 0) return x * (T)0;                                              \
    mx <<= 1;                                                                  \
  }                                                                            \
  if (mx >= my) mx -= my;                                                      \
  if (mx == 0) return x * (T)0;                                                \
  while (!(mx & implicit)) { mx <<= 1; --ex; }                                 \
  U r;                                                                         \
  if (ex > 0)                                                                  \
    r = (mx & (implicit - 1)) | ((U)ex << mbits);                              \
  else                                                                         \
    r = mx >> (1 - ex); /* subnormal result: exact, the low bits are zero */    \
  return FROM(r | sign);

__attribute__((visibility("hidden"), weak)) float fmodf(float x, float y) {
  GRAFT_FMOD_BODY(float, u32, f32_bits, f32_from, 23, 0xff)
}

__attribute__((visibility("hidden"), weak)) double fmod(double x, double y) {
  GRAFT_FMOD_BODY(double, u64, f64_bits, f64_from, 52, 0x7ff)
}

/* binary16 <-> binary32 on bit patterns; round to nearest even. */
static u32 half_to_float_bits(unsigned short h) {
  u32 sign = (u32)(h & 0x8000u) << 16;
  u32 exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0x1f) /* inf / NaN (quiet it) */
    return sign | 0x7f800000u | (mant << 13) | (mant ? 0x400000u : 0);
  if (exp == 0) {
    if (mant == 0)
      return sign;
    /* Subnormal: normalise. */
    int e = -1;
    do {
      mant <<= 1;
      ++e;
    } while (!(mant & 0x400u));
    return sign | ((u32)(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
  }
  return sign | ((exp + 127 - 15) << 23) | (mant << 13);
}

static unsigned short float_bits_to_half(u32 u) {
  u32 sign = (u >> 16) & 0x8000u;
  u32 a = u & 0x7fffffffu;
  if (a > 0x7f800000u) /* NaN: keep it a quiet NaN */
    return (unsigned short)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  if (a >= 0x477ff000u) /* rounds to infinity */
    return (unsigned short)(sign | 0x7c00u);
  if (a < 0x38800000u) { /* subnormal half or zero */
    if (a < 0x33000000u) /* below half the smallest subnormal */
      return (unsigned short)sign;
    u32 mant = (a & 0x7fffffu) | 0x800000u;
    int shift = 126 - (int)(a >> 23); /* 14..24 */
    u32 r = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1)))
      ++r;
    return (unsigned short)(sign | r);
  }
  u32 r = (a >> 13) - ((127u - 15u) << 10);
  u32 rem = a & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1)))
    ++r; /* may carry into the exponent: still correct, up to infinity */
  return (unsigned short)(sign | r);
}

__attribute__((visibility("hidden"), weak)) float __extendhfsf2(_Float16 h) {
  union { _Float16 h; unsigned short u; } v;
  v.h = h;
  return f32_from(half_to_float_bits(v.u));
}

__attribute__((visibility("hidden"), weak)) _Float16 __truncsfhf2(float f) {
  union { _Float16 h; unsigned short u; } v;
  v.u = float_bits_to_half(f32_bits(f));
  return v.h;
}

__attribute__((visibility("hidden"), weak)) _Float16 __truncdfhf2(double d) {
  /* Through float rounded to odd, so that the value is rounded only once. */
  float f = (float)d;
  u32 bits = f32_bits(f);
  if (d == d) {
    double back = (double)f;
    if ((back < 0 ? -back : back) > (d < 0 ? -d : d))
      --bits; /* truncate toward zero */
    if ((double)f32_from(bits) != d)
      bits |= 1;
  }
  union { _Float16 h; unsigned short u; } v;
  v.u = float_bits_to_half(bits);
  return v.h;
}

__attribute__((visibility("hidden"), weak)) __bf16 __truncsfbf2(float f) {
  u32 u = f32_bits(f);
  unsigned short r;
  if ((u & 0x7fffffffu) > 0x7f800000u)
    r = (unsigned short)((u >> 16) | 0x40u); /* quiet NaN */
  else
    r = (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  union { __bf16 b; unsigned short u; } v;
  v.u = r;
  return v.b;
}
