// Name tables and small helpers of the graph IR (lib/ir/IR.h). The printer
// lives in Printer.cpp.
#include "ir/IR.h"

#include "ir/FloatBits.h"
#include "support/InternalError.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

namespace graft {

namespace {
struct DTypeEntry {
  DType type;
  const char *name;
  unsigned size;
};
const DTypeEntry kDTypes[] = {
    {DType::I1, "i1", 1},       {DType::I8, "i8", 1},
    {DType::I16, "i16", 2},     {DType::I32, "i32", 4},
    {DType::I64, "i64", 8},     {DType::F16, "f16", 2},
    {DType::BF16, "bf16", 2},   {DType::F32, "f32", 4},
    {DType::F64, "f64", 8},     {DType::Index, "index", 8},
};

struct OpEntry {
  OpKind kind;
  const char *name;
};
// The keyword of every op as written in graph files.
const OpEntry kOps[] = {
    {OpKind::Constant, "constant"},
    {OpKind::Empty, "empty"},
    {OpKind::Fill, "fill"},
    {OpKind::Dim, "dim"},
    {OpKind::Matmul, "matmul"},
    {OpKind::BatchMatmul, "batch_matmul"},
    {OpKind::Map, "map"},
    {OpKind::Broadcast, "broadcast"},
    {OpKind::Transpose, "transpose"},
    {OpKind::Reshape, "reshape"},
    {OpKind::Reduce, "reduce"},
    {OpKind::Gather, "gather"},
    {OpKind::Slice, "slice"},
    {OpKind::Iota, "iota"},
    {OpKind::Concat, "concat"},
    {OpKind::Pad, "pad"},
    {OpKind::Tile, "tile"},
    {OpKind::Split, "split"},
    {OpKind::Call, "call"},
    {OpKind::ArgMax, "argmax"},
    {OpKind::ArgMin, "argmin"},
    {OpKind::Conv, "conv"},
    {OpKind::Pool, "pool"},
    {OpKind::KernelCall, "kernel_call"},
    {OpKind::Add, "add"},
    {OpKind::Sub, "sub"},
    {OpKind::Mul, "mul"},
    {OpKind::Div, "div"},
    {OpKind::Rem, "rem"},
    {OpKind::Max, "max"},
    {OpKind::Min, "min"},
    {OpKind::Pow, "pow"},
    {OpKind::Neg, "neg"},
    {OpKind::Abs, "abs"},
    {OpKind::Sign, "sign"},
    {OpKind::Exp, "exp"},
    {OpKind::Log, "log"},
    {OpKind::Tanh, "tanh"},
    {OpKind::Sqrt, "sqrt"},
    {OpKind::Rsqrt, "rsqrt"},
    {OpKind::Floor, "floor"},
    {OpKind::Ceil, "ceil"},
    {OpKind::Round, "round"},
    {OpKind::Sigmoid, "sigmoid"},
    {OpKind::Erf, "erf"},
    {OpKind::Sin, "sin"},
    {OpKind::Cos, "cos"},
    {OpKind::Log1p, "log1p"},
    {OpKind::Expm1, "expm1"},
    {OpKind::IsNan, "isnan"},
    {OpKind::IsInf, "isinf"},
    {OpKind::Cmp, "cmp"},
    {OpKind::Select, "select"},
    {OpKind::Cast, "cast"},
    {OpKind::Bitcast, "bitcast"},
};
} // namespace

const char *dtypeName(DType t) {
  for (const DTypeEntry &e : kDTypes)
    if (e.type == t)
      return e.name;
  return "<invalid>";
}

std::optional<DType> parseDType(const std::string &s) {
  for (const DTypeEntry &e : kDTypes)
    if (s == e.name)
      return e.type;
  return std::nullopt;
}

unsigned dtypeSize(DType t) {
  for (const DTypeEntry &e : kDTypes)
    if (e.type == t)
      return e.size;
  return 0;
}

bool isFloat(DType t) {
  return t == DType::F16 || t == DType::BF16 || t == DType::F32 ||
         t == DType::F64;
}

bool isInteger(DType t) {
  return t == DType::I1 || t == DType::I8 || t == DType::I16 ||
         t == DType::I32 || t == DType::I64 || t == DType::Index;
}

bool Type::hasStaticShape() const {
  for (int64_t d : dims)
    if (d == kDynamic)
      return false;
  return true;
}

std::string Type::str() const {
  if (!tensor)
    return dtypeName(elem);
  std::string s = "tensor<";
  for (int64_t d : dims)
    s += (d == kDynamic ? std::string("?") : std::to_string(d)) + "x";
  return s + dtypeName(elem) + ">";
}

const char *opName(OpKind k) {
  for (const OpEntry &e : kOps)
    if (e.kind == k)
      return e.name;
  return "<invalid-op>";
}

std::optional<OpKind> parseOpName(const std::string &s) {
  for (const OpEntry &e : kOps)
    if (s == e.name)
      return e.kind;
  return std::nullopt;
}

bool isScalarOp(OpKind k) { return k >= OpKind::Add && k <= OpKind::Bitcast; }
bool isUnaryScalarOp(OpKind k) { return k >= OpKind::Neg && k <= OpKind::IsInf; }
bool isFloatScalarOp(OpKind k) {
  return k == OpKind::Pow || (k >= OpKind::Exp && k <= OpKind::IsInf);
}
bool isPredicateOp(OpKind k) {
  return k == OpKind::Cmp || k == OpKind::IsNan || k == OpKind::IsInf;
}
bool isIndexArithmeticOp(OpKind k) {
  return (k >= OpKind::Add && k <= OpKind::Min) || k == OpKind::Neg || k == OpKind::Abs ||
         k == OpKind::Cmp || k == OpKind::Select || k == OpKind::Cast;
}

// Shortest decimal that reads back as |v|, always with a '.', 'e', "inf" or
// "nan" so that it lexes as a float again.
std::string formatDouble(double v, bool asFloat) {
  if (v != v)
    return "nan";
  if (v == __builtin_inf())
    return "inf";
  if (v == -__builtin_inf())
    return "-inf";
  char buf[64];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    double back = std::strtod(buf, nullptr);
    if (asFloat ? static_cast<float>(back) == static_cast<float>(v) : back == v)
      break;
  }
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos)
    s += ".0";
  return s;
}

