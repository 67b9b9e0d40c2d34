// Where a function's results are written (Formation.cpp): a returned
// dispatch output is the RESULT buffer the caller's storage backs; so is
// the output a returned reshape views (a conv's [N, F, O...] of its map or
// matmul), which then takes the result's dims, where the runtime copied it
// out of a buffer of its own after the call. A value returned twice is
// copied for its second result.
#include "dispatch/FormForTest.h"

#include <gtest/gtest.h>

namespace graft {
namespace {

const char *kGraph = R"(
func @viewed(%x: tensor<?x4xf32>) -> tensor<?xf32> {
  %y = map %x : tensor<?x4xf32> {
  ^bb0(%a: f32):
    %0 = add %a, %a : f32
    yield %0
  }
  %n = dim %x {axis = 0} : index
  %four = constant 4 : index
  %m = mul %n, %four : index
  %r = reshape %y, %m : tensor<?xf32>
  return %r
}
func @twice(%x: tensor<?x4xf32>) -> (tensor<?xf32>, tensor<?x4xf32>) {
  %y = map %x : tensor<?x4xf32> {
  ^bb0(%a: f32):
    %0 = add %a, %a : f32
    yield %0
  }
  %n = dim %x {axis = 0} : index
  %four = constant 4 : index
  %m = mul %n, %four : index
  %r = reshape %y, %m : tensor<?xf32>
  return %r, %y
}
)";

const FeatureLevel &baseline() { return allTargets().front()->levels.front(); }

// The buffer dispatch |d| writes (its one output's binding).
uint32_t written(const ProgramSet &ps, const FunctionProgram &fp) {
  for (const StepDesc &s : fp.steps)
    if (s.kind == GRAFT_STEP_DISPATCH)
      return s.bindings[ps.dispatches[s.dispatch].loop.inputs.size()];
  ADD_FAILURE() << "no dispatch step";
  return ~0u;
}

TEST(Results, ReshapedOutputIsTheResult) {
  ProgramSet ps = formForTest(baseline(), kGraph);
  ASSERT_EQ(ps.functions.size(), 2u);
  const FunctionProgram &fp = ps.functions[0];
  ASSERT_EQ(fp.resultBuffers.size(), 1u);
  uint32_t r = fp.resultBuffers[0];
  EXPECT_EQ(fp.buffers[r].kind, uint32_t(GRAFT_BUFFER_RESULT));
  EXPECT_EQ(fp.buffers[r].index, 0u);
  EXPECT_EQ(fp.buffers[r].dims.size(), 1u); // the result's [4N], not [N, 4]
  EXPECT_EQ(written(ps, fp), r);
}

TEST(Results, ReturnedTwiceIsCopied) {
  ProgramSet ps = formForTest(baseline(), kGraph);
  ASSERT_EQ(ps.functions.size(), 2u);
  const FunctionProgram &fp = ps.functions[1];
  ASSERT_EQ(fp.resultBuffers.size(), 2u);
  // The first result is the map's output, written in place; the second
  // (the same storage) is copied into a result of its own.
  uint32_t first = fp.resultBuffers[0], second = fp.resultBuffers[1];
  EXPECT_EQ(written(ps, fp), first);
  EXPECT_EQ(fp.buffers[first].kind, uint32_t(GRAFT_BUFFER_RESULT));
  EXPECT_NE(first, second);
  bool copied = false;
  for (const StepDesc &s : fp.steps)
    copied |= s.kind == GRAFT_STEP_COPY && s.bindings == std::vector<uint32_t>{first, second};
  EXPECT_TRUE(copied);
}

} // namespace
} // namespace graft
