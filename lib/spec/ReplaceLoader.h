// Reading a rule's `replace` section: the kernel symbol and form, link mode,
// return convention, output names, kernel arguments or dispatch constants,
// the workgroup grid and the per-target kernel sources.
#pragma once

#include "spec/Spec.h"
#include "spec/SpecExpr.h"
#include "spec/YamlSource.h"

namespace graft {

// Fills rule.outputNames (from replace.outputs, or "result" / "result0",
// "result1", ... when absent) and scope.outputNames. Run before anything that
// parses expressions.
bool loadOutputNames(const YamlSource &ys, const YAML::Node &replace, Rule &rule,
                     SpecScope &scope);

// Everything else in `replace`. |baseDir| resolves kernel paths.
bool loadReplace(const YamlSource &ys, const YAML::Node &replace,
                 const std::string &baseDir, const SpecScope &scope, Rule &rule);

} // namespace graft