std::string Attr::str() const {
  switch (kind) {
  case Kind::Int:
    return std::to_string(i);
  case Kind::Float:
    return formatDouble(f);
  case Kind::Ident:
    return s;
  case Kind::String: {
    std::string out = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\')
        out += '\\';
      if (c == '\n') {
        out += "\\n";
        continue;
      }
      out += c;
    }
    return out + "\"";
  }
  case Kind::IntList: {
    std::string out = "[";
    for (size_t k = 0; k < list.size(); ++k)
      out += (k ? ", " : "") + (list[k] == kRunTimeBound ? "?" : std::to_string(list[k]));
    return out + "]";
  }
  }
  GRAFT_INTERNAL_ERROR("an attribute of no known kind");
}

const Attr *Op::attr(const std::string &name) const {
  for (const NamedAttr &a : attrs)
    if (a.name == name)
      return &a.value;
  return nullptr;
}

int64_t Op::intAttr(const std::string &name, int64_t dflt) const {
  const Attr *a = attr(name);
  return a && a->kind == Attr::Kind::Int ? a->i : dflt;
}

std::string Op::identAttr(const std::string &name) const {
  const Attr *a = attr(name);
  return a && (a->kind == Attr::Kind::Ident || a->kind == Attr::Kind::String)
             ? a->s
             : std::string();
}

std::vector<int64_t> Op::listAttr(const std::string &name) const {
  const Attr *a = attr(name);
  return a && a->kind == Attr::Kind::IntList ? a->list
                                             : std::vector<int64_t>();
}

double ConstantData::getFloat(DType t, size_t i) const {
  size_t size = dtypeSize(t);
  size_t at = splat ? 0 : i * size;
  assert(size && at + size <= bytes.size() && "constant element out of range");
  const uint8_t *p = bytes.data() + at;
  switch (t) {
  case DType::F16: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return halfBitsToFloat(h);
  }
  case DType::BF16: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return bf16BitsToFloat(h);
  }
  case DType::F32: {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  case DType::F64: {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  default:
    return static_cast<double>(getInt(t, i));
  }
}

