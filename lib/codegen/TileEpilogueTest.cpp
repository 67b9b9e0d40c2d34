// Which packed-matmul epilogues the microkernel applies itself
// (TileEpilogue.h): those computed from the sum, constants, dispatch
// constants and f32 inputs read at the output's point by f32 ops whose
// vector form gives each lane's scalar bits (graft's own exp, tanh, ...
// among them), spelt out in a key that names the microkernel, with how
// each operand is read; anything else (a cast, an f16 input, an input
// read across the columns at a stride) keeps the dispatch's scalar pass.
#include "codegen/TileEpilogue.h"
#include "dispatch/FormForTest.h"
#include "targets/Target.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace graft {
namespace {

const char kGraph[] = R"(
func @plain(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  return %r
}
func @mlp(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  %y = map %r : tensor<?x?xf32> {
  ^bb0(%v: f32):
    %0 = max %v, %z : f32
    %1 = neg %0 : f32
    yield %1
  }
  return %y
}
func @exact(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %h = constant 0.5 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  %y = map %r : tensor<?x?xf32> {
  ^bb0(%v: f32):
    %0 = sqrt %v : f32
    %1 = cmp %v, %h {pred = gt} : i1
    %2 = select %1, %0, %h : f32
    yield %2
  }
  return %y
}
func @approx(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  %y = map %r : tensor<?x?xf32> {
  ^bb0(%v: f32):
    %0 = exp %v : f32
    yield %0
  }
  return %y
}
func @bias(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  %y = map %r, %c : tensor<?x?xf32> {
  ^bb0(%v: f32, %w: f32):
    %0 = add %v, %w : f32
    yield %0
  }
  return %y
}
func @colbias(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?xf32>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  %cb = broadcast %c, %m {dims = [1]} : tensor<?x?xf32>
  %y = map %r, %cb, %cb : tensor<?x?xf32> {
  ^bb0(%v: f32, %w: f32, %u: f32):
    %0 = add %v, %w : f32
    %1 = mul %0, %u : f32
    %2 = tanh %1 : f32
    yield %2
  }
  return %y
}
func @rowscale(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?xf32>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  %cb = broadcast %c, %n {dims = [0]} : tensor<?x?xf32>
  %y = map %r, %cb : tensor<?x?xf32> {
  ^bb0(%v: f32, %w: f32):
    %0 = div %v, %w : f32
    yield %0
  }
  return %y
}
func @halfbias(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf16>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  %y = map %r, %c : tensor<?x?xf32> {
  ^bb0(%v: f32, %w: f16):
    %0 = cast %w : f32
    %1 = add %v, %0 : f32
    yield %1
  }
  return %y
}
func @scaled(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %s: f32) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  %y = map %r : tensor<?x?xf32> {
  ^bb0(%v: f32):
    %0 = mul %v, %s : f32
    yield %0
  }
  return %y
}
)";

TEST(TileEpilogue, VectorFormsWithOperands) {
  const FeatureLevel *level = nullptr;
  for (const TargetInfo *t : allTargets())
    for (const FeatureLevel &l : t->levels)
      if (std::string(l.name) == "x86-64-v4")
        level = &l;
  ASSERT_TRUE(level);
  ProgramSet set = formForTest(*level, kGraph);
  // Function name -> the key of its packed matmul's epilogue ("-": none).
  std::map<std::string, std::string> keys;
  std::map<std::string, size_t> operands; // how many the descriptor carries
  for (const Dispatch &d : set.dispatches) {
    if (d.isCall || !d.loop.packed.mr || d.loop.packed.packOnly)
      continue;
    std::optional<codegen::TileEpilogue> e = codegen::tileEpilogue(d.loop);
    keys[d.name.substr(0, d.name.find("_dispatch"))] = e ? e->key : "-";
    operands[d.name.substr(0, d.name.find("_dispatch"))] = e ? e->operands.size() : 0;
    if (e) {
      EXPECT_EQ(e->identity(), e->key == "a") << d.name;
    }
  }
  EXPECT_EQ(keys["plain"], "a");
  EXPECT_EQ(keys["mlp"], "a_c0_max.0.1_neg.2");
  EXPECT_EQ(keys["exact"], "a_sqrt.0_c3f000000_cmpgt.0.2_c3f000000_select.3.1.4");
  EXPECT_EQ(keys["approx"], "a_exp.0");
  // A matrix (rows and columns), a vector over the columns (read once
  // however many times the body names it), one value a row, a dispatch
  // constant.
  EXPECT_EQ(keys["bias"], "a_lcr0_add.0.1");
  EXPECT_EQ(keys["colbias"], "a_lc0_lc0_add.0.1_mul.3.2_tanh.4");
  EXPECT_EQ(keys["rowscale"], "a_lr0_div.0.1");
  EXPECT_EQ(keys["scaled"], "a_p0_mul.0.1");
  EXPECT_EQ(keys["halfbias"], "-");
  EXPECT_EQ(keys.size(), 9u);
  EXPECT_EQ(operands["bias"], 1u);
  EXPECT_EQ(operands["colbias"], 1u);
  EXPECT_EQ(operands["rowscale"], 1u);
  EXPECT_EQ(operands["scaled"], 1u);
  EXPECT_EQ(operands["mlp"], 0u);
}

} // namespace
} // namespace graft
