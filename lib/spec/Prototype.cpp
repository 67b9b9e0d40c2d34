// See Prototype.h. The C types follow what the call emitter passes
// (lib/codegen/CallEmitter.cpp): tensors as element pointers, const when the
// kernel only reads them; f16 and bf16 scalars widened to float; integer
// expressions as their cast type; memrefs expanded the way MLIR does.
#include "spec/Prototype.h"

#include <cctype>

namespace graft {

namespace {

const char *elementCType(DType t) {
  switch (t) {
  case DType::F16: return "_Float16";
  case DType::BF16: return "__bf16";
  case DType::F32: return "float";
  case DType::F64: return "double";
  case DType::I1: return "bool";
  case DType::I8: return "int8_t";
  case DType::I16: return "int16_t";
  case DType::I32: return "int32_t";
  case DType::I64: return "int64_t";
  default: return "intptr_t";
  }
}

KernelParam pointer(DType elem, bool isConst, std::string name, const std::string &source) {
  return {KernelParam::Kind::Pointer, 0,
          std::string(isConst ? "const " : "") + elementCType(elem) + " *", std::move(name),
          source};
}

KernelParam size(const TargetInfo &target, std::string name, const std::string &source) {
  return {KernelParam::Kind::Int, target.pointerBits(), "size_t", std::move(name), source};
}

// A scalar passed by value (f16/bf16 arrive as float, index as intptr_t).
KernelParam scalar(DType t, const TargetInfo &target, std::string name,
                   const std::string &source) {
  if (isFloat(t)) {
    bool dbl = t == DType::F64;
    return {KernelParam::Kind::Float, dbl ? 64u : 32u, dbl ? "double" : "float",
            std::move(name), source};
  }
  unsigned bits = t == DType::Index ? target.pointerBits()
                 : t == DType::I1   ? 1
                                    : dtypeSize(t) * 8;
  return {KernelParam::Kind::Int, bits, t == DType::Index ? "size_t" : elementCType(t),
          std::move(name), source};
}

} // namespace

KernelPrototype kernelPrototype(const KernelCall &plan, const TargetInfo &target) {
  KernelPrototype p;
  p.symbol = plan.symbol;
  p.includes = {"stdbool.h", "stddef.h", "stdint.h"};
  if (plan.form == KernelForm::Dispatch) {
    p.returnsInt = true;
    p.includes = {"graft/abi.h"};
    p.params.push_back({KernelParam::Kind::Pointer, 0, "const graft_dispatch_state_v1_t *",
                        "dispatch_state", ""});
    p.params.push_back({KernelParam::Kind::Pointer, 0, "const graft_workgroup_state_v1_t *",
                        "workgroup_state", ""});
    return p;
  }
  p.returnsInt = plan.returnsStatus;
  for (const KernelCallArg &a : plan.args) {
    // Inputs are read-only; outputs (in place or not) are written.
    bool isConst = a.result < 0;
    switch (a.kind) {
    case KernelCallArg::Kind::Buffer:
      p.params.push_back(pointer(a.type, isConst, a.name, a.text));
      break;
    case KernelCallArg::Kind::Memref:
      p.params.push_back(pointer(a.type, isConst, a.name + "_base", a.text));
      p.params.push_back(pointer(a.type, isConst, a.name + "_aligned", a.text));
      p.params.push_back(size(target, a.name + "_offset", a.text));
      for (unsigned d = 0; d < a.rank; ++d)
        p.params.push_back(size(target, a.name + "_size" + std::to_string(d), a.text));
      for (unsigned d = 0; d < a.rank; ++d)
        p.params.push_back(size(target, a.name + "_stride" + std::to_string(d), a.text));
      break;
    case KernelCallArg::Kind::Scalar:
      p.params.push_back(scalar(a.type, target, a.name, a.text));
      break;
    case KernelCallArg::Kind::Size:
    case KernelCallArg::Kind::PerWorkgroup:
      p.params.push_back(
          scalar(a.type, target, "arg" + std::to_string(p.params.size()), a.text));
      p.params.back().showSource = true;
      break;
    case KernelCallArg::Kind::ProcessorData:
      p.params.push_back({KernelParam::Kind::Pointer, 0, "const uint64_t *", "processor_data",
                          a.text});
      break;
    }
  }
  return p;
}

std::string formatPrototype(const KernelPrototype &p) {
  std::string s = std::string(p.returnsInt ? "int " : "void ") + p.symbol + "(";
  for (size_t i = 0; i < p.params.size(); ++i) {
    const KernelParam &k = p.params[i];
    s += (i ? ", " : "") + k.ctype + (k.ctype.back() == '*' ? "" : " ") + k.name;
    if (k.showSource)
      s += " /* " + k.source + " */";
  }
  if (p.params.empty())
    s += "void";
  return s + ");";
}

std::string describeParam(const KernelParam &p) {
  switch (p.kind) {
  case KernelParam::Kind::Pointer: return "a pointer";
  case KernelParam::Kind::Float: return p.bits == 64 ? "double" : "float";
  case KernelParam::Kind::Int: break;
  }
  return p.bits == 1 ? "bool" : "a " + std::to_string(p.bits) + "-bit integer";
}

} // namespace graft
