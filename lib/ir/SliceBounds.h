// Where a `slice` starts along one dim and how many elements it takes
// (docs/graph-format.md, "Data movement"): Python's rules for
// x[start:end:step]. Written once over an arithmetic |A| so that the
// verifier and the evaluator (concrete int64 sizes) and the shape analysis
// (host expressions of run-time sizes) cannot disagree. The size |n| is a
// value of |A|; so is a bound written `?` (a run-time index operand), whose
// sign is only known when the graph runs.
//
// |A| provides: V c(int64_t), add(V, V), sub(V, V), mul(V, V), min(V, V),
// max(V, V), lt(V, V) (1 or 0), ceilDiv(V, V).
#pragma once

#include <algorithm>
#include <cstdint>

namespace graft {

// Sizes are below 2^33 (dims are at most 2^32), so clamping a literal to
// this range first changes no result and keeps every sum in 64 bits.
constexpr int64_t kSliceLiteralLimit = int64_t(1) << 34;

template <class V> struct SliceDim {
  V start; // the first element taken (when count > 0)
  V count; // elements taken
};

// A bound: a literal, or (dynamic) a value known when the graph runs.
template <class V> struct SliceBound {
  int64_t literal = 0;
  bool dynamic = false;
  V value{};
};

template <class V, class A>
SliceDim<V> sliceBounds(SliceBound<V> start, SliceBound<V> end, int64_t step, V n, A &a) {
  auto norm = [&](const SliceBound<V> &b) {
    if (!b.dynamic) {
      int64_t x = std::clamp(b.literal, -kSliceLiteralLimit, kSliceLiteralLimit);
      return x < 0 ? a.add(n, a.c(x)) : a.c(x);
    }
    // Clamped first as the literals are (no sum overflows), then + n when
    // negative.
    V x = a.max(a.c(-kSliceLiteralLimit), a.min(b.value, a.c(kSliceLiteralLimit)));
    return a.add(x, a.mul(n, a.lt(x, a.c(0))));
  };
  // Clamped to [0, n] walking forwards, [-1, n-1] walking backwards.
  V lo = a.c(step > 0 ? 0 : -1);
  V hi = step > 0 ? n : a.sub(n, a.c(1));
  V s = a.max(lo, a.min(norm(start), hi));
  V e = a.max(lo, a.min(norm(end), hi));
  V count = a.max(a.c(0), a.ceilDiv(a.sub(e, s), a.c(step)));
  return {s, count};
}

// Concrete sizes (the verifier, the evaluator).
struct SliceIntArith {
  int64_t c(int64_t x) { return x; }
  int64_t add(int64_t x, int64_t y) { return x + y; }
  int64_t sub(int64_t x, int64_t y) { return x - y; }
  int64_t min(int64_t x, int64_t y) { return std::min(x, y); }
  int64_t max(int64_t x, int64_t y) { return std::max(x, y); }
  int64_t mul(int64_t x, int64_t y) { return x * y; }
  int64_t lt(int64_t x, int64_t y) { return x < y; }
  int64_t ceilDiv(int64_t x, int64_t y) {
    int64_t q = x / y;
    return (x % y != 0 && ((x < 0) == (y < 0))) ? q + 1 : q;
  }
};

inline SliceDim<int64_t> sliceBounds(int64_t start, int64_t end, int64_t step,
                                     int64_t n) {
  SliceIntArith a;
  return sliceBounds<int64_t>({start}, {end}, step, n, a);
}

inline SliceDim<int64_t> sliceBounds(SliceBound<int64_t> start, SliceBound<int64_t> end,
                                     int64_t step, int64_t n) {
  SliceIntArith a;
  return sliceBounds<int64_t>(start, end, step, n, a);
}

} // namespace graft
