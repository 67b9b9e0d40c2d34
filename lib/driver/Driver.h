// The graft command line: subcommands and the build pipeline.
#pragma once

#include "onnx/OnnxImport.h"
#include "support/Diagnostics.h"

#include <string>
#include <vector>

namespace graft {

// Entry point of the `graft` binary.
int driverMain(int argc, char **argv);

// Options of `graft build`.
struct BuildOptions {
  std::string graph;                 // input graph file (.graph, or .onnx: imported)
  OnnxImportOptions onnx;            // --weights-as-args, --constant (for .onnx)
  std::vector<std::string> specs;    // --spec files, in order
  std::vector<std::string> targets;  // --target list (default: host)
  std::vector<std::string> levels;   // --levels: feature levels to compile
                                     // (default: every level of each target)
  std::string output;                // -o
  std::vector<std::string> emit;     // --emit kinds: llvm, asm, obj, elf
  std::string emitDir;               // --emit-dir
  std::string depfile;               // --depfile: Make-style dependencies
  std::string embed;                 // --embed STEM: STEM.h and STEM.c (EmbedC.h)
  std::vector<std::string> kernelFlags; // -I, -D, --kernel-flag: for every C kernel
  bool color = false;                // coloured diagnostics (also clang's)
  bool explain = false;              // --explain
  bool verbose = false;              // -v
  bool timePasses = false;           // --time-passes
  bool sanitizeUndefined = false;    // --sanitize=undefined: UBSan in C kernels
};

// Runs the build pipeline; returns the process exit code.
int runBuild(const BuildOptions &opts);

// `graft import MODEL.onnx [-o FILE] [--weights-as-args] [--constant N=T]`:
// prints (or writes) the imported graph; returns the process exit code.
int runImport(int argc, char **argv);

// Imports the ONNX model |path| as graph text that parses and verifies
// (an import that does not is a graft bug: an internal error aborts).
bool importGraphText(const std::string &path, const OnnxImportOptions &opts, DiagEngine &diag,
                     std::string &text);

// Options of `graft plugin`.
struct PluginOptions {
  std::vector<std::string> sources;  // C files
  std::vector<std::string> targets;  // --target list (default: host)
  std::string output;                // -o (default: <first source>.sos)
  std::vector<std::string> cflags;   // -I DIR / -D NAME[=VALUE], in order
  bool verbose = false;              // -v
};

// Builds a bare-metal plugin (.sos); returns the process exit code.
int runPlugin(const PluginOptions &opts);

} // namespace graft
