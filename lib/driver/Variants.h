// Which ISA variants a build compiles (`graft build --levels`) and how
// `--explain` shows them.
#pragma once

#include "codegen/Compile.h"
#include "support/Diagnostics.h"
#include "targets/Target.h"

#include <map>
#include <string>
#include <vector>

namespace graft {

// The feature levels to compile for each of |targets|, lowest first. Each
// name in |names| is a level of one of the targets, or "baseline" (every
// target's levels[0]); a target none of the names belongs to gets all its
// levels. An unknown name is an error listing the known ones.
bool resolveLevels(const std::vector<std::string> &names,
                   const std::vector<const TargetInfo *> &targets, DiagEngine &diag,
                   std::map<const TargetInfo *, std::vector<const FeatureLevel *>> &out);

// "== x86_64 variants ==" and, per variant, its level, the CPU features it
// adds and how each dispatch is tiled at that level.
std::string explainVariants(const TargetInfo &target, const std::vector<SliceVariant> &variants);

} // namespace graft
