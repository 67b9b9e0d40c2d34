// See OnnxTensor.h.
#include "onnx/OnnxTensor.h"

#include "graft/tensor.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace graft::onnx_import {

namespace {

// ONNX's TensorProto.DataType values (onnx.proto).
enum : int32_t {
  kFloat = 1, kUint8 = 2, kInt8 = 3, kUint16 = 4, kInt16 = 5, kInt32 = 6, kInt64 = 7,
  kString = 8, kBool = 9, kFloat16 = 10, kDouble = 11, kUint32 = 12, kUint64 = 13,
  kComplex64 = 14, kComplex128 = 15, kBfloat16 = 16,
};

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f)
    bits = sign | 0x7f800000u | (man << 13);
  else if (exp != 0)
    bits = sign | ((exp + 112) << 23) | (man << 13);
  else if (man == 0)
    bits = sign;
  else { // subnormal: normalise
    int e = -1;
    do {
      ++e;
      man <<= 1;
    } while (!(man & 0x400));
    bits = sign | uint32_t(112 - e) << 23 | ((man & 0x3ff) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float bfloatToFloat(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

size_t byteSize(const std::string &elem) {
  if (elem == "f64" || elem == "i64")
    return 8;
  if (elem == "f32" || elem == "i32")
    return 4;
  if (elem == "f16" || elem == "bf16" || elem == "i16")
    return 2;
  return 1;
}

template <typename T> T load(const char *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// One element of little-endian raw data.
void pushRaw(ConstTensor &c, int32_t dt, const char *p) {
  switch (dt) {
  case kFloat: c.f.push_back(load<float>(p)); break;
  case kDouble: c.f.push_back(load<double>(p)); break;
  case kFloat16: c.f.push_back(halfToFloat(load<uint16_t>(p))); break;
  case kBfloat16: c.f.push_back(bfloatToFloat(load<uint16_t>(p))); break;
  case kInt8: c.i.push_back(load<int8_t>(p)); break;
  case kInt16: c.i.push_back(load<int16_t>(p)); break;
  case kInt32: c.i.push_back(load<int32_t>(p)); break;
  case kInt64: c.i.push_back(load<int64_t>(p)); break;
  case kBool: c.i.push_back(*p != 0); break;
  }
}

} // namespace

std::string elemForOnnxType(int32_t dataType, std::string *onnxName) {
  static const char *const kNames[] = {"UNDEFINED", "FLOAT",  "UINT8",     "INT8",
                                       "UINT16",    "INT16",  "INT32",     "INT64",
                                       "STRING",    "BOOL",   "FLOAT16",   "DOUBLE",
                                       "UINT32",    "UINT64", "COMPLEX64", "COMPLEX128",
                                       "BFLOAT16"};
  if (onnxName)
    *onnxName = dataType >= 0 && dataType <= 16 ? kNames[dataType]
                                                : "data type " + std::to_string(dataType);
  switch (dataType) {
  case kFloat: return "f32";
  case kDouble: return "f64";
  case kFloat16: return "f16";
  case kBfloat16: return "bf16";
  case kInt8: return "i8";
  case kInt16: return "i16";
  case kInt32: return "i32";
  case kInt64: return "i64";
  case kBool: return "i1";
  default: return "";
  }
}

std::string noElemTypeReason(int32_t dataType) {
  std::string has = " (it has FLOAT, DOUBLE, FLOAT16, BFLOAT16, INT8, INT16, INT32, INT64, BOOL)";
  bool isUnsigned = dataType == onnx::TensorProto::UINT8 || dataType == onnx::TensorProto::UINT16 ||
                    dataType == onnx::TensorProto::UINT32 || dataType == onnx::TensorProto::UINT64;
  std::string onnxName;
  elemForOnnxType(dataType, &onnxName);
  return "is not supported: graft's graph language has no " +
         (isUnsigned ? std::string("unsigned integer types") : onnxName + " type") + has;
}

bool decodeTensor(const onnx::TensorProto &t, ConstTensor &out, std::string &err) {
  std::string onnxName;
  out = ConstTensor{};
  out.type.elem = elemForOnnxType(t.data_type(), &onnxName);
  if (out.type.elem.empty()) {
    err = "element type " + onnxName + " " + noElemTypeReason(t.data_type());
    return false;
  }
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    err = "external tensor data is not supported";
    return false;
  }
  if (t.dims_size() > 8) {
    err = "rank " + std::to_string(t.dims_size()) + " is above graft's limit of 8";
    return false;
  }
  uint64_t count = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || d > (int64_t(1) << 32)) {
      err = "dimension " + std::to_string(d) + " is not supported (graft sizes are 0 to 2^32)";
      return false;
    }
    out.type.dims.push_back(d);
    count *= uint64_t(d);
    if (count > (uint64_t(1) << 32)) {
      err = "more than 2^32 elements";
      return false;
    }
  }
  int32_t dt = t.data_type();
  if (t.has_raw_data()) {
    const std::string &raw = t.raw_data();
    size_t size = byteSize(out.type.elem);
    if (raw.size() != count * size) {
      err = "raw_data holds " + std::to_string(raw.size()) + " bytes, the shape needs " +
            std::to_string(count * size);
      return false;
    }
    for (uint64_t k = 0; k < count; ++k)
      pushRaw(out, dt, raw.data() + k * size);
    return true;
  }
  // Typed fields (onnx.proto says which holds which type).
  uint64_t have = 0;
  switch (dt) {
  case kFloat: have = uint64_t(t.float_data_size()); break;
  case kDouble: have = uint64_t(t.double_data_size()); break;
  case kInt64: have = uint64_t(t.int64_data_size()); break;
  default: have = uint64_t(t.int32_data_size()); break;
  }
  if (have != count) {
    err = "holds " + std::to_string(have) + " elements, the shape needs " + std::to_string(count);
    return false;
  }
  for (uint64_t k = 0; k < count; ++k) {
    switch (dt) {
    case kFloat: out.f.push_back(t.float_data(int(k))); break;
    case kDouble: out.f.push_back(t.double_data(int(k))); break;
    case kInt64: out.i.push_back(t.int64_data(int(k))); break;
    case kFloat16: out.f.push_back(halfToFloat(uint16_t(t.int32_data(int(k))))); break;
    case kBfloat16: out.f.push_back(bfloatToFloat(uint16_t(t.int32_data(int(k))))); break;
    case kInt8: out.i.push_back(int8_t(t.int32_data(int(k)))); break;
    case kInt16: out.i.push_back(int16_t(t.int32_data(int(k)))); break;
    case kBool: out.i.push_back(t.int32_data(int(k)) != 0); break;
    default: out.i.push_back(t.int32_data(int(k))); break;
    }
  }
  return true;
}

