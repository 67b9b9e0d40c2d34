// Evaluator tests: each op against hand-computed results, the seed MLP, the
// C-semantics corner cases (wrapping, NaN in max, saturating casts, f32
// rounding) and the input / run-time shape errors.
#include "eval/Evaluator.h"
#include "graph/Parser.h"
#include "graph/Verifier.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace graft {
namespace {

struct Program {
  SourceManager sm;
  std::unique_ptr<DiagEngine> diag;
  std::unique_ptr<Module> module;
  const Function &fn() const { return *module->functions[0]; }
};

std::unique_ptr<Program> load(const std::string &text) {
  auto p = std::make_unique<Program>();
  uint32_t file = p->sm.add("e.graph", text);
  p->diag = std::make_unique<DiagEngine>(p->sm);
  p->diag->setEcho(false);
  p->module = parseModule(p->sm, file, *p->diag);
  EXPECT_FALSE(p->diag->hasErrors()) << p->diag->text();
  if (!p->diag->hasErrors()) {
    EXPECT_TRUE(verifyModule(*p->module, *p->diag)) << p->diag->text();
  }
  return p;
}

// A borrowed-style tensor over a copy of |values| (freed by Inputs).
template <typename T>
graft_tensor_t tensor(DType dt, std::vector<int64_t> dims, std::vector<T> values) {
  graft_tensor_t t;
  std::memset(&t, 0, sizeof t);
  t.dtype = static_cast<uint32_t>(dt);
  t.rank = static_cast<uint32_t>(dims.size());
  for (size_t i = 0; i < dims.size(); ++i)
    t.dims[i] = dims[i];
  t.size = values.size() * sizeof(T);
  t.data = std::malloc(t.size ? t.size : 1);
  if (t.size)
    std::memcpy(t.data, values.data(), t.size);
  return t;
}

// Runs and returns the outputs (freed at scope exit) or the error.
struct EvalRun {
  std::vector<graft_tensor_t> inputs, outputs;
  std::string error;
  bool ok = false;
  ~EvalRun() {
    for (auto &t : inputs)
      std::free(t.data);
    for (auto &t : outputs)
      std::free(t.data);
  }
  template <typename T> std::vector<T> values(size_t i) const {
    const T *p = static_cast<const T *>(outputs.at(i).data);
    return std::vector<T>(p, p + outputs.at(i).size / sizeof(T));
  }
  std::vector<int64_t> dims(size_t i) const {
    return std::vector<int64_t>(outputs.at(i).dims, outputs.at(i).dims + outputs.at(i).rank);
  }
};

void run(const std::string &text, EvalRun &r) {
  auto p = load(text);
  if (p->diag->hasErrors())
    return;
  r.ok = evaluate(p->fn(), r.inputs, r.outputs, r.error);
}

const char *kMlp = R"(func @mlp(%lhs: tensor<?x?xf32>, %rhs: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %cst = constant 0.0 : f32
  %m = dim %lhs {axis = 0} : index
  %n = dim %rhs {axis = 1} : index
  %empty = empty %m, %n : tensor<?x?xf32>
  %fill = fill %cst, %empty : tensor<?x?xf32>
  %mm = matmul %lhs, %rhs, %fill : tensor<?x?xf32>
  %relu = map %mm : tensor<?x?xf32> {
  ^bb0(%x: f32):
    %0 = max %x, %cst : f32
    yield %0
  }
  %neg = map %relu : tensor<?x?xf32> {
  ^bb0(%x: f32):
    %0 = neg %x : f32
    yield %0
  }
  return %neg
}
)";

TEST(Evaluator, Mlp) {
  EvalRun r;
  r.inputs.push_back(tensor<float>(DType::F32, {2, 2}, {2, 2, -2, -2}));
  r.inputs.push_back(tensor<float>(DType::F32, {2, 2}, {3, -3, 3, -3}));
  run(kMlp, r);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.dims(0), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(r.values<float>(0), (std::vector<float>{-12, -0.0f, -0.0f, -12}));
  EXPECT_EQ(r.outputs[0].dtype, static_cast<uint32_t>(DType::F32));
  EXPECT_EQ(r.outputs[0].owned, 1);
}

