// ONNX's NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss
// (OnnxLoss.cpp), listed in the lowering table of OnnxOps.cpp.
#pragma once

#include "onnx/ImportContext.h"

namespace graft::onnx_import {

bool lowerNegativeLogLikelihoodLoss(ImportContext &ctx);
bool lowerSoftmaxCrossEntropyLoss(ImportContext &ctx);

// Softmax (or, with |logarithm|, LogSoftmax) of |x| along |axis| (OnnxOps.cpp).
Value softmaxAlong(ImportContext &ctx, const Value &x, int64_t axis, bool logarithm,
                   const std::string &hint);

} // namespace graft::onnx_import
