// Verifier rules of the sliding-window ops `conv` and `pool`: the input's
// layout (batch, channels, then the spatial dims), the window attributes
// (ir/Window.h), and the result type they imply. Channel counts and kernel
// sizes must be static: they shape the matmul a `conv` becomes.
#include "graph/VerifierImpl.h"
#include "ir/Window.h"

namespace graft {

namespace {

class WindowOpVerifier {
public:
  WindowOpVerifier(const Op &op, VerifyContext &cx)
      : op_(op), cx_(cx), name_(opName(op.kind)) {}

  bool conv();
  bool pool();

private:
  bool fail(const std::string &msg) { return failAt(op_.loc, msg); }
  bool failAt(SourceLoc loc, const std::string &msg) {
    cx_.error(loc, msg);
    return false;
  }
  // Operand |i| is a tensor of rank 3 or more (batch, channels, spatial).
  bool layoutOperand(size_t i, const char *role) {
    const Type &t = op_.operands[i]->type;
    if (t.tensor && t.rank() >= 3)
      return true;
    return fail("'" + name_ + "' " + role + " " + valueRef(op_.operands[i]) +
                " must be a tensor of rank 3 or more (batch, channels, spatial "
                "dims), found " +
                t.str());
  }
  // Optional integer-list attribute with |n| entries, each at least |min|.
  bool listAttr(const char *name, size_t n, int64_t min, const char *what) {
    const Attr *a = op_.attr(name);
    if (!a)
      return true;
    bool ok = a->kind == Attr::Kind::IntList && a->list.size() == n;
    for (int64_t v : a->list)
      ok = ok && v >= min;
    if (ok)
      return true;
    return failAt(a->loc, "'" + name_ + "' " + name + " must be a list of " +
                              countOf(n, "integer") + " " + what + ", found " +
                              a->str());
  }
  bool windowAttrs(size_t spatial) {
    return listAttr("strides", spatial, 1, ">= 1 (one per spatial dim)") &
           listAttr("dilations", spatial, 1, ">= 1 (one per spatial dim)") &
           listAttr("pads", 2 * spatial, 0, ">= 0 (all begins, then all ends)");
  }
  bool result(const Type &expected) {
    const Type &res = op_.result()->type;
    if (typesCompatible(res, expected))
      return true;
    return fail("'" + name_ + "' result type " + res.str() +
                " does not match its operands: expected " + expected.str());
  }
  // [batch, channels, output size per spatial dim ('?' where the input's is)].
  Type resultOf(const Type &in, int64_t channels, const Window &w) {
    std::vector<int64_t> dims = {in.dims[0], channels};
    for (size_t d = 0; d < w.rank(); ++d)
      dims.push_back(in.dims[d + 2] == kDynamic
                         ? kDynamic
                         : w.outputSize(d, in.dims[d + 2]));
    return Type::tensorOf(in.elem, dims);
  }

