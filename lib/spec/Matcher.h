// Matching one spec rule's pattern against the payload graph, the way IREE's
// cast_compatible_dag_from_root does: walk from a root op through producers
// in lockstep with the pattern, then compare map bodies with the captured
// outer values resolved through the mapping built by the walk, then check the
// rule's constraints on static shapes (a constraint that needs a dynamic size
// becomes a run-time guard of the match). docs/spec-format.md, "Matching".
#pragma once

#include "spec/Spec.h"

#include <string>
#include <vector>

namespace graft {

// One match of a rule at a root.
struct Match {
  const Rule *rule = nullptr;
  unsigned ruleIndex = 0;     // set by the caller (applySpecs)
  Function *fn = nullptr;     // set by the caller (applySpecs)
  std::vector<Value *> inputs;  // payload value per pattern argument
  std::vector<Value *> outputs; // payload value per pattern result
  std::vector<Op *> ops;        // payload ops covered (applySpecs sorts them
                                // in program order)
  // The `where` constraints that need a size only known at run time: the
  // match holds when they hold, so the kernel runs under a guard and
  // graft's own code for the same ops runs otherwise (the call plan's
  // |guard|). Empty: the match holds unconditionally.
  struct Guard {
    const Constraint *constraint;
    std::string why; // "dim(lhs, 0) is dynamic (tensor<?xf32>)"
  };
  std::vector<Guard> guards;
};

// Why a match failed: a message plus the payload location where the walk
// found the difference and the pattern location it was comparing against.
struct MatchFailure {
  std::string why;
  SourceLoc payloadLoc;
  SourceLoc patternLoc;
  // Not a mismatch but an error in the spec found while matching (a
  // constraint whose arithmetic overflows or divides by zero): reported as
  // an error at |patternLoc|.
  bool specError = false;
};

// Tries |rule| with its pattern root (the op defining pattern result 0) at
// payload op |root|. On success fills |out| (except ruleIndex and fn).
bool matchRule(const Rule &rule, Op *root, Match &out, MatchFailure &failure);

// The same, with the failure reduced to a message and payload location, e.g.
// "op kind mismatch at %x: expected matmul, found map".
bool matchRule(const Rule &rule, Op *root, Match &out, std::string &why,
               SourceLoc &whereLoc);

} // namespace graft