std::string ConstTensor::literal(size_t k) const {
  if (type.elem == "i1")
    return i[k] ? "true" : "false";
  if (!isFloat())
    return std::to_string(i[k]);
  double v = f[k];
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v < 0 ? "-inf" : "inf";
  char buf[64];
  // Enough digits to round-trip the element's own type.
  std::snprintf(buf, sizeof buf, type.elem == "f64" ? "%.17g" : "%.9g", v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

std::string ConstTensor::constantText() const {
  size_t n = count();
  bool same = n > 0;
  for (size_t k = 1; same && k < n; ++k)
    same = literal(k) == literal(0);
  if (same)
    return "constant " + literal(0);
  // Nested list, one bracket level per dim.
  std::string s;
  size_t rank = type.dims.size();
  std::vector<int64_t> idx(rank, 0);
  for (size_t k = 0; k < n; ++k) {
    size_t opened = 0; // dims starting at this element
    for (size_t d = rank; d-- > 0 && idx[d] == 0;)
      ++opened;
    if (k)
      s += ", ";
    s += std::string(opened, '[') + literal(k);
    size_t closed = 0;
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < type.dims[d])
        break;
      idx[d] = 0;
      ++closed;
    }
    s += std::string(closed, ']');
  }
  return "constant " + s;
}

ConstTensor constFromHost(const graft_tensor_t &t) {
  ConstTensor c;
  c.type.elem = graft_dtype_name(t.dtype);
  for (uint32_t d = 0; d < t.rank; ++d)
    c.type.dims.push_back(t.dims[d]);
  uint64_t n = graft_tensor_element_count(&t);
  bool isFloat = c.isFloat();
  for (uint64_t k = 0; k < n; ++k) {
    double v = graft_tensor_element_as_double(&t, k);
    if (isFloat)
      c.f.push_back(v);
    else if (c.type.elem == "i64")
      c.i.push_back(static_cast<const int64_t *>(t.data)[k]);
    else
      c.i.push_back(int64_t(v));
  }
  return c;
}

} // namespace graft::onnx_import
