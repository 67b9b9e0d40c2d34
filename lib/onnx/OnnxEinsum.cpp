// Einsum, generically: every operand is brought to one joint label order
// (repeated labels of an operand first reduced to their diagonal: a select
// of two iotas and a sum), transposed, given size-1 dims for the labels it
// lacks, multiplied with the others in one broadcasting `map`, summed over
// the labels the output lacks with `reduce`, and transposed to the output's
// order. "..." stands for the broadcast leading dims; without "->" the
// output is "..." and the letters used once, in alphabetical order. The
// product is materialised at the joint shape (a matmul-shaped equation
// costs batch x i x j x k elements): exact, not fast.
#include "onnx/OnnxEinsum.h"

#include <algorithm>
#include <numeric>

namespace graft::onnx_import {

namespace {

// One operand's labels: letters, and '0'.. for its ellipsis dims.
using Labels = std::string;

// Splits |term| into labels, expanding "..." to the last |dots| of the
// |ellipsis| labels "0".."9"; false when malformed.
bool expand(const std::string &term, size_t rank, size_t &dots, Labels &out) {
  size_t at = term.find("...");
  std::string letters = term;
  if (at != std::string::npos)
    letters.erase(at, 3);
  for (char c : letters)
    if (!std::isalpha(static_cast<unsigned char>(c)))
      return false;
  if (at == std::string::npos) {
    dots = 0;
    out = term;
    return letters.size() == rank;
  }
  if (letters.size() > rank || term.find("...", at + 3) != std::string::npos)
    return false;
  dots = rank - letters.size();
  out = term;
  out.erase(at, 3);
  std::string e;
  for (size_t i = 0; i < dots; ++i)
    e += char('0' + (9 - (dots - 1 - i))); // right-aligned: the last dots labels of 0..9
  out.insert(at, e);
  return true;
}

} // namespace

bool lowerEinsum(ImportContext &ctx) {
  if (!ctx.onlyAttrs({"equation"}))
    return false;
  const auto *eqAttr = ctx.attr("equation");
  if (!eqAttr)
    return ctx.fail("attribute 'equation' is required");
  std::string eq;
  for (char c : eqAttr->s())
    if (c != ' ')
      eq += c;
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t s = 0;;) {
    size_t comma = lhs.find(',', s);
    terms.push_back(lhs.substr(s, comma == std::string::npos ? std::string::npos : comma - s));
    if (comma == std::string::npos)
      break;
    s = comma + 1;
  }
  if (int(terms.size()) != ctx.node->input_size())
    return ctx.fail("the equation has " + std::to_string(terms.size()) + " operands, the node " +
                    std::to_string(ctx.node->input_size()) + " inputs");
  std::vector<Value> xs;
  std::vector<Labels> labels;
  size_t maxDots = 0;
  std::string t;
  for (size_t k = 0; k < terms.size(); ++k) {
    Value x;
    if (!ctx.input(k, x))
      return false;
    if (x.type.elem == "i1")
      return ctx.fail("element type i1 (BOOL) is not supported: the op needs numbers");
    if (k > 0 && x.type.elem != t)
      return ctx.fail("operands have different element types: " + t + " and " + x.type.elem);
    t = x.type.elem;
    size_t dots;
    Labels l;
    if (!expand(terms[k], x.type.rank(), dots, l))
      return ctx.fail("operand " + std::to_string(k) + " '" + terms[k] +
                      "' does not fit its rank " + std::to_string(x.type.rank()) +
                      " (letters, at most one '...')");
    maxDots = std::max(maxDots, dots);
    xs.push_back(x);
    labels.push_back(l);
  }
  std::string dotsLabels;
  for (size_t i = 0; i < maxDots; ++i)
    dotsLabels += char('0' + (9 - (maxDots - 1 - i)));
  Labels outLabels;
  if (arrow != std::string::npos) {
    std::string rhs = eq.substr(arrow + 2);
    size_t at = rhs.find("...");
    outLabels = rhs;
    if (at != std::string::npos)
      outLabels.replace(at, 3, dotsLabels);
    else if (maxDots > 0)
      return ctx.fail("the output has no '...' but the operands have broadcast dims");
  } else {
    outLabels = dotsLabels;
    std::string once;
    for (char c = 'A'; c <= 'z'; ++c) {
      size_t n = 0;
      for (const Labels &l : labels)
        n += size_t(std::count(l.begin(), l.end(), c));
      if (n == 1 && std::isalpha(static_cast<unsigned char>(c)))
        once += c;
    }
    outLabels += once;
  }
  GraphWriter &w = ctx.w;
  std::string h = ctx.hint();
  // Diagonals of repeated labels: keep the first occurrence.
  for (size_t k = 0; k < xs.size(); ++k) {
    for (size_t i = 0; i < labels[k].size(); ++i) {
      size_t j = labels[k].find(labels[k][i], i + 1);
      while (j != std::string::npos) {
        Shape s = w.shapeOf(xs[k]);
        if (s[i].size != kDynamic && s[j].size != kDynamic && s[i].size != s[j].size)
          return ctx.fail(std::string("label '") + labels[k][i] + "' has sizes " +
                          std::to_string(s[i].size) + " and " + std::to_string(s[j].size));
        std::string hk = h + ".diag" + std::to_string(k);
        Value a = w.iota(s, unsigned(i), "index", hk + ".i"), b = w.iota(s, unsigned(j), "index", hk + ".j");
        Value masked = w.elementwise(
            {xs[k], a, b}, t,
            [&](Body &bd, const std::vector<std::string> &v) {
              std::string on = bd.op("cmp " + v[1] + ", " + v[2] + " {pred = eq}", "i1");
              return bd.op("select " + on + ", " + v[0] + ", " + bd.constant(0, t), t);
            },
            hk + ".m");
        xs[k] = w.reduce(masked, {int64_t(j)}, "sum", hk);
        labels[k].erase(j, 1);
        j = labels[k].find(labels[k][i], i + 1);
      }
    }
  }
  // The joint order: output labels, then the summed ones.
  Labels joint = outLabels;
  for (const Labels &l : labels)
    for (char c : l)
      if (joint.find(c) == std::string::npos)
        joint += c;
  for (char c : outLabels)
    if (std::count(outLabels.begin(), outLabels.end(), c) != 1 ||
        std::none_of(labels.begin(), labels.end(), [&](const Labels &l) { return l.find(c) != std::string::npos; }))
      return ctx.fail(std::string("output label '") + c + "' is repeated or not in any operand");
  std::vector<Value> aligned;
  for (size_t k = 0; k < xs.size(); ++k) {
    std::vector<int64_t> perm;
    for (char c : joint)
      if (labels[k].find(c) != std::string::npos)
        perm.push_back(int64_t(labels[k].find(c)));
    bool identity = true;
    for (size_t i = 0; i < perm.size(); ++i)
      identity = identity && perm[i] == int64_t(i);
    Value v = identity ? xs[k] : w.transpose(xs[k], perm, h + ".t" + std::to_string(k));
    Shape s = w.shapeOf(v), full;
    for (size_t i = 0, p = 0; i < joint.size(); ++i)
      full.push_back(labels[k].find(joint[i]) != std::string::npos ? s[p++] : DimRef{1, "", 0, ""});
    aligned.push_back(full.size() == s.size() ? v : w.reshape(v, full, h + ".r" + std::to_string(k)));
  }
  Value prod = aligned.size() == 1
                   ? aligned[0]
                   : w.elementwise(
                         aligned, t,
                         [&](Body &b, const std::vector<std::string> &a) {
                           std::string v = a[0];
                           for (size_t k = 1; k < a.size(); ++k)
                             v = b.op("mul " + v + ", " + a[k], t);
                           return v;
                         },
                         h + ".prod");
  if (prod.name.empty())
    return ctx.fail("the operands' sizes do not agree on a label (or broadcast along '...')");
  std::vector<int64_t> summed;
  for (size_t i = outLabels.size(); i < joint.size(); ++i)
    summed.push_back(int64_t(i));
  // The joint order starts with the output's: summing the rest leaves it.
  ctx.setOutput(0, summed.empty() ? prod : w.reduce(prod, summed, "sum", h));
  return true;
}

} // namespace graft::onnx_import
