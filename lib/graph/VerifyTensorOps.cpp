// Verifier rules of the tensor ops: operand kinds and ranks, static shape
// agreement, attributes, and that the declared result type matches what the
// operands imply ('?' in the result is always allowed; a static result size
// must agree with any static size the operands give).
#include "graph/VerifierImpl.h"
#include "ir/MapBroadcast.h"
#include "ir/SliceBounds.h"

#include <algorithm>

namespace graft {

namespace {

class TensorOpVerifier {
public:
  TensorOpVerifier(const Op &op, VerifyContext &cx)
      : op_(op), cx_(cx), name_(opName(op.kind)) {}

  bool run();

private:
  bool fail(const std::string &msg) {
    cx_.error(op_.loc, msg);
    return false;
  }
  const Type &operandType(size_t i) const { return op_.operands[i]->type; }
  const Type &resultType() const { return op_.result()->type; }

  bool operandCount(size_t n) {
    if (op_.operands.size() == n)
      return true;
    return fail("'" + name_ + "' expects " + countOf(n, "operand") + ", found " +
                std::to_string(op_.operands.size()));
  }
  // Operand |i| must be a tensor (of rank |rank| unless -1).
  bool tensorOperand(size_t i, const char *role, int rank = -1) {
    const Type &t = operandType(i);
    if (!t.tensor)
      return fail("'" + name_ + "' " + role + " " + valueRef(op_.operands[i]) +
                  " must be a tensor, found " + t.str());
    if (rank >= 0 && t.rank() != static_cast<unsigned>(rank))
      return fail("'" + name_ + "' " + role + " " + valueRef(op_.operands[i]) +
                  " must have rank " + std::to_string(rank) + ", found " + t.str());
    return true;
  }
  bool indexOperands(size_t from) {
    for (size_t i = from; i < op_.operands.size(); ++i)
      if (operandType(i) != Type::scalar(DType::Index))
        return fail("'" + name_ + "' size operand " + valueRef(op_.operands[i]) +
                    " must be index, found " + operandType(i).str());
    return true;
  }
  bool sameElem(size_t i, DType elem, const char *role) {
    if (operandType(i).elem == elem)
      return true;
    return fail("'" + name_ + "' " + role + " " + valueRef(op_.operands[i]) +
                " has element type " + dtypeName(operandType(i).elem) +
                ", expected " + dtypeName(elem));
  }
  // The declared result must be compatible with |expected|.
  bool result(const Type &expected) {
    if (typesCompatible(resultType(), expected))
      return true;
    return fail("'" + name_ + "' result type " + resultType().str() +
                " does not match its operands: expected " + expected.str());
  }
  bool resultIsTensor() {
    if (resultType().tensor)
      return true;
    return fail("'" + name_ + "' result must be a tensor, found " +
                resultType().str());
  }
  // Number of '?' in |t|'s dims.
  static size_t dynamicCount(const Type &t) {
    return static_cast<size_t>(std::count(t.dims.begin(), t.dims.end(), kDynamic));
  }
  bool sizeOperandCount(size_t expected, size_t from, const std::string &why) {
    size_t found = op_.operands.size() - from;
    if (found == expected)
      return true;
    return fail("'" + name_ + "' to " + resultType().str() + " needs " +
                std::to_string(expected) + " index operands (" + why + "), found " +
                std::to_string(found));
  }
  const Attr *requireAttr(const char *name, Attr::Kind kind, const char *what) {
    const Attr *a = op_.attr(name);
    if (!a) {
      fail("'" + name_ + "' needs attribute '" + name + "' (" + what + ")");
      return nullptr;
    }
    if (a->kind != kind) {
      cx_.error(a->loc, "attribute '" + std::string(name) + "' of '" + name_ +
                            "' must be " + what + ", found " + a->str());
      cx_.ok = false;
      return nullptr;
    }
    return a;
  }

  bool constant();
  bool empty();
  bool fill();
  bool dim();
  bool matmul(bool batched);
  bool map();
  bool broadcast();
  bool transpose();
  bool reshape();
  bool reduce();
  bool gather();
  bool slice();
  bool iota();
  bool concat();
  bool pad();
  bool tile();
  bool split();
  bool argReduce();
  // Optional 0/1 attribute |name|: false (reported) if it is anything else.
  bool flagAttr(const char *name);
  // Data movement attribute |name|: an integer list with one entry per dim
  // of the input (rank |rank|); null (reported) otherwise.
  const Attr *perDimList(const char *name, unsigned rank);

