// ONNX's OneHot (OnnxOneHot.cpp), listed in the lowering table of OnnxOps.cpp.
#pragma once

#include "onnx/ImportContext.h"

namespace graft::onnx_import {

bool lowerOneHot(ImportContext &ctx);

} // namespace graft::onnx_import