  const Op &op_;
  VerifyContext &cx_;
  std::string name_;
};

bool WindowOpVerifier::conv() {
  static const char *const kAllowed[] = {"strides", "pads", "dilations",
                                         "group", nullptr};
  if (!checkAttrNames(op_, kAllowed, cx_))
    return false;
  if (op_.operands.size() != 2)
    return fail("'conv' expects 2 operands (input, weights), found " +
                std::to_string(op_.operands.size()));
  if (!layoutOperand(0, "input") || !layoutOperand(1, "weights"))
    return false;
  const Type &in = op_.operands[0]->type, &wt = op_.operands[1]->type;
  if (wt.elem != in.elem)
    return fail("'conv' weights " + valueRef(op_.operands[1]) +
                " have element type " + dtypeName(wt.elem) + ", expected " +
                dtypeName(in.elem) + " (the input's)");
  if (in.elem == DType::I1 || in.elem == DType::Index)
    return fail(std::string("'conv' does not support ") + dtypeName(in.elem) +
                " elements");
  if (wt.rank() != in.rank())
    return fail("'conv' weights " + valueRef(op_.operands[1]) +
                " must have the input's rank " + std::to_string(in.rank()) +
                " (filters, channels per group, kernel dims), found " +
                wt.str());
  size_t spatial = in.rank() - 2;
  if (!windowAttrs(spatial))
    return false;
  if (in.dims[1] == kDynamic || !wt.hasStaticShape())
    return fail("'conv' needs static channel counts and kernel sizes: input " +
                in.str() + ", weights " + wt.str());
  int64_t group = 1;
  if (const Attr *g = op_.attr("group")) {
    if (g->kind != Attr::Kind::Int || g->i < 1)
      return failAt(g->loc,
                    "'conv' group must be an integer >= 1, found " + g->str());
    group = g->i;
  }
  int64_t channels = in.dims[1], filters = wt.dims[0];
  if (channels % group != 0 || filters % group != 0)
    return fail("'conv' group " + std::to_string(group) +
                " must divide the input channels (" + std::to_string(channels) +
                ") and the filters (" + std::to_string(filters) + ")");
  if (wt.dims[1] * group != channels)
    return fail("'conv' weights " + wt.str() + " take " +
                std::to_string(wt.dims[1]) + " channels per group, expected " +
                std::to_string(channels / group) + " (" +
                std::to_string(channels) + " input channels in " +
                std::to_string(group) + " groups)");
  for (size_t d = 0; d < spatial; ++d)
    if (wt.dims[d + 2] < 1)
      return fail("'conv' kernel size " + std::to_string(wt.dims[d + 2]) +
                  " of weights " + wt.str() + " must be at least 1");
  std::vector<int64_t> kernel(wt.dims.begin() + 2, wt.dims.end());
  return result(resultOf(in, filters, Window::of(op_, kernel)));
}

bool WindowOpVerifier::pool() {
  static const char *const kAllowed[] = {
      "kind", "window", "strides", "pads", "dilations", "count_include_pad",
      nullptr};
  if (!checkAttrNames(op_, kAllowed, cx_))
    return false;
  if (op_.operands.size() != 1)
    return fail("'pool' expects 1 operand, found " +
                std::to_string(op_.operands.size()));
  const Attr *kind = op_.attr("kind");
  if (!kind || kind->kind != Attr::Kind::Ident ||
      (kind->s != "max" && kind->s != "avg"))
    return failAt(kind ? kind->loc : op_.loc,
                  "'pool' needs attribute 'kind' = max or avg" +
                      (kind ? ", found " + kind->str() : std::string()));
  const Attr *window = op_.attr("window");
  if (!window || window->kind != Attr::Kind::IntList || window->list.empty())
    return failAt(window ? window->loc : op_.loc,
                  "'pool' needs attribute 'window', a list of window sizes "
                  "(one per spatial dim)");
  if (!layoutOperand(0, "input"))
    return false;
  const Type &in = op_.operands[0]->type;
  size_t spatial = window->list.size();
  if (in.rank() != spatial + 2)
    return failAt(window->loc, "'pool' window " + window->str() + " has " +
                                   countOf(spatial, "dim") + ", but input " +
                                   in.str() + " has " +
                                   countOf(in.rank() - 2, "spatial dim"));
  if (!listAttr("window", spatial, 1, ">= 1") || !windowAttrs(spatial))
    return false;
  bool avg = kind->s == "avg";
  if (avg ? !isFloat(in.elem)
          : (in.elem == DType::I1 || in.elem == DType::Index))
    return fail(std::string("'pool' ") +
                (avg ? "avg needs float" : "max does not support") +
                " elements, found " + in.str());
  if (const Attr *c = op_.attr("count_include_pad")) {
    if (!avg || c->kind != Attr::Kind::Int || (c->i != 0 && c->i != 1))
      return failAt(
          c->loc,
          "'pool' count_include_pad must be 0 or 1, with kind = avg, found " +
              c->str());
  }
  return result(resultOf(in, in.dims[1], Window::of(op_, window->list)));
}

} // namespace

bool verifyWindowOp(const Op &op, VerifyContext &cx) {
  WindowOpVerifier v(op, cx);
  return op.kind == OpKind::Conv ? v.conv() : v.pool();
}

} // namespace graft
