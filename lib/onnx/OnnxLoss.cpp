// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (= NLL of the
// LogSoftmax over dim 1). The class a target names is picked without a
// gather_elements op: an `iota` over the class dim compared with the target
// makes a one-hot mask, and a `reduce` sum over the classes of
// select(mask, x, 0) is x[n, target, d...] (and of the weights, the
// weight of the target). A target equal to ignore_index matches no class,
// so its loss and weight are 0. Reductions: none, sum, and mean, which
// divides by the sum of the picked weights (their count without weights),
// as ONNX defines it.
#include "onnx/OnnxLoss.h"

namespace graft::onnx_import {

namespace {

// Loss of log-probabilities |logp| (N x C x d...) for the targets of input
// |targetInput| and the optional weights of input |weightInput|; binds
// output 0.
bool nll(ImportContext &ctx, const Value &logp, size_t targetInput, size_t weightInput) {
  std::string reduction = "mean";
  if (const auto *a = ctx.attr("reduction"))
    reduction = a->s();
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return ctx.fail("reduction '" + reduction + "' is not supported (none, sum, mean)");
  bool ignore = ctx.attr("ignore_index") != nullptr;
  int64_t ignoreIndex = ctx.attrInt("ignore_index", 0);
  Value target, weight;
  if (!ctx.input(targetInput, target))
    return false;
  bool weighted = ctx.hasInput(weightInput);
  if (weighted && !ctx.input(weightInput, weight))
    return false;
  if (!ctx.needFloat(logp))
    return false;
  std::string t = logp.type.elem;
  size_t r = logp.type.rank();
  if (!ctx.needRank(logp, 2, "the input", "N x C x ..."))
    return false;
  if (target.type.elem != "i32" && target.type.elem != "i64")
    return ctx.fail("target has element type " + target.type.elem + "; ONNX allows i32 and i64");
  if (target.type.rank() != r - 1)
    return ctx.fail("target has rank " + std::to_string(target.type.rank()) + "; the input's rank is " +
                    std::to_string(r) + " (target is N x d...)");
  if (weighted && (weight.type.rank() != 1 || weight.type.elem != t))
    return ctx.fail("weight must be a 1-D tensor of " + t + ", is " + weight.type.text());
  GraphWriter &w = ctx.w;
  std::string h = ctx.hint();
  Shape full = w.shapeOf(logp), unit = w.shapeOf(target);
  unit.insert(unit.begin() + 1, DimRef{1, "", 0, ""});
  Value tgt = w.reshape(target, unit, h + ".target");
  Value cls = w.iota(full, 1, target.type.elem, h + ".class");
  std::string it = target.type.elem;
  auto hit = [&](Body &b, const std::string &c, const std::string &tv) {
    std::string m = b.op("cmp " + c + ", " + tv + " {pred = eq}", "i1");
    if (!ignore)
      return m;
    std::string kept = b.op("cmp " + tv + ", " + b.op("constant " + std::to_string(ignoreIndex), it) +
                                " {pred = ne}",
                            "i1");
    return b.op("select " + kept + ", " + m + ", " + b.boolean(false), "i1");
  };
  // -x[target] * w[target] per position, and w[target] (1 without weights).
  std::vector<Value> ops{logp, cls, tgt};
  if (weighted)
    ops.push_back(w.broadcastInDims(weight, {1}, full, h + ".w"));
  Value picked = w.elementwise(
      ops, t,
      [&](Body &b, const std::vector<std::string> &a) {
        std::string v = weighted ? b.op("mul " + a[0] + ", " + a[3], t) : a[0];
        return b.op("select " + hit(b, a[1], a[2]) + ", " + b.op("neg " + v, t) + ", " +
                        b.constant(0, t),
                    t);
      },
      h + ".picked");
  std::string lossName = reduction == "none" ? h : h + ".loss";
  Value loss = w.reduce(picked, {1}, "sum", lossName);
  if (reduction == "none") {
    ctx.setOutput(0, loss);
    return true;
  }
  std::vector<int64_t> all;
  for (size_t i = 0; i + 1 < r; ++i)
    all.push_back(int64_t(i));
  Value total = w.reduce(loss, all, "sum", reduction == "sum" ? h : h + ".total");
  if (reduction == "sum") {
    ctx.setOutput(0, total);
    return true;
  }
  Value wsel = w.elementwise(
      ops, t,
      [&](Body &b, const std::vector<std::string> &a) {
        return b.op("select " + hit(b, a[1], a[2]) + ", " + (weighted ? a[3] : b.constant(1, t)) +
                        ", " + b.constant(0, t),
                    t);
      },
      h + ".wsel");
  std::vector<int64_t> every;
  for (size_t i = 0; i < r; ++i)
    every.push_back(int64_t(i));
  Value wsum = w.reduce(wsel, every, "sum", h + ".wsum");
  ctx.setOutput(0, w.elementwise(
                       {total, wsum}, t,
                       [&](Body &b, const std::vector<std::string> &a) {
                         return b.op("div " + a[0] + ", " + a[1], t);
                       },
                       h));
  return true;
}

} // namespace

bool lowerNegativeLogLikelihoodLoss(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"reduction", "ignore_index"}))
    return false;
  Value x;
  return ctx.input(0, x) && nll(ctx, x, 1, 2);
}

bool lowerSoftmaxCrossEntropyLoss(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"reduction", "ignore_index"}))
    return false;
  Value x;
  if (!ctx.input(0, x))
    return false;
  if (!ctx.needRank(x, 2, "scores", "N x C x ..."))
    return false;
  if (!ctx.needFloat(x))
    return false;
  Value logp = softmaxAlong(ctx, x, 1, true,
                            ctx.wantsOutput(1) ? ctx.node->output(1) : ctx.hint() + ".logp");
  if (!nll(ctx, logp, 1, 2))
    return false;
  ctx.setOutput(1, logp);
  return true;
}

} // namespace graft::onnx_import
