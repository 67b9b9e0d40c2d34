// ONNX's DepthToSpace and SpaceToDepth (OnnxSpaceDepth.cpp), listed in the
// lowering table of OnnxOps.cpp.
#pragma once

#include "onnx/ImportContext.h"

namespace graft::onnx_import {

bool lowerDepthToSpace(ImportContext &ctx);
bool lowerSpaceToDepth(ImportContext &ctx);

} // namespace graft::onnx_import
