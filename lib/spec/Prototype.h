// The C prototype a rule's kernel (its call plan) must have on one target: what `graft spec
// --header` prints for users to write the kernel against, and what graft
// checks a C or bitcode kernel's definition against (parameter count, and
// per parameter pointer / integer of N bits / floating point, and the
// return type). Objects carry no types: only their symbol is checked.
#pragma once

#include "ir/KernelCall.h"
#include "targets/Target.h"

#include <string>
#include <vector>

namespace graft {

struct KernelParam {
  enum class Kind : uint8_t { Pointer, Int, Float } kind = Kind::Int;
  unsigned bits = 0;  // Int and Float: the LLVM width (bool: 1)
  std::string ctype;  // "const float *", "int32_t", "size_t"
  std::string name;   // "lhs", "lhs_offset", "arg3"
  std::string source; // the rule's argument it comes from, as written
  bool showSource = false; // the name does not say it (an expression)
};

struct KernelPrototype {
  std::string symbol;
  bool returnsInt = false; // int (status, or a dispatch function), else void
  std::vector<KernelParam> params;
  std::vector<std::string> includes; // headers the prototype needs
};

// The prototype of |plan|'s kernel on |target| (index and memref fields are
// as wide as the target's pointers).
KernelPrototype kernelPrototype(const KernelCall &plan, const TargetInfo &target);

// "void k(const float *lhs, float *result, int32_t arg2 /* dim(lhs, 0) */);"
std::string formatPrototype(const KernelPrototype &p);

// How |p| is written in messages: "int32_t" or "a pointer".
std::string describeParam(const KernelParam &p);

} // namespace graft
