// ONNX's index reductions (OnnxArgReduce.cpp), listed in the lowering table
// of OnnxOps.cpp.
#pragma once

#include "onnx/ImportContext.h"

namespace graft::onnx_import {

bool lowerArgMax(ImportContext &ctx);
bool lowerArgMin(ImportContext &ctx);
bool lowerHardmax(ImportContext &ctx);

} // namespace graft::onnx_import
