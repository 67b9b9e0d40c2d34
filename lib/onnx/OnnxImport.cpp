// See OnnxImport.h. This file reads the model, checks what applies to the
// whole model (opset, inputs, outputs), binds inputs and initializers, and
// lowers the nodes in order (OnnxOps.cpp); the text is assembled last.
#include "onnx/OnnxImport.h"

#include "onnx/ConstantFold.h"
#include "onnx/ImportContext.h"

#include "graft/tensor.h"

#include <onnx/defs/schema.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace graft {

using namespace onnx_import;

namespace {

// ONNX opsets whose semantics the lowerings follow.
constexpr int64_t kMinOpset = 13, kMaxOpset = 17;

bool inputType(const onnx::ValueInfoProto &vi, Type &t, std::string &err) {
  if (!vi.type().has_tensor_type()) {
    const auto &ty = vi.type();
    err = std::string("is ") +
          (ty.has_sequence_type()   ? "a sequence"
           : ty.has_optional_type() ? "an optional"
           : ty.has_map_type()      ? "a map"
                                    : "not a tensor") +
          ", which is not supported (graft imports tensor inputs and outputs only)";
    return false;
  }
  const auto &tt = vi.type().tensor_type();
  std::string onnxName;
  t.elem = elemForOnnxType(tt.elem_type(), &onnxName);
  if (t.elem.empty()) {
    err = "has element type " + onnxName + ", which " + noElemTypeReason(tt.elem_type());
    return false;
  }
  if (!tt.has_shape()) {
    err = "has no shape; graft needs at least the rank";
    return false;
  }
  if (tt.shape().dim_size() > 8) {
    err = "has rank " + std::to_string(tt.shape().dim_size()) + ", above graft's limit of 8";
    return false;
  }
  for (const auto &d : tt.shape().dim()) {
    if (d.has_dim_value()) {
      if (d.dim_value() < 0 || d.dim_value() > (int64_t(1) << 32)) {
        err = "has dimension " + std::to_string(d.dim_value()) +
              "; graft sizes are 0 to 2^32";
        return false;
      }
      t.dims.push_back(d.dim_value());
    } else {
      t.dims.push_back(kDynamic); // a symbolic or unknown dim stays dynamic
    }
  }
  return true;
}

} // namespace

bool isOnnxPath(const std::string &path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
}

