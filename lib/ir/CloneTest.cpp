// A clone is the same function (it prints the same, with the same source
// locations and kernel-call links) and shares nothing mutable with its
// original: editing either leaves the other's printed form as it was.
#include "ir/Clone.h"
#include "ir/Inline.h"

#include "graph/Parser.h"
#include "graph/Verifier.h"
#include "spec/Rewriter.h"
#include "spec/SpecLoader.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

namespace graft {
namespace {

std::string sourceDir() {
  const char *d = std::getenv("GRAFT_SOURCE_DIR");
  return d ? d : GRAFT_TEST_SOURCE_DIR;
}

std::string readFile(const std::string &path) {
  std::ifstream in(sourceDir() + "/" + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Parsed {
  SourceManager sm;
  DiagEngine diag{sm};
  std::unique_ptr<Module> module;
};

std::unique_ptr<Parsed> parseVerified(const std::string &name, const std::string &text) {
  auto p = std::make_unique<Parsed>();
  p->diag.setEcho(false);
  uint32_t file = p->sm.add(name, text);
  p->module = parseModule(p->sm, file, p->diag);
  EXPECT_TRUE(p->module && verifyModule(*p->module, p->diag)) << p->diag.text();
  return p;
}

// Two functions and a map body that captures a function-level value.
const char *kGraph = R"(func @f(%x: tensor<2x?xf32>, %s: f32) -> tensor<2x?xf32> {
  %n = dim %x {axis = 1} : index
  %c = constant [[1.0, 2.0], [3.0, 4.0]] : tensor<2x2xf32>
  %y = map %x : tensor<2x?xf32> {
  ^bb0(%a: f32):
    %0 = mul %a, %s : f32
    %1 = max %0, %s : f32
    yield %1
  }
  return %y
}

func @g(%a: index) -> index {
  %c2 = constant 2 : index
  %b = mul %a, %c2 : index
  return %b
}
)";

// A location as "file:line:col", comparable and printable.
std::string at(SourceLoc l) {
  return std::to_string(l.file) + ":" + std::to_string(l.line) + ":" + std::to_string(l.col);
}

// Every object the function's stores own.
std::set<const void *> owned(const Function &f) {
  std::set<const void *> out;
  for (const auto &v : f.valueStore)
    out.insert(v.get());
  for (const auto &o : f.opStore) {
    out.insert(o.get());
    out.insert(o->region.get());
  }
  for (const auto &r : f.regionStore)
    out.insert(r.get());
  out.erase(nullptr);
  return out;
}

// Walks |a| and |b| in parallel: same kinds, names, types, locations, and
// every pointer of |b| into |b|'s own objects.
void expectSameStructure(const Function &a, const Function &b) {
  std::set<const void *> mine = owned(b);
  auto sameValue = [&](const Value *x, const Value *y) {
    ASSERT_EQ(x == nullptr, y == nullptr);
    if (!x)
      return;
    EXPECT_TRUE(mine.count(y)) << "%" << y->name << " is not the clone's own";
    EXPECT_EQ(x->name, y->name);
    EXPECT_EQ(x->type, y->type);
    EXPECT_EQ(at(x->loc), at(y->loc)) << "%" << x->name;
    EXPECT_EQ(x->argIndex, y->argIndex);
    EXPECT_EQ(x->def == nullptr, y->def == nullptr);
    EXPECT_EQ(x->region == nullptr, y->region == nullptr);
  };
  std::function<void(const Op &, const Op &)> sameOp = [&](const Op &x, const Op &y) {
    EXPECT_TRUE(mine.count(&y));
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(at(x.loc), at(y.loc)) << opName(x.kind);
    EXPECT_EQ(x.call, y.call);
    ASSERT_EQ(x.operands.size(), y.operands.size());
    for (size_t i = 0; i < x.operands.size(); ++i)
      sameValue(x.operands[i], y.operands[i]);
    ASSERT_EQ(x.results.size(), y.results.size());
    for (size_t i = 0; i < x.results.size(); ++i) {
      sameValue(x.results[i], y.results[i]);
      EXPECT_EQ(y.results[i]->def, &y);
    }
    EXPECT_EQ(x.func == nullptr, y.func == nullptr);
    if (y.func) {
      EXPECT_NE(x.func, y.func) << "a call of the clone calls the original";
      EXPECT_EQ(x.func->name, y.func->name);
    }
    EXPECT_EQ(x.fallbackFor == nullptr, y.fallbackFor == nullptr);
    if (y.fallbackFor) {
      EXPECT_TRUE(mine.count(y.fallbackFor));
    }
    ASSERT_EQ(x.region == nullptr, y.region == nullptr);
    if (!x.region)
      return;
    EXPECT_EQ(at(x.region->yieldLoc), at(y.region->yieldLoc));
    sameValue(x.region->yield, y.region->yield);
    ASSERT_EQ(x.region->args.size(), y.region->args.size());
    for (size_t i = 0; i < x.region->args.size(); ++i) {
      sameValue(x.region->args[i], y.region->args[i]);
      EXPECT_EQ(y.region->args[i]->region, y.region.get());
    }
    ASSERT_EQ(x.region->ops.size(), y.region->ops.size());
    for (size_t i = 0; i < x.region->ops.size(); ++i)
      sameOp(*x.region->ops[i], *y.region->ops[i]);
  };
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(at(a.loc), at(b.loc));
  EXPECT_EQ(at(a.returnLoc), at(b.returnLoc));
  ASSERT_EQ(a.args.size(), b.args.size());
  for (size_t i = 0; i < a.args.size(); ++i)
    sameValue(a.args[i], b.args[i]);
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t i = 0; i < a.ops.size(); ++i)
    sameOp(*a.ops[i], *b.ops[i]);
  ASSERT_EQ(a.results.size(), b.results.size());
  for (size_t i = 0; i < a.results.size(); ++i)
    sameValue(a.results[i], b.results[i]);
  // Store order is kept: passes that walk a store see the same sequence.
  ASSERT_EQ(a.valueStore.size(), b.valueStore.size());
  for (size_t i = 0; i < a.valueStore.size(); ++i)
    EXPECT_EQ(a.valueStore[i]->name, b.valueStore[i]->name);
  ASSERT_EQ(a.opStore.size(), b.opStore.size());
}

void expectSameModule(const Module &a, const Module &b) {
  EXPECT_EQ(printModule(a), printModule(b));
  ASSERT_EQ(a.functions.size(), b.functions.size());
  for (size_t i = 0; i < a.functions.size(); ++i)
    expectSameStructure(*a.functions[i], *b.functions[i]);
}

TEST(Clone, SameFunctionsSameLocations) {
  for (const char *path : {"tests/e2e/inputs/all_ops.graph", "tests/e2e/inputs/mlp.graph",
                           "tests/e2e/inputs/data_movement.graph",
                           "tests/diff/graphs/split_call.graph"}) {
    SCOPED_TRACE(path);
    auto p = parseVerified(path, readFile(path));
    ASSERT_TRUE(p->module);
    std::unique_ptr<Module> copy = cloneModule(*p->module);
    expectSameModule(*p->module, *copy);
    // A clone verifies as its original did.
    EXPECT_TRUE(verifyModule(*copy, p->diag)) << p->diag.text();
  }
}

TEST(Clone, EditingTheCloneLeavesTheOriginal) {
  auto p = parseVerified("t.graph", kGraph);
  ASSERT_TRUE(p->module);
  const std::string before = printModule(*p->module);
  std::unique_ptr<Module> copy = cloneModule(*p->module);
  Function &f = *copy->functions[0];
  f.args[0]->name = "renamed";
  f.args[0]->type.dims[1] = 7;
  f.ops[0]->attrs[0].value.i = 0;
  f.ops[1]->constant.bytes[0] ^= 0xff;
  Op &map = *f.ops[2];
  map.region->ops[1]->kind = OpKind::Min;
  map.region->yield = map.region->ops[0]->result();
  map.region->args[0]->name = "b";
  f.name = "h";
  copy->functions[1]->ops.clear();
  copy->functions[1]->results = {copy->functions[1]->args[0]};
  std::string edited = printModule(*copy);
  EXPECT_NE(edited, before);
  EXPECT_NE(edited.find("%renamed"), std::string::npos) << edited;
  EXPECT_NE(edited.find("min %0, %s"), std::string::npos) << edited;
  EXPECT_EQ(printModule(*p->module), before);
}

TEST(Clone, EditingTheOriginalLeavesTheClone) {
  auto p = parseVerified("t.graph", kGraph);
  ASSERT_TRUE(p->module);
  std::unique_ptr<Module> copy = cloneModule(*p->module);
  const std::string before = printModule(*copy);
  Function &f = *p->module->functions[0];
  f.ops[2]->region->ops[0]->operands[1] = f.ops[2]->region->args[0];
  f.ops[0]->results[0]->name = "m";
  p->module->functions.pop_back();
  EXPECT_NE(printModule(*p->module), before);
  EXPECT_EQ(printModule(*copy), before);
}

// A rewritten function: kernel calls keep their (shared, immutable) plan and
// the fallback ops of an optional import point to the clone's own call.
TEST(Clone, KernelCallsAndFallbacks) {
  auto p = parseVerified("mlp.graph", readFile("specs/mlp_optional/mlp.graph"));
  ASSERT_TRUE(p->module);
  SpecSet specs;
  ASSERT_TRUE(loadSpecFile(sourceDir() + "/specs/mlp_optional/mlp_optional.yaml", p->sm,
                           p->diag, specs))
      << p->diag.text();
  const std::string asRead = printModule(*p->module);
  std::unique_ptr<Module> lowered = cloneModule(*p->module);
  ASSERT_EQ(applySpecs(*lowered, specs, "x86_64", p->diag, nullptr), 1u) << p->diag.text();
  EXPECT_EQ(printModule(*p->module), asRead) << "rewriting a clone changed the original";

  std::unique_ptr<Module> copy = cloneModule(*lowered);
  expectSameModule(*lowered, *copy);
  const Function &a = *lowered->functions[0];
  const Function &b = *copy->functions[0];
  unsigned fallbacks = 0;
  for (size_t i = 0; i < a.opStore.size(); ++i) {
    const Op *fa = a.opStore[i]->fallbackFor;
    if (!fa)
      continue;
    ++fallbacks;
    // The same call, by position in the store, in the clone's own ops.
    size_t at = 0;
    while (at < a.opStore.size() && a.opStore[at].get() != fa)
      ++at;
    ASSERT_LT(at, b.opStore.size());
    EXPECT_EQ(b.opStore[i]->fallbackFor, b.opStore[at].get());
    EXPECT_EQ(b.opStore[at]->kind, OpKind::KernelCall);
  }
  EXPECT_GT(fallbacks, 0u) << printModule(*lowered);
}

// Inlining copies the callee (and its callees) into the caller: no call is
// left, the original callee is unchanged, and the caller verifies.
TEST(Inline, NestedCallsAndSeveralResults) {
  const char *path = "tests/diff/graphs/split_call.graph";
  auto p = parseVerified(path, readFile(path));
  ASSERT_TRUE(p->module);
  std::unique_ptr<Module> copy = cloneModule(*p->module);
  Function *caller = copy->lookup("calls_pair");
  ASSERT_TRUE(caller);
  const std::string pair = printFunction(*copy->lookup("pair"));
  EXPECT_EQ(inlineCalls(*caller), 2u); // @pair, then @twice5 inside it
  for (const Op *op : caller->ops)
    EXPECT_NE(op->kind, OpKind::Call) << printFunction(*caller);
  std::string text = printFunction(*caller);
  EXPECT_NE(text.find("= tile "), std::string::npos) << text;
  EXPECT_NE(text.find("= pad "), std::string::npos) << text;
  // @pair returns its argument %s: the caller returns its own argument.
  EXPECT_EQ(caller->results[0], caller->args[0]) << text;
  EXPECT_EQ(printFunction(*copy->lookup("pair")), pair);
  EXPECT_TRUE(verifyFunction(*caller, p->diag)) << p->diag.text() << text;
  // The inlined function clones like any other.
  expectSameStructure(*caller, *cloneFunction(*caller));
}

} // namespace
} // namespace graft
