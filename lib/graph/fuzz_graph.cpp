// libFuzzer target for the graph language: parse arbitrary text, verify it,
// and for every module that parses and verifies cleanly check the printer's
// round trip (print, parse and verify the print, print again: both prints
// agree). Any crash, sanitizer report or round-trip mismatch is a bug; error
// diagnostics for bad input are the expected outcome.
//
// Build and run: cmake/fuzz.sh (seed corpus: tests/fuzz/corpus/fuzz_graph/).
// GRAFT_FUZZ_ECHO=1 prints the diagnostics (to see why a seed is rejected).
#include "graph/Parser.h"
#include "graph/Verifier.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// Parses |text| as file "fuzz.graph"; null when it did not parse or verify.
std::unique_ptr<graft::Module> parseAndVerify(const std::string &text,
                                              graft::SourceManager &sm,
                                              graft::DiagEngine &diag) {
  uint32_t file = sm.add("fuzz.graph", text);
  std::unique_ptr<graft::Module> m = graft::parseModule(sm, file, diag);
  if (diag.hasErrors() || !m)
    return nullptr;
  if (!graft::verifyModule(*m, diag))
    return nullptr;
  return m;
}

[[noreturn]] void fail(const char *what, const std::string &a,
                       const std::string &b) {
  std::fprintf(stderr, "fuzz_graph: %s\n--- first:\n%s\n--- second:\n%s\n",
               what, a.c_str(), b.c_str());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  graft::SourceManager sm;
  graft::DiagEngine diag(sm);
  diag.setEcho(std::getenv("GRAFT_FUZZ_ECHO") != nullptr);
  std::unique_ptr<graft::Module> m = parseAndVerify(text, sm, diag);
  if (!m)
    return 0;

  std::string printed = graft::printModule(*m);
  graft::SourceManager sm2;
  graft::DiagEngine diag2(sm2);
  diag2.setEcho(false);
  std::unique_ptr<graft::Module> m2 = parseAndVerify(printed, sm2, diag2);
  if (!m2)
    fail("the printed module does not parse or verify", printed, diag2.text());
  std::string reprinted = graft::printModule(*m2);
  if (reprinted != printed)
    fail("printing the reparsed module gives different text", printed,
         reprinted);
  return 0;
}
