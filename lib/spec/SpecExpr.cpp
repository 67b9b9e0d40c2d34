// Recursive-descent parser for spec expressions and kernel arguments, plus
// their printer and static evaluator. Grammar (docs/spec-format.md):
//
//   arg   := 'memref' '(' name ')' | 'processor_data' '(' ')' | name
//          | expr [':' type]
//   expr  := term (('+' | '-') term)*
//   term  := atom (('*' | '/' | '%') atom)*
//   atom  := int | '-' int | '(' expr ')' | 'dim' '(' name ',' int ')' | name
//          | ('ceildiv' | 'min' | 'max') '(' expr ',' expr ')'
//          | ('workgroup_id' | 'workgroup_count' | 'workgroup_size'
//             | 'workgroup_offset') '(' int ')' | 'processor_id' '(' ')'
//   type  := 'i1' | 'i8' | 'i16' | 'i32' | 'i64' | 'index'
#include "spec/SpecExpr.h"

#include "ir/ExprText.h"
#include "support/InternalError.h"

#include <cctype>
#include <climits>
#include <initializer_list>

namespace graft {

int SpecScope::inputIndex(std::string_view name) const {
  if (!pattern)
    return -1;
  for (size_t i = 0; i < pattern->args.size(); ++i)
    if (pattern->args[i]->name == name)
      return static_cast<int>(i);
  return -1;
}

int SpecScope::outputIndex(std::string_view name) const {
  for (size_t i = 0; i < outputNames.size(); ++i)
    if (outputNames[i] == name)
      return static_cast<int>(i);
  return -1;
}

const Type &SpecScope::typeOf(int input, int output) const {
  if (input >= 0)
    return pattern->args[input]->type;
  return pattern->resultTypes[output];
}

std::string SpecScope::nameOf(int input, int output) const {
  if (input >= 0)
    return pattern->args[input]->name;
  if (output >= 0 && output < static_cast<int>(outputNames.size()))
    return outputNames[output];
  return "?";
}

namespace {

struct Token {
  enum Kind { Ident, Int, Punct, End, Bad } kind;
  std::string text;
  int64_t value = 0;
  size_t pos = 0;
};

class ExprParser {
public:
  ExprParser(std::string_view text, SourceLoc loc, const SpecScope &scope,
             DiagEngine &diag, bool perWorkgroup)
      : text_(text), loc_(loc), scope_(scope), diag_(diag), perWorkgroup_(perWorkgroup) {
    advance();
  }

  bool parseArg(KernelArg &out);
  bool parseExprOnly(SpecExpr &out) {
    if (!parseExpr(out))
      return false;
    return expectEnd();
  }

private:
  SourceLoc at(size_t pos) const {
    SourceLoc l = loc_;
    if (l.valid())
      l.col += static_cast<uint32_t>(pos);
    return l;
  }
  bool fail(const Token &t, const std::string &msg) {
    if (!failed_)
      diag_.error(at(t.pos), msg);
    failed_ = true;
    return false;
  }
  std::string describe(const Token &t) const {
    if (t.kind == Token::End)
      return "end of expression";
    return "'" + t.text + "'";
  }

  void advance();
  // True when the character after the current token is '(' (a call).
  bool nextIsParen() const {
    size_t p = pos_;
    while (p < text_.size() && std::isspace(static_cast<unsigned char>(text_[p])))
      ++p;
    return p < text_.size() && text_[p] == '(';
  }
  bool isPunct(char c) const { return tok_.kind == Token::Punct && tok_.text[0] == c; }
  bool expectPunct(char c) {
    if (!isPunct(c))
      return fail(tok_, std::string("expected '") + c + "', found " + describe(tok_));
    advance();
    return true;
  }
  bool expectEnd() {
    if (tok_.kind != Token::End)
      return fail(tok_, "expected end of expression, found " + describe(tok_));
    return true;
  }
  bool parseInt(int64_t &v) {
    bool neg = false;
    Token start = tok_;
    if (isPunct('-')) {
      neg = true;
      advance();
    }
    if (tok_.kind != Token::Int)
      return fail(start, "expected an integer, found " + describe(start));
    v = neg ? -tok_.value : tok_.value;
    advance();
    return true;
  }
  bool parseExpr(SpecExpr &out);
  bool parseTerm(SpecExpr &out);
  // One left-associative level: operand (op operand)* for the operator
  // characters of |ops|.
  struct BinaryOperator {
    char c;
    graft_expr_op_t op;
  };
  bool parseBinary(SpecExpr &out, std::initializer_list<BinaryOperator> ops,
                   bool (ExprParser::*operand)(SpecExpr &));
  bool parseAtom(SpecExpr &out);
  bool parseWorkgroupAtom(const Token &fn, SpecExpr &out);
  bool parseAxis(int &axis);
  bool parseTypeSuffix(DType &type);
  bool parseTensorName(int &input, int &output, Token &nameTok);
  // Counts one operator, call or parenthesised group at |t|. The parser and
  // every walk over a SpecExpr recurse once per level, so a bound on these
  // keeps hostile input (100000 nested parentheses) from overflowing the
  // stack; real expressions use a handful.
  bool countOperation(const Token &t) {
    if (++operations_ <= kMaxOperations)
      return true;
    return fail(t, "expression is too complex: more than " +
                       std::to_string(kMaxOperations) +
                       " operators, calls and parentheses");
  }
  static constexpr unsigned kMaxOperations = 1000;