TEST(Evaluator, MlpNonSquare) {
  EvalRun r; // [1 2 3] x [[1 -1] [1 -1] [1 1]] = [6 0]; relu, neg -> [-6 -0]
  r.inputs.push_back(tensor<float>(DType::F32, {1, 3}, {1, 2, 3}));
  r.inputs.push_back(tensor<float>(DType::F32, {3, 2}, {1, -1, 1, -1, 1, 1}));
  run(kMlp, r);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.dims(0), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(r.values<float>(0), (std::vector<float>{-6, -0.0f}));
}

TEST(Evaluator, MlpShapeMismatchAtRunTime) {
  EvalRun r;
  r.inputs.push_back(tensor<float>(DType::F32, {2, 2}, {1, 2, 3, 4}));
  r.inputs.push_back(tensor<float>(DType::F32, {3, 1}, {1, 2, 3}));
  run(kMlp, r);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "'matmul' at line 7:9: inner dimensions differ: lhs has K = 2, rhs has K = 3");
}

TEST(Evaluator, InputChecks) {
  {
    EvalRun r;
    r.inputs.push_back(tensor<float>(DType::F32, {2, 2}, {1, 2, 3, 4}));
    run(kMlp, r);
    EXPECT_EQ(r.error, "'@mlp' expects 2 inputs, found 1");
  }
  {
    EvalRun r;
    r.inputs.push_back(tensor<float>(DType::F32, {2, 2}, {1, 2, 3, 4}));
    r.inputs.push_back(tensor<int32_t>(DType::I32, {2, 2}, {1, 2, 3, 4}));
    run(kMlp, r);
    EXPECT_EQ(r.error, "argument 2 (%rhs) has element type i32, expected f32");
  }
  {
    EvalRun r;
    r.inputs.push_back(tensor<float>(DType::F32, {4}, {1, 2, 3, 4}));
    r.inputs.push_back(tensor<float>(DType::F32, {2, 2}, {1, 2, 3, 4}));
    run(kMlp, r);
    EXPECT_EQ(r.error, "argument 1 (%lhs) has rank 1, expected 2 (tensor<?x?xf32>)");
  }
  {
    EvalRun r;
    r.inputs.push_back(tensor<float>(DType::F32, {3}, {1, 2, 3}));
    run("func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %a\n}\n", r);
    EXPECT_EQ(r.error, "argument 1 (%a) has dimension 0 of size 3, expected 4 (tensor<4xf32>)");
  }
  {
    EvalRun r;
    r.inputs.push_back(tensor<float>(DType::F32, {4}, {1, 2}));
    run("func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %a\n}\n", r);
    EXPECT_EQ(r.error, "argument 1 (%a) holds 8 bytes, expected 16");
  }
}

TEST(Evaluator, MatmulAccumulatesIntoAcc) {
  EvalRun r; // acc + a*b with acc = 10
  r.inputs.push_back(tensor<int32_t>(DType::I32, {2, 3}, {1, 2, 3, 4, 5, 6}));
  r.inputs.push_back(tensor<int32_t>(DType::I32, {3, 2}, {7, 8, 9, 10, 11, 12}));
  run(R"(func @f(%a: tensor<2x3xi32>, %b: tensor<3x2xi32>) -> tensor<2x2xi32> {
  %acc = constant 10 : tensor<2x2xi32>
  %r = matmul %a, %b, %acc : tensor<2x2xi32>
  return %r
}
)", r);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.values<int32_t>(0), (std::vector<int32_t>{68, 74, 149, 164}));
}

TEST(Evaluator, BatchMatmul) {
  EvalRun r;
  r.inputs.push_back(tensor<float>(DType::F32, {2, 1, 2}, {1, 2, 3, 4}));
  r.inputs.push_back(tensor<float>(DType::F32, {2, 2, 1}, {5, 6, 7, 8}));
  run(R"(func @f(%a: tensor<2x1x2xf32>, %b: tensor<2x2x1xf32>) -> tensor<2x1x1xf32> {
  %acc = constant 0.5 : tensor<2x1x1xf32>
  %r = batch_matmul %a, %b, %acc : tensor<2x1x1xf32>
  return %r
}
)", r);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.values<float>(0), (std::vector<float>{17.5f, 53.5f}));
}

