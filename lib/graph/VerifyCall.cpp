// The verifier's rules for `call` (`%a, %b = call @f %x, %y : T, U`,
// docs/graph-format.md): one operand per argument of the callee, each
// accepted where the argument is declared (a '?' accepts any size, a static
// size needs the same static size), and the callee's result types exactly.
// Calls are inlined when building, so the call graph must be acyclic.
#include "graph/VerifierImpl.h"

#include <map>

namespace graft {

bool verifyCall(const Op &op, VerifyContext &cx) {
  const Function *f = op.func;
  if (!f)
    return true; // reported by the parser
  static const char *const kNone[] = {nullptr};
  if (!checkAttrNames(op, kNone, cx))
    return false;
  std::string call = "call @" + f->name;
  auto definedHere = [&] { cx.diag.note(f->loc, "function @" + f->name + " is defined here"); };
  if (op.operands.size() != f->args.size()) {
    cx.error(op.loc, call + " takes " + countOf(f->args.size(), "argument") + ", found " +
                         countOf(op.operands.size(), "operand"));
    definedHere();
    return false;
  }
  bool ok = true;
  for (size_t i = 0; i < f->args.size(); ++i) {
    const Value *v = op.operands[i], *arg = f->args[i];
    if (castCompatible(arg->type, v->type))
      continue;
    cx.error(op.loc, call + " operand " + std::to_string(i + 1) + " (" + valueRef(v) + ") is " +
                         v->type.str() + ", but @" + f->name + " declares %" + arg->name + ": " +
                         arg->type.str());
    cx.diag.note(arg->loc, "declared here");
    ok = false;
  }
  if (op.results.size() != f->resultTypes.size()) {
    cx.error(op.loc, call + " names " + countOf(op.results.size(), "result") + ", but @" +
                         f->name + " returns " + countOf(f->resultTypes.size(), "value"));
    definedHere();
    return false;
  }
  for (size_t i = 0; i < op.results.size(); ++i) {
    const Type &have = op.results[i]->type, &want = f->resultTypes[i];
    if (have == want)
      continue;
    cx.error(op.loc, call + " result " + std::to_string(i + 1) + " has type " + have.str() +
                         ", but @" + f->name + " returns " + want.str());
    definedHere();
    ok = false;
  }
  return ok;
}

// Depth-first over the calls, with an explicit stack (a file may chain
// many functions); a call reaching a function still on the stack closes a
// cycle, reported at that call with the path.
bool verifyCallGraph(const Module &m, VerifyContext &cx) {
  enum State { Unvisited, OnStack, Done };
  std::map<const Function *, State> state;
  struct Frame {
    const Function *f;
    size_t next; // the next op of f to look at
  };
  bool ok = true;
  for (const auto &root : m.functions) {
    if (state[root.get()] != Unvisited)
      continue;
    std::vector<Frame> stack{{root.get(), 0}};
    state[root.get()] = OnStack;
    while (!stack.empty()) {
      Frame &top = stack.back();
      if (top.next == top.f->ops.size()) {
        state[top.f] = Done;
        stack.pop_back();
        continue;
      }
      const Op *op = top.f->ops[top.next++];
      if (op->kind != OpKind::Call || !op->func)
        continue;
      State s = state[op->func];
      if (s == Unvisited) {
        state[op->func] = OnStack;
        stack.push_back({op->func, 0});
      } else if (s == OnStack) {
        std::string path;
        bool in = false;
        for (const Frame &fr : stack) {
          in = in || fr.f == op->func;
          if (in)
            path += "@" + fr.f->name + " calls ";
        }
        cx.error(op->loc, "call @" + op->func->name + " is recursive: " + path + "@" +
                              op->func->name + "; calls are inlined when building, so a "
                                               "function cannot reach itself");
        ok = false;
      }
    }
  }
  return ok;
}

} // namespace graft