  std::string_view text_;
  SourceLoc loc_;
  const SpecScope &scope_;
  DiagEngine &diag_;
  bool perWorkgroup_; // workgroup_id & co. allowed (kernel arguments)
  size_t pos_ = 0;
  Token tok_;
  bool failed_ = false;
  unsigned operations_ = 0;
};

void ExprParser::advance() {
  while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
    ++pos_;
  tok_ = Token{Token::End, "", 0, pos_};
  if (pos_ >= text_.size())
    return;
  char c = text_[pos_];
  size_t start = pos_;
  // '%' starts a name when a letter or '_' follows ("%lhs"), else it is the
  // remainder operator.
  auto nameStart = [&](size_t at) {
    return at < text_.size() &&
           (std::isalpha(static_cast<unsigned char>(text_[at])) || text_[at] == '_');
  };
  if (nameStart(pos_) || (c == '%' && nameStart(pos_ + 1))) {
    ++pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    tok_.kind = Token::Ident;
    // A leading '%' is accepted so pattern names can be written as in the
    // pattern; it is not part of the name.
    tok_.text = std::string(text_.substr(start, pos_ - start));
    if (tok_.text[0] == '%')
      tok_.text.erase(0, 1);
    return;
  }
  if (std::isdigit(static_cast<unsigned char>(c))) {
    int64_t v = 0;
    bool overflow = false;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      int d = text_[pos_] - '0';
      if (v > (INT64_MAX - d) / 10)
        overflow = true;
      else
        v = v * 10 + d;
      ++pos_;
    }
    tok_.kind = overflow ? Token::Bad : Token::Int;
    tok_.text = std::string(text_.substr(start, pos_ - start));
    tok_.value = v;
    return;
  }
  ++pos_;
  tok_.text = std::string(1, c);
  tok_.kind = std::string_view("(),+-*/%:").find(c) != std::string_view::npos
                  ? Token::Punct
                  : Token::Bad;
}

bool ExprParser::parseTensorName(int &input, int &output, Token &nameTok) {
  nameTok = tok_;
  if (tok_.kind != Token::Ident)
    return fail(tok_, "expected a tensor name, found " + describe(tok_));
  input = scope_.inputIndex(tok_.text);
  output = input < 0 ? scope_.outputIndex(tok_.text) : -1;
  if (input < 0 && output < 0)
    return fail(tok_, "unknown name '" + tok_.text +
                          "'; expected a pattern argument or output name");
  if (!scope_.typeOf(input, output).tensor)
    return fail(tok_, "'" + tok_.text + "' is a scalar, expected a tensor");
  advance();
  return true;
}

bool ExprParser::parseAtom(SpecExpr &out) {
  out.loc = at(tok_.pos);
  if (tok_.kind == Token::Int || isPunct('-')) {
    out.kind = SpecExpr::Kind::Const;
    return parseInt(out.value);
  }
  if (isPunct('(')) {
    if (!countOperation(tok_))
      return false;
    advance();
    if (!parseExpr(out))
      return false;
    return expectPunct(')');
  }
  if (tok_.kind != Token::Ident)
    return fail(tok_, "expected an integer, a name or '(', found " + describe(tok_));
  Token fn = tok_;
  if (fn.text == "dim") {
    advance();
    if (!expectPunct('('))
      return false;
    Token nameTok;
    if (!parseTensorName(out.input, out.output, nameTok) || !expectPunct(','))
      return false;
    Token axisTok = tok_;
    int64_t axis;
    if (!parseInt(axis))
      return false;
    unsigned rank = scope_.typeOf(out.input, out.output).rank();
    if (axis < 0 || axis >= static_cast<int64_t>(rank))
      return fail(axisTok, "axis " + std::to_string(axis) + " out of range for '" +
                               nameTok.text + "' of rank " + std::to_string(rank));
    out.kind = SpecExpr::Kind::Dim;
    out.axis = static_cast<int>(axis);
    return expectPunct(')');
  }
  if (fn.text.compare(0, 10, "workgroup_") == 0 || fn.text == "processor_id")
    return parseWorkgroupAtom(fn, out);
  if (int input = scope_.inputIndex(fn.text); input >= 0 && !nextIsParen() &&
                                              !scope_.typeOf(input, -1).tensor) {
    DType t = scope_.typeOf(input, -1).elem;
    if (!isInteger(t))
      return fail(fn, "'" + fn.text + "' is a " + dtypeName(t) +
                          " scalar; expressions take integer scalars only");
    out.kind = SpecExpr::Kind::Scalar;
    out.input = input;
    advance();
    return true;
  }
  graft_expr_op_t k;
  if (fn.text == "ceildiv")
    k = GRAFT_EXPR_CEILDIV;
  else if (fn.text == "min")
    k = GRAFT_EXPR_MIN;
  else if (fn.text == "max")
    k = GRAFT_EXPR_MAX;
  else if (scope_.inputIndex(fn.text) >= 0 || scope_.outputIndex(fn.text) >= 0)
    return fail(fn, "'" + fn.text + "' is not an integer; use dim(" + fn.text +
                        ", axis) for its sizes");
  else if (nextIsParen())
    return fail(fn, "unknown function '" + fn.text +
                        "'; expected dim, ceildiv, min, max, workgroup_id, workgroup_count, "
                        "workgroup_size, workgroup_offset or processor_id");
  else
    return fail(fn, "unknown name '" + fn.text +
                        "'; expected a pattern argument or output name");
  if (!countOperation(fn))
    return false;
  advance();
  out.kind = SpecExpr::Kind::Binary;
  out.op = k;
  out.operands.resize(2);
  if (!expectPunct('(') || !parseExpr(out.operands[0]) || !expectPunct(',') ||
      !parseExpr(out.operands[1]))
    return false;
  return expectPunct(')');
}

bool ExprParser::parseAxis(int &axis) {
  Token axisTok = tok_;
  int64_t v;
  if (!expectPunct('(') || !parseInt(v))
    return false;
  if (v < 0 || v > 2)
    return fail(axisTok, "workgroup axis must be 0, 1 or 2, found " + std::to_string(v));
  axis = static_cast<int>(v);
  return expectPunct(')');
}

// workgroup_id(i), workgroup_count(i), workgroup_size(i), workgroup_offset(i)
// (= workgroup_id(i) * workgroup_size(i)) and processor_id().
bool ExprParser::parseWorkgroupAtom(const Token &fn, SpecExpr &out) {
  const std::string &name = fn.text;
  bool isSize = name == "workgroup_size", isOffset = name == "workgroup_offset";
  if (!isSize && !isOffset && name != "workgroup_id" && name != "workgroup_count" &&
      name != "processor_id")
    return fail(fn, "unknown function '" + name +
                        "'; expected workgroup_id, workgroup_count, workgroup_size, "
                        "workgroup_offset or processor_id");
  if (!isSize && !perWorkgroup_)
    return fail(fn, name + "() differs per workgroup; it may only be used in kernel "
                           "arguments ('args'), not in grids, constants or constraints");
  advance();
  if (name == "processor_id") {
    out.kind = SpecExpr::Kind::ProcessorId;
    return expectPunct('(') && expectPunct(')');
  }
  int axis;
  if (!parseAxis(axis))
    return false;
  if (isSize || isOffset) {
    if (axis >= static_cast<int>(scope_.workgroupSize.size()))
      return fail(fn, name + "(" + std::to_string(axis) + ") needs 'workgroup_size' " +
                          (scope_.workgroupSize.empty()
                               ? std::string("in the rule's 'replace'")
                               : "with " + std::to_string(axis + 1) + " entries, found " +
                                     std::to_string(scope_.workgroupSize.size())));
    SpecExpr size;
    size.kind = SpecExpr::Kind::Const;
    size.value = scope_.workgroupSize[axis];
    size.loc = out.loc;
    if (isSize) {
      out = size;
      return true;
    }
    SpecExpr id;
    id.kind = SpecExpr::Kind::WorkgroupId;
    id.axis = axis;
    id.loc = out.loc;
    out.kind = SpecExpr::Kind::Binary;
    out.op = GRAFT_EXPR_MUL;
    out.operands = {id, size};
    return true;
  }
  out.kind = name == "workgroup_id" ? SpecExpr::Kind::WorkgroupId
                                    : SpecExpr::Kind::WorkgroupCount;
  out.axis = axis;
  return true;
}

bool ExprParser::parseBinary(SpecExpr &out, std::initializer_list<BinaryOperator> ops,
                             bool (ExprParser::*operand)(SpecExpr &)) {
  if (!(this->*operand)(out))
    return false;
  for (;;) {
    const BinaryOperator *hit = nullptr;
    for (const BinaryOperator &o : ops)
      if (isPunct(o.c))
        hit = &o;
    if (!hit)
      return true;
    SpecExpr lhs = std::move(out);
    out = SpecExpr();
    out.kind = SpecExpr::Kind::Binary;
    out.op = hit->op;
    out.loc = at(tok_.pos);
    if (!countOperation(tok_))
      return false;
    advance();
    out.operands.push_back(std::move(lhs));
    out.operands.emplace_back();
    if (!(this->*operand)(out.operands[1]))
      return false;
  }
}

bool ExprParser::parseTerm(SpecExpr &out) {
  return parseBinary(out, {{'*', GRAFT_EXPR_MUL}, {'/', GRAFT_EXPR_DIV}, {'%', GRAFT_EXPR_REM}},
                     &ExprParser::parseAtom);
}

bool ExprParser::parseExpr(SpecExpr &out) {
  return parseBinary(out, {{'+', GRAFT_EXPR_ADD}, {'-', GRAFT_EXPR_SUB}}, &ExprParser::parseTerm);
}

bool ExprParser::parseTypeSuffix(DType &type) {
  type = DType::Index;
  if (tok_.kind == Token::End)
    return true;
  if (!expectPunct(':'))
    return false;
  static const std::pair<const char *, DType> kTypes[] = {
      {"i1", DType::I1},   {"i8", DType::I8},   {"i16", DType::I16},
      {"i32", DType::I32}, {"i64", DType::I64}, {"index", DType::Index}};
  for (const auto &[name, t] : kTypes) {
    if (tok_.kind == Token::Ident && tok_.text == name) {
      type = t;
      advance();
      return expectEnd();
    }
  }
  return fail(tok_, "expected an integer type (i1, i8, i16, i32, i64 or index), found " +
                        describe(tok_));
}

bool ExprParser::parseArg(KernelArg &out) {
  out.loc = at(tok_.pos);
  out.text = std::string(text_);
  if (tok_.kind == Token::Ident && tok_.text == "processor_data" &&
      scope_.inputIndex(tok_.text) < 0 && scope_.outputIndex(tok_.text) < 0) {
    out.kind = KernelArg::Kind::ProcessorData;
    advance();
    return expectPunct('(') && expectPunct(')') && expectEnd();
  }
  if (tok_.kind == Token::Ident && tok_.text == "memref") {
    out.kind = KernelArg::Kind::Memref;
    advance();
    Token nameTok;
    return expectPunct('(') && parseTensorName(out.input, out.output, nameTok) &&
           expectPunct(')') && expectEnd();
  }
  if (tok_.kind == Token::Ident) {
    int input = scope_.inputIndex(tok_.text);
    int output = input < 0 ? scope_.outputIndex(tok_.text) : -1;
    if (input >= 0 || output >= 0) {
      const Type &t = scope_.typeOf(input, output);
      Token nameTok = tok_;
      advance();
      if (tok_.kind == Token::End) {
        out.kind = t.tensor ? KernelArg::Kind::Tensor : KernelArg::Kind::Scalar;
        out.input = input;
        out.output = output;
        return true;
      }
      // An integer scalar may start an expression ("n - 1 : i32").
      if (t.tensor)
        return fail(tok_, "expected end of argument after '" + nameTok.text +
                              "', found " + describe(tok_));
      pos_ = nameTok.pos;
      advance();
    }
  }
  out.kind = KernelArg::Kind::Expr;
  if (!parseExpr(out.expr))
    return false;
  return parseTypeSuffix(out.type);
}

} // namespace

