// Unit tests of the pieces of the ONNX importer that have rules of their
// own: numpy broadcasting of shapes, constant literals, name sanitizing,
// and that what the writer emits parses and verifies.
#include "graph/Parser.h"
#include "graph/Verifier.h"
#include "onnx/GraphWriter.h"
#include "onnx/OnnxTensor.h"

#include <gtest/gtest.h>

namespace graft::onnx_import {
namespace {

Shape shape(std::initializer_list<int64_t> dims, const std::string &src = "%t") {
  Shape s;
  unsigned i = 0;
  for (int64_t d : dims)
    s.push_back(DimRef{d, d == kDynamic ? src : "", i++, ""});
  return s;
}

std::vector<int64_t> sizes(const Shape &s) {
  std::vector<int64_t> v;
  for (const DimRef &d : s)
    v.push_back(d.size);
  return v;
}

TEST(BroadcastShape, NumpyRules) {
  Shape out;
  ASSERT_TRUE(GraphWriter::broadcastShape({shape({3, 4, 5}), shape({5})}, out));
  EXPECT_EQ(sizes(out), (std::vector<int64_t>{3, 4, 5}));
  ASSERT_TRUE(GraphWriter::broadcastShape({shape({3, 1}), shape({1, 4})}, out));
  EXPECT_EQ(sizes(out), (std::vector<int64_t>{3, 4}));
  ASSERT_TRUE(GraphWriter::broadcastShape({shape({}), shape({2, 2})}, out));
  EXPECT_EQ(sizes(out), (std::vector<int64_t>{2, 2}));
  EXPECT_FALSE(GraphWriter::broadcastShape({shape({3}), shape({4})}, out));
}

TEST(BroadcastShape, StaticSizePinsDynamic) {
  Shape out;
  ASSERT_TRUE(GraphWriter::broadcastShape({shape({kDynamic, 4}, "%a"), shape({3, 1})}, out));
  EXPECT_EQ(sizes(out), (std::vector<int64_t>{3, 4}));
  ASSERT_TRUE(GraphWriter::broadcastShape({shape({kDynamic, 4}, "%a"), shape({1, 4})}, out));
  EXPECT_EQ(out[0].size, kDynamic);
  EXPECT_EQ(out[0].src, "%a");
}

TEST(ConstTensor, Literals) {
  ConstTensor c;
  c.type = Type{"f32", {2, 2}, false};
  c.f = {1.0, -0.5, double(1e-5f), 3.0}; // f32 elements, decoded from floats
  EXPECT_EQ(c.constantText(), "constant [[1.0, -0.5], [9.99999975e-06, 3.0]]");
  c.f = {2.0, 2.0, 2.0, 2.0};
  EXPECT_EQ(c.constantText(), "constant 2.0");
  ConstTensor b;
  b.type = Type{"i1", {3}, false};
  b.i = {1, 0, 1};
  EXPECT_EQ(b.constantText(), "constant [true, false, true]");
  ConstTensor n;
  n.type = Type{"f64", {2}, false};
  n.f = {-1.0 / 0.0, 0.1};
  EXPECT_EQ(n.constantText(), "constant [-inf, 0.10000000000000001]");
}

TEST(SanitizeName, KeepsValidNames) {
  EXPECT_EQ(sanitizeName("input.1"), "input.1");
  EXPECT_EQ(sanitizeName("in:0"), "in_0");
  EXPECT_EQ(sanitizeName("onnx::Add_3"), "onnx__Add_3");
  EXPECT_EQ(sanitizeName(""), "v");
}

// A function written with the writer's helpers parses and verifies.
TEST(GraphWriter, EmitsValidGraph) {
  GraphWriter w;
  Value a{w.freshName("a"), Type{"f32", {kDynamic, 4}, false}, {}};
  Value b{w.freshName("b"), Type{"f32", {4}, false}, {}};
  Value two{"", Type{"f32", {}, false}, "2.0"};
  Value sum = w.elementwise(
      {a, b, two}, "f32",
      [](Body &body, const std::vector<std::string> &x) {
        std::string s = body.op("add " + x[0] + ", " + x[1], "f32");
        return body.op("mul " + s + ", " + x[2], "f32");
      },
      "sum");
  ASSERT_FALSE(sum.name.empty());
  Value r = w.reduce(sum, {1}, "max", "r");
  std::string text = "func @f(" + a.name + ": " + a.type.text() + ", " + b.name + ": " +
                     b.type.text() + ") -> " + r.type.text() + " {\n" + w.lines + "  return " +
                     r.name + "\n}\n";
  SourceManager sm;
  uint32_t file = sm.add("t.graph", text);
  DiagEngine diag(sm);
  diag.setEcho(false);
  std::unique_ptr<Module> m = parseModule(sm, file, diag);
  ASSERT_FALSE(diag.hasErrors()) << diag.text() << text;
  EXPECT_TRUE(verifyModule(*m, diag)) << diag.text() << text;
}

} // namespace
} // namespace graft::onnx_import
