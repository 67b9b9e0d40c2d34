// See ImportContext.h.
#include "onnx/ImportContext.h"

namespace graft::onnx_import {

std::string ImportContext::hint() const {
  if (node && node->output_size() > 0 && !node->output(0).empty())
    return node->output(0);
  return node ? node->op_type() : "v";
}

bool ImportContext::needFloat(const Value &v) {
  const std::string &t = v.type.elem;
  if (!t.empty() && (t[0] == 'f' || t == "bf16"))
    return true;
  return fail("element type " + t + " is not supported (float types only: f16, bf16, f32, f64)");
}

bool ImportContext::needRank(const Value &v, size_t min, const std::string &what,
                             const std::string &layout) {
  if (v.type.rank() >= min)
    return true;
  return fail(what + " must have rank " + std::to_string(min) + " or more" +
              (layout.empty() ? "" : " (" + layout + ")") + ", has rank " +
              std::to_string(v.type.rank()));
}

bool ImportContext::fail(const std::string &msg) {
  std::string where = "node " + std::to_string(nodeIndex);
  if (node && !node->name().empty())
    where += " '" + node->name() + "'";
  where += " (" + (node ? node->op_type() : std::string("?")) + ")";
  diag_.error(path_, where + ": " + msg);
  return false;
}

bool ImportContext::unsupported(const std::string &missingGraftOp, const std::string &detail) {
  return fail("not supported: graft has no '" + missingGraftOp + "' op" +
              (detail.empty() ? "" : " (" + detail + ")"));
}

bool ImportContext::hasInput(size_t k) const {
  return int(k) < node->input_size() && !node->input(int(k)).empty();
}

bool ImportContext::input(size_t k, Value &out) {
  if (!hasInput(k))
    return fail("input " + std::to_string(k) + " is missing");
  const std::string &name = node->input(int(k));
  auto it = values.find(name);
  if (it != values.end()) {
    out = it->second;
    return true;
  }
  auto c = constants.find(name);
  if (c == constants.end() && emptyInputs.count(name))
    return fail("input '" + name + "' has a zero-size dimension, which graft tensors do not have");
  if (c == constants.end())
    return fail("input '" + name + "' is not defined before this node");
  if (c->second.count() == 0)
    return fail("input '" + name + "' is an empty tensor; graft tensors have no zero sizes");
  out = constantValue(c->second, name);
  values[name] = out;
  return true;
}

bool ImportContext::constantInput(size_t k, const char *role, ConstTensor &out) {
  if (!hasInput(k))
    return fail(std::string("input ") + std::to_string(k) + " (" + role + ") is missing");
  const std::string &name = node->input(int(k));
  auto c = constants.find(name);
  if (c == constants.end())
    return fail(std::string("input '") + name + "' (" + role +
                ") must be a constant: graft needs it when building; make it an initializer "
                "or bind it with --constant " +
                name + "=VALUE");
  out = c->second;
  return true;
}

bool ImportContext::wantsOutput(size_t k) const {
  return int(k) < node->output_size() && !node->output(int(k)).empty();
}

void ImportContext::setOutput(size_t k, const Value &v) {
  if (wantsOutput(k))
    values[node->output(int(k))] = v;
}

Value ImportContext::constantValue(const ConstTensor &c, const std::string &hint) {
  // Callers check for zero-size constants first (graft has no empty tensors).
  Value v = w.emit(hint, c.constantText(), c.type);
  if (c.count() == 1)
    v.splat = c.literal(0);
  return v;
}

const onnx::AttributeProto *ImportContext::attr(const char *name) const {
  for (const auto &a : node->attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t ImportContext::attrInt(const char *name, int64_t dflt) const {
  const auto *a = attr(name);
  return a ? a->i() : dflt;
}

float ImportContext::attrFloat(const char *name, float dflt) const {
  const auto *a = attr(name);
  return a ? a->f() : dflt;
}

bool ImportContext::attrInts(const char *name, std::vector<int64_t> &out) const {
  const auto *a = attr(name);
  if (!a)
    return false;
  out.assign(a->ints().begin(), a->ints().end());
  return true;
}

bool ImportContext::onlyAttrs(std::initializer_list<const char *> known) {
  for (const auto &a : node->attribute()) {
    bool ok = false;
    for (const char *k : known)
      ok = ok || a.name() == k;
    if (!ok) {
      std::string list;
      for (const char *k : known)
        list += std::string(list.empty() ? "" : ", ") + k;
      return fail("attribute '" + a.name() + "' is not supported" +
                  (list.empty() ? std::string(" (the op takes none)")
                                : " (supported: " + list + ")"));
    }
  }
  return true;
}

bool ImportContext::normAxis(int64_t a, size_t rank, int64_t &out, const char *what) {
  int64_t r = int64_t(rank);
  if (a < -r || (a >= r && !(rank == 0 && a == 0)))
    return fail(std::string(what) + " " + std::to_string(a) + " is out of range for rank " +
                std::to_string(rank));
  out = a < 0 ? a + r : a;
  return true;
}

} // namespace graft::onnx_import