TEST(Evaluator, LayoutOps) {
  EvalRun r;
  r.inputs.push_back(tensor<int32_t>(DType::I32, {2, 3}, {1, 2, 3, 4, 5, 6}));
  r.inputs.push_back(tensor<int64_t>(DType::Index, {}, {2}));
  run(R"(func @f(%a: tensor<2x3xi32>, %n: index) -> (tensor<3x2xi32>, tensor<?x2x3xi32>, tensor<3x?xi32>, tensor<2xi32>, tensor<3xi32>, tensor<i32>) {
  %t = transpose %a {perm = [1, 0]} : tensor<3x2xi32>
  %b = broadcast %a, %n {dims = [1, 2]} : tensor<?x2x3xi32>
  %r = reshape %a, %n : tensor<3x?xi32>
  %s = reduce %a {dims = [1], kind = sum} : tensor<2xi32>
  %m = reduce %a {dims = [0], kind = max} : tensor<3xi32>
  %p = reduce %a {dims = [0, 1], kind = prod} : tensor<i32>
  return %t, %b, %r, %s, %m, %p
}
)", r);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.values<int32_t>(0), (std::vector<int32_t>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(r.dims(1), (std::vector<int64_t>{2, 2, 3}));
  EXPECT_EQ(r.values<int32_t>(1), (std::vector<int32_t>{1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(r.dims(2), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(r.values<int32_t>(2), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(r.values<int32_t>(3), (std::vector<int32_t>{6, 15}));
  EXPECT_EQ(r.values<int32_t>(4), (std::vector<int32_t>{4, 5, 6}));
  EXPECT_EQ(r.values<int32_t>(5), (std::vector<int32_t>{720}));
  EXPECT_EQ(r.outputs[5].rank, 0u);
}

TEST(Evaluator, BroadcastInnerDim) {
  EvalRun r;
  r.inputs.push_back(tensor<float>(DType::F32, {2}, {1, 2}));
  run(R"(func @f(%a: tensor<2xf32>) -> tensor<2x3xf32> {
  %b = broadcast %a {dims = [0]} : tensor<2x3xf32>
  return %b
}
)", r);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.values<float>(0), (std::vector<float>{1, 1, 1, 2, 2, 2}));
}

TEST(Evaluator, ReshapeCountMismatchIsAnError) {
  EvalRun r;
  r.inputs.push_back(tensor<float>(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6}));
  r.inputs.push_back(tensor<int64_t>(DType::Index, {}, {4}));
  run("func @f(%a: tensor<2x3xf32>, %n: index) -> tensor<?xf32> {\n"
      "  %r = reshape %a, %n : tensor<?xf32>\n  return %r\n}\n", r);
  EXPECT_EQ(r.error, "'reshape' at line 2:8: cannot reshape [2, 3] (6 elements) to [4] (4 elements)");
}

TEST(Evaluator, ScalarOpsInF32AndWrappingInts) {
  EvalRun r;
  r.inputs.push_back(tensor<float>(DType::F32, {3}, {1e8f, 0.1f, -2.5f}));
  r.inputs.push_back(tensor<int8_t>(DType::I8, {3}, {127, -128, 7}));
  run(R"(func @f(%a: tensor<3xf32>, %b: tensor<3xi8>) -> (tensor<3xf32>, tensor<3xi8>, tensor<3xi8>, tensor<3xi8>, tensor<3xf32>) {
  %one = constant 1.0 : f32
  %m1 = constant -1 : i8
  %three = constant 3 : i8
  %x = map %a : tensor<3xf32> {
  ^bb0(%p: f32):
    %0 = add %p, %one : f32
    %1 = sub %0, %p : f32
    yield %1
  }
  %y = map %b : tensor<3xi8> {
  ^bb0(%p: i8):
    %0 = add %p, %p : i8
    yield %0
  }
  %z = map %b : tensor<3xi8> {
  ^bb0(%p: i8):
    %0 = div %p, %m1 : i8
    yield %0
  }
  %w = map %b : tensor<3xi8> {
  ^bb0(%p: i8):
    %0 = rem %p, %three : i8
    %1 = abs %0 : i8
    yield %1
  }
  %v = map %a : tensor<3xf32> {
  ^bb0(%p: f32):
    %0 = mul %p, %p : f32
    %1 = sqrt %0 : f32
    %2 = rsqrt %1 : f32
    yield %2
  }
  return %x, %y, %z, %w, %v
}
)", r);
  ASSERT_TRUE(r.ok) << r.error;
  // (1e8 + 1) - 1e8 is 0 in float (it would be 1 in double).
  std::vector<float> x = r.values<float>(0);
  EXPECT_EQ(x[0], 0.0f);
  EXPECT_EQ(x[1], (0.1f + 1.0f) - 0.1f);
  EXPECT_EQ(r.values<int8_t>(1), (std::vector<int8_t>{-2, 0, 14}));
  EXPECT_EQ(r.values<int8_t>(2), (std::vector<int8_t>{-127, -128, -7}));
  // Floor remainder: -128 = 3 * -43 + 1 (truncation would give -2).
  EXPECT_EQ(r.values<int8_t>(3), (std::vector<int8_t>{1, 1, 1}));
  std::vector<float> v = r.values<float>(4);
  EXPECT_EQ(v[2], 1.0f / std::sqrt(std::sqrt(-2.5f * -2.5f)));
}

TEST(Evaluator, MaxPropagatesNaNAndCastsSaturate) {
  float nan = std::nanf("");
  EvalRun r;
  r.inputs.push_back(tensor<float>(DType::F32, {5}, {nan, 3e9f, -3e9f, -1.9f, 2.5f}));
  run(R"(func @f(%a: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xi32>, tensor<5xi1>, tensor<5xf16>) {
  %zero = constant 0.0 : f32
  %m = map %a : tensor<5xf32> {
  ^bb0(%p: f32):
    %0 = max %p, %zero : f32
    yield %0
  }
  %c = map %a : tensor<5xi32> {
  ^bb0(%p: f32):
    %0 = cast %p : i32
    yield %0
  }
  %l = map %a : tensor<5xi1> {
  ^bb0(%p: f32):
    %0 = cmp %p, %zero {pred = lt} : i1
    yield %0
  }
  %h = map %a : tensor<5xf16> {
  ^bb0(%p: f32):
    %0 = cast %p : f16
    yield %0
  }
  return %m, %c, %l, %h
}
)", r);
  ASSERT_TRUE(r.ok) << r.error;
  std::vector<float> m = r.values<float>(0);
  EXPECT_TRUE(std::isnan(m[0]));
  EXPECT_EQ(m[1], 3e9f);
  EXPECT_EQ(m[3], 0.0f);
  EXPECT_EQ(r.values<int32_t>(1),
            (std::vector<int32_t>{0, INT32_MAX, INT32_MIN, -1, 2}));
  EXPECT_EQ(r.values<uint8_t>(2), (std::vector<uint8_t>{0, 0, 1, 1, 0}));
  // f16: 3e9 overflows to +inf (0x7c00), 2.5 is 0x4100, -1.9 rounds to 0xbf9a.
  std::vector<uint16_t> h = r.values<uint16_t>(3);
  EXPECT_EQ(h[1], 0x7c00);
  EXPECT_EQ(h[2], 0xfc00);
  EXPECT_EQ(h[3], 0xbf9a);
  EXPECT_EQ(h[4], 0x4100);
}

