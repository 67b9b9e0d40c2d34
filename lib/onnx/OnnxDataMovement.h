// ONNX data-movement ops and ranges (OnnxDataMovement.cpp), listed in the
// lowering table of OnnxOps.cpp.
#pragma once

#include "onnx/ImportContext.h"

namespace graft::onnx_import {

bool lowerGather(ImportContext &ctx);
bool lowerSlice(ImportContext &ctx);
bool lowerRange(ImportContext &ctx);
bool lowerConcat(ImportContext &ctx);
bool lowerSplit(ImportContext &ctx);
bool lowerTile(ImportContext &ctx);
bool lowerPad(ImportContext &ctx);
bool lowerTrilu(ImportContext &ctx);

// `gather` of |x| along |axis| at the build-time |indices| (Tile, Pad,
// Resize).
Value gatherAt(ImportContext &ctx, const Value &x, size_t axis, const std::vector<int64_t> &indices,
               const std::string &hint);

} // namespace graft::onnx_import
