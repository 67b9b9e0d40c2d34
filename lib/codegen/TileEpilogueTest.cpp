// Which packed-matmul epilogues the microkernel applies itself
// (TileEpilogue.h): those computed from the sum and constants by exact f32
// operations, spelt out in a key that names the microkernel; anything else
// (an approximated function, another input, a dispatch constant) keeps the
// dispatch's scalar pass.
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

TEST(TileEpilogue, ExactConstantEpiloguesOnly) {
  const FeatureLevel *level = nullptr;
  for (const TargetInfo *t : allTargets())
    for (const FeatureLevel &l : t->levels)
      if (std::string(l.name) == "x86-64-v4")
        level = &l;
  ASSERT_TRUE(level);
  ProgramSet set = formForTest(*level, kGraph);
  // Function name -> the key of its packed matmul's epilogue ("-": none).
  std::map<std::string, std::string> keys;
  for (const Dispatch &d : set.dispatches) {
    if (d.isCall || !d.loop.packed.mr || d.loop.packed.packOnly)
      continue;
    std::optional<codegen::TileEpilogue> e = codegen::tileEpilogue(d.loop);
    keys[d.name.substr(0, d.name.find("_dispatch"))] = e ? e->key : "-";
    if (e) {
      EXPECT_EQ(e->identity(), e->key == "a") << d.name;
    }
  }
  EXPECT_EQ(keys["plain"], "a");
  EXPECT_EQ(keys["mlp"], "a_c0_max.0.1_neg.2");
  EXPECT_EQ(keys["exact"], "a_sqrt.0_c3f000000_cmpgt.0.2_c3f000000_select.3.1.4");
  EXPECT_EQ(keys["approx"], "-");
  EXPECT_EQ(keys["bias"], "-");
  EXPECT_EQ(keys["scaled"], "-");
  EXPECT_EQ(keys.size(), 6u);
}

} // namespace
} // namespace graft