  const Op &op_;
  VerifyContext &cx_;
  std::string name_;
};

bool TensorOpVerifier::run() {
  // '?' (a bound given by an operand) exists for slice's starts and ends only.
  for (const NamedAttr &a : op_.attrs) {
    bool runTime = a.value.kind == Attr::Kind::IntList &&
                   std::count(a.value.list.begin(), a.value.list.end(), kRunTimeBound);
    if (runTime && !(op_.kind == OpKind::Slice && (a.name == "starts" || a.name == "ends"))) {
      cx_.error(a.value.loc, "'?' is allowed only in the starts and ends of a 'slice', not in '" +
                                 name_ + "' " + a.name);
      return false;
    }
  }
  switch (op_.kind) {
  case OpKind::Constant: return constant();
  case OpKind::Empty: return empty();
  case OpKind::Fill: return fill();
  case OpKind::Dim: return dim();
  case OpKind::Matmul: return matmul(false);
  case OpKind::BatchMatmul: return matmul(true);
  case OpKind::Map: return map();
  case OpKind::Broadcast: return broadcast();
  case OpKind::Transpose: return transpose();
  case OpKind::Reshape: return reshape();
  case OpKind::Reduce: return reduce();
  case OpKind::Gather: return gather();
  case OpKind::Slice: return slice();
  case OpKind::Iota: return iota();
  case OpKind::Concat: return concat();
  case OpKind::Pad: return pad();
  case OpKind::Tile: return tile();
  case OpKind::Split: return split();
  case OpKind::Call: return verifyCall(op_, cx_);
  case OpKind::KernelCall: return verifyKernelCall(op_, cx_);
  case OpKind::ArgMax: case OpKind::ArgMin: return argReduce();
  case OpKind::Conv: case OpKind::Pool: return verifyWindowOp(op_, cx_);
  default: return true; // scalar ops: Verifier.cpp
  }
}

bool TensorOpVerifier::constant() {
  static const char *const kNone[] = {nullptr};
  if (!checkAttrNames(op_, kNone, cx_) || !operandCount(0))
    return false;
  if (resultType().tensor && !resultType().hasStaticShape())
    return fail("constant type must have a static shape, found " +
                resultType().str());
  return true;
}

bool TensorOpVerifier::empty() {
  static const char *const kNone[] = {nullptr};
  if (!checkAttrNames(op_, kNone, cx_) || !resultIsTensor())
    return false;
  return sizeOperandCount(dynamicCount(resultType()), 0, "one per '?'") &&
         indexOperands(0);
}

bool TensorOpVerifier::fill() {
  static const char *const kNone[] = {nullptr};
  if (!checkAttrNames(op_, kNone, cx_) || !operandCount(2))
    return false;
  const Type &value = operandType(0);
  if (value.tensor)
    return fail("'fill' value " + valueRef(op_.operands[0]) +
                " must be a scalar, found " + value.str());
  if (!tensorOperand(1, "shape source") || !sameElem(1, value.elem, "shape source"))
    return false;
  return result(Type::tensorOf(value.elem, operandType(1).dims));
}

bool TensorOpVerifier::dim() {
  static const char *const kAllowed[] = {"axis", nullptr};
  if (!checkAttrNames(op_, kAllowed, cx_) || !operandCount(1) ||
      !tensorOperand(0, "operand"))
    return false;
  const Attr *axis = requireAttr("axis", Attr::Kind::Int, "an integer");
  if (!axis)
    return false;
  unsigned rank = operandType(0).rank();
  if (axis->i < 0 || axis->i >= static_cast<int64_t>(rank)) {
    cx_.error(axis->loc, "axis " + std::to_string(axis->i) + " is out of range for " +
                             operandType(0).str() + " (rank " +
                             std::to_string(rank) + ")");
    return false;
  }
  if (resultType() != Type::scalar(DType::Index))
    return fail("'dim' result must be index, found " + resultType().str());
  return true;
}

// lhs [B]xMxK, rhs [B]xKxN, acc [B]xMxN.
bool TensorOpVerifier::matmul(bool batched) {
  static const char *const kNone[] = {nullptr};
  int rank = batched ? 3 : 2;
  if (!checkAttrNames(op_, kNone, cx_) || !operandCount(3) ||
      !tensorOperand(0, "lhs", rank) || !tensorOperand(1, "rhs", rank) ||
      !tensorOperand(2, "accumulator", rank))
    return false;
  DType elem = operandType(0).elem, accElem = operandType(2).elem;
  if (!sameElem(1, elem, "rhs"))
    return false;
  if (elem == DType::I1)
    return fail("'" + name_ + "' does not support i1 elements");
  // Mixed precision: narrow inputs, products accumulated in a wider type.
  bool widened = (elem == DType::I8 && accElem == DType::I32) ||
                 ((elem == DType::F16 || elem == DType::BF16) && accElem == DType::F32);
  if (accElem != elem && !widened)
    return fail("'" + name_ + "' accumulator " + valueRef(op_.operands[2]) +
                " has element type " + dtypeName(accElem) + ", expected " + dtypeName(elem) +
                (elem == DType::I8 ? " or i32"
                 : elem == DType::F16 || elem == DType::BF16 ? " or f32" : ""));
  const std::vector<int64_t> &a = operandType(0).dims, &b = operandType(1).dims,
                             &c = operandType(2).dims;
  size_t o = batched ? 1 : 0;
  // "matmul inner dimensions differ: lhs has K = 3, rhs has K = 4"
  auto check = [&](const char *what, const char *letter, const char *x,
                   int64_t xv, const char *y, int64_t yv) {
    if (dimsCompatible(xv, yv))
      return true;
    return fail(name_ + " " + what + " differ: " + x + " has " + letter + " = " +
                std::to_string(xv) + ", " + y + " has " + letter + " = " +
                std::to_string(yv));
  };
  if (batched && (!check("batch dimensions", "B", "lhs", a[0], "rhs", b[0]) ||
                  !check("batch dimensions", "B", "lhs", a[0], "accumulator", c[0]) ||
                  !check("batch dimensions", "B", "rhs", b[0], "accumulator", c[0])))
    return false;
  if (!check("inner dimensions", "K", "lhs", a[o + 1], "rhs", b[o]) ||
      !check("row counts", "M", "lhs", a[o], "accumulator", c[o]) ||
      !check("column counts", "N", "rhs", b[o + 1], "accumulator", c[o + 1]))
    return false;
  std::vector<int64_t> expected;
  if (batched)
    expected.push_back(mergeDims(mergeDims(a[0], b[0]), c[0]));
  expected.push_back(mergeDims(a[o], c[o]));
  expected.push_back(mergeDims(b[o + 1], c[o + 1]));
  return result(Type::tensorOf(accElem, expected));
}

// Operand shapes and the result; the body is checked by verifyRegion.
bool TensorOpVerifier::map() {
  static const char *const kNone[] = {nullptr};
  if (!checkAttrNames(op_, kNone, cx_))
    return false;
  if (op_.operands.empty())
    return fail("'map' needs at least one tensor operand");
  for (size_t i = 0; i < op_.operands.size(); ++i)
    if (!tensorOperand(i, "operand"))
      return false;
  // Numpy broadcasting (ir/MapBroadcast.h); the first operand that does
  // not broadcast with those before it is named.
  std::vector<const Type *> types;
  std::vector<int64_t> shape;
  std::string why;
  for (size_t i = 0; i < op_.operands.size(); ++i) {
    types.push_back(&operandType(i));
    if (!mapResultDims(types, shape, why))
      return fail("'map' operands have different shapes: " +
                  valueRef(op_.operands[0]) + " is " + operandType(0).str() + ", " +
                  valueRef(op_.operands[i]) + " is " + operandType(i).str() + " (" + why +
                  ")");
  }
  // The element type comes from the body's yield, checked there.
  return result(Type::tensorOf(resultType().elem, shape));
}

bool TensorOpVerifier::broadcast() {
  static const char *const kAllowed[] = {"dims", nullptr};
  if (!checkAttrNames(op_, kAllowed, cx_) || op_.operands.empty() ||
      !tensorOperand(0, "input") || !resultIsTensor())
    return op_.operands.empty() ? fail("'broadcast' needs an input tensor") : false;
  const Attr *dims = requireAttr("dims", Attr::Kind::IntList, "an integer list");
  if (!dims)
    return false;
  const Type &in = operandType(0), &out = resultType();
  if (dims->list.size() != in.rank()) {
    cx_.error(dims->loc, "'broadcast' dims has " + std::to_string(dims->list.size()) +
                             " entries, expected " + std::to_string(in.rank()) +
                             " (one per input dimension)");
    return false;
  }
  for (size_t i = 0; i < dims->list.size(); ++i) {
    int64_t d = dims->list[i];
    if (d < 0 || d >= static_cast<int64_t>(out.rank()) ||
        (i > 0 && d <= dims->list[i - 1])) {
      cx_.error(dims->loc, "'broadcast' dims must be increasing and less than the "
                           "result rank " + std::to_string(out.rank()) + ", found " +
                               dims->str());
      return false;
    }
  }
  if (out.elem != in.elem)
    return fail("'broadcast' result element type " + std::string(dtypeName(out.elem)) +
                " differs from the input's " + dtypeName(in.elem));
  size_t unmappedDynamic = 0;
  for (size_t j = 0; j < out.rank(); ++j) {
    auto it = std::find(dims->list.begin(), dims->list.end(), static_cast<int64_t>(j));
    if (it == dims->list.end()) {
      unmappedDynamic += out.dims[j] == kDynamic;
      continue;
    }
    size_t i = static_cast<size_t>(it - dims->list.begin());
    if (!dimsCompatible(in.dims[i], out.dims[j]))
      return fail("'broadcast' input dimension " + std::to_string(i) + " has size " +
                  dimStr(in.dims[i]) + ", result dimension " + std::to_string(j) +
                  " has size " + dimStr(out.dims[j]));
  }
  return sizeOperandCount(unmappedDynamic, 1,
                          "one per '?' result dimension not in dims") &&
         indexOperands(1);
}

bool TensorOpVerifier::transpose() {
  static const char *const kAllowed[] = {"perm", nullptr};
  if (!checkAttrNames(op_, kAllowed, cx_) || !operandCount(1) ||
      !tensorOperand(0, "input") || !resultIsTensor())
    return false;
  const Attr *perm = requireAttr("perm", Attr::Kind::IntList, "an integer list");
  if (!perm)
    return false;
  const Type &in = operandType(0);
  std::vector<int64_t> sorted = perm->list;
  std::sort(sorted.begin(), sorted.end());
  bool isPerm = sorted.size() == in.rank();
  for (size_t i = 0; isPerm && i < sorted.size(); ++i)
    isPerm = sorted[i] == static_cast<int64_t>(i);
  if (!isPerm) {
    cx_.error(perm->loc, "'transpose' perm " + perm->str() +
                             " is not a permutation of 0.." +
                             std::to_string(static_cast<int64_t>(in.rank()) - 1) +
                             " (input " + in.str() + ")");
    return false;
  }
  std::vector<int64_t> expected;
  for (int64_t p : perm->list)
    expected.push_back(in.dims[static_cast<size_t>(p)]);
  return result(Type::tensorOf(in.elem, expected));
}

bool TensorOpVerifier::reshape() {
  static const char *const kNone[] = {nullptr};
  if (!checkAttrNames(op_, kNone, cx_) || op_.operands.empty())
    return op_.operands.empty() ? fail("'reshape' needs an input tensor") : false;
  if (!tensorOperand(0, "input") || !resultIsTensor())
    return false;
  const Type &in = operandType(0), &out = resultType();
  if (out.elem != in.elem)
    return fail("'reshape' result element type " + std::string(dtypeName(out.elem)) +
                " differs from the input's " + dtypeName(in.elem));
  if (in.hasStaticShape() && out.hasStaticShape()) {
    // Dims are < 2^32 and rank <= 8, but products can still overflow:
    // compare in long double, exact enough to tell unequal counts apart
    // for any realistic size, and never UB.
    long double a = 1, b = 1;
    for (int64_t d : in.dims)
      a *= static_cast<long double>(d);
    for (int64_t d : out.dims)
      b *= static_cast<long double>(d);
    if (a != b)
      return fail("'reshape' changes the element count: " + in.str() + " has " +
                  std::to_string(static_cast<unsigned long long>(a)) + " elements, " +
                  out.str() + " has " +
                  std::to_string(static_cast<unsigned long long>(b)));
  }
  return sizeOperandCount(dynamicCount(out), 1, "one per '?'") && indexOperands(1);
}

bool TensorOpVerifier::reduce() {
  static const char *const kAllowed[] = {"dims", "kind", "keepdims", nullptr};
  if (!checkAttrNames(op_, kAllowed, cx_) || !operandCount(1) ||
      !tensorOperand(0, "input") || !resultIsTensor())
    return false;
  const Attr *dims = requireAttr("dims", Attr::Kind::IntList, "an integer list");
  const Attr *kind = requireAttr("kind", Attr::Kind::Ident, "sum, max, min, prod or mean");
  if (!dims || !kind || !flagAttr("keepdims"))
    return false;
  const Type &in = operandType(0);
  if (kind->s != "sum" && kind->s != "max" && kind->s != "min" && kind->s != "prod" &&
      kind->s != "mean") {
    cx_.error(kind->loc, "unknown reduce kind '" + kind->s +
                             "', expected sum, max, min, prod or mean");
    return false;
  }
  if (in.elem == DType::I1)
    return fail("'reduce' does not support i1 elements");
  if (kind->s == "mean" && !isFloat(in.elem))
    return fail("'reduce' kind mean needs float elements, found " + in.str());
  bool valid = !dims->list.empty();
  for (size_t i = 0; valid && i < dims->list.size(); ++i)
    valid = dims->list[i] >= 0 && dims->list[i] < static_cast<int64_t>(in.rank()) &&
            (i == 0 || dims->list[i] > dims->list[i - 1]);
  if (!valid) {
    cx_.error(dims->loc, "'reduce' dims must be non-empty, increasing and less than "
                         "the input rank " + std::to_string(in.rank()) + ", found " +
                             dims->str());
    return false;
  }
  std::vector<int64_t> expected;
  for (size_t d = 0; d < in.rank(); ++d)
    if (std::find(dims->list.begin(), dims->list.end(), static_cast<int64_t>(d)) ==
        dims->list.end())
      expected.push_back(in.dims[d]);
    else if (op_.intAttr("keepdims"))
      expected.push_back(1);
  return result(Type::tensorOf(in.elem, expected));
}

bool TensorOpVerifier::flagAttr(const char *name) {
  const Attr *a = op_.attr(name);
  if (!a || (a->kind == Attr::Kind::Int && (a->i == 0 || a->i == 1)))
    return true;
  cx_.error(a->loc, "attribute '" + std::string(name) + "' of '" + name_ +
                        "' must be 0 or 1, found " + a->str());
  cx_.ok = false;
  return false;
}

// The index of the largest / smallest element along |axis|: the input's
// shape without |axis| (size 1 with keepdims), an i32 or i64 result.
bool TensorOpVerifier::argReduce() {
  static const char *const kAllowed[] = {"axis", "keepdims", "select_last_index", nullptr};
  if (!checkAttrNames(op_, kAllowed, cx_) || !operandCount(1) ||
      !tensorOperand(0, "input") || !resultIsTensor())
    return false;
  const Attr *axis = requireAttr("axis", Attr::Kind::Int, "an integer");
  if (!axis || !flagAttr("keepdims") || !flagAttr("select_last_index"))
    return false;
  const Type &in = operandType(0), &out = resultType();
  if (axis->i < 0 || axis->i >= static_cast<int64_t>(in.rank())) {
    cx_.error(axis->loc, "axis " + std::to_string(axis->i) + " is out of range for " +
                             in.str() + " (rank " + std::to_string(in.rank()) + ")");
    return false;
  }
  if (in.elem == DType::I1)
    return fail("'" + name_ + "' does not support i1 elements");
  if (out.elem != DType::I32 && out.elem != DType::I64)
    return fail("'" + name_ + "' result element type must be i32 or i64, found " +
                std::string(dtypeName(out.elem)));
  std::vector<int64_t> expected = in.dims;
  if (op_.intAttr("keepdims"))
    expected[static_cast<size_t>(axis->i)] = 1;
  else
    expected.erase(expected.begin() + axis->i);
  return result(Type::tensorOf(out.elem, expected));
}

// tensor rank r, indices rank q -> rank r+q-1.
bool TensorOpVerifier::gather() {
  static const char *const kAllowed[] = {"axis", nullptr};
  if (!checkAttrNames(op_, kAllowed, cx_) || !operandCount(2) ||
      !tensorOperand(0, "input") || !tensorOperand(1, "indices") || !resultIsTensor())
    return false;
  const Attr *axis = requireAttr("axis", Attr::Kind::Int, "an integer");
  if (!axis)
    return false;
  const Type &in = operandType(0), &idx = operandType(1);
  if (axis->i < 0 || axis->i >= static_cast<int64_t>(in.rank())) {
    cx_.error(axis->loc, "axis " + std::to_string(axis->i) + " is out of range for " +
                             in.str() + " (rank " + std::to_string(in.rank()) + ")");
    return false;
  }
  if (!isInteger(idx.elem) || idx.elem == DType::I1)
    return fail("'gather' indices " + valueRef(op_.operands[1]) +
                " must have an integer element type (i8 to i64 or index), found " +
                idx.str());
  if (in.rank() + idx.rank() - 1 > GRAFT_MAX_RANK)
    return fail("'gather' result would have rank " +
                std::to_string(in.rank() + idx.rank() - 1) + ", more than " +
                std::to_string(GRAFT_MAX_RANK));
  size_t a = static_cast<size_t>(axis->i);
  std::vector<int64_t> expected(in.dims.begin(), in.dims.begin() + a);
  expected.insert(expected.end(), idx.dims.begin(), idx.dims.end());
  expected.insert(expected.end(), in.dims.begin() + a + 1, in.dims.end());
  return result(Type::tensorOf(in.elem, expected));
}

const Attr *TensorOpVerifier::perDimList(const char *name, unsigned rank) {
  const Attr *a = requireAttr(name, Attr::Kind::IntList, "an integer list");
  if (a && a->list.size() != rank) {
    cx_.error(a->loc, "'" + name_ + "' " + name + " has " + std::to_string(a->list.size()) +
                          " entries, expected " + std::to_string(rank) +
                          " (one per input dimension)");
    return nullptr;
  }
  return a;
}

// A bound written '?' is the next index operand after the input: the starts'
// first, then the ends'.
bool TensorOpVerifier::slice() {
  static const char *const kAllowed[] = {"starts", "ends", "steps", nullptr};
  if (!checkAttrNames(op_, kAllowed, cx_))
    return false;
  if (op_.operands.empty())
    return operandCount(1); // the error: no input
  if (!tensorOperand(0, "input") || !resultIsTensor())
    return false;
  const Type &in = operandType(0);
  const Attr *starts = perDimList("starts", in.rank());
  const Attr *ends = perDimList("ends", in.rank());
  if (!starts || !ends)
    return false;
  size_t runTime = std::count(starts->list.begin(), starts->list.end(), kRunTimeBound) +
                   std::count(ends->list.begin(), ends->list.end(), kRunTimeBound);
  if (op_.operands.size() != 1 + runTime)
    return fail("'slice' takes its input and one index operand per '?' in starts and ends (" +
                std::to_string(runTime) + "), found " +
                std::to_string(op_.operands.size() - 1));
  for (size_t i = 1; i < op_.operands.size(); ++i)
    if (operandType(i) != Type::scalar(DType::Index))
      return fail("'slice' bound operand " + valueRef(op_.operands[i]) + " must be index, found " +
                  operandType(i).str());
  std::vector<int64_t> steps(in.rank(), 1);
  if (op_.attr("steps")) {
    const Attr *a = perDimList("steps", in.rank());
    if (!a)
      return false;
    steps = a->list;
    for (size_t d = 0; d < steps.size(); ++d)
      if (steps[d] == 0) {
        cx_.error(a->loc, "'slice' step of dimension " + std::to_string(d) +
                              " is 0; a step must be nonzero");
        return false;
      }
  }
  std::vector<int64_t> expected;
  for (size_t d = 0; d < in.rank(); ++d)
    expected.push_back(in.dims[d] == kDynamic || starts->list[d] == kRunTimeBound ||
                               ends->list[d] == kRunTimeBound
                           ? kDynamic
                           : sliceBounds(starts->list[d], ends->list[d], steps[d], in.dims[d]).count);
  return result(Type::tensorOf(in.elem, expected));
}

bool TensorOpVerifier::iota() {
  static const char *const kAllowed[] = {"dim", nullptr};
  if (!checkAttrNames(op_, kAllowed, cx_) || !resultIsTensor())
    return false;
  const Attr *dim = requireAttr("dim", Attr::Kind::Int, "an integer");
  if (!dim)
    return false;
  const Type &out = resultType();
  if (dim->i < 0 || dim->i >= static_cast<int64_t>(out.rank())) {
    cx_.error(dim->loc, "dim " + std::to_string(dim->i) + " is out of range for " + out.str() +
                            " (rank " + std::to_string(out.rank()) + ")");
    return false;
  }
  if (out.elem == DType::I1)
    return fail("'iota' does not support i1 elements");
  return sizeOperandCount(dynamicCount(out), 0, "one per '?'") && indexOperands(0);
}

bool TensorOpVerifier::concat() {
  static const char *const kAllowed[] = {"axis", nullptr};
  if (!checkAttrNames(op_, kAllowed, cx_) || !resultIsTensor())
    return false;
  if (op_.operands.empty())
    return fail("'concat' needs at least one tensor operand");
  for (size_t i = 0; i < op_.operands.size(); ++i)
    if (!tensorOperand(i, "operand", static_cast<int>(operandType(0).rank())))
      return false;
  const Attr *axis = requireAttr("axis", Attr::Kind::Int, "an integer");
  if (!axis)
    return false;
  const Type &first = operandType(0);
  if (axis->i < 0 || axis->i >= static_cast<int64_t>(first.rank())) {
    cx_.error(axis->loc, "axis " + std::to_string(axis->i) + " is out of range for " +
                             first.str() + " (rank " + std::to_string(first.rank()) + ")");
    return false;
  }
  size_t a = static_cast<size_t>(axis->i);
  std::vector<int64_t> expected = first.dims;
  for (size_t i = 1; i < op_.operands.size(); ++i) {
    const Type &t = operandType(i);
    if (!sameElem(i, first.elem, "operand"))
      return false;
    for (size_t d = 0; d < t.rank(); ++d) {
      if (d == a) {
        bool known = expected[d] != kDynamic && t.dims[d] != kDynamic;
        expected[d] = known ? expected[d] + t.dims[d] : kDynamic;
      } else if (!dimsCompatible(expected[d], t.dims[d])) {
        return fail("'concat' operands differ in dimension " + std::to_string(d) + ": " +
                    valueRef(op_.operands[0]) + " is " + first.str() + ", " +
                    valueRef(op_.operands[i]) + " is " + t.str());
      } else {
        expected[d] = mergeDims(expected[d], t.dims[d]);
      }
    }
  }
  return result(Type::tensorOf(first.elem, expected));
}

// Result dim d: low[d] + input dim d + high[d]; constant mode takes the
// pad value, a scalar of the element type, the others no value.
bool TensorOpVerifier::pad() {
  static const char *const kAllowed[] = {"low", "high", "mode", nullptr};
  if (!checkAttrNames(op_, kAllowed, cx_) || op_.operands.empty())
    return op_.operands.empty() ? fail("'pad' needs an input tensor") : false;
  if (!tensorOperand(0, "input") || !resultIsTensor())
    return false;
  const Type &in = operandType(0);
  const Attr *low = perDimList("low", in.rank());
  const Attr *high = perDimList("high", in.rank());
  if (!low || !high)
    return false;
  std::string mode = "constant";
  if (const Attr *m = op_.attr("mode")) {
    mode = m->s;
    if ((m->kind != Attr::Kind::Ident && m->kind != Attr::Kind::String) ||
        (mode != "constant" && mode != "edge" && mode != "reflect")) {
      cx_.error(m->loc, "'pad' mode must be constant, edge or reflect, found " + m->str());
      return false;
    }
  }
  for (const Attr *a : {low, high})
    for (size_t d = 0; d < a->list.size(); ++d)
      if (a->list[d] < 0 || a->list[d] > (int64_t(1) << 32)) {
        cx_.error(a->loc, "'pad' " + std::string(a == low ? "low" : "high") +
                              " of dimension " + std::to_string(d) + " is " +
                              std::to_string(a->list[d]) +
                              "; a pad is between 0 and 2^32 (crop with 'slice')");
        return false;
      }
  if (mode == "constant") {
    if (!operandCount(2))
      return fail("'pad' in constant mode takes the input and the pad value, a scalar "
                  "of its element type");
    if (operandType(1) != Type::scalar(in.elem))
      return fail("'pad' value " + valueRef(op_.operands[1]) + " must be a scalar " +
                  dtypeName(in.elem) + " (the input's element type), found " +
                  operandType(1).str());
  } else if (op_.operands.size() != 1) {
    return fail("'pad' in " + mode + " mode takes only the input tensor, found " +
                countOf(op_.operands.size(), "operand"));
  }
  std::vector<int64_t> expected;
  for (size_t d = 0; d < in.rank(); ++d) {
    int64_t n = in.dims[d];
    bool padded = low->list[d] || high->list[d];
    if (mode != "constant" && padded && n == 0)
      return fail("'pad' in " + mode + " mode needs at least one element along dimension " +
                  std::to_string(d) + ", which " + in.str() + " has none of");
    expected.push_back(n == kDynamic ? kDynamic : n + low->list[d] + high->list[d]);
  }
  return result(Type::tensorOf(in.elem, expected));
}

// Result dim d: input dim d times repeats[d].
bool TensorOpVerifier::tile() {
  static const char *const kAllowed[] = {"repeats", nullptr};
  if (!checkAttrNames(op_, kAllowed, cx_) || !operandCount(1) ||
      !tensorOperand(0, "input") || !resultIsTensor())
    return false;
  const Type &in = operandType(0);
  const Attr *repeats = perDimList("repeats", in.rank());
  if (!repeats)
    return false;
  std::vector<int64_t> expected;
  for (size_t d = 0; d < in.rank(); ++d) {
    int64_t r = repeats->list[d], n = in.dims[d];
    if (r < 0 || r > (int64_t(1) << 32)) {
      cx_.error(repeats->loc, "'tile' repeats of dimension " + std::to_string(d) + " is " +
                                  std::to_string(r) + "; a repeat count is between 0 and 2^32");
      return false;
    }
    if (n != kDynamic && n * r > (int64_t(1) << 32))
      return fail("'tile' result dimension " + std::to_string(d) + " would have " +
                  std::to_string(n * r) + " elements, more than 2^32");
    expected.push_back(n == kDynamic ? (r == 0 ? 0 : kDynamic) : n * r);
  }
  return result(Type::tensorOf(in.elem, expected));
}

// One result per entry of sizes: the input with sizes[i] elements along
// axis, the parts one after another; they add up to the input's size.
bool TensorOpVerifier::split() {
  static const char *const kAllowed[] = {"axis", "sizes", nullptr};
  if (!checkAttrNames(op_, kAllowed, cx_) || !operandCount(1) ||
      !tensorOperand(0, "input"))
    return false;
  const Attr *axis = requireAttr("axis", Attr::Kind::Int, "an integer");
  const Attr *sizes = requireAttr("sizes", Attr::Kind::IntList, "an integer list");
  if (!axis || !sizes)
    return false;
  const Type &in = operandType(0);
  if (axis->i < 0 || axis->i >= static_cast<int64_t>(in.rank())) {
    cx_.error(axis->loc, "axis " + std::to_string(axis->i) + " is out of range for " +
                             in.str() + " (rank " + std::to_string(in.rank()) + ")");
    return false;
  }
  if (sizes->list.size() != op_.results.size()) {
    cx_.error(sizes->loc, "'split' sizes has " + std::to_string(sizes->list.size()) + (sizes->list.size() == 1 ? " entry" : " entries") +
                              " for " + countOf(op_.results.size(), "result") +
                              " (one per result)");
    return false;
  }
  size_t a = static_cast<size_t>(axis->i);
  int64_t sum = 0;
  for (int64_t s : sizes->list) {
    if (s < 0 || s > (int64_t(1) << 32)) {
      cx_.error(sizes->loc, "'split' size " + std::to_string(s) +
                                " is not between 0 and 2^32");
      return false;
    }
    sum += s;
  }
  if (in.dims[a] != kDynamic && in.dims[a] != sum)
    return fail("'split' sizes " + sizes->str() + " add up to " + std::to_string(sum) +
                ", but " + valueRef(op_.operands[0]) + " has " + std::to_string(in.dims[a]) +
                " elements along axis " + std::to_string(a) + " (" + in.str() + ")");
  for (size_t i = 0; i < op_.results.size(); ++i) {
    std::vector<int64_t> dims = in.dims;
    dims[a] = sizes->list[i];
    Type want = Type::tensorOf(in.elem, dims);
    if (!typesCompatible(op_.results[i]->type, want))
      return fail("'split' result " + std::to_string(i + 1) + " has type " +
                  op_.results[i]->type.str() + ", expected " + want.str());
  }
  return true;
}

} // namespace

bool verifyTensorOp(const Op &op, VerifyContext &cx) {
  return TensorOpVerifier(op, cx).run();
}

} // namespace graft