// Tensor element division never fails (graft/expr.h): floor division,
// x / 0 = 0 and x % 0 = x, the rule compiled code follows too.
TEST(Evaluator, IntegerDivisionIsFloorAndTotal) {
  EvalRun r;
  r.inputs.push_back(tensor<int32_t>(DType::I32, {4}, {-7, 7, -7, 5}));
  r.inputs.push_back(tensor<int32_t>(DType::I32, {4}, {2, -2, -2, 0}));
  run(R"(func @f(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %q = map %a, %b : tensor<4xi32> {
  ^bb0(%p: i32, %d: i32):
    %0 = div %p, %d : i32
    yield %0
  }
  %r = map %a, %b : tensor<4xi32> {
  ^bb0(%p: i32, %d: i32):
    %0 = rem %p, %d : i32
    yield %0
  }
  return %q, %r
}
)", r);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.values<int32_t>(0), (std::vector<int32_t>{-4, -4, 3, 0}));
  EXPECT_EQ(r.values<int32_t>(1), (std::vector<int32_t>{1, -1, -1, 5}));
}

// Function-level index arithmetic is the host program's: checked.
TEST(Evaluator, IndexArithmeticIsChecked) {
  EvalRun r;
  r.inputs.push_back(tensor<int64_t>(DType::Index, {}, {INT64_MAX}));
  run(R"(func @f(%n: index) -> index {
  %one = constant 1 : index
  %0 = add %n, %one : index
  return %0
}
)", r);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "'add' at line 3:8: 9223372036854775807 + 1 overflows 64 bits");

  EvalRun z;
  z.inputs.push_back(tensor<int64_t>(DType::Index, {}, {-7}));
  run(R"(func @f(%n: index) -> (index, index) {
  %two = constant 2 : index
  %zero = constant 0 : index
  %0 = div %n, %two : index
  %1 = rem %n, %zero : index
  return %0, %1
}
)", z);
  EXPECT_FALSE(z.ok);
  EXPECT_EQ(z.error, "'rem' at line 5:8: -7 % 0 divides by zero");
}

