// The state of one ONNX import, shared by the driver loop (OnnxImport.cpp)
// and the op lowerings (OnnxOps.cpp).
#pragma once

#include "onnx/GraphWriter.h"
#include "onnx/OnnxTensor.h"
#include "support/Diagnostics.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace graft::onnx_import {

class ImportContext {
public:
  ImportContext(const std::string &path, DiagEngine &diag, int64_t opset)
      : opset(opset), path_(path), diag_(diag) {}

  GraphWriter w;
  // The model's opset: which definition of an op applies where its
  // lowering reads more than one (oldestVersionRead).
  int64_t opset;

  // The node being lowered (for errors and hints).
  const onnx::NodeProto *node = nullptr;
  int nodeIndex = 0;

  // Reports "PATH: error: node N 'name' (Op): MSG"; returns false.
  bool fail(const std::string &msg);
  // The error for an op graft cannot express: names the graft op that is
  // missing, which the conformance runner tallies.
  bool unsupported(const std::string &missingGraftOp, const std::string &detail = "");
  // True when |v| has a float element type (f16, bf16, f32, f64); else
  // fails naming the type and the ones supported.
  bool needFloat(const Value &v);
  // True when |v| has rank |min| or more; else fails: "<what> must have
  // rank <min> or more (<layout>), has rank <r>" (no parentheses when
  // |layout| is empty).
  bool needRank(const Value &v, size_t min, const std::string &what = "the input",
                const std::string &layout = "");

  // ONNX tensor names -> graft values / known constant contents.
  std::map<std::string, Value> values;
  std::map<std::string, ConstTensor> constants;
  // Graph inputs with a zero-size dim: graft has no such tensors, so they
  // can only be bound with --constant (an empty axes list).
  std::set<std::string> emptyInputs;

  // Input |k| of the current node; fails (reported) when it is absent.
  bool input(size_t k, Value &out);
  bool hasInput(size_t k) const;
  // The constant contents of input |k| (what graft needs at build time);
  // fails naming the input when it is computed at run time.
  bool constantInput(size_t k, const char *role, ConstTensor &out);
  // Binds output |k| of the current node.
  void setOutput(size_t k, const Value &v);
  bool wantsOutput(size_t k) const;
  // Materialises |c| as a graft constant value.
  Value constantValue(const ConstTensor &c, const std::string &hint);

  // Attributes of the current node.
  const onnx::AttributeProto *attr(const char *name) const;
  int64_t attrInt(const char *name, int64_t dflt) const;
  float attrFloat(const char *name, float dflt) const;
  bool attrInts(const char *name, std::vector<int64_t> &out) const;
  // Fails naming the first attribute not in |known|.
  bool onlyAttrs(std::initializer_list<const char *> known);
  // A hint for names of values made for the current node.
  std::string hint() const;

  // Axis |a| of a rank-|rank| tensor (negative counts from the end); fails
  // when out of range.
  bool normAxis(int64_t a, size_t rank, int64_t &out, const char *what);

private:
  std::string path_;
  DiagEngine &diag_;
};

// Reports the first node whose op type has no lowering (naming the graft op
// it lacks where known); true when every op has one.
bool checkOpsKnown(ImportContext &ctx, const onnx::GraphProto &g);

// The oldest version of |op| (an ONNX since-version below 13) whose
// definition its lowering also reads, or 0 when it reads the opset-13 one
// only.
int oldestVersionRead(const std::string &op);

// Lowers the current node (ctx.node); false when it was reported.
bool lowerNode(ImportContext &ctx);

} // namespace graft::onnx_import
