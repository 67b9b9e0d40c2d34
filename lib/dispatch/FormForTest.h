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

// A graph of one f32 matmul of dynamic sizes into a zero-filled result
// (tests append functions of their own to it).
inline constexpr const char kFilledMatmulGraph[] = R"(
func @mm(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  return %r
}
)";

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
