// ONNX import (docs/onnx.md): reads an ONNX model and writes its main graph
// as one graft function in the graph text format, which `graft import`
// prints and `graft build model.onnx` compiles as if it had been read from a
// .graph file.
//
// Every node becomes one or more graft ops (Sigmoid is a `map` computing
// 1/(1+exp(-x)), Softmax a reduce/broadcast/map chain, numpy broadcasting an
// explicit `broadcast`). What graft cannot express (an op, an attribute
// value, a dtype, a run-time shape operand) is an error naming the node, its
// op type and what is supported; nothing is dropped silently.
#pragma once

#include "support/Diagnostics.h"

#include <cstdint>
#include <string>
#include <vector>

namespace graft {

struct OnnxImportOptions {
  // Initializers become function arguments (after the graph inputs, in
  // initializer order) instead of constants, so weights can change without
  // a rebuild.
  bool weightsAsArguments = false;
  // Graph inputs given a fixed value (NAME=TENSOR in graft-run's tensor
  // form: "2xi64=[1 2]", "@shape.pb", "@w.npy"). They become constants and
  // leave the argument list; needed where graft wants a value at build time
  // (the shape of a Reshape, the axes of a ReduceSum).
  std::vector<std::pair<std::string, std::string>> constants;
};

// Imports the model in |bytes| (read from |path|, which names it in
// errors). On success |graphText| holds the module and the return is true;
// otherwise every problem found was reported through |diag|.
bool importOnnx(const std::string &path, const std::string &bytes,
                const OnnxImportOptions &opts, DiagEngine &diag, std::string &graphText);

// Reads |path| and imports it (the file's read errors reported too).
bool importOnnxFile(const std::string &path, const OnnxImportOptions &opts, DiagEngine &diag,
                    std::string &graphText);

// True when |path| names an ONNX model (ends in ".onnx").
bool isOnnxPath(const std::string &path);

} // namespace graft
