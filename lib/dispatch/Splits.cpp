// `split` becomes one `slice` per result before shape analysis (see
// Dispatch.h): each part is the input's elements [offset, offset + size)
// along the axis, the last one up to the end. Each slice takes over its
// result value (so no use changes) with the part's size as its static
// size along the axis: shape analysis then checks, when the graph runs,
// that the parts add up to the input's size, as the evaluator does.
// Slices read by maps are views, so nothing is copied twice; a part nobody
// reads has no slice (but for the last one where the size is only known
// when the graph runs).
#include "dispatch/Dispatch.h"
#include "dispatch/OpBuilder.h"

#include <limits>

namespace graft {

void lowerSplits(Function &fn) {
  constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();
  for (size_t i = 0; i < fn.ops.size();) {
    Op *split = fn.ops[i];
    if (split->kind != OpKind::Split) {
      ++i;
      continue;
    }
    Value *in = split->operands[0];
    size_t axis = static_cast<size_t>(split->intAttr("axis"));
    std::vector<int64_t> sizes = split->listAttr("sizes");
    std::vector<Op *> slices;
    int64_t offset = 0;
    for (size_t k = 0; k < split->results.size(); ++k) {
      Value *r = split->results[k];
      // A part nobody reads is not computed, but for the last one of a
      // run-time size: its slice checks the sizes.
      bool checks = k + 1 == split->results.size() && in->type.dims[axis] == kDynamic;
      if (!fn.isUsed(r) && !checks) {
        offset += sizes[k];
        continue;
      }
      std::vector<int64_t> starts(in->type.rank(), 0), ends(in->type.rank(), kEnd);
      starts[axis] = offset;
      offset += sizes[k];
      ends[axis] = k + 1 == split->results.size() ? kEnd : offset;
      Op *slice = fn.newOp(OpKind::Slice, split->loc);
      slice->operands = {in};
      slice->attrs = {OpBuilder::attr("starts", starts), OpBuilder::attr("ends", ends)};
      r->type.dims[axis] = sizes[k];
      r->def = slice;
      slice->results = {r};
      slices.push_back(slice);
    }
    fn.ops.erase(fn.ops.begin() + static_cast<std::ptrdiff_t>(i));
    fn.ops.insert(fn.ops.begin() + static_cast<std::ptrdiff_t>(i), slices.begin(), slices.end());
    i += slices.size();
  }
}

} // namespace graft
