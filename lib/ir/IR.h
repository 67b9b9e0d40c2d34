// The graph IR: modules of functions over tensors, as written in graph files
// (docs/graph-format.md) and in the match patterns of specs.
//
// A Function owns its Values and Ops. Ops are kept in program order. Every op
// has exactly one result except KernelCall (one per kernel output), Split
// (one per part) and Call (one per callee result). Scalar
// bodies of `map` are Regions: block arguments, ops over scalars and one
// yielded value. A body may use ("capture") scalar values defined outside it.
// ir/Clone.h copies a function deeply: a field added to Value, Op, Region or
// Function must be copied there too (its unit test compares every field).
#pragma once

#include "graft/abi.h"
#include "support/Diagnostics.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace graft {

// Element type; the values are those of graft_dtype_t in the ABI header.
enum class DType : uint8_t {
  Invalid = GRAFT_DTYPE_INVALID,
  I1 = GRAFT_DTYPE_I1,
  I8 = GRAFT_DTYPE_I8,
  I16 = GRAFT_DTYPE_I16,
  I32 = GRAFT_DTYPE_I32,
  I64 = GRAFT_DTYPE_I64,
  F16 = GRAFT_DTYPE_F16,
  BF16 = GRAFT_DTYPE_BF16,
  F32 = GRAFT_DTYPE_F32,
  F64 = GRAFT_DTYPE_F64,
  Index = GRAFT_DTYPE_INDEX,
};

const char *dtypeName(DType t);           // "f32"
std::optional<DType> parseDType(const std::string &s);
unsigned dtypeSize(DType t);              // bytes in memory (i1 = 1)
bool isFloat(DType t);
bool isInteger(DType t);                  // i1..i64 and index

constexpr int64_t kDynamic = -1;
// A `?` in an integer list attribute: a `slice` bound given by an index
// operand. The literal itself is refused by the parser.
constexpr int64_t kRunTimeBound = INT64_MIN + 1;

// A scalar type (dims empty, tensor false) or a ranked tensor type. A rank-0
// tensor (tensor<f32>) is distinct from the scalar f32.
struct Type {
  DType elem = DType::Invalid;
  bool tensor = false;
  std::vector<int64_t> dims; // kDynamic for '?'

  static Type scalar(DType t) { return Type{t, false, {}}; }
  static Type tensorOf(DType t, std::vector<int64_t> d) {
    return Type{t, true, std::move(d)};
  }
  unsigned rank() const { return static_cast<unsigned>(dims.size()); }
  bool isScalar() const { return !tensor; }
  bool hasStaticShape() const;
  bool operator==(const Type &o) const {
    return elem == o.elem && tensor == o.tensor && dims == o.dims;
  }
  bool operator!=(const Type &o) const { return !(*this == o); }
  std::string str() const; // "tensor<?x4xf32>", "f32"
};

// True when a value of type |payload| may stand where |pattern| is
// declared (a spec pattern's argument, a kernel's declared argument): same
// scalar/tensor kind, element type and rank; a '?' in |pattern| accepts any
// size, a static size needs the same static size (a '?' could differ).
bool castCompatible(const Type &pattern, const Type &payload);

enum class OpKind : uint8_t {
  // Tensor ops.
  Constant,    // scalar or dense tensor literal
  Empty,       // uninitialised tensor; operands: index values for '?' dims
  Fill,        // operands: scalar, shape-source tensor
  Dim,         // operands: tensor; attr axis
  Matmul,      // operands: lhs MxK, rhs KxN, acc MxN -> acc + lhs*rhs
  BatchMatmul, // operands: lhs BxMxK, rhs BxKxN, acc BxMxN
  Map,         // operands: same-shape tensors; region: scalar body
  Broadcast,   // operands: tensor, index values for '?' result dims; attr dims
  Transpose,   // operands: tensor; attr perm
  Reshape,     // operands: tensor, index values for '?' result dims
  Reduce,      // operands: tensor; attrs dims, kind (sum|max|min|prod)
  Gather,      // operands: tensor, integer index tensor; attr axis
  Slice,       // operands: tensor, an index per `?` bound; attrs starts, ends, steps
  Iota,        // operands: index values for '?' dims; attr dim
  Concat,      // operands: tensors; attr axis
  Pad,         // operands: tensor[, scalar pad value]; attrs low, high, mode
  Tile,        // operands: tensor; attr repeats
  Split,       // operands: tensor; attrs axis, sizes; one result per size
  Call,        // operands: the callee's arguments; Op::func is the callee
  ArgMax,      // operands: tensor; attrs axis, keepdims, select_last_index
  ArgMin,      // (lowered to reduce + map before dispatch: ArgReduce.cpp)
  Conv,        // operands: input NxCxS..., weights FxC/gxK...; ir/Window.h
  Pool,        // operands: input NxCxS...; attrs kind, window; ir/Window.h
  KernelCall,  // created by spec rewriting; see ir/KernelCall.h
  // Scalar ops (in map bodies; on index values also at function level).
  Add, Sub, Mul, Div, Rem, Max, Min, // binary, any type but i1
  Pow,                               // binary, float
  Neg, Abs, Sign,                    // unary, any type but i1
  Exp, Log, Tanh, Sqrt, Rsqrt, Floor, Ceil, Round, Sigmoid, Erf, Sin, Cos,
  Log1p, Expm1,                      // unary, float
  IsNan, IsInf,                      // unary, float -> i1
  Cmp,    // binary, attr pred (eq|ne|lt|le|gt|ge), result i1
  Select, // operands: i1 cond, a, b
  Cast,   // operand converted to the result type
  Bitcast, // operand's bits read as the result type (same width)
};

