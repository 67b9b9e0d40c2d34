// The list of targets, in the order of Targets.def (which is the order of
// slices in a bundle).
#include "Target.h"


namespace graft {

#define GRAFT_TARGET(name) extern const TargetInfo name##Target;
#include "Targets.def"
#undef GRAFT_TARGET

static std::vector<const TargetInfo *> &registry() {
  static std::vector<const TargetInfo *> targets = {
#define GRAFT_TARGET(name) &name##Target,
#include "Targets.def"
#undef GRAFT_TARGET
  };
  return targets;
}

const std::vector<const TargetInfo *> &allTargets() { return registry(); }

const TargetInfo *lookupTarget(const std::string &name) {
  for (const TargetInfo *t : registry())
    if (name == t->name)
      return t;
  return nullptr;
}

const TargetInfo *hostTarget() {
#if defined(__x86_64__)
  return lookupTarget("x86_64");
#elif defined(__aarch64__)
  return lookupTarget("aarch64");
#elif defined(__riscv) && __riscv_xlen == 64
  return lookupTarget("riscv64");
#else
  return nullptr;
#endif
}

std::string targetNames() {
  std::string s;
  for (const TargetInfo *t : registry()) {
    if (!s.empty())
      s += ", ";
    s += t->name;
  }
  return s;
}

} // namespace graft
