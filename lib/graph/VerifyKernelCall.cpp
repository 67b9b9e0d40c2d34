// The verifier's rules for a direct call (`%r = kernel_call @k %a, %b, %n :
// T`, docs/graph-format.md): its operands against the kernel's declaration,
// then one `index` per '?' of the result, and the result type as declared.
// A kernel_call made by spec rewriting has no declaration: the rewriter
// built it from a verified match.
#include "graph/VerifierImpl.h"

namespace graft {

bool verifyKernelCall(const Op &op, VerifyContext &cx) {
  const KernelDecl *k = op.callee;
  if (!k)
    return true;
  static const char *const kNone[] = {nullptr};
  if (!checkAttrNames(op, kNone, cx))
    return false;
  std::string call = "kernel_call @" + k->name;
  auto declaredHere = [&] { cx.diag.note(k->loc, "kernel @" + k->name + " is declared here"); };
  size_t args = k->argTypes.size(), dims = k->dynamicResultDims();
  if (op.operands.size() != args + dims) {
    std::string want = std::to_string(args) + " argument" + (args == 1 ? "" : "s");
    if (dims)
      want += " and " + std::to_string(dims) + " index operand" + (dims == 1 ? "" : "s") +
              " for the '?' sizes of its result " + k->resultType.str();
    cx.error(op.loc, call + " takes " + want + ", found " + std::to_string(op.operands.size()) +
                         " operand" + (op.operands.size() == 1 ? "" : "s"));
    declaredHere();
    return false;
  }
  bool ok = true;
  for (size_t i = 0; i < args; ++i) {
    const Value *v = op.operands[i];
    if (castCompatible(k->argTypes[i], v->type))
      continue;
    cx.error(op.loc, call + " operand " + std::to_string(i + 1) + " (" + valueRef(v) + ") is " +
                         v->type.str() + ", but the kernel declares %" + k->argNames[i] + ": " +
                         k->argTypes[i].str());
    cx.diag.note(k->argLocs[i], "declared here");
    ok = false;
  }
  for (size_t i = args; i < args + dims; ++i) {
    const Value *v = op.operands[i];
    if (v->type == Type::scalar(DType::Index))
      continue;
    cx.error(op.loc, call + " operand " + std::to_string(i + 1) + " (" + valueRef(v) +
                         ") gives a '?' size of the result and must be index, found " +
                         v->type.str());
    ok = false;
  }
  const Type &result = op.results.at(0)->type;
  if (result != k->resultType) {
    cx.error(op.loc, call + " result type is " + result.str() + ", but the kernel returns " +
                         k->resultType.str());
    declaredHere();
    ok = false;
  }
  return ok;
}

} // namespace graft
