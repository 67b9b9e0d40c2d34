/* The few libm routines LLVM may call from generated code (frem lowers to
 * fmodf/fmod on every target). A slice has no libc, so these go into the
 * builtins object of every slice.
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