int64_t ConstantData::getInt(DType t, size_t i) const {
  size_t size = dtypeSize(t);
  size_t at = splat ? 0 : i * size;
  assert(size && at + size <= bytes.size() && "constant element out of range");
  const uint8_t *p = bytes.data() + at;
  switch (t) {
  case DType::I1:
    return *p ? 1 : 0;
  case DType::I8:
    return static_cast<int8_t>(*p);
  case DType::I16: {
    int16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  case DType::I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case DType::I64:
  case DType::Index: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  default:
    return static_cast<int64_t>(getFloat(t, i));
  }
}

Value *Function::newValue(Type t, std::string name, SourceLoc loc) {
  valueStore.push_back(std::make_unique<Value>());
  Value *v = valueStore.back().get();
  v->type = std::move(t);
  v->name = std::move(name);
  v->loc = loc;
  return v;
}

Op *Function::newOp(OpKind k, SourceLoc loc) {
  opStore.push_back(std::make_unique<Op>());
  Op *op = opStore.back().get();
  op->kind = k;
  op->loc = loc;
  return op;
}

Region *Function::newRegion() {
  regionStore.push_back(std::make_unique<Region>());
  return regionStore.back().get();
}

std::vector<Op *> Function::users(const Value *v) const {
  std::vector<Op *> out;
  for (Op *op : ops) {
    for (Value *o : op->operands)
      if (o == v)
        out.push_back(op);
    if (Region *r = op->region.get())
      for (Op *inner : r->ops)
        for (Value *o : inner->operands)
          if (o == v)
            out.push_back(inner);
  }
  return out;
}

UseIndex::UseIndex(const Function &fn) {
  for (Op *op : fn.ops) {
    for (Value *o : op->operands)
      users_[o].push_back(op);
    if (Region *r = op->region.get())
      for (Op *inner : r->ops)
        for (Value *o : inner->operands)
          users_[o].push_back(inner);
  }
}

const std::vector<Op *> &UseIndex::users(const Value *v) const {
  auto it = users_.find(v);
  return it == users_.end() ? none_ : it->second;
}

bool Function::isUsed(const Value *v) const {
  for (Value *r : results)
    if (r == v)
      return true;
  for (Op *op : ops)
    if (Region *r = op->region.get())
      if (r->yield == v)
        return true;
  return !users(v).empty();
}

unsigned Function::eraseDeadOps() {
  unsigned removed = 0;
  // Erasing one op can make its operands' producers dead: iterate to a
  // fixed point, walking backwards so chains go in one pass.
  for (bool changed = true; changed;) {
    changed = false;
    std::set<const Value *> used(results.begin(), results.end());
    for (Op *op : ops) {
      used.insert(op->operands.begin(), op->operands.end());
      if (Region *r = op->region.get()) {
        for (Op *inner : r->ops)
          used.insert(inner->operands.begin(), inner->operands.end());
      }
    }
    std::vector<Op *> kept;
    for (Op *op : ops) {
      bool live = false;
      for (Value *r : op->results)
        live |= used.count(r) != 0;
      if (live)
        kept.push_back(op);
      else
        ++removed, changed = true;
    }
    ops = std::move(kept);
  }
  return removed;
}

Function *Module::lookup(const std::string &name) const {
  for (const auto &f : functions)
    if (f->name == name)
      return f.get();
  return nullptr;
}

bool castCompatible(const Type &pattern, const Type &payload) {
  if (pattern.tensor != payload.tensor || pattern.elem != payload.elem ||
      pattern.rank() != payload.rank())
    return false;
  for (unsigned i = 0; i < pattern.rank(); ++i)
    if (pattern.dims[i] != kDynamic && pattern.dims[i] != payload.dims[i])
      return false;
  return true;
}

const KernelDecl *Module::lookupKernel(const std::string &name) const {
  for (const auto &k : kernels)
    if (k->name == name)
      return k.get();
  return nullptr;
}

void replaceUses(Function &fn, size_t from, Value *oldV, Value *newV) {
  auto fix = [&](std::vector<Value *> &vs) { std::replace(vs.begin(), vs.end(), oldV, newV); };
  for (size_t i = from; i < fn.ops.size(); ++i) {
    Op *op = fn.ops[i];
    fix(op->operands);
    if (Region *r = op->region.get()) {
      if (r->yield == oldV)
        r->yield = newV;
      for (Op *inner : r->ops)
        fix(inner->operands);
    }
  }
  fix(fn.results);
}

} // namespace graft
