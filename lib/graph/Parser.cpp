// Recursive-descent parser of the graph language. One statement per op:
//   %name = opname [literal] operands {attrs} : type [region]
// Errors skip to the next line (or past a bracketed block) so that several
// are reported in one run. Undefined names poison the statement that uses
// them silently after the first report, so one typo gives one error.
#include "graph/Parser.h"

#include "graph/Lexer.h"
#include "graph/Literal.h"

#include <cerrno>
#include <cstdlib>
#include <map>
#include <set>

namespace graft {

namespace {

// Deeper input than this is rejected rather than risking the stack.
constexpr unsigned kMaxNesting = 64;

// Names visible in one function body or map body.
struct Scope {
  std::map<std::string, Value *> values;
  std::set<std::string> poisoned; // defined by statements that failed
};

class Parser {
public:
  Parser(std::string_view text, uint32_t file, DiagEngine &diag,
         const ParseOptions &opts)
      : lex_(text, file, opts.lineOffset, opts.colOffset), diag_(diag) {
    advance();
  }

  std::unique_ptr<Module> run();

private:
  void advance() { tok_ = lex_.next(); }
  bool at(Tok k) const { return tok_.kind == k; }
  bool atIdent(const char *word) const {
    return tok_.kind == Tok::Ident && tok_.text == word;
  }
  void error(SourceLoc loc, const std::string &msg) { diag_.error(loc, msg); }
  // Reports "expected <what>, found <token>" at the current token.
  bool expected(const std::string &what) {
    if (at(Tok::Error)) { // the lexer's message says more
      error(tok_.loc, tok_.text);
      return false;
    }
    error(tok_.loc, "expected " + what + ", found " + tok_.describe());
    return false;
  }
  bool expect(Tok k, const std::string &what) {
    if (!at(k))
      return expected(what);
    advance();
    return true;
  }
  void recover(uint32_t line);
  void skipToFunction();

  bool parseFunction();
  bool parseKernelDecl();
  bool parseResultLike(KernelDecl &k);
  bool parseType(Type &out);
  bool parseTensorType(const Token &t, Type &out);
  bool parseStatement(std::vector<Op *> &ops);
  bool parseOperands(std::vector<Value *> &out, bool &poisoned);
  bool parseAttrs(std::vector<NamedAttr> &out);
  bool parseAttrValue(Attr &out);
  bool parseLiteral(Literal &out, unsigned depth);
  bool parseNumber(Literal &out, bool negative, SourceLoc loc);
  bool parseRegion(Op &op);
  bool parseRegionBody(Region &region, const Op &op, bool &closed);
  bool parseArgList(std::vector<Value *> &args, Region *region, const char *whatArg,
                    const char *whatColon, const char *whatSep);
  void skipBlock();
  bool parseReturn();
  bool parseCallee(Op &op);
  bool parseFunctionCallee(Op &op);
  void resolveCalls();

  // Name scopes: [0] is the function, then one per open map body.
  Value *lookup(const Token &name, bool &poisoned);
  bool define(const Token &name, Value *v);
  void poison(const std::string &name) { scopes_.back().poisoned.insert(name); }

