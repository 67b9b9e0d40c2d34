// Parsing, printing and static evaluation of the small integer expressions in
// specs (docs/spec-format.md, "Expressions"): kernel arguments such as
// "dim(lhs, 0) : i32" or "memref(result)", workgroup counts such as
// "ceildiv(dim(result, 0), 64)" and constraint quantities.
//
// Names refer to the pattern's arguments (without '%') and to the output
// names of the rule; the parser resolves them to indices so later stages
// never look at strings again.
#pragma once

#include "spec/Spec.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace graft {

// What names an expression may use: the pattern's arguments and results.
struct SpecScope {
  const Function *pattern = nullptr;
  std::vector<std::string> outputNames; // one per pattern result
  // The rule's `workgroup_size` (empty: not given), for workgroup_size(i)
  // and workgroup_offset(i).
  std::vector<int64_t> workgroupSize;

  // Argument index of |name| or -1.
  int inputIndex(std::string_view name) const;
  // Output index of |name| or -1.
  int outputIndex(std::string_view name) const;
  // Type of input |input| or output |output| (one of them >= 0).
  const Type &typeOf(int input, int output) const;
  std::string nameOf(int input, int output) const;
};

// Parses an integer expression starting at |loc| (|text| must lie on one
// line of the source; errors point at the offending character). Per-workgroup
// values (workgroup_id, workgroup_count, workgroup_offset, processor_id) are
// only allowed in kernel arguments: anything else is computed by the host
// program before the dispatch runs.
bool parseSpecExpr(std::string_view text, SourceLoc loc, const SpecScope &scope,
                   DiagEngine &diag, SpecExpr &out);

// Parses one kernel argument: a tensor name ("lhs", "result"), "memref(x)",
// a scalar pattern argument, or an integer expression with an optional
// ": i1|i8|i16|i32|i64|index" (default index).
bool parseKernelArg(std::string_view text, SourceLoc loc, const SpecScope &scope,
                    DiagEngine &diag, KernelArg &out);

// "ceildiv(dim(result, 0), 64)" with the scope's names.
std::string formatSpecExpr(const SpecExpr &e, const SpecScope &scope);

// Why evalSpecExprStatic gave no value.
struct SpecEvalFailure {
  std::string message; // "dim(lhs, 0) is dynamic (tensor<?x4xf32>)"
  // True when the value is known but undefined: the arithmetic overflowed
  // int64 or divided by zero (an error in the spec, at |loc|), rather than
  // unknown at compile time (a dynamic dim).
  bool undefined = false;
  SourceLoc loc;
};

// Evaluates |e| on static shapes: |inputs| are the types bound to the pattern
// arguments, |outputs| those of the results. Returns nullopt and says why
// when a dimension it needs is dynamic or the arithmetic is undefined
// (overflow, division by zero; graft/expr.h's checked rules).
std::optional<int64_t> evalSpecExprStatic(const SpecExpr &e,
                                          const std::vector<Type> &inputs,
                                          const std::vector<Type> &outputs,
                                          const SpecScope &scope,
                                          SpecEvalFailure &why);

} // namespace graft
