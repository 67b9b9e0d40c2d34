// Constant tensors of an ONNX model (initializers, Constant nodes, values
// bound with --constant): decoded from TensorProto with every size checked,
// and written as graft constant literals.
#pragma once

#include "onnx/GraphWriter.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace graft::onnx_import {

// A constant's elements, widened: floats in |f|, integers and booleans in
// |i| (exactly one of the two is filled).
struct ConstTensor {
  Type type;
  std::vector<double> f;
  std::vector<int64_t> i;

  bool isFloat() const { return !type.elem.empty() && (type.elem[0] == 'f' || type.elem == "bf16"); }
  size_t count() const { return isFloat() ? f.size() : i.size(); }
  // Element |k| as a literal of the graph language ("1.5", "-inf", "3", "true").
  std::string literal(size_t k) const;
  // The whole constant: `constant LIT` text (splat or nested list).
  std::string constantText() const;
};

// graft's element type for ONNX data type |dataType|, or "" (with the
// ONNX name in |onnxName|) when graft has none.
std::string elemForOnnxType(int32_t dataType, std::string *onnxName = nullptr);

// Why ONNX data type |dataType| has no graft element type: "is not
// supported: graft's graph language has no unsigned integer types (it has
// FLOAT, ...)", to follow "element type UINT8 ".
std::string noElemTypeReason(int32_t dataType);

// Decodes |t|; on failure returns false with the reason in |err|.
bool decodeTensor(const onnx::TensorProto &t, ConstTensor &out, std::string &err);

} // namespace graft::onnx_import

struct graft_tensor_t;
namespace graft::onnx_import {
// A host tensor (graft-run's tensor forms) as a constant.
ConstTensor constFromHost(const ::graft_tensor_t &t);
} // namespace graft::onnx_import
