// ONNX's Resize (OnnxResize.cpp), listed in the lowering table of OnnxOps.cpp.
#pragma once

#include "onnx/ImportContext.h"

namespace graft::onnx_import {

bool lowerResize(ImportContext &ctx);

} // namespace graft::onnx_import
