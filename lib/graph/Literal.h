// Constant literals (`constant [[1, 2], [3, 4]] : tensor<2x2xf32>`): the
// parser reads the literal before it knows the type, so it keeps a small
// tree and encodes it into ConstantData once the type is parsed.
#pragma once

#include "ir/IR.h"

#include <string>
#include <vector>

namespace graft {

struct Literal {
  enum class Kind { Int, Float, Bool, List } kind = Kind::Int;
  int64_t i = 0;   // Int (Bool: 0 or 1)
  double f = 0;    // Float (also inf / nan)
  std::string text; // as written, for messages
  std::vector<Literal> items; // List
  SourceLoc loc;
};

// Encodes |lit| as the payload of a constant of type |t|. On failure sets
// |err| and |errLoc| (the offending element) and returns false.
bool encodeLiteral(const Literal &lit, const Type &t, ConstantData &out,
                   std::string &err, SourceLoc &errLoc);

} // namespace graft