bool parseSpecExpr(std::string_view text, SourceLoc loc, const SpecScope &scope,
                   DiagEngine &diag, SpecExpr &out) {
  out = SpecExpr();
  ExprParser p(text, loc, scope, diag, /*perWorkgroup=*/false);
  return p.parseExprOnly(out);
}

bool parseKernelArg(std::string_view text, SourceLoc loc, const SpecScope &scope,
                    DiagEngine &diag, KernelArg &out) {
  out = KernelArg();
  ExprParser p(text, loc, scope, diag, /*perWorkgroup=*/true);
  return p.parseArg(out);
}

std::string formatSpecExpr(const SpecExpr &e, const SpecScope &scope) {
  switch (e.kind) {
  case SpecExpr::Kind::Const: return std::to_string(e.value);
  case SpecExpr::Kind::Dim:
    return "dim(" + scope.nameOf(e.input, e.output) + ", " + std::to_string(e.axis) + ")";
  case SpecExpr::Kind::Scalar: return scope.nameOf(e.input, -1);
  case SpecExpr::Kind::WorkgroupId: return "workgroup_id(" + std::to_string(e.axis) + ")";
  case SpecExpr::Kind::WorkgroupCount:
    return "workgroup_count(" + std::to_string(e.axis) + ")";
  case SpecExpr::Kind::ProcessorId: return "processor_id()";
  case SpecExpr::Kind::Binary: break;
  }
  std::string sym = graft_expr_op_symbol(e.op);
  std::string lhs = formatSpecExpr(e.operands[0], scope);
  std::string rhs = formatSpecExpr(e.operands[1], scope);
  if (sym.size() > 1) // ceildiv, min, max
    return sym + "(" + lhs + ", " + rhs + ")";
  return "(" + lhs + " " + sym + " " + rhs + ")";
}

