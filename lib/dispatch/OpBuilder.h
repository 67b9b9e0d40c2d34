// Making top-level ops while rewriting a function before dispatch formation
// (ReduceForms.cpp, MapBroadcast.cpp): each op gets one fresh result and
// the location of the op it stands in for, and is collected in |ops| for
// the caller to insert in program order.
#pragma once

#include "ir/IR.h"

#include <vector>

namespace graft {

struct OpBuilder {
  Function &fn;
  SourceLoc loc;
  std::vector<Op *> ops;

  Value *add(OpKind kind, std::vector<Value *> operands, Type type,
             std::vector<NamedAttr> attrs = {});
  // `dim %v {axis = d}`.
  Value *dim(Value *v, unsigned d);
  static NamedAttr attr(const char *name, int64_t i);
  static NamedAttr attr(const char *name, std::vector<int64_t> list);
  static NamedAttr attr(const char *name, const char *ident);
};

} // namespace graft
