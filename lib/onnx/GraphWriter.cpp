// See GraphWriter.h.
#include "onnx/GraphWriter.h"

#include <cmath>
#include <cstdio>

namespace graft::onnx_import {

bool Type::isStatic() const {
  for (int64_t d : dims)
    if (d == kDynamic)
      return false;
  return true;
}

int64_t Type::staticCount() const {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d == kDynamic)
      return -1;
    n *= d;
  }
  return n;
}

std::string Type::text() const {
  if (scalar)
    return elem;
  std::string s = "tensor<";
  for (int64_t d : dims)
    s += (d == kDynamic ? "?" : std::to_string(d)) + "x";
  return s + elem + ">";
}

std::string intList(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string sanitizeName(const std::string &name) {
  std::string s;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '$';
    s += ok ? c : '_';
  }
  return s.empty() ? "v" : s;
}

std::string Body::op(const std::string &text, const std::string &type) {
  std::string name = "%" + std::to_string(next_++);
  lines += "    " + name + " = " + text + " : " + type + "\n";
  return name;
}

std::string Body::constant(double v, const std::string &type) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string lit = buf;
  if (lit.find_first_of(".enia") == std::string::npos && type[0] != 'i')
    lit += ".0";
  return op("constant " + lit, type);
}

// True for the names map bodies use for their own values (Body::op's "%N"
// and the block arguments "%xN"): a body sees the function's names, so
// those must never be taken there.
static bool isBodyLocalName(const std::string &name) {
  size_t digits = name[0] == 'x' ? 1 : 0;
  if (digits == name.size())
    return false;
  for (size_t i = digits; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9')
      return false;
  return true;
}

std::string GraphWriter::freshName(const std::string &hint) {
  std::string base = sanitizeName(hint);
  if (isBodyLocalName(base))
    base = "v" + base;
  std::string name = base;
  for (unsigned i = 1; used_.count(name); ++i)
    name = base + "." + std::to_string(i);
  used_.insert(name);
  return "%" + name;
}

Value GraphWriter::emit(const std::string &hint, const std::string &text, const Type &type) {
  Value v{freshName(hint), type, {}};
  lines += "  " + v.name + " = " + text + " : " + type.text() + "\n";
  return v;
}

Value GraphWriter::emitWithBody(const std::string &hint, const std::string &text,
                                const Type &type, const std::string &body) {
  Value v{freshName(hint), type, {}};
  lines += "  " + v.name + " = " + text + " : " + type.text() + " {\n" + body + "  }\n";
  return v;
}

Shape GraphWriter::shapeOf(const Value &v) const {
  Shape s;
  for (unsigned i = 0; i < v.type.dims.size(); ++i)
    s.push_back({v.type.dims[i], v.type.dims[i] == kDynamic ? v.name : "", i, ""});
  return s;
}

std::string GraphWriter::indexConstant(int64_t v) {
  auto it = indexConstants_.find(std::to_string(v));
  if (it != indexConstants_.end())
    return it->second;
  Type t{"index", {}, true};
  std::string name = emit("c" + std::to_string(v), "constant " + std::to_string(v), t).name;
  indexConstants_[std::to_string(v)] = name;
  return name;
}

std::string GraphWriter::dimOf(const std::string &value, unsigned axis) {
  auto key = std::make_pair(value, axis);
  auto it = dims_.find(key);
  if (it != dims_.end())
    return it->second;
  Type t{"index", {}, true};
  std::string name = emit(value.substr(1) + ".d" + std::to_string(axis),
                          "dim " + value + " {axis = " + std::to_string(axis) + "}", t)
                         .name;
  dims_[key] = name;
  return name;
}

std::string GraphWriter::scalarConstant(const std::string &literal, const std::string &elem) {
  auto key = std::make_pair(literal, elem);
  auto it = scalarConstants_.find(key);
  if (it != scalarConstants_.end())
    return it->second;
  std::string name = emit("cst", "constant " + literal, Type{elem, {}, true}).name;
  scalarConstants_[key] = name;
  return name;
}

std::string GraphWriter::sizeValue(const DimRef &d) {
  if (!d.index.empty())
    return d.index;
  if (d.size != kDynamic)
    return indexConstant(d.size);
  return dimOf(d.src, d.axis);
}

DimRef GraphWriter::product(const Shape &s, size_t begin, size_t end) {
  int64_t n = 1;
  bool dynamic = false;
  for (size_t i = begin; i < end; ++i) {
    if (s[i].size == kDynamic)
      dynamic = true;
    else
      n *= s[i].size;
  }
  if (!dynamic)
    return DimRef{n, "", 0, ""};
  std::string acc;
  for (size_t i = begin; i < end; ++i) {
    if (s[i].size == 1)
      continue;
    std::string d = sizeValue(s[i]);
    acc = acc.empty() ? d
                      : emit("size", "mul " + acc + ", " + d, Type{"index", {}, true}).name;
  }
  return DimRef{kDynamic, "", 0, acc};
}

std::string GraphWriter::sizeOperands(const Shape &s, const std::set<unsigned> &skip) {
  std::string ops;
  for (unsigned i = 0; i < s.size(); ++i)
    if (s[i].size == kDynamic && !skip.count(i))
      ops += ", " + sizeValue(s[i]);
  return ops;
}

static Type typeOf(const std::string &elem, const Shape &s) {
  Type t{elem, {}, false};
  for (const DimRef &d : s)
    t.dims.push_back(d.size);
  return t;
}

bool GraphWriter::broadcastShape(const std::vector<Shape> &shapes, Shape &out) {
  size_t rank = 0;
  for (const Shape &s : shapes)
    rank = std::max(rank, s.size());
  out.assign(rank, DimRef{1, "", 0, ""});
  for (const Shape &s : shapes) {
    for (size_t i = 0; i < s.size(); ++i) {
      DimRef &o = out[rank - s.size() + i];
      const DimRef &d = s[i];
      if (d.size == 1)
        continue;
      if (o.size == 1 || (o.size == kDynamic && d.size != kDynamic))
        o = d; // a static size pins a dynamic one (which must then agree at run time)
      else if (d.size != kDynamic && o.size != d.size)
        return false;
    }
  }
  return true;
}

Value GraphWriter::broadcastTo(const Value &v, const Shape &target, const std::string &hint) {
  Shape own = shapeOf(v);
  size_t lead = target.size() - own.size();
  // Equal sizes need nothing; two dynamic sizes are taken as equal (map
  // checks operand shapes at run time).
  bool same = own.size() == target.size();
  for (size_t i = 0; same && i < own.size(); ++i)
    same = own[i].size == target[i].size;
  if (same)
    return v;
  // Drop the size-1 dims that grow, then broadcast into the new positions.
  Shape kept;
  std::vector<int64_t> dims;
  for (size_t i = 0; i < own.size(); ++i) {
    if (own[i].size == 1 && target[lead + i].size != 1)
      continue;
    kept.push_back(own[i]);
    dims.push_back(int64_t(lead + i));
  }
  Value src = v;
  if (kept.size() != own.size())
    src = reshape(v, kept, hint);
  return broadcastInDims(src, dims, target, hint);
}

Value GraphWriter::broadcastInDims(const Value &v, const std::vector<int64_t> &dims,
                                   const Shape &target, const std::string &hint) {
  std::set<unsigned> skip(dims.begin(), dims.end());
  std::string attr = "{dims = [";
  for (size_t i = 0; i < dims.size(); ++i)
    attr += (i ? ", " : "") + std::to_string(dims[i]);
  attr += "]}";
  std::string operands = v.name + sizeOperands(target, skip);
  return emit(hint, "broadcast " + operands + " " + attr, typeOf(v.type.elem, target));
}

Value GraphWriter::reshape(const Value &v, const Shape &target, const std::string &hint) {
  return emit(hint, "reshape " + v.name + sizeOperands(target), typeOf(v.type.elem, target));
}

Value GraphWriter::transpose(const Value &v, const std::vector<int64_t> &perm,
                             const std::string &hint) {
  Type t{v.type.elem, {}, false};
  std::string attr;
  for (size_t i = 0; i < perm.size(); ++i) {
    t.dims.push_back(v.type.dims[size_t(perm[i])]);
    attr += (i ? ", " : "") + std::to_string(perm[i]);
  }
  return emit(hint, "transpose " + v.name + " {perm = [" + attr + "]}", t);
}

Value GraphWriter::reduce(const Value &v, const std::vector<int64_t> &axes,
                          const std::string &kind, const std::string &hint) {
  Type t{v.type.elem, {}, false};
  std::string attr;
  for (size_t i = 0, a = 0; i < v.type.dims.size(); ++i) {
    if (a < axes.size() && axes[a] == int64_t(i)) {
      attr += (a ? ", " : "") + std::to_string(i);
      ++a;
      continue;
    }
    t.dims.push_back(v.type.dims[i]);
  }
  return emit(hint, "reduce " + v.name + " {dims = [" + attr + "], kind = " + kind + "}", t);
}

Value GraphWriter::iota(const Shape &s, unsigned dim, const std::string &elem,
                        const std::string &hint) {
  std::string sizes = sizeOperands(s); // ", %a, %b" or ""
  return emit(hint, "iota" + (sizes.empty() ? std::string() : sizes.substr(1)) +
                        " {dim = " + std::to_string(dim) + "}",
              typeOf(elem, s));
}

Value GraphWriter::splat(const std::string &scalar, const std::string &elem, const Shape &s,
                         const std::string &hint) {
  Type t = typeOf(elem, s);
  Value e = emit(hint + ".empty", "empty" + [&] {
    std::string ops = sizeOperands(s);
    return ops.empty() ? std::string() : " " + ops.substr(2);
  }(), t);
  return emit(hint, "fill " + scalar + ", " + e.name, t);
}

Value GraphWriter::elementwise(const std::vector<Value> &operands, const std::string &resultElem,
                               const BodyFn &body, const std::string &hint) {
  std::vector<Shape> shapes;
  for (const Value &v : operands)
    shapes.push_back(shapeOf(v));
  Shape shape;
  if (!broadcastShape(shapes, shape))
    return Value{};
  std::vector<std::string> args(operands.size());
  std::vector<Value> tensors;
  std::string blockArgs;
  for (size_t i = 0; i < operands.size(); ++i) {
    const Value &v = operands[i];
    if (!v.splat.empty()) {
      args[i] = scalarConstant(v.splat, v.type.elem);
      continue;
    }
    std::string arg = "%x" + std::to_string(i);
    args[i] = arg;
    blockArgs += (blockArgs.empty() ? "" : ", ") + arg + ": " + v.type.elem;
    tensors.push_back(broadcastTo(v, shape, hint + ".b"));
  }
  if (tensors.empty()) // every operand a splat: map over one of them made a tensor
  {
    Value first = operands[0];
    std::string lit = scalarConstant(first.splat, first.type.elem);
    tensors.push_back(splat(lit, first.type.elem, shape, hint + ".s"));
    args[0] = "%x0";
    blockArgs = "%x0: " + first.type.elem;
  }
  Body b;
  std::string result = body(b, args);
  std::string operandText;
  for (const Value &t : tensors)
    operandText += (operandText.empty() ? "" : ", ") + t.name;
  std::string text = "  ^bb0(" + blockArgs + "):\n" + b.lines + "    yield " + result + "\n";
  return emitWithBody(hint, "map " + operandText, typeOf(resultElem, shape), text);
}

} // namespace graft::onnx_import
