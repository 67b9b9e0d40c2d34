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

/* 64-bit integer division and int64 <-> floating-point conversions, which
 * LLVM turns into library calls on 32-bit targets (compiler-rt's names;
 * a target whose ABI names them differently, like ARM's __aeabi_*, wraps
 * them in its TargetInfo::runtimeIR). They must not use what they
 * implement: no `/` or `%` on integers and no int64 <-> float casts, which
 * would compile back into calls to themselves there. Only 32-bit
 * unsigned <-> double casts (native on every FPU) and shifts are used.
 * Division by zero is never called: graft's code checks it first. */
typedef long long i64;
typedef int i32;

#define GRAFT_RT __attribute__((visibility("hidden"), weak))

/* Restoring long division, one quotient bit per step from the highest
 * set bit of |n|. */
#define GRAFT_UDIVMOD_BODY(U, BITS, CLZ)                                       \
  U q = 0, r = 0;                                                              \
  if (d == 0 || n == 0) { *rem = 0; return 0; }                                \
  for (int i = BITS - 1 - CLZ(n); i >= 0; --i) {                               \
    r = (r << 1) | ((n >> i) & 1u);                                            \
    if (r >= d) { r -= d; q |= (U)1 << i; }                                    \
  }                                                                            \
  *rem = r;                                                                    \
  return q;

static u32 udivmod32(u32 n, u32 d, u32 *rem) {
  GRAFT_UDIVMOD_BODY(u32, 32, __builtin_clz)
}

GRAFT_RT u64 __udivmoddi4(u64 n, u64 d, u64 *rem) {
  if ((n >> 32) == 0 && (d >> 32) == 0) {
    u32 r32;
    u32 q32 = udivmod32((u32)n, (u32)d, &r32);
    *rem = r32;
    return q32;
  }
  GRAFT_UDIVMOD_BODY(u64, 64, __builtin_clzll)
}

static u64 magnitude64(i64 v) { return v < 0 ? 0 - (u64)v : (u64)v; }
static u32 magnitude32(i32 v) { return v < 0 ? 0 - (u32)v : (u32)v; }

GRAFT_RT u64 __udivdi3(u64 n, u64 d) { u64 r; return __udivmoddi4(n, d, &r); }
GRAFT_RT u64 __umoddi3(u64 n, u64 d) { u64 r; __udivmoddi4(n, d, &r); return r; }
/* Truncating, like C: the quotient is negative when the signs differ, the
 * remainder has the sign of the dividend. */
GRAFT_RT i64 __divdi3(i64 n, i64 d) {
  u64 r, q = __udivmoddi4(magnitude64(n), magnitude64(d), &r);
  return (i64)((n < 0) != (d < 0) ? 0 - q : q);
}
GRAFT_RT i64 __moddi3(i64 n, i64 d) {
  u64 r;
  __udivmoddi4(magnitude64(n), magnitude64(d), &r);
  return (i64)(n < 0 ? 0 - r : r);
}
GRAFT_RT u32 __udivsi3(u32 n, u32 d) { u32 r; return udivmod32(n, d, &r); }
GRAFT_RT u32 __umodsi3(u32 n, u32 d) { u32 r; udivmod32(n, d, &r); return r; }
GRAFT_RT i32 __divsi3(i32 n, i32 d) {
  u32 r, q = udivmod32(magnitude32(n), magnitude32(d), &r);
  return (i32)((n < 0) != (d < 0) ? 0 - q : q);
}
GRAFT_RT i32 __modsi3(i32 n, i32 d) {
  u32 r;
  udivmod32(magnitude32(n), magnitude32(d), &r);
  return (i32)(n < 0 ? 0 - r : r);
}

/* int64 -> double: both 32-bit halves convert exactly and hi * 2^32 is
 * exact, so the sum is rounded once. */
GRAFT_RT double __floatundidf(u64 x) {
  return (double)(u32)(x >> 32) * 4294967296.0 + (double)(u32)x;
}
GRAFT_RT double __floatdidf(i64 x) {
  double magnitude = __floatundidf(magnitude64(x));
  return x < 0 ? -magnitude : magnitude;
}

/* int64 -> float: exact through double below 2^53; above, the bits that
 * double cannot hold are folded into a sticky bit first, so rounding to
 * float (24 bits, far above the sticky bit) still happens once. */