bool importOnnx(const std::string &path, const std::string &bytes,
                const OnnxImportOptions &opts, DiagEngine &diag, std::string &graphText) {
  onnx::ModelProto model;
  if (bytes.size() > size_t(INT32_MAX) || !model.ParseFromArray(bytes.data(), int(bytes.size()))) {
    diag.error(path, "not a valid ONNX model (the protobuf does not parse)");
    return false;
  }
  int64_t opset = -1;
  for (const auto &o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx")
      opset = o.version();
  const onnx::GraphProto &g = model.graph();
  ImportContext ctx(path, diag, opset);
  // Ops graft lacks come first: they say what to add, whatever the opset.
  if (!checkOpsKnown(ctx, g))
    return false;
  if (opset < 1) {
    diag.error(path, "the model imports no ai.onnx opset; graft imports opsets " +
                         std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset));
    return false;
  }
  if (opset < kMinOpset || opset > kMaxOpset) {
    // A model of another opset imports when each of its ops has the
    // definition it has in the supported range (the ONNX schema registry
    // says which version of an op an opset means), or an older one its
    // lowering also reads (oldestVersionRead: ctx.opset picks the form).
    int64_t ref = opset < kMinOpset ? kMinOpset : kMaxOpset;
    for (int k = 0; k < g.node_size(); ++k) {
      ctx.node = &g.node(k);
      ctx.nodeIndex = k;
      const std::string &op = ctx.node->op_type();
      const auto *used = onnx::OpSchemaRegistry::Schema(op, int(opset));
      const auto *known = onnx::OpSchemaRegistry::Schema(op, int(ref));
      if (!used)
        return ctx.fail("opset " + std::to_string(opset) + " has no op " + op);
      bool older = used->SinceVersion() < kMinOpset &&
                   used->SinceVersion() >= oldestVersionRead(op) && oldestVersionRead(op) > 0;
      if (!older && (!known || known->SinceVersion() != used->SinceVersion()))
        return ctx.fail("opset " + std::to_string(opset) + " is not supported: it means " + op +
                        "-" + std::to_string(used->SinceVersion()) + ", graft imports " +
                        (oldestVersionRead(op) > 0
                             ? op + "-" + std::to_string(oldestVersionRead(op)) + " to "
                             : std::string()) +
                        op + (known ? "-" + std::to_string(known->SinceVersion()) : std::string()) +
                        (oldestVersionRead(op) > 0 ? std::string()
                                                   : " (opsets " + std::to_string(kMinOpset) +
                                                         " to " + std::to_string(kMaxOpset) + ")"));
    }
  }

  // Values bound with --constant.
  std::map<std::string, ConstTensor> bound;
  for (const auto &[name, text] : opts.constants) {
    graft_tensor_t t{};
    graft_status_t st = graft_tensor_parse(text.c_str(), &t);
    if (st) {
      diag.error(path, "--constant " + name + ": " + graft_status_message(st));
      graft_status_free(st);
      return false;
    }
    bound[name] = constFromHost(t);
    graft_tensor_release(&t);
  }

  std::map<std::string, const onnx::TensorProto *> inits;
  for (const auto &t : g.initializer())
    inits[t.name()] = &t;

  // Arguments: graph inputs that are not initializers, then (with
  // weightsAsArguments) the initializers.
  std::string args;
  bool ok = true;
  auto addArg = [&](const std::string &name, const Type &t) {
    Value v{ctx.w.freshName(name), t, {}};
    ctx.values[name] = v;
    args += (args.empty() ? "" : ", ") + v.name + ": " + t.text();
  };
  for (const auto &vi : g.input()) {
    if (inits.count(vi.name()))
      continue;
    auto b = bound.find(vi.name());
    if (b != bound.end()) {
      ctx.constants[vi.name()] = b->second;
      bound.erase(b);
      continue;
    }
    Type t;
    std::string err;
    if (inputType(vi, t, err) && t.staticCount() == 0) {
      // Usable only as a shape operand bound with --constant.
      ctx.emptyInputs.insert(vi.name());
      continue;
    }
    if (!err.empty()) {
      diag.error(path, "graph input '" + vi.name() + "' " + err);
      ok = false;
      continue;
    }
    addArg(vi.name(), t);
  }
  for (const auto &[name, c] : bound) {
    diag.error(path, "--constant " + name + ": the graph has no input named '" + name + "'");
    ok = false;
  }
  for (const auto &t : g.initializer()) {
    ConstTensor c;
    std::string err;
    if (!decodeTensor(t, c, err)) {
      diag.error(path, "initializer '" + t.name() + "': " + err);
      ok = false;
      continue;
    }
    if (opts.weightsAsArguments && c.count() > 0)
      addArg(t.name(), c.type);
    else
      ctx.constants[t.name()] = std::move(c);
  }
  if (!ok)
    return false;

  for (int k = 0; k < g.node_size(); ++k) {
    ctx.node = &g.node(k);
    ctx.nodeIndex = k;
    if (!foldConstantNode(ctx) && !lowerNode(ctx))
      return false;
  }

  std::string returns, resultTypes;
  for (const auto &o : g.output()) {
    auto it = ctx.values.find(o.name());
    if (it == ctx.values.end() && ctx.constants.count(o.name()) &&
        ctx.constants[o.name()].count() == 0) {
      diag.error(path, "graph output '" + o.name() +
                           "' is an empty tensor; graft tensors have no zero sizes");
      return false;
    }
    if (it == ctx.values.end() && ctx.constants.count(o.name()))
      it = ctx.values.emplace(o.name(), ctx.constantValue(ctx.constants[o.name()], o.name()))
               .first;
    if (it == ctx.values.end()) {
      diag.error(path, "graph output '" + o.name() + "' is not computed by any node");
      return false;
    }
    returns += (returns.empty() ? "" : ", ") + it->second.name;
    resultTypes += (resultTypes.empty() ? "" : ", ") + it->second.type.text();
  }
  if (g.output_size() == 0) {
    diag.error(path, "the graph has no outputs");
    return false;
  }
  std::string fname = sanitizeName(g.name().empty() ? "main" : g.name());
  std::ostringstream os;
  os << "// Imported from " << path << " (ONNX opset " << opset << ")\n";
  os << "func @" << fname << "(" << args << ") -> ";
  if (g.output_size() == 1)
    os << resultTypes;
  else
    os << "(" << resultTypes << ")";
  os << " {\n" << ctx.w.lines << "  return " << returns << "\n}\n";
  graphText = os.str();
  return true;
}

bool importOnnxFile(const std::string &path, const OnnxImportOptions &opts, DiagEngine &diag,
                    std::string &graphText) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diag.error(path, "cannot read ONNX model: " + std::string(std::strerror(errno)));
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return importOnnx(path, ss.str(), opts, diag, graphText);
}

} // namespace graft
