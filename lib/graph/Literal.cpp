// Encoding of constant literals into their element type's memory form, with
// the range checks users need (an i8 constant of 300 is an error, not 44).
#include "graph/Literal.h"

#include "ir/FloatBits.h"

#include <cmath>
#include <cstring>

namespace graft {

namespace {

struct Encoder {
  DType elem;
  std::vector<uint8_t> &bytes;
  std::string &err;
  SourceLoc &errLoc;

  bool fail(const Literal &l, std::string msg) {
    err = std::move(msg);
    errLoc = l.loc;
    return false;
  }

  bool element(const Literal &l) {
    std::string name = dtypeName(elem);
    if (l.kind == Literal::Kind::List)
      return fail(l, "expected a " + name + " element, found a list");
    if (isFloat(elem)) {
      if (l.kind == Literal::Kind::Bool)
        return fail(l, "expected a " + name + " literal, found '" + l.text + "'");
      double v = l.kind == Literal::Kind::Int ? static_cast<double>(l.i) : l.f;
      return putFloat(l, v);
    }
    if (l.kind == Literal::Kind::Float)
      return fail(l, "expected an integer literal for " + name + ", found '" +
                         l.text + "'");
    int64_t v = l.i;
    if (elem == DType::I1) {
      if (v != 0 && v != 1)
        return fail(l, "i1 literal must be true, false, 0 or 1, found '" +
                           l.text + "'");
    } else if (l.kind == Literal::Kind::Bool) {
      return fail(l, "expected an integer literal for " + name + ", found '" +
                         l.text + "'");
    } else if (dtypeSize(elem) < 8) {
      int64_t bits = dtypeSize(elem) * 8;
      int64_t lo = -(int64_t(1) << (bits - 1)), hi = (int64_t(1) << (bits - 1)) - 1;
      if (v < lo || v > hi)
        return fail(l, "integer literal " + l.text + " is out of range for " +
                           name + " [" + std::to_string(lo) + ", " +
                           std::to_string(hi) + "]");
    }
    size_t size = dtypeSize(elem);
    uint8_t buf[8];
    std::memcpy(buf, &v, 8); // little-endian host: low bytes first
    bytes.insert(bytes.end(), buf, buf + size);
    return true;
  }

  bool putFloat(const Literal &l, double v) {
    bool finite = std::isfinite(v);
    auto overflow = [&]() {
      return fail(l, "float literal " + l.text + " is out of range for " +
                         dtypeName(elem));
    };
    uint8_t buf[8];
    size_t size = dtypeSize(elem);
    switch (elem) {
    case DType::F64:
      std::memcpy(buf, &v, 8);
      break;
    case DType::F32: {
      float f = static_cast<float>(v);
      if (finite && std::isinf(f))
        return overflow();
      std::memcpy(buf, &f, 4);
      break;
    }
    case DType::F16:
    case DType::BF16: {
      float f = static_cast<float>(v);
      uint16_t h = elem == DType::F16 ? floatToHalfBits(f) : floatToBF16Bits(f);
      float back = elem == DType::F16 ? halfBitsToFloat(h) : bf16BitsToFloat(h);
      if (finite && std::isinf(back))
        return overflow();
      std::memcpy(buf, &h, 2);
      break;
    }
    default:
      return false;
    }
    bytes.insert(bytes.end(), buf, buf + size);
    return true;
  }

  // Walks a nested list against dims[dim...].
  bool nested(const Literal &l, const Type &t, size_t dim) {
    if (dim == t.dims.size())
      return element(l);
    if (l.kind != Literal::Kind::List)
      return fail(l, "expected a list for dimension " + std::to_string(dim) +
                         " of " + t.str() + ", found '" + l.text + "'");
    if (static_cast<int64_t>(l.items.size()) != t.dims[dim])
      return fail(l, "constant literal has " + std::to_string(l.items.size()) +
                         " elements along dimension " + std::to_string(dim) +
                         ", type " + t.str() + " has " +
                         std::to_string(t.dims[dim]));
    for (const Literal &item : l.items)
      if (!nested(item, t, dim + 1))
        return false;
    return true;
  }
};

} // namespace

bool encodeLiteral(const Literal &lit, const Type &t, ConstantData &out,
                   std::string &err, SourceLoc &errLoc) {
  out = ConstantData();
  Encoder enc{t.elem, out.bytes, err, errLoc};
  if (lit.kind != Literal::Kind::List) {
    out.splat = true;
    return enc.element(lit);
  }
  if (!t.tensor)
    return enc.fail(lit, "a list literal needs a tensor type, found " + t.str());
  if (!t.hasStaticShape())
    return enc.fail(lit, "a list literal needs a static shape, found " + t.str());
  out.splat = false;
  return enc.nested(lit, t, 0);
}

} // namespace graft
