// See Variants.h.
#include "driver/Variants.h"

#include "codegen/RowVector.h"
#include "codegen/TileEpilogue.h"

#include <set>

namespace graft {

bool resolveLevels(const std::vector<std::string> &names,
                   const std::vector<const TargetInfo *> &targets, DiagEngine &diag,
                   std::map<const TargetInfo *, std::vector<const FeatureLevel *>> &out) {
  std::set<std::string> wanted(names.begin(), names.end());
  bool ok = true;
  for (const std::string &n : names) {
    bool known = n == "baseline";
    for (const TargetInfo *t : targets)
      known |= lookupLevel(*t, n) != nullptr;
    if (known)
      continue;
    std::string list;
    for (const TargetInfo *t : targets)
      for (const FeatureLevel &l : t->levels)
        list += std::string(list.empty() ? "" : ", ") + l.name;
    diag.error("--levels", "unknown feature level '" + n + "'; the levels of the targets built are " +
                               list + " (or 'baseline')");
    ok = false;
  }
  for (const TargetInfo *t : targets) {
    std::vector<const FeatureLevel *> &levels = out[t];
    for (const FeatureLevel &l : t->levels)
      if (wanted.count(l.name) || (wanted.count("baseline") && &l == &t->baseline()))
        levels.push_back(&l);
    if (levels.empty())
      for (const FeatureLevel &l : t->levels)
        levels.push_back(&l);
  }
  return ok;
}

// How a dispatch is tiled: the facts that change from level to level.
static std::string describeDispatch(const Dispatch &d) {
  if (d.isCall)
    return "calls " + d.call.plan->symbol;
  const LoopKernel &L = d.loop;
  const PackedMatmul &p = L.packed;
  if (p.packOnly) {
    // (A constant operand was packed when building: PackConstants.cpp.)
    // (Per workgroup: a group of panels of one K block.)
    std::string rhs = "its rhs (kc x " + std::to_string(p.packCols()) +
                      " per workgroup, kc " + std::to_string(p.kcWithRhsPackedBefore()) +
                      ") where " + std::to_string(p.rhsPackedRows()) +
                      " or more rows of workgroups read it";
    std::string lhs = "its lhs (" + std::to_string(p.packRows()) +
                      " x kc per workgroup) where several columns do";
    if (p.rhsConstant && p.lhsConstant)
      return "packs nothing: both of the matmul's operands are constants "
             "packed when built";
    if (p.rhsConstant || p.lhsConstant)
      return "packs the matmul's " + (p.rhsConstant ? lhs : rhs).substr(4) +
             ", once per call (its constant " +
             (p.rhsConstant ? "rhs" : "lhs") + " was packed when built)";
    return "packs the matmul's " + rhs.substr(4) + ", " + lhs +
           ", once per call";
  }
  // f16/bf16 operands: widened to f32 as they are packed.
  auto widened = [&p]() -> std::string {
    if (p.lhsElem == DType::F32 && p.rhsElem == DType::F32)
      return "";
    if (p.amx())
      return ", i8 operands packed as quads along K (the lhs by rows), summed in i32 in AMX tiles "
             "(tdpbssd, s8 x s8)";
    if (p.quads())
      return std::string(", i8 operands packed as quads along K, summed in i32 by a dot product") +
             (p.quadDotUnsigned ? " of u8 x s8 (the rhs offset by 128, the lhs's sums taken off)" : "");
    if (p.pairs())
      return ", i8 operands packed as pairs of i16 along K, summed in i32";
    if (p.lhsElem == p.rhsElem)
      return std::string(", ") + dtypeName(p.lhsElem) + " operands widened to f32 when packed";
    return std::string(", lhs ") + dtypeName(p.lhsElem) + ", rhs " + dtypeName(p.rhsElem) +
           " widened to f32 when packed";
  };
  // Where the level's tiles store outputs: whether they apply the
  // epilogue themselves (codegen/TileEpilogue.h), and what it reads.
  auto epilogue = [&L, &p]() -> std::string {
    if (!p.tilesStoreOutputs())
      return "";
    std::optional<codegen::TileEpilogue> e = codegen::tileEpilogue(L);
    if (!e)
      return ", outputs through a scalar pass after the tiles";
    if (e->identity())
      return "";
    unsigned inputs = 0, params = 0;
    for (const codegen::EpilogueOperand &o : e->operands)
      ++(o.param ? params : inputs);
    std::string reads;
    if (inputs)
      reads += std::to_string(inputs) + (inputs == 1 ? " input" : " inputs");
    if (params)
      reads += (reads.empty() ? "" : " and ") + std::to_string(params) +
               (params == 1 ? " dispatch constant" : " dispatch constants");
    return ", epilogue applied by the tiles" + (reads.empty() ? "" : " (reading " + reads + ")");
  };
  if (p.mr)
    return "packed matmul, register tile " + std::to_string(p.mr) + "x" +
           std::to_string(p.nr()) + ", block up to " + std::to_string(p.mw) +
           "x" + std::to_string(p.nc) + ", lhs block " + std::to_string(p.mc) +
           ", kc " + std::to_string(p.kc) +
           (p.kcWithRhsPackedBefore() != p.kc
                ? " (" + std::to_string(p.kcWithRhsPackedBefore()) + " where its rhs is packed before)"
                : std::string()) +
           (p.rhsTransposed ? ", rhs transposed" : "") + widened() +
           (p.rhsConstant ? ", constant rhs packed when built" : "") +
           (p.lhsConstant ? ", constant lhs packed when built" : "") + epilogue();
  std::string s = "tile " + std::to_string(L.tileY) + "x" + std::to_string(L.tileX);
  if (L.tileXParam >= 0)
    s += " (outputs a workgroup from the sizes, at most " + std::to_string(L.tileX) + ")";
  if (L.tileYParam >= 0)
    s += " (rows a workgroup from the sizes)";
  if (L.regRows > 1)
    s += ", register tile " + std::to_string(L.regRows) + "x" + std::to_string(L.regCols);
  if (L.transposeBlocks)
    s += ", transposed in " + std::to_string(LoopKernel::kTransposeSquare) + "x" +
         std::to_string(LoopKernel::kTransposeSquare) + " squares through registers";
  // Row statistics: how many run on vectors (codegen/RowVector.h).
  std::vector<codegen::RowShape> shape = codegen::rowShapes(L);
  unsigned stats = 0, vector = 0;
  for (size_t n = 0; n < L.nodes.size(); ++n)
    if (L.nodes[n].kind == ScalarNode::Kind::RowReduce) {
      ++stats;
      vector += codegen::rowStatisticLanes(L, shape, static_cast<int>(n)) != 0;
    }
  if (stats)
    s += ", row statistics " + std::to_string(vector) + " of " + std::to_string(stats) +
         " in vectors";
  // Streaming stores (LoopKernel::streamingBytes): from which result size.
  if (unsigned lanes = codegen::streamingStoreLanes(L, shape))
    s += ", streaming stores (" + std::to_string(lanes) + " lanes) where the results are " +
         std::to_string(L.streamingBytes) + " bytes or more";
  return s;
}

std::string explainVariants(const TargetInfo &target, const std::vector<SliceVariant> &variants) {
  std::string s = std::string("== ") + target.name + " variants ==\n";
  for (const SliceVariant &v : variants) {
    s += std::string(v.level->name) + " (" + std::to_string(v.level->vectorBits) + "-bit vectors";
    if (!v.level->cpuFeatures.empty()) {
      s += v.level == &target.baseline() ? "; needs " : "; adds ";
      for (size_t i = 0; i < v.level->cpuFeatures.size(); ++i)
        s += std::string(i ? " " : "") + v.level->cpuFeatures[i];
    }
    s += ")\n";
    for (const Dispatch &d : v.programs->dispatches)
      s += "  " + d.name + ": " + describeDispatch(d) + "\n";
  }
  return s;
}

} // namespace graft
