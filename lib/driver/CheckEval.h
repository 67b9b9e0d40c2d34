// `graft check` and `graft eval`: the graph language's own subcommands.
// |argv| holds only the arguments after the subcommand word (argc of them).
#pragma once

#include "ir/IR.h"

#include <memory>
#include <string>

namespace graft {

// Reads, parses and verifies the graph (or ONNX model) at |path| into |sm|;
// diagnostics go to stderr. Null on any error.
std::unique_ptr<Module> loadGraph(const std::string &path, SourceManager &sm);

// graft check GRAPH [--print]
// Parses and verifies GRAPH, printing every diagnostic; with --print writes
// the module back in graph syntax to stdout. Returns 0, 1 on errors in the
// graph, 2 on a bad command line.
int runCheck(int argc, char **argv);

// graft eval GRAPH [--function F] --input T... [--output=@file.npy]...
// Parses, verifies and runs function F (default: the only function) with the
// reference evaluator. Inputs use the runtime's text form ("2x2xf32=[..]",
// "@file.npy"). The i-th result goes to the i-th --output (@file.npy, or "-"
// for stdout); results without one are printed one per line. Returns 0, 1 on
// errors, 2 on a bad command line.
int runEval(int argc, char **argv);

} // namespace graft
