// For unit tests: the dispatches graft forms from a graph's text at one
// feature level (parse, verify, shapes, formation), with diagnostics kept
// quiet and a failed parse or verification reported as a test failure.
#ifndef GRAFT_DISPATCH_FORMFORTEST_H_
#define GRAFT_DISPATCH_FORMFORTEST_H_

#include "dispatch/Dispatch.h"
#include "graph/Parser.h"
#include "graph/Verifier.h"

#include <gtest/gtest.h>

namespace graft {

inline ProgramSet formForTest(const FeatureLevel &level, const char *graph) {
  SourceManager sm;
  uint32_t file = sm.add("t.graph", graph);
  DiagEngine diag(sm);
  diag.setEcho(false);
  std::unique_ptr<Module> m = parseModule(sm, file, diag);
  EXPECT_TRUE(m && verifyModule(*m, diag));
  ProgramSet out;
  if (!m) return out;
  for (auto &fn : m->functions) {
    ShapeInfo shapes;
    analyzeShapes(*fn, diag, shapes);
    formDispatches(*fn, std::move(shapes), diag, level, out);
  }
  return out;
}

} // namespace graft

#endif // GRAFT_DISPATCH_FORMFORTEST_H_
