// ONNX's reductions that are not one `reduce`: the index reductions and
// Hardmax (OnnxArgReduce.cpp), CumSum (OnnxCumSum.cpp); listed in the
// lowering table of OnnxOps.cpp.
#pragma once

#include "onnx/ImportContext.h"

namespace graft::onnx_import {

bool lowerArgMax(ImportContext &ctx);
bool lowerArgMin(ImportContext &ctx);
bool lowerHardmax(ImportContext &ctx);
bool lowerCumSum(ImportContext &ctx);

} // namespace graft::onnx_import