const char *opName(OpKind k); // the keyword used in graph files
std::optional<OpKind> parseOpName(const std::string &s);
bool isScalarOp(OpKind k);    // Add..Bitcast
bool isUnaryScalarOp(OpKind k);  // Neg..IsInf
bool isFloatScalarOp(OpKind k);  // takes float operands only: Pow, Exp..IsInf
bool isPredicateOp(OpKind k);    // gives i1: Cmp, IsNan, IsInf
// Function-level scalar ops compute sizes (index arithmetic): Add..Min, Neg,
// Abs, Cmp, Select and Cast; the others exist in map bodies only.
bool isIndexArithmeticOp(OpKind k);

// An attribute value: integer, float, identifier/string, or integer list.
struct Attr {
  enum class Kind : uint8_t { Int, Float, Ident, String, IntList } kind;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<int64_t> list;
  SourceLoc loc;
  // An identifier and a string of the same text are the same value
  // (`mode = edge`, `mode = "edge"`), as Op::identAttr reads them.
  bool operator==(const Attr &o) const {
    bool text = (kind == Kind::Ident || kind == Kind::String) &&
                (o.kind == Kind::Ident || o.kind == Kind::String);
    return (kind == o.kind || text) && i == o.i && f == o.f && s == o.s && list == o.list;
  }
  std::string str() const;
};

struct NamedAttr {
  std::string name;
  Attr value;
  SourceLoc nameLoc; // where the name is written
};

struct Op;
struct Region;
struct Function;

struct Value {
  Type type;
  std::string name;       // without '%'; may be empty for synthesized values
  SourceLoc loc;          // where it is defined
  Op *def = nullptr;      // defining op, or null for an argument
  int argIndex = -1;      // function or region argument index
  Region *region = nullptr; // set for region arguments
  bool isArg() const { return def == nullptr; }
};

// Literal payload of a Constant op, stored in the element type's memory
// representation (little-endian, i1 as one byte). A splat holds one element.
struct ConstantData {
  std::vector<uint8_t> bytes;
  bool splat = true;
  bool operator==(const ConstantData &o) const {
    return bytes == o.bytes && splat == o.splat;
  }
  // Element |i| (of a splat: always the one element) as double / int64.
  double getFloat(DType t, size_t i) const;
  int64_t getInt(DType t, size_t i) const;
};

// The call plan of a kernel_call op (ir/KernelCall.h).
struct KernelCall;

// An external kernel a graph declares and calls directly (`kernel
// @name(%a: T, ...) -> T`, docs/graph-format.md): its signature. Its code
// comes from the spec rule that names it (`kernel: name`,
// docs/spec-format.md). The result's sizes are an argument's (`-> T like
// %a`), or each '?' of the result type is given at the call by one
// trailing `index` operand, as `empty` takes them.
struct KernelDecl {
  std::string name; // without '@'
  SourceLoc loc;    // of the name
  std::vector<std::string> argNames; // without '%'
  std::vector<Type> argTypes;
  std::vector<SourceLoc> argLocs;
  Type resultType;
  int resultLike = -1; // the argument whose sizes the result has, or -1

  // The call's operands: the arguments, then one index per '?' of the
  // result unless it is like an argument.
  unsigned dynamicResultDims() const {
    unsigned n = 0;
    for (int64_t d : resultType.dims)
      n += d == kDynamic && resultLike < 0;
    return n;
  }
};

