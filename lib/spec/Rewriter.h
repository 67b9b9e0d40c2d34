// Applying spec rules to a module: find non-overlapping matches, replace each
// by one KernelCall op and drop the ops that became dead; optionally explain
// every match and every near miss (graft build --explain).
//
// Order (docs/spec-format.md, "Which match wins"): per function, candidate
// roots are visited in reverse program order, so a rule rooted at a consumer
// claims its producers before a rule rooted at one of those producers is
// tried; at each root the rules are tried in spec order and the first that
// matches wins. A match that would share a non-constant op with an earlier
// match is rejected (constants may be shared: they stay if still used).
#pragma once

#include "spec/Matcher.h"

#include <string>
#include <vector>

namespace graft {

struct RewriteReport {
  // Every applied match. After rewriting, |inputs| are the KernelCall's
  // operands and |outputs| its results; |ops| are the payload ops the match
  // covered (no longer in the function unless still used elsewhere).
  std::vector<Match> matches;
  std::string explainText;
};

// Rewrites every non-pattern function of |m| with the rules of |specs| that
// have a kernel for |targetName| at feature level |level| ("" = its
// baseline; Rule::kernelFor). Returns the number of matches applied.
// |report| may be null; explain text is only produced when it is not.
unsigned applySpecs(Module &m, const SpecSet &specs, const std::string &targetName,
                    DiagEngine &diag, RewriteReport *report, const std::string &level = "");

} // namespace graft