GRAFT_RT float __floatundisf(u64 x) {
  if ((x >> 53) == 0)
    return (float)__floatundidf(x);
  int shift = 11 - __builtin_clzll(x); /* 1..11: keeps 53 significant bits */
  u64 sticky = (x & (((u64)1 << shift) - 1)) != 0;
  double scale = f64_from((u64)(1023 + shift) << 52); /* 2^shift */
  return (float)(__floatundidf((x >> shift) | sticky) * scale);
}
GRAFT_RT float __floatdisf(i64 x) {
  float magnitude = __floatundisf(magnitude64(x));
  return x < 0 ? -magnitude : magnitude;
}

/* |d| -> uint64, truncating; out of range (undefined in C and LLVM, never
 * asked by graft's code) gives all ones. */
static u64 f64_magnitude_to_u64(double d) {
  u64 bits = f64_bits(d) & ~((u64)1 << 63);
  int e = (int)(bits >> 52) - 1023;
  if (e < 0)
    return 0;
  if (e > 63)
    return ~(u64)0;
  u64 m = (bits & (((u64)1 << 52) - 1)) | ((u64)1 << 52);
  return e >= 52 ? m << (e - 52) : m >> (52 - e);
}
GRAFT_RT i64 __fixdfdi(double d) {
  u64 m = f64_magnitude_to_u64(d);
  return (i64)(d < 0 ? 0 - m : m);
}
GRAFT_RT u64 __fixunsdfdi(double d) { return d < 0 ? 0 : f64_magnitude_to_u64(d); }
GRAFT_RT i64 __fixsfdi(float f) { return __fixdfdi((double)f); }
GRAFT_RT u64 __fixunssfdi(float f) { return __fixunsdfdi((double)f); }

/* Rounding and min/max, which LLVM calls as libm functions where the FPU
 * has no instruction for them (ARMv7's VFP has neither VRINT nor VMAXNM).
 * On bit patterns and exact float operations only, never on what they
 * implement. rint is round-to-nearest-even (graft never changes the
 * rounding mode): adding and subtracting 2^mbits rounds once and exactly. */
#define GRAFT_ROUNDING(T, U, BITS, FROM, mbits, bias, SUFFIX)                   \
  GRAFT_RT T trunc##SUFFIX(T x) {                                               \
    U u = BITS(x);                                                             \
    int e = (int)((u >> mbits) & (2 * bias + 1)) - bias;                       \
    if (e >= mbits) return x; /* integral, infinite or NaN */                  \
    if (e < 0) return FROM(u & ((U)1 << (sizeof(U) * 8 - 1)));                 \
    return FROM(u & ~((((U)1 << mbits) - 1) >> e));                            \
  }                                                                            \
  GRAFT_RT T floor##SUFFIX(T x) {                                               \
    T t = trunc##SUFFIX(x);                                                     \
    return x < 0 && t != x ? t - 1 : t;                                        \
  }                                                                            \
  GRAFT_RT T ceil##SUFFIX(T x) {                                                \
    T t = trunc##SUFFIX(x);                                                     \
    return x > 0 && t != x ? t + 1 : t;                                        \
  }                                                                            \
  GRAFT_RT T round##SUFFIX(T x) { /* halfway cases away from zero */            \
    T t = trunc##SUFFIX(x), d = x - t;                                          \
    if (d >= (T)0.5) return t + 1;                                             \
    if (d <= (T)-0.5) return t - 1;                                            \
    return t;                                                                  \
  }                                                                            \
  GRAFT_RT T rint##SUFFIX(T x) {                                                \
    U u = BITS(x), sign = u & ((U)1 << (sizeof(U) * 8 - 1));                   \
    T big = FROM((U)(bias + mbits) << mbits); /* 2^mbits */                    \
    T a = FROM(u & ~sign);                                                     \
    if (!(a < big)) return x; /* integral, infinite or NaN */                  \
    T r = (a + big) - big;                                                     \
    return FROM(BITS(r) | sign);                                               \
  }                                                                            \
  GRAFT_RT T nearbyint##SUFFIX(T x) { return rint##SUFFIX(x); }                  \
  GRAFT_RT T roundeven##SUFFIX(T x) { return rint##SUFFIX(x); }                  \
  GRAFT_RT T fmax##SUFFIX(T x, T y) { /* a NaN operand loses */                  \
    if (x != x) return y;                                                      \
    if (y != y) return x;                                                      \
    return x > y ? x : y;                                                      \
  }                                                                            \
  GRAFT_RT T fmin##SUFFIX(T x, T y) {                                           \
    if (x != x) return y;                                                      \
    if (y != y) return x;                                                      \
    return x < y ? x : y;                                                      \
  }

GRAFT_ROUNDING(float, u32, f32_bits, f32_from, 23, 127, f)
GRAFT_ROUNDING(double, u64, f64_bits, f64_from, 52, 1023, )
