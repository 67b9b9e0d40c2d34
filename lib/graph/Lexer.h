// Tokens of the graph language (docs/graph-format.md). The lexer works on a
// string view and never fails: bad characters become Error tokens that the
// parser reports. Shapes are lexed whole (`tensor<2x?xf32>` is one token)
// because "2x4xf32" would otherwise split into confusing pieces.
#pragma once

#include "support/Diagnostics.h"

#include <string>
#include <string_view>

namespace graft {

enum class Tok {
  Eof,
  Error,      // text = what was wrong
  Ident,      // func, matmul, f32, true, inf, kind values ...
  ValueName,  // %x, %0 (text without '%')
  FuncName,   // @mlp (text without '@')
  BlockName,  // ^bb0 (text without '^')
  Int,        // 42 (text as written, no sign)
  Float,      // 1.5, 1e-3
  String,     // "..." (text unescaped)
  TensorType, // tensor<...> (text = what is between < and >)
  LParen, RParen, LBrace, RBrace, LBracket, RBracket,
  Comma, Colon, Equal, Arrow, Minus,
  Question, // '?' (a run-time bound in an integer list)
};

const char *tokName(Tok t); // for "expected X, found Y" messages

struct Token {
  Tok kind = Tok::Eof;
  std::string text;
  SourceLoc loc;
  // For TensorType: the location of the first character after '<'.
  SourceLoc innerLoc;
  // Line the token is on, before offsets: recovery skips to the next line.
  uint32_t rawLine = 0;
  // Printable description: "identifier 'foo'", "'{'", "end of file".
  std::string describe() const;
};

class Lexer {
public:
  // |lineOffset| / |colOffset| are added to every reported position (text
  // embedded in another file, e.g. a YAML block scalar).
  Lexer(std::string_view text, uint32_t file, uint32_t lineOffset,
        uint32_t colOffset);
  Token next();

private:
  SourceLoc locAt(size_t pos) const;
  void skipSpaceAndComments();
  Token make(Tok k, size_t begin, std::string text);
  Token lexNumber(size_t begin);
  Token lexString(size_t begin);
  Token lexTensor(size_t begin);

  std::string_view text_;
  uint32_t file_, lineOffset_, colOffset_;
  size_t pos_ = 0;
  uint32_t line_ = 1;      // raw line of pos_
  size_t lineStart_ = 0;   // offset where the raw line starts
};

} // namespace graft