std::optional<int64_t> evalSpecExprStatic(const SpecExpr &e,
                                          const std::vector<Type> &inputs,
                                          const std::vector<Type> &outputs,
                                          const SpecScope &scope,
                                          SpecEvalFailure &why) {
  if (e.kind == SpecExpr::Kind::Const)
    return e.value;
  if (e.kind == SpecExpr::Kind::Scalar) {
    why.message = scope.nameOf(e.input, -1) + " is a run-time value";
    return std::nullopt;
  }
  GRAFT_CHECK(e.kind != SpecExpr::Kind::WorkgroupId && e.kind != SpecExpr::Kind::WorkgroupCount &&
                  e.kind != SpecExpr::Kind::ProcessorId,
              "a per-workgroup spec expression was evaluated at compile time");
  if (e.kind == SpecExpr::Kind::Dim) {
    const std::vector<Type> &types = e.input >= 0 ? inputs : outputs;
    int index = e.input >= 0 ? e.input : e.output;
    GRAFT_CHECK(index >= 0 && index < static_cast<int>(types.size()) &&
                    e.axis < static_cast<int>(types[index].rank()),
                "spec expression refers to a value the match does not have");
    int64_t d = types[index].dims[e.axis];
    if (d == kDynamic) {
      why.message = "dim(" + scope.nameOf(e.input, e.output) + ", " + std::to_string(e.axis) +
                    ") is dynamic (" + types[index].str() + ")";
      return std::nullopt;
    }
    return d;
  }
  std::optional<int64_t> a = evalSpecExprStatic(e.operands[0], inputs, outputs, scope, why);
  if (!a)
    return std::nullopt;
  std::optional<int64_t> b = evalSpecExprStatic(e.operands[1], inputs, outputs, scope, why);
  if (!b)
    return std::nullopt;
  int64_t r = 0;
  graft_expr_status_t status = graft_expr_apply(e.op, *a, *b, &r);
  if (status != GRAFT_EXPR_STATUS_OK) {
    why.message = formatSpecExpr(e, scope) + ": " + exprFailureText(e.op, *a, *b, status);
    why.loc = e.loc;
    why.undefined = true;
    return std::nullopt;
  }
  return r;
}

} // namespace graft
