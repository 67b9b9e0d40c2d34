// ONNX's Einsum (OnnxEinsum.cpp), listed in the lowering table of OnnxOps.cpp.
#pragma once

#include "onnx/ImportContext.h"

namespace graft::onnx_import {

bool lowerEinsum(ImportContext &ctx);

} // namespace graft::onnx_import
