// See ConstantFold.h.
#include "onnx/ConstantFold.h"

#include "eval/Evaluator.h"
#include "graft/tensor.h"
#include "graph/Parser.h"
#include "graph/Verifier.h"
#include "ir/SliceBounds.h"

#include <limits>

namespace graft::onnx_import {

namespace {

// Operands above this many elements are left to the compiled graph: the
// evaluator runs one element at a time, and shape arithmetic is small.
constexpr size_t kMaxFoldElements = size_t(1) << 16;

// Ops that already produce constants themselves, or must not be folded.
bool neverFolds(const std::string &op) {
  return op == "Constant" || op == "ConstantOfShape" || op == "Shape" || op == "Size";
}

// The node's present inputs, when every one is a known constant of
// bounded size.
bool constantOperands(const ImportContext &ctx, std::vector<const ConstTensor *> &out) {
  size_t total = 0;
  for (int k = 0; k < ctx.node->input_size(); ++k) {
    if (ctx.node->input(k).empty()) {
      out.push_back(nullptr);
      continue;
    }
    auto c = ctx.constants.find(ctx.node->input(k));
    if (c == ctx.constants.end())
      return false;
    total += c->second.count();
    out.push_back(&c->second);
  }
  return total <= kMaxFoldElements && !out.empty();
}

// Slice of a 1-D integer constant whose result is empty (the prefix of a
// shape before axis 0): graft tensors have no zero sizes, so the evaluator
// cannot produce it. Python's slice rules (ir/SliceBounds.h).
bool foldEmptySlice(ImportContext &ctx, const std::vector<const ConstTensor *> &in) {
  if (ctx.node->op_type() != "Slice" || in.size() < 3 || !in[0] || !in[1] || !in[2])
    return false;
  const ConstTensor &x = *in[0];
  if (x.type.rank() != 1 || in[1]->i.size() != 1 || in[2]->i.size() != 1)
    return false;
  if (in.size() > 3 && in[3] && (in[3]->i.size() != 1 || (in[3]->i[0] != 0 && in[3]->i[0] != -1)))
    return false;
  int64_t step = in.size() > 4 && in[4] ? (in[4]->i.size() == 1 ? in[4]->i[0] : 0) : 1;
  if (step == 0)
    return false;
  int64_t n = x.type.dims[0];
  if (sliceBounds(in[1]->i[0], in[2]->i[0], step, n).count != 0)
    return false;
  ConstTensor empty;
  empty.type.elem = x.type.elem;
  empty.type.dims = {0};
  ctx.constants[ctx.node->output(0)] = empty;
  return true;
}

// Runs |lines| (what the scratch lowering emitted) returning |results| with
// the evaluator; the results become constants.
bool evaluateLines(const std::string &lines, const std::vector<Value> &results,
                   std::vector<ConstTensor> &out) {
  std::string types, names;
  for (const Value &v : results) {
    types += (types.empty() ? "" : ", ") + v.type.text();
    names += (names.empty() ? "" : ", ") + v.name;
  }
  std::string text = "func @fold() -> (" + types + ") {\n" + lines + "  return " + names + "\n}\n";
  SourceManager sm;
  uint32_t file = sm.add("<constant fold>", text);
  DiagEngine diag(sm);
  diag.setEcho(false);
  std::unique_ptr<Module> m = parseModule(sm, file, diag);
  if (diag.hasErrors() || !m || !verifyModule(*m, diag) || m->functions.size() != 1)
    return false;
  std::vector<graft_tensor_t> outputs;
  std::string error;
  if (!evaluate(*m->functions[0], {}, outputs, error))
    return false;
  for (graft_tensor_t &t : outputs) {
    out.push_back(constFromHost(t));
    graft_tensor_release(&t);
  }
  return true;
}

} // namespace

bool foldConstantNode(ImportContext &ctx) {
  const std::string &op = ctx.node->op_type();
  std::vector<const ConstTensor *> in;
  if (neverFolds(op) || ctx.node->output_size() == 0 || !constantOperands(ctx, in))
    return false;
  if (foldEmptySlice(ctx, in))
    return true;

  // Lower the node alone over its constant operands, with errors kept.
  SourceManager sm;
  DiagEngine quiet(sm);
  quiet.setEcho(false);
  ImportContext scratch("<constant fold>", quiet, ctx.opset);
  scratch.node = ctx.node;
  scratch.nodeIndex = ctx.nodeIndex;
  for (int k = 0; k < ctx.node->input_size(); ++k)
    if (in[size_t(k)])
      scratch.constants[ctx.node->input(k)] = *in[size_t(k)];
  if (!lowerNode(scratch))
    return false;

  std::vector<std::string> outNames;
  std::vector<Value> results;
  std::map<std::string, ConstTensor> known;
  for (int k = 0; k < ctx.node->output_size(); ++k) {
    const std::string &name = ctx.node->output(k);
    if (name.empty())
      continue;
    auto c = scratch.constants.find(name);
    auto v = scratch.values.find(name);
    if (c != scratch.constants.end() && v == scratch.values.end()) {
      known[name] = c->second; // the lowering folded it itself
      continue;
    }
    if (v == scratch.values.end())
      return false;
    outNames.push_back(name);
    results.push_back(v->second);
  }
  std::vector<ConstTensor> values;
  if (!results.empty() && !evaluateLines(scratch.w.lines, results, values))
    return false;
  for (size_t k = 0; k < values.size(); ++k)
    known[outNames[k]] = std::move(values[k]);
  for (auto &[name, c] : known)
    ctx.constants[name] = std::move(c);
  return true;
}

} // namespace graft::onnx_import
