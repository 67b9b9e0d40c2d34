// Lexer of the graph language: identifiers, sigiled names, numbers, strings,
// whole tensor types and punctuation. `//` comments run to end of line.
#include "graph/Lexer.h"

#include <cstdio>

namespace graft {

const char *tokName(Tok t) {
  switch (t) {
  case Tok::Eof: return "end of file";
  case Tok::Error: return "invalid token";
  case Tok::Ident: return "identifier";
  case Tok::ValueName: return "value name";
  case Tok::FuncName: return "function name";
  case Tok::BlockName: return "block label";
  case Tok::Int: return "integer";
  case Tok::Float: return "float";
  case Tok::String: return "string";
  case Tok::TensorType: return "tensor type";
  case Tok::LParen: return "'('";
  case Tok::RParen: return "')'";
  case Tok::LBrace: return "'{'";
  case Tok::RBrace: return "'}'";
  case Tok::LBracket: return "'['";
  case Tok::RBracket: return "']'";
  case Tok::Comma: return "','";
  case Tok::Colon: return "':'";
  case Tok::Equal: return "'='";
  case Tok::Arrow: return "'->'";
  case Tok::Minus: return "'-'";
  case Tok::Question: return "'?'";
  }
  return "token";
}

std::string Token::describe() const {
  switch (kind) {
  case Tok::Ident: return "'" + text + "'";
  case Tok::ValueName: return "'%" + text + "'";
  case Tok::FuncName: return "'@" + text + "'";
  case Tok::BlockName: return "'^" + text + "'";
  case Tok::Int:
  case Tok::Float: return "'" + text + "'";
  case Tok::String: return "string \"" + text + "\"";
  case Tok::TensorType: return "'tensor<" + text + ">'";
  case Tok::Error: return text;
  default: return tokName(kind);
  }
}

Lexer::Lexer(std::string_view text, uint32_t file, uint32_t lineOffset,
             uint32_t colOffset)
    : text_(text), file_(file), lineOffset_(lineOffset), colOffset_(colOffset) {}

SourceLoc Lexer::locAt(size_t pos) const {
  // Tokens never span lines (strings and tensor types stop at '\n'), so the
  // column is relative to the current line start.
  return SourceLoc{file_, line_ + lineOffset_,
                   static_cast<uint32_t>(pos - lineStart_ + 1) + colOffset_};
}

static bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool isDigit(char c) { return c >= '0' && c <= '9'; }
static bool isIdentChar(char c) {
  return isIdentStart(c) || isDigit(c) || c == '.' || c == '$';
}

void Lexer::skipSpaceAndComments() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '\n') {
      ++pos_;
      ++line_;
      lineStart_ = pos_;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n')
        ++pos_;
    } else {
      return;
    }
  }
}

Token Lexer::make(Tok k, size_t begin, std::string text) {
  Token t;
  t.kind = k;
  t.text = std::move(text);
  t.loc = locAt(begin);
  t.rawLine = line_;
  return t;
}

Token Lexer::lexNumber(size_t begin) {
  bool isFloat = false;
  while (pos_ < text_.size() && isDigit(text_[pos_]))
    ++pos_;
  if (pos_ < text_.size() && text_[pos_] == '.') {
    isFloat = true;
    ++pos_;
    while (pos_ < text_.size() && isDigit(text_[pos_]))
      ++pos_;
  }
  if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
    size_t save = pos_++;
    if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-'))
      ++pos_;
    if (pos_ < text_.size() && isDigit(text_[pos_])) {
      isFloat = true;
      while (pos_ < text_.size() && isDigit(text_[pos_]))
        ++pos_;
    } else {
      pos_ = save; // not an exponent: "2e" is a number then an identifier
    }
  }
  return make(isFloat ? Tok::Float : Tok::Int, begin,
              std::string(text_.substr(begin, pos_ - begin)));
}

Token Lexer::lexString(size_t begin) {
  std::string s;
  ++pos_; // opening quote
  while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') {
    char c = text_[pos_++];
    if (c == '\\' && pos_ < text_.size() && text_[pos_] != '\n') {
      char e = text_[pos_++];
      s += e == 'n' ? '\n' : e == 't' ? '\t' : e;
    } else {
      s += c;
    }
  }
  if (pos_ >= text_.size() || text_[pos_] != '"')
    return make(Tok::Error, begin, "unterminated string");
  ++pos_;
  return make(Tok::String, begin, std::move(s));
}

// `tensor<` was seen at |begin|; take everything up to '>' on this line.
Token Lexer::lexTensor(size_t begin) {
  size_t inner = begin + 7;
  pos_ = inner;
  while (pos_ < text_.size() && text_[pos_] != '>' && text_[pos_] != '\n')
    ++pos_;
  if (pos_ >= text_.size() || text_[pos_] != '>')
    return make(Tok::Error, begin, "unterminated tensor type, expected '>'");
  Token t = make(Tok::TensorType, begin,
                 std::string(text_.substr(inner, pos_ - inner)));
  t.innerLoc = locAt(inner);
  ++pos_;
  return t;
}

Token Lexer::next() {
  skipSpaceAndComments();
  size_t begin = pos_;
  if (pos_ >= text_.size())
    return make(Tok::Eof, begin, "");
  char c = text_[pos_];
  auto single = [&](Tok k) {
    ++pos_;
    return make(k, begin, std::string(1, c));
  };
  switch (c) {
  case '(': return single(Tok::LParen);
  case ')': return single(Tok::RParen);
  case '{': return single(Tok::LBrace);
  case '}': return single(Tok::RBrace);
  case '[': return single(Tok::LBracket);
  case ']': return single(Tok::RBracket);
  case ',': return single(Tok::Comma);
  case ':': return single(Tok::Colon);
  case '=': return single(Tok::Equal);
  case '?': return single(Tok::Question);
  case '"': return lexString(begin);
  case '-':
    if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '>') {
      pos_ += 2;
      return make(Tok::Arrow, begin, "->");
    }
    return single(Tok::Minus);
  default:
    break;
  }
  if (c == '%' || c == '@' || c == '^') {
    ++pos_;
    size_t start = pos_;
    while (pos_ < text_.size() && isIdentChar(text_[pos_]))
      ++pos_;
    if (pos_ == start)
      return make(Tok::Error, begin,
                  std::string("expected a name after '") + c + "'");
    Tok k = c == '%' ? Tok::ValueName : c == '@' ? Tok::FuncName : Tok::BlockName;
    return make(k, begin, std::string(text_.substr(start, pos_ - start)));
  }
  if (isDigit(c))
    return lexNumber(begin);
  if (isIdentStart(c)) {
    while (pos_ < text_.size() && isIdentChar(text_[pos_]))
      ++pos_;
    std::string_view word = text_.substr(begin, pos_ - begin);
    if (word == "tensor" && pos_ < text_.size() && text_[pos_] == '<')
      return lexTensor(begin);
    return make(Tok::Ident, begin, std::string(word));
  }
  ++pos_;
  // Printable characters are quoted; others (binary garbage) by code.
  unsigned char u = static_cast<unsigned char>(c);
  char buf[40];
  if (u >= 0x20 && u < 0x7f)
    std::snprintf(buf, sizeof buf, "unexpected character '%c'", c);
  else
    std::snprintf(buf, sizeof buf, "unexpected byte 0x%02x", u);
  return make(Tok::Error, begin, buf);
}

} // namespace graft