struct Op {
  OpKind kind;
  std::vector<Value *> operands;
  std::vector<Value *> results;
  std::vector<NamedAttr> attrs;
  std::unique_ptr<Region> region; // Map only
  ConstantData constant;          // Constant only
  // KernelCall only: what to call and how; shared by every call of one rule
  // on one target, immutable.
  std::shared_ptr<const KernelCall> call;
  // KernelCall written in the graph (a direct call): the kernel it calls.
  // Its plan comes from the spec rule that provides the kernel for the
  // target being built (spec/DirectCalls.h).
  const KernelDecl *callee = nullptr;
  // Call only: the function of the same module it calls.
  const Function *func = nullptr;
  // An op of graft's own fallback for the kernel_call |fallbackFor|: it runs
  // only when the call does not (no plugin provides an optional import, or
  // the call's run-time guard does not hold).
  const Op *fallbackFor = nullptr;
  SourceLoc loc;                  // location of the op name

  Value *result() const { return results.empty() ? nullptr : results[0]; }
  const Attr *attr(const std::string &name) const;
  int64_t intAttr(const std::string &name, int64_t dflt = 0) const;
  std::string identAttr(const std::string &name) const;
  std::vector<int64_t> listAttr(const std::string &name) const;
};

// Scalar body of a map: arguments (one per map operand, element types), ops,
// and the yielded value.
struct Region {
  std::vector<Value *> args;
  std::vector<Op *> ops;   // program order
  Value *yield = nullptr;
  SourceLoc yieldLoc;
};

struct Function {
  std::string name; // without '@'
  SourceLoc loc;
  std::vector<Value *> args;
  std::vector<Type> resultTypes; // declared result types
  std::vector<Value *> results;  // returned values
  SourceLoc returnLoc;
  std::vector<Op *> ops;         // top-level ops in program order
  bool isPattern = false;        // written with `pattern` (specs)

  // Ownership of everything above.
  std::vector<std::unique_ptr<Value>> valueStore;
  std::vector<std::unique_ptr<Op>> opStore;
  std::vector<std::unique_ptr<Region>> regionStore;

  Value *newValue(Type t, std::string name, SourceLoc loc);
  Op *newOp(OpKind k, SourceLoc loc);
  // A region kept by the function; a map's body is owned by Op::region
  // instead (the parser creates it there).
  Region *newRegion();

  // Ops using |v|: top-level ops and ops inside regions (a capture is a use
  // by the region's op, listed once per operand). Being returned is not an
  // op use; see isUsed.
  // Walks the whole function: a pass asking about many values builds a
  // UseIndex instead.
  std::vector<Op *> users(const Value *v) const;
  // True if |v| is an operand of any op (incl. region ops), the yield of a
  // region, or a returned value.
  bool isUsed(const Value *v) const;
  // Drops top-level ops whose results are unused (never KernelCall results
  // that are returned). Returns how many ops were removed.
  unsigned eraseDeadOps();
};

struct Module {
  std::vector<std::unique_ptr<Function>> functions;
  std::vector<std::unique_ptr<KernelDecl>> kernels; // in file order
  Function *lookup(const std::string &name) const;
  const KernelDecl *lookupKernel(const std::string &name) const;
};

// Makes every use of |oldV| by the top-level ops from index |from| on
// (operands, and in their bodies captures and yields) and by `return` a
// use of |newV|.
void replaceUses(Function &fn, size_t from, Value *oldV, Value *newV);

// Prints a function back in graph syntax (used by --emit and tests).
std::string printFunction(const Function &f);
// Prints a kernel declaration: `kernel @k(%a: tensor<?xf32>) -> tensor<?xf32>`.
std::string printKernelDecl(const KernelDecl &k);
// Prints the kernel declarations, then every function of |m|, separated by
// blank lines.
std::string printModule(const Module &m);
// Shortest decimal form of |v| that reads back as the same value (as a
// float when |asFloat|), always recognisably a float: "0.0", "1e+30", "inf".
std::string formatDouble(double v, bool asFloat = false);

// Function::users of every value at once, in one walk of the function, for
// passes that ask about many values (linear instead of quadratic in the
// number of ops). Valid until the function changes.
class UseIndex {
public:
  explicit UseIndex(const Function &fn);
  // Same order and multiplicity as Function::users(v).
  const std::vector<Op *> &users(const Value *v) const;

private:
  std::unordered_map<const Value *, std::vector<Op *>> users_;
  std::vector<Op *> none_;
};

} // namespace graft
