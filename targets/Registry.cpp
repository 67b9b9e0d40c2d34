// The list of targets, in the order of Targets.def (which is the order of
// slices in a bundle), and the facts derived from a target's data.
#include "Target.h"

#include <algorithm>
#include <cassert>

namespace graft {

#define GRAFT_TARGET(name) extern const TargetInfo name##Target;
#include "Targets.def"
#undef GRAFT_TARGET

const std::vector<const TargetInfo *> &allTargets() {
  static const std::vector<const TargetInfo *> targets = {
#define GRAFT_TARGET(name) &name##Target,
#include "Targets.def"
#undef GRAFT_TARGET
  };
  return targets;
}

const TargetInfo *lookupTarget(const std::string &name) {
  for (const TargetInfo *t : allTargets()) {
    if (name == t->name)
      return t;
    for (const char *alias : t->aliases)
      if (name == alias)
        return t;
  }
  return nullptr;
}

const TargetInfo *lookupTargetByMachine(uint16_t machine) {
  for (const TargetInfo *t : allTargets())
    if (t->elfMachine == machine)
      return t;
  return nullptr;
}

const TargetInfo *hostTarget() {
  for (const TargetInfo *t : allTargets())
    if (t->isHost)
      return t;
  return nullptr;
}

std::string targetNames() {
  std::string s;
  for (const TargetInfo *t : allTargets()) {
    if (!s.empty())
      s += ", ";
    s += t->name;
  }
  return s;
}

const FeatureLevel *lookupLevel(const TargetInfo &target,
                                const std::string &name) {
  for (const FeatureLevel &l : target.levels)
    if (name == l.name)
      return &l;
  return nullptr;
}

// Depth-first over |level|'s implied levels, then its own features.
static void collectFeatures(const TargetInfo &target, const FeatureLevel &level,
                            std::vector<std::string> &out) {
  for (const char *implied : level.implies) {
    const FeatureLevel *l = lookupLevel(target, implied);
    assert(l && "a level implies a level its target does not have");
    if (l)
      collectFeatures(target, *l, out);
  }
  for (const char *f : level.cpuFeatures)
    if (std::find(out.begin(), out.end(), f) == out.end())
      out.push_back(f);
}

std::vector<std::string> requiredCpuFeatures(const TargetInfo &target,
                                             const FeatureLevel &level) {
  std::vector<std::string> out;
  collectFeatures(target, level, out);
  return out;
}

std::string llvmFeatureString(const TargetInfo &target,
                              const FeatureLevel &level) {
  std::string s = level.llvmFeatures;
  if (*target.abiFeatures)
    s += (s.empty() ? "" : ",") + std::string(target.abiFeatures);
  return s;
}

std::vector<std::string> kernelClangFlags(const TargetInfo &target,
                                          const FeatureLevel &level) {
  std::vector<std::string> flags = level.clangFlags;
  flags.insert(flags.end(), target.kernelFlags.begin(), target.kernelFlags.end());
  return flags;
}

} // namespace graft
