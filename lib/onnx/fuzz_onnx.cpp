// libFuzzer target for the ONNX importer: arbitrary bytes as a model. Every
// input must end in an imported graph that graft's parser and verifier
// accept, or in error diagnostics; a crash, a sanitizer report or an
// imported graph that does not verify is a bug.
//
// Build and run: cmake/fuzz.sh (seed corpus: tests/fuzz/corpus/fuzz_onnx/,
// small models from the ONNX node tests).
#include "graph/Parser.h"
#include "graph/Verifier.h"
#include "onnx/OnnxImport.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  graft::SourceManager sm;
  graft::DiagEngine diag(sm);
  diag.setEcho(std::getenv("GRAFT_FUZZ_ECHO") != nullptr);
  std::string text;
  std::string bytes(reinterpret_cast<const char *>(data), size);
  if (!graft::importOnnx("fuzz.onnx", bytes, {}, diag, text))
    return 0;
  uint32_t file = sm.add("fuzz.graph", text);
  graft::DiagEngine check(sm);
  check.setEcho(false);
  std::unique_ptr<graft::Module> m = graft::parseModule(sm, file, check);
  if (!check.hasErrors() && m)
    graft::verifyModule(*m, check);
  if (check.hasErrors()) {
    std::fprintf(stderr, "imported graph does not verify:\n%s\n%s", text.c_str(),
                 check.text().c_str());
    std::abort();
  }
  return 0;
}
