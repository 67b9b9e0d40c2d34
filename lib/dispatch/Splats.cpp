// Splat tensor constants become fills before dispatch formation (see
// Dispatch.h): `constant 1.0 : tensor<16384x16384xf32>` is one element, not
// 1 GiB of slice data, and a map or matmul reading it fuses the value in as
// a scalar (a matmul's accumulator starts from it).
#include "dispatch/Dispatch.h"
#include "dispatch/OpBuilder.h"

#include <iterator>

namespace graft {

static bool isSplatTensor(const Op &op) {
  if (op.kind != OpKind::Constant || !op.constant.splat)
    return false;
  const Type &t = op.result()->type;
  if (!t.tensor)
    return false;
  int64_t n = 1;
  for (int64_t d : t.dims)
    n *= d;
  return n > 1;
}

void expandSplatConstants(Function &fn) {
  for (size_t i = 0; i < fn.ops.size(); ++i) {
    Op *op = fn.ops[i];
    if (!isSplatTensor(*op))
      continue;
    Value *result = op->result();
    // The element as a scalar constant, an empty tensor of the shape (all
    // static: a constant has no dynamic dims), and the op itself becomes
    // the fill, so every use of |result| stays as it is.
    OpBuilder b(fn, op->loc);
    Value *value = b.constant(result->type.elem, op->constant);
    Value *storage = b.add(OpKind::Empty, {}, result->type);
    op->kind = OpKind::Fill;
    op->constant = ConstantData{};
    op->operands = {value, storage};
    fn.ops.insert(fn.ops.begin() + static_cast<std::ptrdiff_t>(i), b.ops.begin(), b.ops.end());
    i += b.ops.size();
  }
}

} // namespace graft
