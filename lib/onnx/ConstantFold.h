// Constant folding at import: a node whose inputs are all known constants
// (initializers, Constant nodes, values bound with --constant, and what
// earlier folds produced) gets known-constant outputs, so that the shape
// arithmetic exported models do (Shape -> Slice -> Concat -> Reshape, Cast,
// Sub, ConstantOfShape, Range...) resolves when building, as the ops that
// need build-time operands (Reshape's shape, Expand's shape, axes) require.
//
// The node is lowered as usual into a scratch graph over its constant
// operands and that graph is run with the reference evaluator (lib/eval):
// one folding rule for every op, with the op's own lowering as its meaning.
#pragma once

#include "onnx/ImportContext.h"

namespace graft::onnx_import {

// Folds the current node (ctx.node) when it can: its outputs go to
// ctx.constants and true is returned. False (nothing reported, nothing
// emitted) when an input is computed at run time, the operands are large,
// or the op does not fold; the node is then lowered as usual.
bool foldConstantNode(ImportContext &ctx);

} // namespace graft::onnx_import
