// ONNX convolutions and pools (OnnxConv.cpp), listed in the lowering table
// of OnnxOps.cpp.
#pragma once

#include "onnx/ImportContext.h"

namespace graft::onnx_import {

bool lowerConv(ImportContext &ctx);
bool lowerPool(ImportContext &ctx);       // MaxPool, AveragePool
bool lowerGlobalPool(ImportContext &ctx); // GlobalAveragePool, GlobalMaxPool
bool lowerLRN(ImportContext &ctx);

} // namespace graft::onnx_import
