// Writes a graph in graft's text format (docs/graph-format.md) one statement
// at a time, for the ONNX importer: unique value names, types, and the
// compound steps an ONNX op lowers into (numpy broadcasting made explicit,
// reshapes with their run-time sizes, elementwise maps with a scalar body).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace graft::onnx_import {

constexpr int64_t kDynamic = -1; // a `?` dimension

// A graft type: a scalar (|scalar|) or a tensor of |dims| (kDynamic for `?`).
struct Type {
  std::string elem; // "f32", "i64", "i1", ...
  std::vector<int64_t> dims;
  bool scalar = false;

  size_t rank() const { return dims.size(); }
  bool isStatic() const;
  int64_t staticCount() const; // element count; -1 when a dim is dynamic
  std::string text() const;    // "tensor<2x?xf32>" or "f32"
};

struct Value {
  std::string name; // with the leading '%'
  Type type;
  // For a constant holding a single element: that element as a scalar
  // literal ("1.5", "-3"), so elementwise maps capture it instead of
  // broadcasting a tensor.
  std::string splat;
};

// One size of a target shape: a static size, or the run-time size of |axis|
// of |src| (which has a dynamic dim there).
struct DimRef {
  int64_t size = kDynamic;
  std::string src;
  unsigned axis = 0;
  std::string index; // when set: an `index` value holding the size
};
using Shape = std::vector<DimRef>;

// The map body being written: scalar statements over the block arguments.
class Body {
public:
  // Emits `%N = TEXT : TYPE` and returns %N.
  std::string op(const std::string &text, const std::string &type);
  std::string constant(double v, const std::string &type);
  std::string boolean(bool v) { return op(v ? "constant true" : "constant false", "i1"); }
  std::string lines;

private:
  unsigned next_ = 0;
};

// |args[i]| names operand i inside the body (a block argument, or a captured
// function-level scalar); returns the value to yield.
using BodyFn = std::function<std::string(Body &, const std::vector<std::string> &args)>;

class GraphWriter {
public:
  // A fresh value name derived from |hint| (an ONNX name: characters graft
  // names cannot hold become '_').
  std::string freshName(const std::string &hint);

  // Emits `NAME = TEXT : TYPE` (NAME fresh from |hint|).
  Value emit(const std::string &hint, const std::string &text, const Type &type);
  // Emits a statement with a map-style body.
  Value emitWithBody(const std::string &hint, const std::string &text, const Type &type,
                     const std::string &body);

  Shape shapeOf(const Value &v) const;
  // The `index` operands a result of shape |s| needs: one per dynamic dim
  // whose position is not in |skip|.
  std::string sizeOperands(const Shape &s, const std::set<unsigned> &skip = {});
  std::string indexConstant(int64_t v);
  std::string dimOf(const std::string &value, unsigned axis);
  // The size |d| as an `index` value.
  std::string sizeValue(const DimRef &d);
  // The product of dims [begin, end) of |s| (static when they all are).
  DimRef product(const Shape &s, size_t begin, size_t end);
  // |v| broadcast to |target|: input dim i goes to result dim |dims[i]|.
  Value broadcastInDims(const Value &v, const std::vector<int64_t> &dims, const Shape &target,
                        const std::string &hint);

  // numpy broadcasting of |shapes| (right-aligned); false when two static
  // sizes conflict.
  static bool broadcastShape(const std::vector<Shape> &shapes, Shape &out);
  // |v| broadcast to |target| (numpy rules, size-1 dims dropped first);
  // |v| itself when the shapes already agree.
  Value broadcastTo(const Value &v, const Shape &target, const std::string &hint);
  // |v| reshaped to |target| (same element count).
  Value reshape(const Value &v, const Shape &target, const std::string &hint);
  Value transpose(const Value &v, const std::vector<int64_t> &perm, const std::string &hint);
  // reduce |kind| over |axes| (sorted, unique).
  Value reduce(const Value &v, const std::vector<int64_t> &axes, const std::string &kind,
               const std::string &hint);
  // A tensor of shape |s| and element type |elem| (an integer type or
  // "index") whose every element is its index along |dim|.
  Value iota(const Shape &s, unsigned dim, const std::string &elem, const std::string &hint);
  // A tensor of shape |s| filled with the scalar |scalar| of type |elem|.
  Value splat(const std::string &scalar, const std::string &elem, const Shape &s,
              const std::string &hint);
  // An elementwise map over |operands| broadcast to one shape (numpy
  // rules); single-element constants (Value::splat) are captured as scalars
  // instead of broadcast. Empty |hint|: an error in the shapes returns a
  // value with an empty name.
  Value elementwise(const std::vector<Value> &operands, const std::string &resultElem,
                    const BodyFn &body, const std::string &hint);

  std::string lines;

private:
  std::set<std::string> used_;
  std::map<std::string, std::string> indexConstants_;
  std::map<std::pair<std::string, unsigned>, std::string> dims_;
  std::map<std::pair<std::string, std::string>, std::string> scalarConstants_;
  std::string scalarConstant(const std::string &literal, const std::string &elem);
};

// An integer-list attribute value as graph text: "[1, -2, 3]".
std::string intList(const std::vector<int64_t> &v);

// A graft name for an ONNX name (without '%'): characters outside
// [A-Za-z0-9_.$] become '_'; empty becomes "v".
std::string sanitizeName(const std::string &name);

} // namespace graft::onnx_import
