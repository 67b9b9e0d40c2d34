// A map whose one user is a reduction (Former::isReducedMap, Views.cpp) is
// computed by the reduction where it reads each element: one dispatch,
// which reads the map's operands (an i8 column sum widened to i32 reads
// the i8), and no buffer for the map's result. A map that is also
// returned, read by another op too, or that reads a row statistic keeps
// its own dispatch. Operands whose dims the graph equates only at run time
// (two ?x? arguments, a ? vector broadcast over the rows) are read by the
// reduction too: the map's shape checks are the function's, not its
// dispatch's.
#include "dispatch/FormForTest.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace graft {
namespace {

const char *kGraph = R"(
func @widened(%b: tensor<?x?xi8>) -> tensor<?xi32> {
  %w = map %b : tensor<?x?xi32> {
  ^bb0(%v: i8):
    %0 = cast %v : i32
    yield %0
  }
  %r = reduce %w {dims = [0], kind = sum} : tensor<?xi32>
  return %r
}
func @returned(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>) {
  %w = map %x : tensor<?x?xf32> {
  ^bb0(%v: f32):
    %0 = mul %v, %v : f32
    yield %0
  }
  %r = reduce %w {dims = [0], kind = sum} : tensor<?xf32>
  return %r, %w
}
func @shared(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %w = map %x : tensor<?x?xf32> {
  ^bb0(%v: f32):
    %0 = mul %v, %v : f32
    yield %0
  }
  %r = reduce %w {dims = [0], kind = sum} : tensor<?xf32>
  %s = reduce %w {dims = [0], kind = max} : tensor<?xf32>
  return %r, %s
}
func @centered(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %m = reduce %x {dims = [1], kind = max} : tensor<?xf32>
  %n = dim %x {axis = 1} : index
  %mb = broadcast %m, %n {dims = [0]} : tensor<?x?xf32>
  %w = map %x, %mb : tensor<?x?xf32> {
  ^bb0(%p: f32, %q: f32):
    %0 = sub %p, %q : f32
    yield %0
  }
  %r = reduce %w {dims = [0], kind = sum} : tensor<?xf32>
  return %r
}
func @equated(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>, %c: tensor<?xf32>) -> tensor<?xf32> {
  %m = dim %x {axis = 0} : index
  %cb = broadcast %c, %m {dims = [1]} : tensor<?x?xf32>
  %w = map %x, %y, %cb : tensor<?x?xf32> {
  ^bb0(%p: f32, %q: f32, %s: f32):
    %0 = mul %p, %q : f32
    %1 = add %0, %s : f32
    yield %1
  }
  %r = reduce %w {dims = [0], kind = sum} : tensor<?xf32>
  return %r
}
)";

const FeatureLevel &baseline() { return allTargets().front()->levels.front(); }

std::vector<const Dispatch *> dispatches(const ProgramSet &ps, const FunctionProgram &fp) {
  std::vector<const Dispatch *> out;
  for (const StepDesc &s : fp.steps)
    if (s.kind == GRAFT_STEP_DISPATCH)
      out.push_back(&ps.dispatches[s.dispatch]);
  return out;
}

TEST(ReducedMap, TheReductionComputesTheMap) {
  ProgramSet ps = formForTest(baseline(), kGraph);
  ASSERT_EQ(ps.functions.size(), 5u);
  const FunctionProgram &fp = ps.functions[0];
  std::vector<const Dispatch *> ds = dispatches(ps, fp);
  ASSERT_EQ(ds.size(), 1u);
  const LoopKernel &L = ds[0]->loop;
  ASSERT_EQ(L.inputs.size(), 1u);
  EXPECT_EQ(L.inputs[0].elem, DType::I8); // the argument, not a widened copy
  EXPECT_EQ(fp.buffers[L.inputs[0].buffer].kind, uint32_t(GRAFT_BUFFER_ARG));
  for (const BufferDesc &b : fp.buffers)
    EXPECT_NE(b.kind, uint32_t(GRAFT_BUFFER_TEMP));
  // Three arguments of dims equated at run time: one dispatch reading
  // them, and the map's checks still in the function's table.
  const FunctionProgram &eq = ps.functions[4];
  std::vector<const Dispatch *> eqs = dispatches(ps, eq);
  ASSERT_EQ(eqs.size(), 1u);
  EXPECT_EQ(eqs[0]->loop.inputs.size(), 3u);
  for (const BufferDesc &b : eq.buffers)
    EXPECT_NE(b.kind, uint32_t(GRAFT_BUFFER_TEMP));
  // y's two dims and the broadcast c's columns against x's (its rows are
  // x's own dim: nothing to check).
  std::set<std::string> checked;
  for (const ShapeCheck &c : eq.shapes.checks)
    checked.insert(c.what);
  EXPECT_EQ(checked, (std::set<std::string>{"map: operand 1 dim 0 differs from operand 0",
                                             "map: operand 1 dim 1 differs from operand 0",
                                             "map: operand 2 dim 1 differs from operand 0"}));
}

TEST(ReducedMap, OtherReadersKeepTheMapsDispatch) {
  ProgramSet ps = formForTest(baseline(), kGraph);
  ASSERT_EQ(ps.functions.size(), 5u);
  EXPECT_EQ(dispatches(ps, ps.functions[1]).size(), 2u); // also returned
  EXPECT_EQ(dispatches(ps, ps.functions[2]).size(), 3u); // read by two reductions
  // A map of a row statistic: the statistic and the map in one dispatch,
  // the column sum in another.
  EXPECT_EQ(dispatches(ps, ps.functions[3]).size(), 2u);
}

} // namespace
} // namespace graft