  Lexer lex_;
  DiagEngine &diag_;
  Token tok_;
  std::unique_ptr<Module> module_;
  Function *fn_ = nullptr;
  std::vector<Scope> scopes_;
  unsigned regionDepth_ = 0;
  // `call` ops and the callee name they wrote.
  std::vector<std::pair<Op *, Token>> pendingCalls_;
};

// Skips the rest of the statement on |line|. A '{' opened on that line
// (an op with a body) is skipped up to its matching '}'; a '}' that closes
// the enclosing block is left for the caller.
void Parser::recover(uint32_t line) {
  unsigned depth = 0;
  while (!at(Tok::Eof)) {
    if (depth == 0 && tok_.rawLine != line)
      return;
    if (at(Tok::LBrace)) {
      ++depth;
    } else if (at(Tok::RBrace)) {
      if (depth == 0)
        return;
      if (--depth == 0)
        line = tok_.rawLine;
    }
    advance();
  }
}

void Parser::skipToFunction() {
  while (!at(Tok::Eof) && !atIdent("func") && !atIdent("pattern") && !atIdent("kernel"))
    advance();
}

std::unique_ptr<Module> Parser::run() {
  module_ = std::make_unique<Module>();
  while (!at(Tok::Eof)) {
    if (atIdent("kernel")) {
      if (!parseKernelDecl())
        skipToFunction();
      continue;
    }
    if (!atIdent("func") && !atIdent("pattern")) {
      expected("'func', 'pattern' or 'kernel'");
      advance();
      skipToFunction();
      continue;
    }
    if (!parseFunction())
      skipToFunction();
  }
  resolveCalls();
  return std::move(module_);
}

// `kernel @name(%a: type, ...) -> type`: an external kernel the graph calls
// with kernel_call; no body (its code comes from a spec).
bool Parser::parseKernelDecl() {
  advance();
  if (!at(Tok::FuncName))
    return expected("a kernel name like '@simple_mul'");
  auto k = std::make_unique<KernelDecl>();
  k->name = tok_.text;
  k->loc = tok_.loc;
  if (module_->lookupKernel(k->name) || module_->lookup(k->name)) {
    error(tok_.loc, "redefinition of '@" + k->name + "'" +
                        (module_->lookup(k->name) ? ", defined as a function" : ""));
    return false;
  }
  advance();
  if (!expect(Tok::LParen, "'(' after the kernel name"))
    return false;
  while (!at(Tok::RParen)) {
    if (!at(Tok::ValueName))
      return expected("an argument like '%x: tensor<?xf32>' or ')'");
    for (const std::string &n : k->argNames)
      if (n == tok_.text) {
        error(tok_.loc, "duplicate argument '%" + n + "' of kernel @" + k->name);
        return false;
      }
    k->argNames.push_back(tok_.text);
    k->argLocs.push_back(tok_.loc);
    advance();
    Type t;
    if (!expect(Tok::Colon, "':' after argument name") || !parseType(t))
      return false;
    k->argTypes.push_back(t);
    if (at(Tok::Comma))
      advance();
    else if (!at(Tok::RParen))
      return expected("',' or ')' in the argument list");
  }
  advance();
  if (!expect(Tok::Arrow, "'->' and the kernel's result type"))
    return false;
  SourceLoc resultLoc = tok_.loc;
  if (at(Tok::LParen)) {
    error(tok_.loc, "a kernel returns one tensor; expected its type, found '('");
    return false;
  }
  if (!parseType(k->resultType))
    return false;
  if (!k->resultType.tensor) {
    error(resultLoc, "kernel @" + k->name + " must return a tensor (the buffer it writes), "
                     "found " + k->resultType.str());
    return false;
  }
  if (atIdent("like") && !parseResultLike(*k))
    return false;
  module_->kernels.push_back(std::move(k));
  return true;
}

Value *Parser::lookup(const Token &name, bool &poisoned) {
  for (size_t i = scopes_.size(); i-- > 0;) {
    auto it = scopes_[i].values.find(name.text);
    if (it != scopes_[i].values.end())
      return it->second;
    if (scopes_[i].poisoned.count(name.text)) {
      poisoned = true;
      return nullptr;
    }
  }
  error(name.loc, "use of undefined value '%" + name.text + "'");
  // Report each undefined name once.
  scopes_.back().poisoned.insert(name.text);
  poisoned = true;
  return nullptr;
}

bool Parser::define(const Token &name, Value *v) {
  for (const Scope &s : scopes_) {
    auto it = s.values.find(name.text);
    if (it != s.values.end()) {
      error(name.loc, "redefinition of value '%" + name.text + "'");
      diag_.note(it->second->loc, "previous definition is here");
      return false;
    }
  }
  scopes_.back().values[name.text] = v;
  scopes_.back().poisoned.erase(name.text);
  return true;
}

bool Parser::parseType(Type &out) {
  if (at(Tok::TensorType)) {
    Token t = tok_;
    advance();
    return parseTensorType(t, out);
  }
  if (at(Tok::Ident)) {
    if (auto dt = parseDType(tok_.text)) {
      out = Type::scalar(*dt);
      advance();
      return true;
    }
    error(tok_.loc, "unknown type '" + tok_.text + "'");
    return false;
  }
  return expected("a type");
}

// Parses the text between '<' and '>': dims separated by 'x', then the
// element type: "2x?x4xf32", "f32" (rank 0).
bool Parser::parseTensorType(const Token &t, Type &out) {
  const std::string &s = t.text;
  out = Type::tensorOf(DType::Invalid, {});
  size_t i = 0;
  auto locOf = [&](size_t at) {
    SourceLoc l = t.innerLoc;
    l.col += static_cast<uint32_t>(at);
    return l;
  };
  for (;;) {
    size_t start = i;
    if (i < s.size() && s[i] == '?') {
      ++i;
      out.dims.push_back(kDynamic);
    } else if (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      int64_t d = 0;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        d = d * 10 + (s[i++] - '0');
        if (d > (int64_t(1) << 32)) {
          error(locOf(start), "dimension size " + s.substr(start, i - start) +
                                  "... is too large (the limit is 2^32)");
          return false;
        }
      }
      out.dims.push_back(d);
    } else {
      break;
    }
    if (i >= s.size() || s[i] != 'x') {
      error(locOf(i), "expected 'x' after dimension in tensor type, found " +
                          (i < s.size() ? "'" + std::string(1, s[i]) + "'"
                                        : std::string("'>'")));
      return false;
    }
    ++i;
  }
  std::string elem = s.substr(i);
  auto dt = parseDType(elem);
  if (!dt) {
    error(locOf(i), elem.empty() ? std::string("expected an element type in tensor type")
                                 : "unknown element type '" + elem + "' in tensor type");
    return false;
  }
  if (out.dims.size() > GRAFT_MAX_RANK) {
    error(t.loc, "tensor rank " + std::to_string(out.dims.size()) +
                     " exceeds the maximum of " + std::to_string(GRAFT_MAX_RANK));
    return false;
  }
  out.elem = *dt;
  return true;
}

bool Parser::parseFunction() {
  bool isPattern = tok_.text == "pattern";
  advance();
  if (!at(Tok::FuncName))
    return expected("a function name like '@main'");
  auto fnOwned = std::make_unique<Function>();
  Function *fn = fnOwned.get();
  fn->name = tok_.text;
  fn->loc = tok_.loc;
  fn->isPattern = isPattern;
  if (module_->lookup(fn->name))
    error(tok_.loc, "redefinition of function '@" + fn->name + "'");
  else if (module_->lookupKernel(fn->name))
    error(tok_.loc, "redefinition of '@" + fn->name + "', declared as a kernel");
  advance();
  fn_ = fn;
  scopes_.assign(1, Scope());

  if (!expect(Tok::LParen, "'(' after the function name") ||
      !parseArgList(fn->args, nullptr, "an argument like '%x: f32' or ')'",
                    "':' after argument name", "',' or ')' in the argument list"))
    return false;
  if (at(Tok::Arrow)) {
    advance();
    if (at(Tok::LParen)) {
      advance();
      while (!at(Tok::RParen)) {
        Type t;
        if (!parseType(t))
          return false;
        fn->resultTypes.push_back(t);
        if (at(Tok::Comma))
          advance();
        else if (!at(Tok::RParen))
          return expected("',' or ')' in the result list");
      }
      advance();
    } else {
      Type t;
      if (!parseType(t))
        return false;
      fn->resultTypes.push_back(t);
    }
  }
  if (!expect(Tok::LBrace, "'{' to start the function body"))
    return false;
  module_->functions.push_back(std::move(fnOwned));

  bool returned = false;
  while (!at(Tok::RBrace) && !at(Tok::Eof)) {
    uint32_t line = tok_.rawLine;
    if (returned) {
      expected("'}' after 'return'");
      recover(line);
      continue;
    }
    bool ok;
    if (atIdent("return")) {
      ok = parseReturn();
      returned = true;
    } else {
      ok = parseStatement(fn->ops);
    }
    if (!ok)
      recover(line);
  }
  if (!at(Tok::RBrace))
    return expected("'}' to end function '@" + fn->name + "'");
  if (!returned)
    error(tok_.loc, "function '@" + fn->name + "' must end with 'return'");
  advance();
  return true;
}

bool Parser::parseReturn() {
  fn_->returnLoc = tok_.loc;
  uint32_t line = tok_.rawLine;
  advance();
  if (!at(Tok::ValueName) || tok_.rawLine != line)
    return true; // `return` with no values
  bool poisoned = false;
  std::vector<Value *> values;
  if (!parseOperands(values, poisoned))
    return false;
  if (!poisoned)
    fn_->results = std::move(values);
  return true;
}

bool Parser::parseOperands(std::vector<Value *> &out, bool &poisoned) {
  while (at(Tok::ValueName)) {
    Value *v = lookup(tok_, poisoned);
    out.push_back(v);
    advance();
    if (!at(Tok::Comma))
      return true;
    advance();
    if (!at(Tok::ValueName))
      return expected("an operand after ','");
  }
  return true;
}

bool Parser::parseAttrValue(Attr &out) {
  out.loc = tok_.loc;
  if (at(Tok::LBracket)) {
    advance();
    out.kind = Attr::Kind::IntList;
    while (!at(Tok::RBracket)) {
      Literal l;
      bool neg = at(Tok::Minus);
      SourceLoc loc = tok_.loc;
      if (at(Tok::Question)) {
        out.list.push_back(kRunTimeBound);
        advance();
      } else {
        if (neg)
          advance();
        if (!at(Tok::Int))
          return expected("an integer or '?' in the list");
        if (!parseNumber(l, neg, loc))
          return false;
        if (l.i == kRunTimeBound) {
          error(loc, "integer " + std::to_string(l.i) + " is reserved in a list (it stands "
                     "for '?'); as a slice bound -9223372036854775808 means the same");
          return false;
        }
        out.list.push_back(l.i);
      }
      if (at(Tok::Comma))
        advance();
      else if (!at(Tok::RBracket))
        return expected("',' or ']' in the integer list");
    }
    advance();
    return true;
  }
  if (at(Tok::Ident)) {
    out.kind = Attr::Kind::Ident;
    out.s = tok_.text;
    advance();
    return true;
  }
  if (at(Tok::String)) {
    out.kind = Attr::Kind::String;
    out.s = tok_.text;
    advance();
    return true;
  }
  bool neg = at(Tok::Minus);
  SourceLoc loc = tok_.loc;
  if (neg)
    advance();
  if (at(Tok::Int) || at(Tok::Float)) {
    Literal l;
    if (!parseNumber(l, neg, loc))
      return false;
    if (l.kind == Literal::Kind::Int) {
      out.kind = Attr::Kind::Int;
      out.i = l.i;
    } else {
      out.kind = Attr::Kind::Float;
      out.f = l.f;
    }
    return true;
  }
  return expected("an attribute value (integer, float, identifier, string or "
                  "integer list)");
}

bool Parser::parseAttrs(std::vector<NamedAttr> &out) {
  advance(); // '{'
  while (!at(Tok::RBrace)) {
    if (!at(Tok::Ident))
      return expected("an attribute name");
    NamedAttr a;
    a.name = tok_.text;
    a.nameLoc = tok_.loc;
    Token nameTok = tok_;
    advance();
    if (!expect(Tok::Equal, "'=' after attribute name") || !parseAttrValue(a.value))
      return false;
    // A duplicate is reported and dropped; the list goes on parsing so the
    // rest of the file is still checked (no cascade of follow-on errors).
    bool duplicate = false;
    for (const NamedAttr &other : out)
      if (other.name == a.name) {
        error(nameTok.loc, "duplicate attribute '" + a.name + "'");
        duplicate = true;
        break;
      }
    if (!duplicate)
      out.push_back(std::move(a));
    if (at(Tok::Comma))
      advance();
    else if (!at(Tok::RBrace))
      return expected("',' or '}' in the attribute list");
  }
  advance();
  return true;
}

// The current token is an Int or Float (after an optional '-' at |loc|).
bool Parser::parseNumber(Literal &out, bool negative, SourceLoc loc) {
  out.loc = loc;
  out.text = (negative ? "-" : "") + tok_.text;
  if (at(Tok::Float)) {
    out.kind = Literal::Kind::Float;
    out.f = std::strtod(tok_.text.c_str(), nullptr); // overflow gives inf
    if (negative)
      out.f = -out.f;
    advance();
    return true;
  }
  out.kind = Literal::Kind::Int;
  errno = 0;
  unsigned long long mag = std::strtoull(tok_.text.c_str(), nullptr, 10);
  uint64_t limit = negative ? uint64_t(1) << 63 : (uint64_t(1) << 63) - 1;
  if (errno == ERANGE || mag > limit) {
    error(loc, "integer literal " + out.text + " is out of range for 64 bits");
    return false;
  }
  out.i = negative ? static_cast<int64_t>(0 - static_cast<uint64_t>(mag))
                   : static_cast<int64_t>(mag);
  advance();
  return true;
}

bool Parser::parseLiteral(Literal &out, unsigned depth) {
  out.loc = tok_.loc;
  if (at(Tok::LBracket)) {
    if (depth > kMaxNesting) {
      error(tok_.loc, "constant literal is nested too deeply");
      return false;
    }
    out.kind = Literal::Kind::List;
    out.text = "[...]";
    advance();
    while (!at(Tok::RBracket)) {
      out.items.emplace_back();
      if (!parseLiteral(out.items.back(), depth + 1))
        return false;
      if (at(Tok::Comma))
        advance();
      else if (!at(Tok::RBracket))
        return expected("',' or ']' in the constant literal");
    }
    advance();
    return true;
  }
  if (atIdent("true") || atIdent("false")) {
    out.kind = Literal::Kind::Bool;
    out.i = tok_.text == "true";
    out.text = tok_.text;
    advance();
    return true;
  }
  bool neg = at(Tok::Minus);
  SourceLoc loc = tok_.loc;
  if (neg)
    advance();
  if (atIdent("inf") || atIdent("nan")) {
    out.kind = Literal::Kind::Float;
    out.f = tok_.text == "inf" ? __builtin_inf() : __builtin_nan("");
    if (neg)
      out.f = -out.f;
    out.text = (neg ? "-" : "") + tok_.text;
    out.loc = loc;
    advance();
    return true;
  }
  if (at(Tok::Int) || at(Tok::Float))
    return parseNumber(out, neg, loc);
  return expected("a constant literal (number, true, false, inf, nan or list)");
}

// Skips to just past the '}' closing the block we are in.
void Parser::skipBlock() {
  unsigned depth = 1;
  while (!at(Tok::Eof)) {
    if (at(Tok::LBrace))
      ++depth;
    else if (at(Tok::RBrace) && --depth == 0) {
      advance();
      return;
    }
    advance();
  }
}

bool Parser::parseRegion(Op &op) {
  if (regionDepth_ >= kMaxNesting) {
    error(tok_.loc, "map bodies are nested too deeply");
    return false;
  }
  advance(); // '{'
  op.region = std::make_unique<Region>();
  scopes_.emplace_back();
  ++regionDepth_;
  bool closed = false;
  bool ok = parseRegionBody(*op.region, op, closed);
  scopes_.pop_back();
  --regionDepth_;
  // A body that failed early is skipped whole so that its statements are
  // not mistaken for function-level ones.
  if (!closed)
    skipBlock();
  return ok;
}

// `%name: type, ...)` after the '(' of a function or body header: defines
// each argument (of |region| when given) and consumes the ')'.
bool Parser::parseArgList(std::vector<Value *> &args, Region *region, const char *whatArg,
                          const char *whatColon, const char *whatSep) {
  while (!at(Tok::RParen)) {
    if (!at(Tok::ValueName))
      return expected(whatArg);
    Token name = tok_;
    advance();
    Type t;
    if (!expect(Tok::Colon, whatColon) || !parseType(t))
      return false;
    Value *v = fn_->newValue(t, name.text, name.loc);
    v->argIndex = static_cast<int>(args.size());
    v->region = region;
    args.push_back(v);
    define(name, v);
    if (at(Tok::Comma))
      advance();
    else if (!at(Tok::RParen))
      return expected(whatSep);
  }
  advance();
  return true;
}

bool Parser::parseRegionBody(Region &region, const Op &op, bool &closed) {
  if (!at(Tok::BlockName))
    return expected("a body header like '^bb0(%x: f32):'");
  advance();
  if (!expect(Tok::LParen, "'(' after the block label") ||
      !parseArgList(region.args, &region, "a body argument like '%x: f32' or ')'",
                    "':' after body argument name", "',' or ')' in the body arguments"))
    return false;
  if (!expect(Tok::Colon, "':' after the body arguments"))
    return false;
  bool ok = true;
  while (!atIdent("yield")) {
    if (at(Tok::RBrace) || at(Tok::Eof)) {
      expected("'yield' to end the body of '" + std::string(opName(op.kind)) + "'");
      if (at(Tok::RBrace)) {
        advance();
        closed = true;
      }
      return false;
    }
    uint32_t line = tok_.rawLine;
    if (!parseStatement(region.ops)) {
      ok = false;
      recover(line);
    }
  }
  region.yieldLoc = tok_.loc;
  advance();
  if (!at(Tok::ValueName))
    return expected("a value after 'yield'");
  bool poisoned = false;
  region.yield = lookup(tok_, poisoned);
  advance();
  if (!at(Tok::RBrace))
    return expected("'}' after 'yield'");
  advance();
  closed = true;
  return ok && !poisoned;
}

bool Parser::parseStatement(std::vector<Op *> &ops) {
  if (!at(Tok::ValueName))
    return expected("an op like '%x = ...', 'return' or '}'");
  // `%a, %b = split ...`: ops with several results name them all.
  std::vector<Token> results{tok_};
  advance();
  while (at(Tok::Comma)) {
    advance();
    if (!at(Tok::ValueName))
      return expected("a result name like '%b' after ','");
    results.push_back(tok_);
    advance();
  }
  if (!expect(Tok::Equal, "'=' after '%" + results.back().text + "'"))
    return false;
  // From here on a failing statement poisons its result names.
  struct PoisonOnFail {
    Parser &p;
    const std::vector<Token> &names;
    bool ok = false;
    ~PoisonOnFail() {
      for (const Token &name : names)
        if (!ok && !p.scopes_.back().values.count(name.text))
          p.poison(name.text);
    }
  } guard{*this, results};

  if (!at(Tok::Ident))
    return expected("an op name");
  auto kind = parseOpName(tok_.text);
  if (!kind) {
    error(tok_.loc, "unknown op '" + tok_.text + "'");
    return false;
  }
  bool multi = *kind == OpKind::Split || *kind == OpKind::Call;
  if (results.size() > 1 && !multi) {
    error(results[1].loc, "'" + tok_.text + "' has one result; only split and call have "
                          "several");
    return false;
  }
  if (*kind == OpKind::Split && fn_->isPattern) {
    error(tok_.loc, "a pattern cannot contain 'split': the matcher matches ops of one "
                    "result; write the parts as 'slice' ops");
    return false;
  }
  Op *op = fn_->newOp(*kind, tok_.loc);
  uint32_t line = tok_.rawLine;
  advance();
  if (*kind == OpKind::KernelCall && !parseCallee(*op))
    return false;
  if (*kind == OpKind::Call && !parseFunctionCallee(*op))
    return false;
  Literal lit;
  if (*kind == OpKind::Constant && !parseLiteral(lit, 0))
    return false;
  bool poisoned = false;
  if (!parseOperands(op->operands, poisoned))
    return false;
  if (at(Tok::LBrace) && !parseAttrs(op->attrs))
    return false;
  std::vector<Type> types(1);
  if (!expect(Tok::Colon, "':' and the result type") || !parseType(types[0]))
    return false;
  // One type per result: `: tensor<2xf32>, tensor<3xf32>`.
  while (multi && at(Tok::Comma)) {
    advance();
    types.emplace_back();
    if (!parseType(types.back()))
      return false;
  }
  if (types.size() != results.size()) {
    error(op->loc, "'" + std::string(opName(*kind)) + "' names " +
                       countOf(results.size(), "result") + " but gives " +
                       countOf(types.size(), "result type"));
    return false;
  }
  const Type &type = types[0];
  if (*kind == OpKind::Constant) {
    std::string err;
    SourceLoc errLoc;
    if (!encodeLiteral(lit, type, op->constant, err, errLoc)) {
      error(errLoc, err);
      return false;
    }
  }
  if (*kind == OpKind::Map) {
    if (!at(Tok::LBrace))
      return expected("'{' to start the body of 'map'");
    if (!parseRegion(*op))
      return false;
  } else if (at(Tok::LBrace)) {
    error(tok_.loc, "op '" + std::string(opName(*kind)) + "' does not take a body");
    return false;
  }
  if (tok_.rawLine == line && !at(Tok::Eof) && !at(Tok::RBrace) && *kind != OpKind::Map)
    return expected("end of line after the op");
  if (poisoned)
    return true; // already reported; drop the op, poison its name
  for (size_t i = 0; i < results.size(); ++i) {
    Value *v = fn_->newValue(types[i], results[i].text, results[i].loc);
    v->def = op;
    v->region = nullptr;
    op->results.push_back(v);
    if (!define(results[i], v))
      return true;
  }
  ops.push_back(op);
  guard.ok = true;
  return true;
}

// `@name` after `call`: a function of the same file, before or after this
// one; resolved when the whole file is read (resolveCalls).
bool Parser::parseFunctionCallee(Op &op) {
  if (fn_->isPattern) {
    error(op.loc, "a pattern cannot call a function; 'call' is written in functions");
    return false;
  }
  if (scopes_.size() > 1) {
    error(op.loc, "'call' cannot be used in a map body");
    return false;
  }
  if (!at(Tok::FuncName))
    return expected("the called function's name like '@f'");
  pendingCalls_.push_back({&op, tok_});
  advance();
  return true;
}

void Parser::resolveCalls() {
  for (const auto &[op, name] : pendingCalls_) {
    const Function *f = module_->lookup(name.text);
    if (f && !f->isPattern) {
      op->func = f;
      continue;
    }
    error(name.loc, "call of undefined function '@" + name.text + "'" +
                        (f ? " (a pattern; only functions can be called)"
                           : module_->lookupKernel(name.text)
                               ? " (a kernel; call it with 'kernel_call')"
                               : ""));
  }
}

// `like %a` after a kernel's result type: the result has %a's sizes (a
// tensor of the same rank; a static result size must be %a's).
bool Parser::parseResultLike(KernelDecl &k) {
  advance();
  if (!at(Tok::ValueName))
    return expected("an argument after 'like'");
  for (size_t i = 0; i < k.argNames.size(); ++i)
    if (k.argNames[i] == tok_.text)
      k.resultLike = static_cast<int>(i);
  if (k.resultLike < 0) {
    error(tok_.loc, "kernel @" + k.name + " has no argument '%" + tok_.text + "'");
    return false;
  }
  const Type &arg = k.argTypes[k.resultLike];
  bool fits = arg.tensor && arg.rank() == k.resultType.rank();
  for (size_t d = 0; fits && d < arg.rank(); ++d)
    fits = k.resultType.dims[d] == kDynamic || k.resultType.dims[d] == arg.dims[d];
  if (!fits) {
    error(tok_.loc, "the result " + k.resultType.str() + " of kernel @" + k.name +
                        " cannot have the sizes of %" + tok_.text + ": " + arg.str());
    return false;
  }
  advance();
  return true;
}

// `@name` after `kernel_call`: a kernel declared earlier in the file.
// Only functions call kernels: a pattern matches graft's ops and a map body
// is scalar code.
bool Parser::parseCallee(Op &op) {
  if (fn_->isPattern) {
    error(op.loc, "a pattern cannot call a kernel; 'kernel_call' is written in functions");
    return false;
  }
  if (scopes_.size() > 1) {
    error(op.loc, "'kernel_call' cannot be used in a map body");
    return false;
  }
  if (!at(Tok::FuncName))
    return expected("the called kernel's name like '@simple_mul'");
  op.callee = module_->lookupKernel(tok_.text);
  if (!op.callee) {
    error(tok_.loc, "call of undeclared kernel '@" + tok_.text + "'; declare it before the "
                    "function: 'kernel @" + tok_.text + "(%a: tensor<?xf32>, ...) -> "
                    "tensor<?xf32>'");
    return false;
  }
  advance();
  return true;
}

} // namespace

std::unique_ptr<Module> parseModuleText(std::string_view text, uint32_t file,
                                        DiagEngine &diag,
                                        const ParseOptions &opts) {
  return Parser(text, file, diag, opts).run();
}

std::unique_ptr<Module> parseModule(const SourceManager &sm, uint32_t file,
                                    DiagEngine &diag, const ParseOptions &opts) {
  unsigned errors = diag.errorCount();
  std::unique_ptr<Module> m = parseModuleText(sm.text(file), file, diag, opts);
  // A file of comments alone (or one whose line ends were misread) builds
  // an empty bundle; say so rather than succeed silently.
  // Patterns alone build nothing either: they are matched by spec rules.
  if (!m || diag.errorCount() != errors)
    return m;
  const Function *pattern = nullptr;
  for (const auto &f : m->functions) {
    if (!f->isPattern)
      return m;
    pattern = pattern ? pattern : f.get();
  }
  if (pattern)
    diag.warning(pattern->loc, "no function defined, only patterns; a pattern is matched "
                               "by a spec rule and builds nothing by itself");
  else
    diag.warning(SourceLoc{file, 0, 0}, "no function defined; the file is empty or "
                                        "holds only comments");
  return m;
}

} // namespace graft