TEST(Evaluator, ShapeArithmeticAndSelect) {
  EvalRun r;
  r.inputs.push_back(tensor<float>(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6}));
  run(R"(func @f(%a: tensor<?x?xf32>) -> (tensor<?xf32>, index) {
  %m = dim %a {axis = 0} : index
  %n = dim %a {axis = 1} : index
  %mn = mul %m, %n : index
  %one = constant 1 : index
  %k = sub %mn, %one : index
  %lt = cmp %m, %n {pred = lt} : i1
  %sel = select %lt, %k, %one : index
  %flat = reshape %a, %mn : tensor<?xf32>
  return %flat, %sel
}
)", r);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.dims(0), (std::vector<int64_t>{6}));
  EXPECT_EQ(r.values<int64_t>(1), (std::vector<int64_t>{5}));
}

TEST(Evaluator, ConstantsAndFill) {
  EvalRun r;
  run(R"(func @f() -> (tensor<2x2xf16>, tensor<3xi64>, tensor<2xbf16>) {
  %c = constant [[1, 2], [0.5, -4]] : tensor<2x2xf16>
  %v = constant -7 : i64
  %e = empty : tensor<3xi64>
  %f = fill %v, %e : tensor<3xi64>
  %b = constant 1.5 : tensor<2xbf16>
  return %c, %f, %b
}
)", r);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.values<uint16_t>(0), (std::vector<uint16_t>{0x3c00, 0x4000, 0x3800, 0xc400}));
  EXPECT_EQ(r.values<int64_t>(1), (std::vector<int64_t>{-7, -7, -7}));
  EXPECT_EQ(r.values<uint16_t>(2), (std::vector<uint16_t>{0x3fc0, 0x3fc0}));
}

TEST(Evaluator, ReduceFloatInIndexOrder) {
  EvalRun r; // 1e8 + 1 + 1 + ... in float order stays 1e8; -1e8 last gives 0
  r.inputs.push_back(tensor<float>(DType::F32, {4}, {1e8f, 1, 1, -1e8f}));
  run(R"(func @f(%a: tensor<4xf32>) -> (tensor<f32>, tensor<f32>) {
  %s = reduce %a {dims = [0], kind = sum} : tensor<f32>
  %m = reduce %a {dims = [0], kind = min} : tensor<f32>
  return %s, %m
}
)", r);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.values<float>(0), (std::vector<float>{0.0f}));
  EXPECT_EQ(r.values<float>(1), (std::vector<float>{-1e8f}));
}

TEST(Evaluator, KernelCallIsRefused) {
  Program p;
  p.module = std::make_unique<Module>();
  p.module->functions.push_back(std::make_unique<Function>());
  Function &f = *p.module->functions[0];
  f.name = "k";
  Op *op = f.newOp(OpKind::KernelCall, SourceLoc{1, 3, 4});
  Value *v = f.newValue(Type::scalar(DType::F32), "r", SourceLoc{});
  v->def = op;
  op->results.push_back(v);
  f.ops.push_back(op);
  f.results.push_back(v);
  f.resultTypes.push_back(v->type);
  std::vector<graft_tensor_t> in, out;
  std::string error;
  EXPECT_FALSE(evaluate(f, in, out, error));
  EXPECT_EQ(error, "'kernel_call' at line 3:4: kernel calls cannot be run by the "
                   "reference evaluator; evaluate the graph before spec rewriting");
}

} // namespace
} // namespace graft
