// Lowers a LoopKernel (dispatch/Dispatch.h) to a workgroup function.
//
// Workgroup (x, y, z) covers a tile of the parallel dims: x tiles the
// innermost parallel dim by tileX, y the next one by tileY, z enumerates the
// remaining outer dims. Inside, the innermost loop always runs over the
// innermost parallel dim with unit stride in the output, so the loop
// vectorizer sees the same simple shape for every op: for a reduction the
// accumulators of one tile row live in a small stack array and the reduction
// loops sit outside the vectorized loop (matmul becomes i-k-j order).
#include "codegen/AbiTypes.h"
#include "codegen/Codegen.h"
#include "codegen/RowVector.h"
#include "codegen/ScalarOps.h"
#include "codegen/TileEpilogue.h"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/MDBuilder.h>

#include <functional>
#include <map>
#include <set>

namespace graft::codegen {

using namespace llvm;

namespace {

class LoopEmitter {
public:
  LoopEmitter(Module &m, const Dispatch &d) : m_(m), c_(m.getContext()), b_(c_), d_(d), L_(d.loop) {}

  void run() {
    a_ = beginDispatchFunction(m_, b_, d_.name);
    Type *i64 = b_.getInt64Ty();
    for (unsigned i = 0; i < d_.params.size(); ++i)
      params_.push_back(loadParam(b_, a_, i));
    for (unsigned i = 0; i < d_.bindings.size(); ++i)
      bases_.push_back(loadBinding(b_, a_, i));
    for (unsigned p : L_.domainParams)
      dims_.push_back(params_[p]);
    // Row-major strides of every input.
    for (const KernelInput &in : L_.inputs) {
      std::vector<Value *> strides(in.dimParams.size());
      Value *s = ConstantInt::get(i64, 1);
      for (size_t k = in.dimParams.size(); k-- > 0;) {
        strides[k] = s;
        s = b_.CreateMul(s, params_[in.dimParams[k]], "", true, true);
      }
      strides_.push_back(strides);
    }
    unsigned P = L_.numParallel, D = static_cast<unsigned>(dims_.size());
    idx_.assign(D, nullptr);
    reduction_ = D > P;
    for (const KernelOutput &o : L_.outputs)
      outNode_.push_back(o.node);
    if (L_.packed.mr) {
      outerIndices();
      if (L_.packed.packOnly)
        packBlock();
      else
        packedMatmul();
      b_.CreateRet(b_.getInt32(0));
      return;
    }
    if (reduction_) {
      unsigned n = P >= 1 && !L_.innerReduction ? L_.tileX : 1;
      acc_ = b_.CreateAlloca(memoryType(c_, L_.accType), b_.getInt32(n), "acc");
      // One scalar per register-tile element: SROA turns them into registers
      // carried through the reduction loops.
      for (unsigned k = 0; k < L_.regRows * L_.regCols && L_.regRows > 1; ++k)
        regAcc_.push_back(b_.CreateAlloca(memoryType(c_, L_.accType), nullptr, "racc"));
    }
    // Row statistics accumulate in an entry-block slot each (a register
    // after SROA).
    rowShape_ = rowShapes(L_);
    for (size_t n = 0; n < L_.nodes.size(); ++n)
      for (unsigned k = 0; L_.nodes[n].kind == ScalarNode::Kind::RowReduce && k < kRowLanes; ++k)
        rowSlots_[static_cast<int>(n)].push_back(
            b_.CreateAlloca(memoryType(c_, L_.nodes[n].type), nullptr, "row_stat"));
    outerIndices();
    streamLanes_ = streamingStoreLanes(L_, rowShape_);
    if (streamLanes_)
      streaming_ = streamingChoice();
    auto jRange = [&](Value *&lo, Value *&hi) {
      Value *tileX = L_.tileXParam >= 0 ? params_[L_.tileXParam] : ConstantInt::get(i64, L_.tileX);
      lo = b_.CreateMul(a_.wgId[0], tileX, "j0", true, true);
      hi = b_.CreateBinaryIntrinsic(Intrinsic::umin, b_.CreateAdd(lo, tileX), dims_[P - 1]);
    };
    auto row = [&]() {
      if (P == 0) {
        tilePoint(nullptr);
        return;
      }
      Value *j0, *j1;
      jRange(j0, j1);
      j0_ = j0;
      if (!reduction_) {
        rowPasses(j0, j1);
        return;
      }
      if (L_.innerReduction) {
        loop(j0, j1, "j", [&](Value *j) {
          idx_[P - 1] = j;
          pointReduction(acc_);
        });
        return;
      }
      rowAccumulate(j0, j1);
    };
    if (P >= 2) {
      Value *tileY = L_.tileYParam >= 0 ? params_[L_.tileYParam] : ConstantInt::get(i64, L_.tileY);
      Value *i0 = b_.CreateMul(a_.wgId[1], tileY, "i0", true, true);
      Value *i1 = b_.CreateBinaryIntrinsic(Intrinsic::umin, b_.CreateAdd(i0, tileY), dims_[P - 2]);
      if (reduction_ && !L_.innerReduction && L_.regRows > 1) {
        Value *j0, *j1;
        jRange(j0, j1);
        blockedRows(i0, i1, j0, j1);
      } else if (L_.transposeBlocks) {
        Value *j0, *j1;
        jRange(j0, j1);
        j0_ = j0;
        transposeBlocks(i0, i1, j0, j1);
      } else {
        loop(i0, i1, "i", [&](Value *i) {
          idx_[P - 2] = i;
          row();
        });
      }
    } else {
      row();
    }
    if (streamLanes_)
      ifThen(streaming_, [&]() { streamingFence(); });
    b_.CreateRet(b_.getInt32(0));
    scopeOutputs();
  }

private:
  // Tells LLVM what the runtime guarantees: a dispatch's outputs overlap
  // none of its inputs nor each other (an arena buffer never shares
  // storage with one the same step binds; a caller's result storage that
  // overlaps an argument is computed aside, docs/abi.md). Each output's
  // stores get a scope of their own and every load from an input is
  // outside all of them, so the loop vectorizer needs no run-time
  // overlap checks: it gives up on a loop past 128 of them (a map of 72
  // terms reading 144 views stayed scalar). Loads from an output (a row
  // read back) and from the scratch are left unmarked.
  void scopeOutputs() {
    const size_t nIn = L_.inputs.size(), nOut = L_.outputs.size();
    if (!nOut || L_.packed.mr)
      return;
    MDBuilder md(c_);
    MDNode *domain = md.createAnonymousAliasScopeDomain(d_.name);
    std::vector<Metadata *> scopes;
    for (size_t k = 0; k < nOut; ++k)
      scopes.push_back(md.createAnonymousAliasScope(domain, "out" + std::to_string(k)));
    MDNode *all = MDNode::get(c_, scopes);
    auto baseOf = [&](Value *ptr) -> int {
      const Value *obj = getUnderlyingObject(ptr, 0);
      for (size_t i = 0; i < bases_.size(); ++i)
        if (bases_[i] == obj)
          return int(i);
      return -1;
    };
    for (BasicBlock &bb : *b_.GetInsertBlock()->getParent())
      for (Instruction &inst : bb) {
        if (auto *ld = dyn_cast<LoadInst>(&inst)) {
          int base = baseOf(ld->getPointerOperand());
          if (base >= 0 && size_t(base) < nIn)
            ld->setMetadata(LLVMContext::MD_noalias, all);
        } else if (auto *st = dyn_cast<StoreInst>(&inst)) {
          int base = baseOf(st->getPointerOperand());
          if (base < 0 || size_t(base) < nIn)
            continue;
          size_t k = size_t(base) - nIn;
          std::vector<Metadata *> others;
          for (size_t j = 0; j < nOut; ++j)
            if (j != k)
              others.push_back(scopes[j]);
          st->setMetadata(LLVMContext::MD_alias_scope, MDNode::get(c_, {scopes[k]}));
          if (!others.empty())
            st->setMetadata(LLVMContext::MD_noalias, MDNode::get(c_, others));
        }
      }
  }

  struct Scope {
    std::map<int, Value *> memo;
    Value *acc = nullptr;
  };

  Scope evalScope() { return Scope{}; }

  // Outer parallel dims (all but the inner two) from workgroup z.
  void outerIndices() {
    unsigned P = L_.numParallel;
    if (P < 3)
      return;
    Value *z = a_.wgId[2];
    for (unsigned k = P - 2; k-- > 0;) {
      idx_[k] = b_.CreateURem(z, dims_[k]);
      z = b_.CreateUDiv(z, dims_[k]);
    }
  }

  // lhs [.., M, K] or rhs [.., K, N] (or [.., N, K]) of a packed matmul at
  // this workgroup's batch.
  // (An input without the batch dim, a batch matmul's lhs shared by every
  // batch, is the same matrix for each.)
  Value *batchBase(unsigned input) {
    Value *v = bases_[input];
    if (L_.numParallel == 3 && L_.inputs[input].dimParams.size() == 3)
      v = b_.CreateInBoundsGEP(elemType(input), v, b_.CreateMul(idx_[0], strides_[input][0]));
    return v;
  }
  // Where row |k| of a rows view (KernelInput::rowStarts) starts, in
  // elements from its batch's base: (k / W) * L + start[k % W].
  Value *rowOffset(unsigned input, Value *k) {
    const KernelInput &in = L_.inputs[input];
    const unsigned W = unsigned(in.rowStarts.size());
    Value *w = b_.CreateURem(k, b_.getInt64(W));
    Value *start = params_[in.rowStarts[W - 1]];
    for (unsigned i = W - 1; i-- > 0;)
      start = b_.CreateSelect(b_.CreateICmpEQ(w, b_.getInt64(i)), params_[in.rowStarts[i]], start);
    return b_.CreateAdd(b_.CreateMul(b_.CreateUDiv(k, b_.getInt64(W)), rowStride(input)), start);
  }
  // The row offsets of the packed matmul's rhs rows [pc, pc + kc), a rows
  // view, into a table in the entry block (kcPrepacked entries and, for the
  // packing tile's prefetches, kRowTableSlack more repeating the last):
  // the table as the i64 the routines take in place of the row stride.
  // Filled in k order with the group (k / W) and the run in it (k % W)
  // counted along, not divided out per entry (rowOffset's 9-way select
  // for a 3x3 conv), the W starts from a small table of their own.
  static constexpr unsigned kRowTableSlack = 16;
  Value *rowTable(Value *pc, Value *kc) {
    const PackedMatmul &p = L_.packed;
    const KernelInput &in = L_.inputs[p.rhs];
    const unsigned W = unsigned(in.rowStarts.size());
    Type *i64 = b_.getInt64Ty();
    if (!rowTable_) {
      rowTable_ = entryAlloca(ArrayType::get(i64, p.kcPrepacked + kRowTableSlack));
      rowStartsTable_ = entryAlloca(ArrayType::get(i64, W));
      rowGroup_ = entryAlloca(i64);
      rowRun_ = entryAlloca(i64);
    }
    for (unsigned w = 0; w < W; ++w)
      b_.CreateStore(params_[in.rowStarts[w]], b_.CreateConstInBoundsGEP1_64(i64, rowStartsTable_, w));
    Value *stride = rowStride(p.rhs);
    b_.CreateStore(b_.CreateUDiv(pc, b_.getInt64(W)), rowGroup_);
    b_.CreateStore(b_.CreateURem(pc, b_.getInt64(W)), rowRun_);
    BranchInst *fill = loop(b_.getInt64(0), kc, "rowtab", [&](Value *i) {
      Value *q = b_.CreateLoad(i64, rowGroup_), *w = b_.CreateLoad(i64, rowRun_);
      Value *start = b_.CreateLoad(i64, b_.CreateInBoundsGEP(i64, rowStartsTable_, w));
      b_.CreateStore(b_.CreateAdd(b_.CreateMul(q, stride), start),
                     b_.CreateInBoundsGEP(i64, rowTable_, i));
      Value *next = b_.CreateAdd(w, b_.getInt64(1));
      Value *wrap = b_.CreateICmpEQ(next, b_.getInt64(W));
      b_.CreateStore(b_.CreateSelect(wrap, b_.getInt64(0), next), rowRun_);
      b_.CreateStore(b_.CreateAdd(q, b_.CreateZExt(wrap, i64)), rowGroup_);
    });
    noLoopVectorize(fill, true);
    Value *lastAt = b_.CreateInBoundsGEP(i64, rowTable_, b_.CreateSub(kc, b_.getInt64(1)));
    Value *last = b_.CreateLoad(i64, lastAt);
    BranchInst *slack = loop(kc, b_.CreateAdd(kc, b_.getInt64(kRowTableSlack)), "rowtab_slack",
                             [&](Value *i) { b_.CreateStore(last, b_.CreateInBoundsGEP(i64, rowTable_, i)); });
    noLoopVectorize(slack, true);
    return b_.CreatePtrToInt(rowTable_, i64);
  }
  // The distance between rows of a matmul operand (its next-to-last dim's
  // stride, batch dim or not).
  Value *rowStride(unsigned input) {
    const std::vector<Value *> &s = strides_[input];
    return s[s.size() - 2];
  }
  // How input |input|'s elements are stored (float, or an f16/bf16 operand
  // of a packed matmul as i16 bits).
  Type *elemType(unsigned input) { return memoryType(c_, L_.inputs[input].elem); }

  // The rows a packed panel of a K block of |kc| rows has
  // (packedMatmulPanelRows). The K blocks start at even rows (multiples of
  // kcStep, multiples of 8), so for i8 pairs block |pc| starts at row
  // pc / 2, for quads pc / 4.
  Value *panelRows(Value *kc) { return codegen::packedMatmulPanelRows(b_, L_.packed, kc); }
  Value *panelRowOf(Value *pc) {
    const unsigned g = L_.packed.kGroup();
    return g > 1 ? b_.CreateLShr(pc, L_.packed.kGroupShift()) : pc;
  }
  // The packed panel of K block [pc, pc + kc) at column |at| of the
  // [.., K, width] buffer at |base| (this batch's; [.., ceil(K / 2), width]
  // for pairs, [.., ceil(K / 4), width] for quads): the block's rows of width 4-byte elements, the panel at +
  // at * its rows. The rhs panel of columns [j, ..) is at column j, the lhs
  // panel of rows [i, ..) at lhsAt + i.
  Value *packedAt(Value *base, Value *pc, Value *kc, Value *at) {
    return packedAt(base, pc, kc, at, params_[L_.packed.widthParam]);
  }
  Value *packedAt(Value *base, Value *pc, Value *kc, Value *at, Value *width) {
    Value *off = b_.CreateAdd(b_.CreateMul(panelRowOf(pc), width), b_.CreateMul(at, panelRows(kc)));
    return b_.CreateInBoundsGEP(b_.getFloatTy(), base, off);
  }
  Value *packedLhsAt(Value *base, Value *pc, Value *kc, Value *i) {
    return packedAt(base, pc, kc, b_.CreateAdd(params_[L_.packed.lhsAtParam], i));
  }

  // The call's K block (PackedMatmul::kcParam): kc, or kcPrepacked where
  // the rhs was packed before the call; a constant where the two agree.
  Value *kcStep() {
    const PackedMatmul &p = L_.packed;
    return p.kcPrepacked == p.kc ? b_.getInt64(p.kc) : params_[p.kcParam];
  }

  // K block |pc| (at most kcStep rows): its rows.
  Value *kBlock(Value *pc) {
    Value *K = dims_[L_.numParallel];
    return b_.CreateBinaryIntrinsic(Intrinsic::umin, kcStep(), b_.CreateSub(K, pc));
  }

  // Workgroup (x, y, z) of the dispatch that packs a packed matmul's
  // operands once per call (PackOperands.cpp), in K block x of batch z into
  // output 0: rhs columns [y*packCols, +packCols) from [.., K, N] (or
  // [.., N, K], packed like the lhs, nr rows a panel) while y is below the
  // rhs's column groups (none where the rhs is not packed here), else lhs
  // rows [y'*packRows, +packRows), y' = y - those groups.
  void packBlock() {
    const PackedMatmul &p = L_.packed;
    unsigned P = L_.numParallel;
    Type *f32 = b_.getFloatTy();
    Value *M = dims_[P - 2], *N = dims_[P - 1];
    Value *pc = b_.CreateMul(a_.wgId[0], kcStep(), "", true, true);
    Value *kc = kBlock(pc);
    Value *out = bases_[L_.inputs.size()];
    if (P == 3) {
      Value *batchSize = b_.CreateMul(panelRows(dims_[P]), params_[p.widthParam]);
      out = b_.CreateInBoundsGEP(f32, out, b_.CreateMul(idx_[0], batchSize));
    }
    Value *cols = b_.getInt64(p.packCols()), *rows = b_.getInt64(p.packRows());
    Value *rhsGroups = b_.CreateMul(b_.CreateUDiv(b_.CreateAdd(N, b_.getInt64(p.packCols() - 1)), cols),
                                    params_[p.prepackedParam]);
    Value *group = a_.wgId[1];
    // (A constant rhs was packed when building.)
    Value *rhsHere =
        p.rhsConstant ? b_.getFalse() : b_.CreateICmpULT(group, rhsGroups);
    ifThen(rhsHere, [&]() {
      Value *j0 = b_.CreateMul(group, cols, "", true, true);
      Value *j1 = b_.CreateBinaryIntrinsic(Intrinsic::umin, b_.CreateAdd(j0, cols), N);
      Value *from = rhsBlock(batchBase(p.rhs), pc, j0);
      Value *ldb = p.rhsRows ? rowTable(pc, kc) : strides_[p.rhs][P - 2];
      b_.CreateCall(packRhsFunction(), {kc, b_.CreateSub(j1, j0), from, ldb, packedAt(out, pc, kc, j0)});
    });
    ifThen(p.lhsConstant ? b_.getFalse() : b_.CreateNot(rhsHere), [&]() {
      Value *i0 = b_.CreateMul(b_.CreateSub(group, rhsGroups), rows, "", true, true);
      Value *i1 = b_.CreateBinaryIntrinsic(Intrinsic::umin, b_.CreateAdd(i0, rows), M);
      Value *lda = rowStride(p.lhs);
      Value *from = b_.CreateInBoundsGEP(elemType(p.lhs), batchBase(p.lhs),
                                         b_.CreateAdd(b_.CreateMul(i0, lda), pc));
      b_.CreateCall(codegen::packedMatmulPackRows(m_, p, p.mr, p.lhsElem),
                    {kc, b_.CreateSub(i1, i0), from, lda, packedLhsAt(out, pc, kc, i0)});
    });
  }

  // The rhs block at K offset |pc|, columns [j0, ..): where it starts in
  // the rhs.
  Value *rhsBlock(Value *rhs, Value *pc, Value *j0) {
    // (A rows view's rows are where its row table says.)
    if (L_.packed.rhsRows)
      return b_.CreateInBoundsGEP(elemType(L_.packed.rhs), rhs, j0);
    Value *ldb = strides_[L_.packed.rhs][L_.numParallel - 2];
    Value *at = L_.packed.rhsTransposed ? b_.CreateAdd(b_.CreateMul(j0, ldb), pc)
                                        : b_.CreateAdd(b_.CreateMul(pc, ldb), j0);
    return b_.CreateInBoundsGEP(elemType(L_.packed.rhs), rhs, at);
  }

  // A transposed rhs ([N, K]) is packed like the lhs, nr rows a panel.
  Function *packRhsFunction() {
    const PackedMatmul &p = L_.packed;
    return p.rhsTransposed ? codegen::packedMatmulPackRows(m_, p, p.nr(), p.rhsElem, true)
                           : codegen::packedMatmulPackRhs(m_, p);
  }

  // The workgroup's (at most) mw x nc output block of a packed matmul (PackedMatmul
  // in Dispatch.h): the accumulators start at their init values (in
  // scratch; for a fill, one value, the first K block's microkernel starts
  // its registers from it instead), each K block takes the rhs block and,
  // per mc rows, the lhs block, both packed before the call or now into the
  // scratch (a block of fewer than mr rows reads its rhs in place instead),
  // and runs the microkernel over every mr x nr tile. On levels whose
  // tiles store outputs (PackedMatmul::tilesStoreOutputs), the last K
  // block's whole tiles store them and apply an exact epilogue in place
  // (TileEpilogue.h); the outputs they did not store are computed from the
  // finished sums. Each K block is the call's (kcStep).
  void packedMatmul() {
    const PackedMatmul &p = L_.packed;
    unsigned P = L_.numParallel;
    Type *f32 = b_.getFloatTy();
    Value *M = dims_[P - 2], *N = dims_[P - 1], *K = dims_[P];
    auto block = [&](Value *id, Value *size, Value *end, Value *&lo, Value *&hi) {
      lo = b_.CreateMul(id, size, "", true, true);
      hi = b_.CreateBinaryIntrinsic(Intrinsic::umin, b_.CreateAdd(lo, size), end);
    };
    Value *i0, *i1, *j0, *j1;
    block(a_.wgId[1], params_[p.mwParam], M, i0, i1);
    block(a_.wgId[0], params_[p.nwParam], N, j0, j1);
    Value *sums = a_.scratch;
    Value *ownRhs = b_.CreateConstInBoundsGEP1_64(f32, sums, uint64_t(p.mw) * p.nc);
    Value *ownLhs = b_.CreateConstInBoundsGEP1_64(f32, ownRhs, uint64_t(p.kRows(p.kc)) * p.nc);
    auto sum = [&](Value *i, Value *j) {
      Value *at = b_.CreateAdd(b_.CreateMul(b_.CreateSub(i, i0), b_.getInt64(p.nc)),
                               b_.CreateSub(j, j0));
      return b_.CreateInBoundsGEP(f32, sums, at);
    };
    // Each row i of the block from column rowStart(i) (j0 where none given).
    auto overBlock = [&](const std::string &name, const std::function<void(Value *)> &point,
                         const std::function<Value *(Value *)> &rowStart = nullptr) {
      BranchInst *inner = nullptr;
      loop(i0, i1, "i_" + name, [&](Value *i) {
        idx_[P - 2] = i;
        inner = loop(rowStart ? rowStart(i) : j0, j1, "j_" + name, [&](Value *j) {
          idx_[P - 1] = j;
          point(sum(i, j));
        });
      });
      return inner;
    };
    // Where the epilogue has a vector form, the last K block's whole
    // mr x nr tiles inside the output store their sums there and apply it
    // in place (TileEpilogue.h; its operands through a descriptor,
    // epilogueDescriptor); the out pass then covers only the rest, a few
    // rows and columns, and is left scalar unless the epilogue is costly
    // (vectorized, with a start that depends on the row, it cost the build
    // a tenth more).
    std::optional<TileEpilogue> epilogue = tileEpilogue(L_);
    const TileEpilogue *epi = epilogue ? &*epilogue : nullptr;
    const TileEpilogue *tileEpi = epi && !epi->identity() ? epi : nullptr;
    // The fill value or the accumulator operand: the first term of every sum.
    // A fill (a constant or a dispatch constant: one value for the whole
    // block) is not written into the sums: the first K block's microkernels
    // start from a row of nr copies of it (row stride 0), so the block is
    // only written here when K is 0.
    ScalarNode::Kind initKind = L_.nodes[L_.accInit].kind;
    bool uniformInit = initKind == ScalarNode::Kind::Const || initKind == ScalarNode::Kind::Param;
    Value *initRow = ConstantPointerNull::get(b_.getPtrTy());
    if (uniformInit) {
      Scope s = evalScope();
      Value *initValue = eval(L_.accInit, s);
      assert(initValue->getType() == registerType(c_, L_.accType) && "the sums' type");
      initRow = entryAlloca(ArrayType::get(initValue->getType(), p.nr()));
      b_.CreateAlignedStore(b_.CreateVectorSplat(p.nr(), initValue), initRow, Align(4));
    }
    auto initPass = [&]() {
      overBlock("init", [&](Value *slot) {
        Scope s = evalScope();
        store(L_.accType, slot, eval(L_.accInit, s));
      });
    };
    Value *emptyK = b_.CreateICmpEQ(K, b_.getInt64(0));
    if (uniformInit)
      ifThen(emptyK, initPass);
    else
      initPass();
    Value *lhs = batchBase(p.lhs), *lda = rowStride(p.lhs);
    Value *rhs = batchBase(p.rhs), *ldb = strides_[p.rhs][P - 2];
    Value *packed = batchBase(p.packedInput);
    // A constant rhs was packed when building: input rhs is its panels.
    Value *prepacked =
        p.rhsConstant
            ? b_.getTrue()
            : b_.CreateICmpNE(params_[p.prepackedParam], b_.getInt64(0));
    Value *prepackedLhs =
        p.lhsConstant
            ? b_.getTrue()
            : b_.CreateICmpNE(params_[p.prepackedLhsParam], b_.getInt64(0));
    Function *packLhs = codegen::packedMatmulPackRows(m_, p, p.mr, p.lhsElem);
    Function *tile = codegen::packedMatmulTile(m_, p, p.mr, tileEpi);
    std::vector<unsigned> tails = codegen::packedMatmulTailRows(p);
    // The microkernel for |left| rows: |tailOf| the smallest tail height
    // that covers them (a block's last panel, padded with zero rows), or
    // |whole| for more rows than the tails have.
    auto tileFor = [&](Value *left, Value *whole,
                       const std::function<Function *(unsigned)> &tailOf) {
      Value *fn = whole;
      for (auto h = tails.rbegin(); h != tails.rend(); ++h)
        if (Function *t = tailOf(*h); t != fn)
          fn = b_.CreateSelect(b_.CreateICmpULE(left, b_.getInt64(*h)), t, fn);
      return fn;
    };
    // The tails read |rhsElem|: f32 panels, or the rhs in place as stored.
    auto plainTail = [&](DType rhsElem) {
      return [&, rhsElem](unsigned h) {
        return codegen::packedMatmulTile(m_, p, h, nullptr, rhsElem);
      };
    };
    // Where the tile reads its rhs in place: the packing tile for more rows
    // than the tails have (its copy unused below mr rows).
    Function *tilePacking = p.amx() ? nullptr : codegen::packedMatmulTilePacking(m_, p, tileEpi);
    // Where the workgroup packs its own rhs block and has a whole mr-row
    // tile first, each whole panel is packed by its first tile as it goes
    // (packedMatmulTilePacking): only the ragged last panel is packed
    // before the tiles. Not for a transposed rhs (packed by rows).
    Value *wholeEnd = fullEnd(j0, j1, p.nr());
    // (AMX's tiles read packed panels only: PackedMatmul::amx.)
    Value *tilePacks = p.rhsTransposed || p.amx()
                           ? b_.getFalse()
                           : b_.CreateAnd(b_.CreateNot(prepacked),
                                          b_.CreateICmpUGE(b_.CreateSub(i1, i0), b_.getInt64(p.mr)));
    // Where the workgroup packs its own rhs block and has fewer than mr
    // rows, its one tile per panel reads the whole panels in place
    // (packed, they would be read once).
    // (Not a rows view: its tiles read it packed.)
    // (AMX: up to PackedMatmul::kAmxInPlaceRows rows read in place as on the level
    // below, the tails' tiles of 8 or 16 rows; taller blocks pack and
    // multiply in tiles. Measured on a Sapphire Rapids Xeon, 1 thread, K
    // 4096, N 1024: 2, 8, 16 and 24 rows took 1.05, 1.03, 1.05 and 1.08 ms
    // packing for AMX's tiles, 0.84, 0.83, 0.76 and 0.94 in place
    // (x86-64-v4+vnni's 0.89, 0.86, 0.84, 0.92); the 24-row tile's 48
    // vectors of sums spill, and a review found 17-24 rows in place 1.0-1.25
    // times v4+vnni's time; 32 rows 1.14, 64 faster than in place.)
    Value *readsInPlace =
        p.rhsTransposed || p.rhsRows
            ? b_.getFalse()
            : b_.CreateAnd(
                  b_.CreateNot(prepacked),
                  p.amx() ? b_.CreateICmpULE(b_.CreateSub(i1, i0),
                                             b_.getInt64(std::min(PackedMatmul::kAmxInPlaceRows, tails.back())))
                          : b_.CreateICmpULT(b_.CreateSub(i1, i0), b_.getInt64(p.mr)));
    // A transposed rhs, likewise, where the level transposes it in lanes,
    // the block has no more rows than the tallest tail and the K block is a
    // multiple of the lanes (per K block, below): its whole panels are read
    // in place by packedMatmulTransposedTail.
    const bool tailsTranspose = p.rhsTransposed && !p.pairs() && !p.rhsConstant && !tails.empty() &&
                                codegen::packedMatmulTransposesLanes(p);
    Value *transposesInPlace =
        tailsTranspose ? b_.CreateAnd(b_.CreateNot(prepacked),
                                      b_.CreateICmpULE(b_.CreateSub(i1, i0), b_.getInt64(tails.back())))
                       : b_.getFalse();
    // Whether a one-row block's sweep may read an f32 lhs row in place.
    const bool lhsRowsInPlace = p.lhsElem == DType::F32 && !p.lhsConstant;
    Value *ldbAll = ldb;
    BranchInst *kBlocks = loop(b_.getInt64(0), K, "kb", [&](Value *pc) {
      Value *kc = kBlock(pc);
      // A rows view's row offsets for this K block, for the routines that
      // read it where it lies (the packing ones).
      Value *ldb = p.rhsRows ? rowTable(pc, kc) : ldbAll;
      // Whether the microkernels start their accumulators from the fill.
      Value *first = uniformInit ? b_.CreateZExt(b_.CreateICmpEQ(pc, b_.getInt64(0)), b_.getInt64Ty())
                                 : b_.getInt64(0);
      Value *lastBlock = epi ? b_.CreateICmpEQ(b_.CreateAdd(pc, kc), K) : nullptr;
      Value *transposesHere =
          tailsTranspose
              ? b_.CreateAnd(transposesInPlace,
                             b_.CreateICmpEQ(b_.CreateAnd(kc, b_.getInt64(p.lanes - 1)), b_.getInt64(0)))
              : b_.getFalse();
      // The rhs block: packed before the call, or now into the scratch
      // (its ragged panel only, where the tiles pack the rest or read it
      // in place).
      ifThen(b_.CreateNot(prepacked), [&]() {
        Value *from = b_.CreateSelect(
            b_.CreateOr(b_.CreateOr(tilePacks, readsInPlace), transposesHere), wholeEnd, j0);
        b_.CreateCall(packRhsFunction(),
                      {kc, b_.CreateSub(j1, from), rhsBlock(rhs, pc, from), ldb,
                       b_.CreateInBoundsGEP(f32, ownRhs, b_.CreateMul(b_.CreateSub(from, j0), panelRows(kc)))});
      });
      auto rhsPanel = [&](Value *jt) {
        if (p.rhsConstant)
          return packedAt(rhs, pc, kc, jt,
                          params_[L_.inputs[p.rhs].dimParams[P - 1]]);
        return b_.CreateSelect(prepacked, packedAt(packed, pc, kc, jt),
                               b_.CreateInBoundsGEP(f32, ownRhs, b_.CreateMul(b_.CreateSub(jt, j0), panelRows(kc))));
      };
      loop(i0, i1, "ib", [&](Value *ib) {
        Value *ie = b_.CreateBinaryIntrinsic(Intrinsic::umin, b_.CreateAdd(ib, b_.getInt64(p.mc)), i1);
        // One row that reads its rhs in place sweeps its whole panels in one
        // call (packedMatmulRowSweep), a few rows at a time across all the
        // columns; the panel loop then has only the ragged last panel. An
        // f32 lhs row is read by the sweep where it is (not packed: a
        // packed panel spreads one row over mr), unless a ragged panel's
        // tile needs the packed panel.
        Value *sweeps = b_.CreateAnd(readsInPlace, b_.CreateICmpEQ(b_.CreateSub(ie, ib), b_.getInt64(1)));
        Value *lhsInPlace = lhsRowsInPlace ? b_.CreateAnd(sweeps, b_.CreateICmpEQ(wholeEnd, j1))
                                           : b_.getFalse();
        // The lhs block: packed before the call, or now into the scratch.
        ifThen(b_.CreateAnd(b_.CreateNot(prepackedLhs), b_.CreateNot(lhsInPlace)), [&]() {
          Value *from =
              b_.CreateInBoundsGEP(elemType(p.lhs), lhs, b_.CreateAdd(b_.CreateMul(ib, lda), pc));
          b_.CreateCall(packLhs, {kc, b_.CreateSub(ie, ib), from, lda, ownLhs});
        });
        Value *lhsBlock =
            p.lhsConstant
                ? packedAt(lhs, pc, kc, ib,
                           params_[L_.inputs[p.lhs].dimParams.back()])
                : b_.CreateSelect(prepackedLhs, packedLhsAt(packed, pc, kc, ib),
                                  ownLhs);
        ifThen(sweeps, [&]() {
          Value *lhsArg = lhsBlock;
          if (lhsRowsInPlace)
            lhsArg = b_.CreateSelect(
                lhsInPlace, b_.CreateInBoundsGEP(f32, lhs, b_.CreateAdd(b_.CreateMul(ib, lda), pc)),
                lhsBlock);
          b_.CreateCall(codegen::packedMatmulRowSweep(m_, p, p.rhsElem),
                        {kc, lhsArg, rhsBlock(rhs, pc, j0), sum(ib, j0), initRow, first, ldb,
                         b_.CreateSub(wholeEnd, j0),
                         b_.CreateSelect(lhsInPlace, b_.getInt64(1), b_.getInt64(p.mr))});
        });
        loop(b_.CreateSelect(sweeps, wholeEnd, j0), j1, "jt", [&](Value *jt) {
          Value *panel = rhsPanel(jt);
          loop(ib, ie, "it", [&](Value *it) {
            Value *lhsPanel =
                b_.CreateInBoundsGEP(f32, lhsBlock, b_.CreateMul(b_.CreateSub(it, ib), panelRows(kc)));
            Value *packsHere = b_.CreateAnd(
                b_.CreateAnd(tilePacks, b_.CreateICmpULT(jt, wholeEnd)),
                b_.CreateAnd(b_.CreateICmpEQ(ib, i0), b_.CreateICmpEQ(it, ib)));
            Value *at = sum(it, jt);
            // The outputs: where this tile stores them (a whole mr x nr
            // tile inside the output, in the last K block).
            Value *out = ConstantPointerNull::get(b_.getPtrTy()), *last = b_.getInt64(0);
            if (epi) {
              idx_[P - 2] = it;
              idx_[P - 1] = jt;
              out = outputPtr(0);
              Value *whole = b_.CreateAnd(b_.CreateICmpULT(jt, wholeEnd),
                                          b_.CreateICmpUGE(b_.CreateSub(ie, it), b_.getInt64(p.mr)));
              last = b_.CreateZExt(b_.CreateAnd(lastBlock, whole), b_.getInt64Ty());
              if (tileEpi && !tileEpi->operands.empty())
                out = epilogueDescriptor(*tileEpi, out);
            }
            std::vector<Value *> outArgs;
            if (p.tilesStoreOutputs())
              outArgs = {out, epi ? N : b_.getInt64(0), last};
            // The tiles that read the rhs where it is stored: the packing
            // tile (a whole tile of rows: tileFor picks it) or a block's
            // one tile per panel below mr rows.
            Value *fromSource = b_.CreateOr(
                packsHere, b_.CreateAnd(readsInPlace, b_.CreateICmpULT(jt, wholeEnd)));
            Value *left = b_.CreateSub(ie, it);
            // A transposed rhs's whole panel read in place (fewer than mr
            // rows: a tail height covers them).
            Value *viaTranspose = b_.getFalse();
            if (tailsTranspose) {
              viaTranspose = b_.CreateAnd(transposesHere, b_.CreateICmpULT(jt, wholeEnd));
              ifThen(viaTranspose, [&]() {
                auto transposing = [&](unsigned h) {
                  return codegen::packedMatmulTransposedTail(m_, p, h);
                };
                // (The tallest is |whole|: tileFor selects among the rest.)
                Value *fn = tileFor(left, transposing(tails.back()), transposing);
                std::vector<Value *> args = {kc, lhsPanel, rhsBlock(rhs, pc, jt), at,
                                             b_.getInt64(p.nc), initRow, first, ldb, panel};
                args.insert(args.end(), outArgs.begin(), outArgs.end());
                b_.CreateCall(tile->getFunctionType(), fn, args);
              });
            }
            ifThen(fromSource, [&]() {
              std::vector<Value *> args = {kc, lhsPanel, rhsBlock(rhs, pc, jt), at,
                                           b_.getInt64(p.nc), initRow, first, ldb, panel};
              args.insert(args.end(), outArgs.begin(), outArgs.end());
              // (AMX: no packing tile; the blocks that read in place have
              // no more rows than the tallest tail.)
              Value *fn = tileFor(left, tilePacking ? tilePacking : plainTail(p.rhsElem)(tails.back()),
                                  plainTail(p.rhsElem));
              b_.CreateCall(tile->getFunctionType(), fn, args);
            });
            ifThen(b_.CreateAnd(b_.CreateNot(fromSource), b_.CreateNot(viaTranspose)), [&]() {
              std::vector<Value *> args = {kc,    lhsPanel, panel, at, b_.getInt64(p.nc), initRow,
                                           first, b_.getInt64(p.nr()), panel};
              args.insert(args.end(), outArgs.begin(), outArgs.end());
              Value *fn = tileFor(left, tile, plainTail(DType::F32));
              b_.CreateCall(tile->getFunctionType(), fn, args);
            });
          }, p.mr);
        }, p.nr());
      }, p.mc);
    }, kcStep());
    // Left as written: a loop of calls, nothing to gain from unrolling it
    // or peeling its first K block (which differs only in |first|).
    noLoopVectorize(kBlocks, true);
    // The outputs the tiles did not store: all of them where K is 0 or the
    // epilogue has no vector form, else the ragged last panel's columns and
    // the rows of a partial last tile (whole tiles cover [i0, rowsEnd) x
    // [j0, wholeEnd): the tiles start at i0 + multiples of mr because mc is
    // a multiple of mr, which Tiling.cpp asserts; the tiles' own test,
    // ie - it >= mr, then picks the same tiles).
    std::function<Value *(Value *)> rowStart;
    if (epi) {
      Value *rowsEnd = b_.CreateSelect(emptyK, i0, fullEnd(i0, i1, p.mr));
      rowStart = [&, rowsEnd](Value *i) {
        return b_.CreateSelect(b_.CreateICmpULT(i, rowsEnd), wholeEnd, j0);
      };
    }
    BranchInst *outLoop = overBlock("out", [&](Value *slot) {
      Scope s = evalScope();
      s.acc = load(L_.accType, slot);
      storeOutputs(s);
    }, rowStart);
    // (Vectorized where the epilogue calls graft's functions: a partial
    // tile of rows computing tanh lane by lane took longer than the tiles'
    // vectors saved, 64 x 1024 x 1024 with a bias and GELU 1.07x the time
    // at 2 threads.)
    if (epi && !epi->costly)
      noLoopVectorize(outLoop, true);
  }

  // The descriptor of a tile epilogue's operands (TileEpilogue.h) for the
  // tile at the current point (idx_: its first row and column): the
  // output's address |out|, then each input's address there and its row
  // stride, or a dispatch constant's word. One array in the entry block,
  // filled before each tile's call.
  Value *epilogueDescriptor(const TileEpilogue &e, Value *out) {
    Type *i64 = b_.getInt64Ty();
    const unsigned P = L_.numParallel;
    if (!descriptor_)
      descriptor_ = entryAlloca(ArrayType::get(i64, epilogueDescriptorWords(e)));
    auto put = [&](unsigned w, Value *v) {
      b_.CreateAlignedStore(v, b_.CreateConstInBoundsGEP1_64(i64, descriptor_, w), Align(8));
    };
    put(0, b_.CreatePtrToInt(out, i64));
    for (size_t k = 0; k < e.operands.size(); ++k) {
      const EpilogueOperand &o = e.operands[k];
      const unsigned w = epilogueOperandWord(unsigned(k));
      if (o.param) {
        put(w, params_[o.index]);
        put(w + 1, b_.getInt64(0));
        continue;
      }
      const KernelInput &in = L_.inputs[o.index];
      put(w, b_.CreatePtrToInt(inputPtr(o.index), i64));
      Value *ld = b_.getInt64(0);
      for (size_t d = 0; d < in.map.size(); ++d)
        if (unsigned(in.map[d]) == P - 2)
          ld = b_.CreateAdd(ld, strides_[o.index][d]);
      put(w + 1, ld);
    }
    return descriptor_;
  }

  // acc[j - ja] for j in [ja, jb) of the current row: init, every reduction
  // step over the whole row (the vectorized loop), then the outputs.
  void rowAccumulate(Value *ja, Value *jb) {
    unsigned P = L_.numParallel;
    j0_ = ja;
    loop(ja, jb, "j_init", [&](Value *j) {
      idx_[P - 1] = j;
      Scope s = evalScope();
      store(L_.accType, accSlot(j), eval(L_.accInit, s));
    });
    reductionLoops(P, [&]() {
      prefetchRowsAhead(ja, jb);
      loop(ja, jb, "j", [&](Value *j) {
        idx_[P - 1] = j;
        Scope s = evalScope();
        s.acc = load(L_.accType, accSlot(j));
        store(L_.accType, accSlot(j), eval(L_.accUpdate, s));
      });
    });
    loop(ja, jb, "j_out", [&](Value *j) {
      idx_[P - 1] = j;
      Scope s = evalScope();
      s.acc = load(L_.accType, accSlot(j));
      storeOutputs(s);
    });
  }

  // A column reduction ([R, C] summed over R into C: one parallel dim,
  // one reduced dim) walks a strip of [ja, jb) columns down the rows, each
  // row's part of it ldx elements after the last: a stride the hardware
  // prefetchers follow poorly. Each step prefetches the strip
  // kReductionPrefetchRows rows ahead (a prefetch never faults: past the
  // last row it reads nothing). Measured on AMD Zen 3, x86-64-v3, 1
  // thread: sum over the rows of 2048 x 2048 0.70x the time (2 threads
  // 0.75x), 4096 x 256 0.79x, 512 x 512 0.83x, 100000 x 16 0.64x, 64 x 8192
  // the same; 2 and 16 rows ahead no better.
  static constexpr int64_t kReductionPrefetchRows = 4;
  void prefetchRowsAhead(Value *ja, Value *jb) {
    const unsigned P = L_.numParallel;
    if (P != 1 || dims_.size() != 2)
      return;
    for (size_t i = 0; i < L_.inputs.size(); ++i) {
      const KernelInput &in = L_.inputs[i];
      if (in.map != std::vector<int>{1, 0})
        continue;
      Value *row = b_.CreateAdd(idx_[1], b_.getInt64(kReductionPrefetchRows));
      Value *at = b_.CreateGEP(memoryType(c_, in.elem), bases_[i],
                               b_.CreateAdd(b_.CreateMul(row, strides_[i][0]), ja));
      // Every line the strip touches: it need not start on one (63 bytes
      // more cover its last).
      Value *bytes = b_.CreateAdd(
          b_.CreateMul(b_.CreateSub(jb, ja), b_.getInt64(dtypeSize(in.elem))), b_.getInt64(63));
      loop(b_.getInt64(0), bytes, "prefetch",
           [&](Value *off) { prefetchLine(b_, b_.CreateGEP(b_.getInt8Ty(), at, off)); }, 64);
    }
  }

  // The end of the whole n-wide steps from |lo| towards |hi|:
  // lo + (hi - lo) / n * n.
  Value *fullEnd(Value *lo, Value *hi, uint64_t n) {
    Value *len = b_.CreateSub(hi, lo);
    return b_.CreateAdd(lo, b_.CreateMul(b_.CreateUDiv(len, b_.getInt64(n)), b_.getInt64(n)));
  }

  // Rows [i0, i1) x columns [j0, j1) in register tiles of regRows x regCols
  // (accumulators stay in registers across the reduction, the SLP vectorizer
  // turns each tile row into vector ops); the ragged edges use rows of
  // accumulators in memory.
  void blockedRows(Value *i0, Value *i1, Value *j0, Value *j1) {
    inBlocks(i0, i1, j0, j1, L_.regRows, L_.regCols,
             [&](Value *ib, Value *jb) { registerTile(ib, jb); },
             [&](Value *ja, Value *jb) { rowAccumulate(ja, jb); });
  }

  // Rows [i0, i1) x columns [j0, j1) in blocks of rb x cb: |block| at each
  // whole block's first row and column, then |rest| over each row's
  // columns past the last whole block, and over the whole rows past the
  // last block of rows (with idx_ at the row).
  void inBlocks(Value *i0, Value *i1, Value *j0, Value *j1, unsigned rb, unsigned cb,
                const std::function<void(Value *, Value *)> &block,
                const std::function<void(Value *, Value *)> &rest) {
    const unsigned P = L_.numParallel;
    Value *iFull = fullEnd(i0, i1, rb);
    Value *jFull = fullEnd(j0, j1, cb);
    loop(i0, iFull, "ib", [&](Value *ib) {
      loop(j0, jFull, "jb", [&](Value *jb) { block(ib, jb); }, cb);
      loop(ib, b_.CreateAdd(ib, b_.getInt64(rb)), "ir", [&](Value *i) {
        idx_[P - 2] = i;
        rest(jFull, j1);
      });
    }, rb);
    loop(iFull, i1, "irem", [&](Value *i) {
      idx_[P - 2] = i;
      rest(j0, j1);
    });
  }

  void registerTile(Value *ib, Value *jb) {
    unsigned P = L_.numParallel, RB = L_.regRows, CB = L_.regCols;
    auto at = [&](unsigned ii, unsigned jj) {
      idx_[P - 2] = ii ? b_.CreateAdd(ib, b_.getInt64(ii), "", true, true) : ib;
      idx_[P - 1] = jj ? b_.CreateAdd(jb, b_.getInt64(jj), "", true, true) : jb;
      return regAcc_[ii * CB + jj];
    };
    for (unsigned ii = 0; ii < RB; ++ii)
      for (unsigned jj = 0; jj < CB; ++jj) {
        Value *slot = at(ii, jj);
        Scope s = evalScope();
        store(L_.accType, slot, eval(L_.accInit, s));
      }
    reductionLoops(P, [&]() {
      for (unsigned ii = 0; ii < RB; ++ii)
        for (unsigned jj = 0; jj < CB; ++jj) {
          Value *slot = at(ii, jj);
          Scope s = evalScope();
          s.acc = load(L_.accType, slot);
          store(L_.accType, slot, eval(L_.accUpdate, s));
        }
    });
    for (unsigned ii = 0; ii < RB; ++ii)
      for (unsigned jj = 0; jj < CB; ++jj) {
        Value *slot = at(ii, jj);
        Scope s = evalScope();
        s.acc = load(L_.accType, slot);
        storeOutputs(s);
      }
  }

  // Every RowReduce node of the kernel for the current row, in node order
  // (a statistic may use earlier ones): its operand folded over the whole
  // innermost dim, on vectors where the operand has a vector form
  // (vectorRowStatistic). Otherwise kRowLanes accumulators take every
  // kRowLanes-th element (the last partial group goes to the first), then
  // fold into one in lane order: independent chains the vectorizers may
  // turn into vector ops. Either way a fixed order whatever the thread
  // count. max and min give the same bits
  // in any order; sums and products are reassociated as
  // docs/graph-format.md allows for reductions.
  static constexpr unsigned kRowLanes = 8;

  // The row statistics, then the outputs over [j0, j1) of the current row.
  // When the last statistic folds a value the output also uses (softmax's
  // exp(x - max), summed and then divided by the sum) and this workgroup
  // covers the whole row, the statistic's pass stores that value into the
  // output and the output pass reads it back instead of computing it again.
  // A workgroup that covers part of a longer row cannot: other workgroups
  // write the rest of that row.
  void rowPasses(Value *j0, Value *j1) {
    unsigned leaves = 1;
    if (rowSlots_.empty() && outNode_.size() == 1)
      rowCases(j0, j1, leaves);
    else
      rowPassesOf(j0, j1);
  }

  // The most row loops one kernel's selects are unswitched into.
  static constexpr unsigned kMaxRowCases = 16;

  // The row's outputs where the one output is a select whose condition is
  // the same along the whole row (a concat along an outer dim: which
  // operand holds the row; a mask broadcast along rows): the condition is
  // tested once per row and each side gets a row loop of its own that
  // reads only its operand, so a concat of n operands reads one value a
  // point, not n, and its loops vectorize. Selects nested on either side
  // are split the same way, up to kMaxRowCases loops. Not where a side
  // holds a checked load: every checked load is still read, so an index
  // out of range stops the dispatch whichever side holds it.
  void rowCases(Value *j0, Value *j1, unsigned &leaves) {
    int root = outNode_[0];
    const ScalarNode &n = L_.nodes[root];
    if (leaves >= kMaxRowCases || n.kind != ScalarNode::Kind::Op || n.op != OpKind::Select ||
        rowShape_[n.operands[0]] != RowShape::Uniform || readsChecked(n.operands[1]) ||
        readsChecked(n.operands[2])) {
      rowPassesOf(j0, j1);
      return;
    }
    ++leaves;
    idx_[L_.numParallel - 1] = j0;
    Scope s = evalScope();
    Value *c = eval(n.operands[0], s);
    Function *fn = b_.GetInsertBlock()->getParent();
    BasicBlock *then = BasicBlock::Create(c_, "row.case", fn);
    BasicBlock *other = BasicBlock::Create(c_, "row.other", fn);
    BasicBlock *done = BasicBlock::Create(c_, "row.cases", fn);
    b_.CreateCondBr(c, then, other);
    for (auto [block, side] : {std::pair{then, n.operands[1]}, std::pair{other, n.operands[2]}}) {
      b_.SetInsertPoint(block);
      outNode_[0] = side;
      rowCases(j0, j1, leaves);
      b_.CreateBr(done);
    }
    outNode_[0] = root;
    b_.SetInsertPoint(done);
  }

  // Whether node |root| reads a checked load (a gather's index).
  bool readsChecked(int root) const {
    std::vector<int> stack = {root};
    std::vector<bool> seen(L_.nodes.size());
    while (!stack.empty()) {
      int n = stack.back();
      stack.pop_back();
      if (seen[n])
        continue;
      seen[n] = true;
      if (L_.nodes[n].kind == ScalarNode::Kind::Load && L_.nodes[n].checked)
        return true;
      for (int o : L_.nodes[n].operands)
        stack.push_back(o);
    }
    return false;
  }

  void rowPassesOf(Value *j0, Value *j1) {
    auto outputs = [&](int kept) {
      BranchInst *back = outputRange(j0, j1, kept, "j");
      if (outNode_[0] != L_.outputs[0].node)
        oneVectorAStep(back);
    };
    int kept = keptRowValue();
    if (kept < 0) {
      rowStatistics(-1);
      if (streamLanes_)
        streamedOutputs(j0, j1);
      else
        outputs(-1);
      return;
    }
    Function *fn = b_.GetInsertBlock()->getParent();
    BasicBlock *whole = BasicBlock::Create(c_, "row.whole", fn);
    BasicBlock *part = BasicBlock::Create(c_, "row.part", fn);
    BasicBlock *done = BasicBlock::Create(c_, "row.done", fn);
    Value *covers = b_.CreateAnd(b_.CreateICmpEQ(j0, b_.getInt64(0)),
                                 b_.CreateICmpEQ(j1, dims_[L_.numParallel - 1]));
    b_.CreateCondBr(covers, whole, part);
    b_.SetInsertPoint(whole);
    rowStatistics(kept);
    outputs(kept);
    b_.CreateBr(done);
    b_.SetInsertPoint(part);
    rowStatistics(-1);
    outputs(-1);
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
  }

  // The outputs at [lo, hi) of the current row, one point at a time (the
  // loop vectorizer widens the loop); |kept| as in rowPasses.
  BranchInst *outputRange(Value *lo, Value *hi, int kept, const std::string &name) {
    unsigned P = L_.numParallel;
    return loop(lo, hi, name, [&](Value *j) {
      idx_[P - 1] = j;
      Scope s = evalScope();
      if (kept >= 0)
        s.memo[kept] = load(L_.outputs[0].elem, outputPtr(0));
      storeOutputs(s);
    });
  }

  // Whether this call streams (the same in every workgroup): the results
  // add up to at least streamingBytes, output 0 is element-aligned (so a
  // peel of whole elements reaches a vector boundary) and every output is
  // at the same offset from a vector boundary as output 0 (one peel aligns
  // them all).
  Value *streamingChoice() {
    unsigned P = L_.numParallel;
    Type *i64 = b_.getInt64Ty();
    uint64_t size = dtypeSize(L_.outputs[0].elem), vecBytes = size * streamLanes_;
    Value *points = b_.getInt64(1);
    for (unsigned d = 0; d < P; ++d)
      points = b_.CreateMul(points, dims_[d]);
    Value *bytes = b_.CreateMul(points, b_.getInt64(size * L_.outputs.size()));
    Value *choice = b_.CreateICmpUGE(bytes, b_.getInt64(L_.streamingBytes), "streaming");
    Value *first = b_.CreatePtrToInt(bases_[L_.inputs.size()], i64);
    auto zeroMod = [&](Value *v, uint64_t m) {
      return b_.CreateICmpEQ(b_.CreateAnd(v, b_.getInt64(m - 1)), b_.getInt64(0));
    };
    choice = b_.CreateAnd(choice, zeroMod(first, size));
    for (size_t k = 1; k < L_.outputs.size(); ++k) {
      Value *at = b_.CreatePtrToInt(bases_[L_.inputs.size() + k], i64);
      choice = b_.CreateAnd(choice, zeroMod(b_.CreateSub(at, first), vecBytes));
    }
    return choice;
  }

  // The outputs at [j0, j1) of the current row: where this call streams,
  // scalar points up to output 0's first vector boundary, aligned vectors
  // with non-temporal stores, then the ragged tail; else outputRange.
  // Without alias checks: an output never shares storage with an input of
  // its dispatch (Arena.cpp; caller storage that overlaps an argument is
  // written aside, graft/runtime.h).
  void streamedOutputs(Value *j0, Value *j1) {
    unsigned P = L_.numParallel, V = streamLanes_;
    uint64_t size = dtypeSize(L_.outputs[0].elem), vecBytes = size * V;
    Function *fn = b_.GetInsertBlock()->getParent();
    BasicBlock *stream = BasicBlock::Create(c_, "stream", fn);
    BasicBlock *plain = BasicBlock::Create(c_, "plain", fn);
    BasicBlock *done = BasicBlock::Create(c_, "stream.done", fn);
    b_.CreateCondBr(streaming_, stream, plain);
    b_.SetInsertPoint(plain);
    outputRange(j0, j1, -1, "j");
    b_.CreateBr(done);

    b_.SetInsertPoint(stream);
    idx_[P - 1] = j0;
    Value *at = b_.CreatePtrToInt(outputPtr(0), b_.getInt64Ty());
    Value *toBoundary = b_.CreateAnd(b_.CreateNeg(at), b_.getInt64(vecBytes - 1));
    Value *ja = b_.CreateAdd(j0, b_.CreateBinaryIntrinsic(Intrinsic::umin,
                                                          b_.CreateUDiv(toBoundary, b_.getInt64(size)),
                                                          b_.CreateSub(j1, j0)));
    Value *jv = fullEnd(ja, j1, V);
    noLoopVectorize(outputRange(j0, ja, -1, "j_peel"));
    std::vector<int> roots;
    for (int o : outNode_)
      roots.push_back(o);
    Scope uniform = evalScope();
    std::map<int, Value *> splats = uniformSplats(roots, V, uniform);
    MDNode *nontemporal = MDNode::get(c_, ConstantAsMetadata::get(b_.getInt32(1)));
    noLoopVectorize(loop(ja, jv, "j_stream", [&](Value *j) {
      for (size_t k = 0; k < L_.outputs.size(); ++k) {
        Value *v = rowVector(outNode_[k], V, j, splats);
        idx_[P - 1] = j;
        StoreInst *st = b_.CreateAlignedStore(v, outputPtr(k), Align(vecBytes));
        st->setMetadata(LLVMContext::MD_nontemporal, nontemporal);
      }
    }, V));
    noLoopVectorize(outputRange(jv, j1, -1, "j_tail"));
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
  }

  // Orders this workgroup's streaming stores before its end is published
  // (the level's fence; nothing where it names none).
  void streamingFence() {
    if (!*L_.streamingFence)
      return;
    Intrinsic::ID id = Function::lookupIntrinsicID(L_.streamingFence);
    if (id == Intrinsic::not_intrinsic)
      GRAFT_INTERNAL_ERROR(std::string("unknown streaming-store fence intrinsic ") + L_.streamingFence);
    b_.CreateCall(Intrinsic::getDeclaration(&m_, id));
  }

  // The node the last row statistic folds when the kernel's one output
  // also uses it, has the output's element type and is worth keeping (an
  // op, not a load), else -1.
  int keptRowValue() const {
    if (rowSlots_.empty() || L_.outputs.size() != 1)
      return -1;
    int v = L_.nodes[rowSlots_.rbegin()->first].operands[0];
    const ScalarNode &node = L_.nodes[v];
    if (node.kind != ScalarNode::Kind::Op || node.type != L_.outputs[0].elem ||
        isStorageFloat(node.type) || node.type == DType::I1)
      return -1;
    // Is |v| an operand of the output's value, outside the statistics?
    std::vector<int> stack = {outNode_[0]};
    std::vector<bool> seen(L_.nodes.size());
    while (!stack.empty()) {
      int n = stack.back();
      stack.pop_back();
      if (n == v)
        return v;
      if (seen[n] || L_.nodes[n].kind != ScalarNode::Kind::Op)
        continue;
      seen[n] = true;
      for (int o : L_.nodes[n].operands)
        stack.push_back(o);
    }
    return -1;
  }

  // Every RowReduce node for the current row, in vectors where its operand
  // has a vector form (vectorRowStatistic), else as kRowLanes describes;
  // the value the last one folds is also stored into output 0 when |kept|
  // names it.
  void rowStatistics(int kept) {
    rowStat_.clear();
    for (const auto &[n, slots] : rowSlots_) {
      unsigned lanes = rowStatisticLanes(L_, rowShape_, n);
      rowStat_[n] = lanes ? vectorRowStatistic(n, lanes, kept) : scalarRowStatistic(n, slots, kept);
    }
  }

  // |acc| op |v| for RowReduce |node| (sums and products reassociated).
  Value *rowFold(const ScalarNode &node, Value *acc, Value *v) {
    FastMathFlags saved = b_.getFastMathFlags();
    FastMathFlags fmf = saved;
    fmf.setAllowReassoc();
    b_.setFastMathFlags(fmf);
    Value *u = emitScalarOp(b_, node.op, "", node.type, node.type, {acc, v});
    b_.setFastMathFlags(saved);
    return u;
  }

  // Folds RowReduce |node|'s operand at point |j| of the row into |slot|.
  void rowFoldPoint(const ScalarNode &node, Value *slot, Value *j, int kept) {
    idx_[L_.numParallel - 1] = j;
    Scope s = evalScope();
    Value *v = eval(node.operands[0], s);
    if (node.operands[0] == kept)
      store(L_.outputs[0].elem, outputPtr(0), v);
    store(node.type, slot, rowFold(node, load(node.type, slot), v));
  }

  // The scalar form: kRowLanes slots, folded in lane order.
  Value *scalarRowStatistic(int n, const std::vector<Value *> &slots, int kept) {
    unsigned P = L_.numParallel;
    const ScalarNode &node = L_.nodes[n];
    {
      Scope s = evalScope();
      Value *init = eval(node.operands[1], s);
      for (Value *slot : slots)
        store(node.type, slot, init);
    }
    Value *N = dims_[P - 1];
    Value *full = b_.CreateMul(b_.CreateUDiv(N, b_.getInt64(kRowLanes)), b_.getInt64(kRowLanes));
    loop(b_.getInt64(0), full, "row_j", [&](Value *j) {
      for (unsigned k = 0; k < kRowLanes; ++k)
        rowFoldPoint(node, slots[k], k ? b_.CreateAdd(j, b_.getInt64(k), "", true, true) : j, kept);
    }, kRowLanes);
    loop(full, N, "row_rem", [&](Value *j) { rowFoldPoint(node, slots[0], j, kept); });
    Value *total = load(node.type, slots[0]);
    for (unsigned k = 1; k < kRowLanes; ++k)
      total = emitScalarOp(b_, node.op, "", node.type, node.type,
                           {total, load(node.type, slots[k])});
    return total;
  }

  // Vector accumulators of a row statistic: enough independent chains to
  // hide the latency of a vector add, few enough to leave registers for
  // the operand (exp's constants).
  static constexpr unsigned kRowVectors = 4;

  // The vector form (RowVector.h): each of kRowVectors accumulators of
  // |V| lanes takes V consecutive points of every V * kRowVectors (the
  // loop vectorizer is kept off: the body is already vectors); the points
  // left over (fewer than V * kRowVectors) fold into a scalar; then the
  // accumulators fold in order, their lanes pairwise (lane l with lane
  // l + V/2, then l + V/4, ...), and the scalar last. A fixed order for
  // the variant, whatever the thread count.
  Value *vectorRowStatistic(int n, unsigned V, int kept) {
    unsigned P = L_.numParallel;
    const ScalarNode &node = L_.nodes[n];
    int operand = node.operands[0];
    Type *vt = FixedVectorType::get(registerType(c_, node.type), V);
    Scope uniform = evalScope();
    Value *init = eval(node.operands[1], uniform);
    std::map<int, Value *> splats = uniformSplats({operand}, V, uniform);
    std::vector<Value *> accs;
    for (unsigned k = 0; k < kRowVectors; ++k) {
      accs.push_back(entryAlloca(vt));
      b_.CreateStore(b_.CreateVectorSplat(V, init), accs.back());
    }
    Value *tail = rowSlots_.at(n)[0];
    store(node.type, tail, init);
    Value *N = dims_[P - 1];
    uint64_t step = uint64_t(V) * kRowVectors;
    Value *full = b_.CreateMul(b_.CreateUDiv(N, b_.getInt64(step)), b_.getInt64(step));
    noLoopVectorize(loop(b_.getInt64(0), full, "row_v", [&](Value *j) {
      for (unsigned k = 0; k < kRowVectors; ++k) {
        Value *jk = k ? b_.CreateAdd(j, b_.getInt64(uint64_t(k) * V), "", true, true) : j;
        Value *v = rowVector(operand, V, jk, splats);
        if (operand == kept) {
          idx_[P - 1] = jk;
          b_.CreateAlignedStore(v, outputPtr(0), Align(dtypeSize(node.type)));
        }
        b_.CreateStore(rowFold(node, b_.CreateLoad(vt, accs[k]), v), accs[k]);
      }
    }, step));
    noLoopVectorize(loop(full, N, "row_rest", [&](Value *j) { rowFoldPoint(node, tail, j, kept); }));
    Value *acc = b_.CreateLoad(vt, accs[0]);
    for (unsigned k = 1; k < kRowVectors; ++k)
      acc = emitScalarOp(b_, node.op, "", node.type, node.type, {acc, b_.CreateLoad(vt, accs[k])});
    // Lanes: the low half with the high half until one is left.
    for (unsigned w = V / 2; w >= 1; w /= 2) {
      std::vector<int> lo, hi;
      for (unsigned l = 0; l < w; ++l) {
        lo.push_back(static_cast<int>(l));
        hi.push_back(static_cast<int>(l + w));
      }
      acc = emitScalarOp(b_, node.op, "", node.type, node.type,
                         {b_.CreateShuffleVector(acc, lo), b_.CreateShuffleVector(acc, hi)});
    }
    Value *total = b_.CreateExtractElement(acc, uint64_t(0));
    return emitScalarOp(b_, node.op, "", node.type, node.type, {total, load(node.type, tail)});
  }

  // The uniform values the vector forms of |roots| read, computed once per
  // row in |uniform| and splatted to V lanes.
  std::map<int, Value *> uniformSplats(const std::vector<int> &roots, unsigned V, Scope &uniform) {
    std::map<int, Value *> splats;
    std::set<int> seen;
    for (int root : roots)
      postOrder(
          root, [&](int k) { return seen.count(k) != 0; },
          [&](int k) { return rowShape_[k] != RowShape::Varying; },
          [&](int k) {
            seen.insert(k);
            if (rowShape_[k] == RowShape::Uniform)
              splats[k] = b_.CreateVectorSplat(V, eval(k, uniform));
          });
    return splats;
  }

  // Varying node |root| (RowVector.h) at the V points of the current row
  // from |j|; the uniform nodes it reads are in |splats|.
  Value *rowVector(int root, unsigned V, Value *j, const std::map<int, Value *> &splats) {
    unsigned P = L_.numParallel;
    std::map<int, Value *> memo = splats;
    postOrder(
        root, [&](int k) { return memo.count(k) != 0; },
        [&](int k) { return L_.nodes[k].kind != ScalarNode::Kind::Op; },
        [&](int k) {
          const ScalarNode &node = L_.nodes[k];
          Value *v = nullptr;
          if (node.kind == ScalarNode::Kind::Index) {
            std::vector<Constant *> steps;
            for (unsigned l = 0; l < V; ++l)
              steps.push_back(b_.getInt64(l));
            v = b_.CreateAdd(b_.CreateVectorSplat(V, j), ConstantVector::get(steps));
          } else if (node.kind == ScalarNode::Kind::Load) {
            idx_[P - 1] = j;
            const KernelInput &in = L_.inputs[node.input];
            v = b_.CreateAlignedLoad(FixedVectorType::get(memoryType(c_, in.elem), V), inputPtr(node.input),
                                     Align(dtypeSize(in.elem)));
          } else {
            std::vector<Value *> ops;
            for (int o : node.operands)
              ops.push_back(memo.at(o));
            v = emitScalarOp(b_, node.op, node.pred, node.type, operandType(L_, node), ops);
          }
          memo[k] = v;
        });
    return memo.at(root);
  }

  // A slot in the function's entry block (a register after SROA).
  Value *entryAlloca(Type *t) {
    BasicBlock &entry = b_.GetInsertBlock()->getParent()->getEntryBlock();
    IRBuilder<> eb(&entry, entry.getFirstInsertionPt());
    return eb.CreateAlloca(t);
  }

  // The single-point case (no parallel dims).
  void tilePoint(Value *) {
    if (!reduction_) {
      storeOutputs(evalScope());
      return;
    }
    pointReduction(acc_);
  }

  // The whole reduction of one output point, innermost, with the accumulator
  // in |slot| (promoted to a register). The update may be reassociated
  // (docs/graph-format.md), which lets the loop vectorizer keep several
  // partial sums when the reduced dim is contiguous.
  void pointReduction(Value *slot) {
    {
      Scope s = evalScope();
      store(L_.accType, slot, eval(L_.accInit, s));
    }
    reductionLoops(L_.numParallel, [&]() {
      Scope s = evalScope();
      s.acc = load(L_.accType, slot);
      // The update's operands (a map's body the reduction computes,
      // Former::isReducedMap) are computed as written, before the flags:
      // only the fold itself is reassociated.
      for (int o : L_.nodes[L_.accUpdate].operands)
        eval(o, s);
      FastMathFlags saved = b_.getFastMathFlags();
      FastMathFlags fmf = saved;
      fmf.setAllowReassoc();
      b_.setFastMathFlags(fmf);
      Value *v = eval(L_.accUpdate, s);
      b_.setFastMathFlags(saved);
      store(L_.accType, slot, v);
    });
    Scope s = evalScope();
    s.acc = load(L_.accType, slot);
    storeOutputs(s);
  }

  Value *accSlot(Value *j) {
    return b_.CreateInBoundsGEP(memoryType(c_, L_.accType), acc_, b_.CreateSub(j, j0_));
  }

  void reductionLoops(unsigned k, const std::function<void()> &body) {
    if (k == L_.numParallel && k == dims_.size()) {
      body();
      return;
    }
    unsigned first = L_.numParallel;
    std::function<void(unsigned)> nest = [&](unsigned r) {
      if (r == dims_.size()) {
        body();
        return;
      }
      loop(b_.getInt64(0), dims_[r], "r" + std::to_string(r - first), [&](Value *iv) {
        idx_[r] = iv;
        nest(r + 1);
      });
    };
    nest(first);
  }

  BranchInst *loop(Value *lo, Value *hi, const std::string &name,
                   const std::function<void(Value *)> &body, uint64_t step = 1) {
    return emitLoop(b_, lo, hi, name, body, step);
  }
  BranchInst *loop(Value *lo, Value *hi, const std::string &name,
                   const std::function<void(Value *)> &body, Value *step) {
    return emitLoop(b_, lo, hi, name, body, step);
  }

  // The workgroup's rows [i0, i1) x columns [j0, j1) of a plain transpose
  // (LoopKernel::transposeBlocks) in squares of kTransposeSquare: per square, that many
  // vector loads along the input's rows (contiguous: the input's last dim
  // is the output's row index), a transpose of the square in registers
  // (transposeSquare), and as many vector stores along the output's rows,
  // the bits as they are (integer lanes of the element's size). The
  // columns and rows past the last whole square go point by point. Point
  // by point, each element of an
  // output row is read from a line of its own (Tiling.cpp has the times).
  void transposeBlocks(Value *i0, Value *i1, Value *j0, Value *j1) {
    const unsigned P = L_.numParallel, B = LoopKernel::kTransposeSquare;
    const unsigned input = L_.nodes[outNode_[0]].input;
    Type *lane = b_.getIntNTy(8 * dtypeSize(L_.inputs[input].elem));
    auto *vec = FixedVectorType::get(lane, B);
    inBlocks(i0, i1, j0, j1, B, B, [&](Value *ib, Value *jb) {
      std::vector<Value *> rows(B);
      idx_[P - 2] = ib;
      for (unsigned k = 0; k < B; ++k) {
        idx_[P - 1] = b_.CreateAdd(jb, b_.getInt64(k));
        rows[k] = b_.CreateAlignedLoad(vec, inputPtr(input), Align(1));
      }
      rows = transposeSquare(b_, rows);
      idx_[P - 1] = jb;
      for (unsigned k = 0; k < B; ++k) {
        idx_[P - 2] = b_.CreateAdd(ib, b_.getInt64(k));
        b_.CreateAlignedStore(rows[k], outputPtr(0), Align(1));
      }
    }, [&](Value *ja, Value *jb) { rowPasses(ja, jb); });
  }

  // Keeps the loop vectorizer off the loop of back edge |back| (its body
  // is already vector-shaped), and with |noUnroll| the unroller and the
  // peeler too.
  void noLoopVectorize(BranchInst *back, bool noUnroll = false) {
    Metadata *off[] = {MDString::get(c_, "llvm.loop.vectorize.enable"),
                       ConstantAsMetadata::get(b_.getFalse())};
    std::vector<Metadata *> hints = {nullptr, MDNode::get(c_, off)};
    if (noUnroll)
      hints.push_back(MDNode::get(c_, {MDString::get(c_, "llvm.loop.unroll.disable")}));
    MDNode *self = MDNode::getDistinct(c_, hints);
    self->replaceOperandWith(0, self);
    back->setMetadata(LLVMContext::MD_loop, self);
  }

  // The loop vectorizer's loop of back edge |back| takes one vector a
  // step (no interleaving): a row of 56 f32 is then 7 vector steps on
  // AVX2 instead of one step of 32 and 24 scalar ones.
  void oneVectorAStep(BranchInst *back) {
    Metadata *one[] = {MDString::get(c_, "llvm.loop.interleave.count"),
                       ConstantAsMetadata::get(b_.getInt32(1))};
    MDNode *self = MDNode::getDistinct(c_, {nullptr, MDNode::get(c_, one)});
    self->replaceOperandWith(0, self);
    back->setMetadata(LLVMContext::MD_loop, self);
  }

  // if (cond) body();
  void ifThen(Value *cond, const std::function<void()> &body) {
    Function *f = b_.GetInsertBlock()->getParent();
    BasicBlock *then = BasicBlock::Create(c_, "then", f), *done = BasicBlock::Create(c_, "endif", f);
    b_.CreateCondBr(cond, then, done);
    b_.SetInsertPoint(then);
    body();
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
  }

  Value *load(DType t, Value *ptr) {
    Value *v = b_.CreateLoad(memoryType(c_, t), ptr);
    if (isStorageFloat(t))
      return storageToFloat(b_, v, t);
    return t == DType::I1 ? b_.CreateTrunc(v, b_.getInt1Ty()) : v;
  }

  void store(DType t, Value *ptr, Value *v) {
    if (t == DType::I1)
      v = b_.CreateZExt(v, b_.getInt8Ty());
    if (isStorageFloat(t))
      v = floatToStorage(b_, v, t);
    b_.CreateStore(v, ptr);
  }

  // Visits, each once and after its operands (left to right), the nodes
  // |root| needs that |known| does not have a value for; |leaf| says which
  // nodes' operands are not needed. Iterative (an explicit stack): a fused
  // chain of 100k maps is a DAG that deep.
  template <class Known, class Leaf, class Visit>
  void postOrder(int root, Known known, Leaf leaf, Visit visit) {
    std::vector<std::pair<int, bool>> stack = {{root, false}}; // node, operands pushed
    while (!stack.empty()) {
      auto [n, expanded] = stack.back();
      if (known(n)) {
        stack.pop_back();
        continue;
      }
      if (!leaf(n) && !expanded) {
        stack.back().second = true;
        const std::vector<int> &ops = L_.nodes[n].operands;
        for (size_t i = ops.size(); i-- > 0;)
          if (!known(ops[i]))
            stack.push_back({ops[i], false});
        continue;
      }
      stack.pop_back();
      visit(n);
    }
  }

  // The value of node |root| in scope |s|, emitting what is not yet
  // emitted.
  Value *eval(int root, Scope &s) {
    postOrder(
        root, [&](int n) { return s.memo.count(n) != 0; },
        [&](int n) {
          const ScalarNode &node = L_.nodes[n];
          return !(node.kind == ScalarNode::Kind::Op ||
                   (node.kind == ScalarNode::Kind::Load && !node.operands.empty()));
        },
        [&](int n) { s.memo[n] = evalNode(n, s); });
    return s.memo.at(root);
  }

  // Emits node |n|; its operands are already in |s|.
  Value *evalNode(int n, Scope &s) {
    const ScalarNode &node = L_.nodes[n];
    Value *v = nullptr;
    switch (node.kind) {
    case ScalarNode::Kind::Const: {
      Type *t = registerType(c_, node.type);
      v = isFloat(node.type) ? ConstantFP::get(t, node.f)
                             : ConstantInt::getSigned(t, node.i);
      break;
    }
    case ScalarNode::Kind::Param:
      v = wordToScalar(b_, params_[node.param], node.type);
      break;
    case ScalarNode::Kind::Acc:
      v = s.acc;
      break;
    case ScalarNode::Kind::RowReduce:
      v = rowStat_.at(n); // rowStatistics() ran for this row
      break;
    case ScalarNode::Kind::Index:
      v = idx_[static_cast<size_t>(node.i)];
      break;
    case ScalarNode::Kind::Load: {
      const KernelInput &in = L_.inputs[node.input];
      if (!node.operands.empty()) {
        v = loadAt(node, s);
        break;
      }
      v = load(in.elem, inputPtr(node.input));
      break;
    }
    case ScalarNode::Kind::Op: {
      std::vector<Value *> ops;
      for (int o : node.operands)
        ops.push_back(s.memo.at(o));
      v = emitScalarOp(b_, node.op, node.pred, node.type, operandType(L_, node), ops);
      break;
    }
    }
    return v;
  }

  // Where input |input| is read at the current point (a Load without
  // coordinates).
  Value *inputPtr(unsigned input) {
    const KernelInput &in = L_.inputs[input];
    Value *off = b_.getInt64(0);
    for (size_t k = 0; k < in.map.size(); ++k) {
      // (A rows view's row dim: where the row starts.)
      bool row = !in.rowStarts.empty() && k + 2 == in.map.size();
      off = b_.CreateAdd(off, row ? rowOffset(input, idx_[in.map[k]])
                                  : b_.CreateMul(idx_[in.map[k]], strides_[input][k], "", true, true),
                         "", true, true);
    }
    return b_.CreateInBoundsGEP(memoryType(c_, in.elem), bases_[input], off);
  }

  // A Load at coordinates (gather, slice). A checked one first compares
  // every coordinate that is not a domain index with its dim's size and
  // stops the dispatch when one is outside it: no read is out of bounds.
  Value *loadAt(const ScalarNode &node, Scope &s) {
    const KernelInput &in = L_.inputs[node.input];
    Value *off = b_.getInt64(0);
    Value *inRange = nullptr;
    size_t rank = node.operands.size() - (node.guarded ? 1 : 0);
    for (size_t k = 0; k < rank; ++k) {
      Value *c = s.memo.at(node.operands[k]);
      if (node.checked && L_.nodes[node.operands[k]].kind != ScalarNode::Kind::Index) {
        Value *ok = b_.CreateICmpULT(c, params_[in.dimParams[k]]);
        inRange = inRange ? b_.CreateAnd(inRange, ok) : ok;
      }
      off = b_.CreateAdd(off, b_.CreateMul(c, strides_[node.input][k], "", true, true), "", true,
                         true);
    }
    if (inRange) {
      Function *fn = b_.GetInsertBlock()->getParent();
      BasicBlock *bad = BasicBlock::Create(c_, "index_out_of_range", fn);
      BasicBlock *good = BasicBlock::Create(c_, "index_in_range", fn);
      b_.CreateCondBr(inRange, good, bad);
      b_.SetInsertPoint(bad);
      b_.CreateRet(b_.getInt32(GRAFT_DISPATCH_STATUS_INDEX_OUT_OF_RANGE));
      b_.SetInsertPoint(good);
    }
    if (!node.guarded) {
      Value *ptr = b_.CreateInBoundsGEP(memoryType(c_, in.elem), bases_[node.input], off);
      return load(in.elem, ptr);
    }
    // Read only where the guard holds (an input that may be empty).
    Function *fn = b_.GetInsertBlock()->getParent();
    BasicBlock *skip = b_.GetInsertBlock();
    BasicBlock *read = BasicBlock::Create(c_, "guarded_read", fn);
    BasicBlock *join = BasicBlock::Create(c_, "guarded_join", fn);
    b_.CreateCondBr(s.memo.at(node.operands.back()), read, join);
    b_.SetInsertPoint(read);
    Value *ptr = b_.CreateInBoundsGEP(memoryType(c_, in.elem), bases_[node.input], off);
    Value *v = load(in.elem, ptr);
    BasicBlock *readEnd = b_.GetInsertBlock();
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
    PHINode *phi = b_.CreatePHI(v->getType(), 2);
    phi->addIncoming(v, readEnd);
    phi->addIncoming(Constant::getNullValue(v->getType()), skip);
    return phi;
  }

  // Output |k| at the current parallel point (outputs have the parallel
  // domain as their shape, row-major).
  Value *outputPtr(size_t k) {
    unsigned P = L_.numParallel;
    Value *off = b_.getInt64(0);
    for (unsigned d = 0; d < P; ++d)
      off = b_.CreateAdd(b_.CreateMul(off, dims_[d], "", true, true), idx_[d], "", true, true);
    const KernelOutput &o = L_.outputs[k];
    return b_.CreateInBoundsGEP(memoryType(c_, o.elem), bases_[L_.inputs.size() + k], off);
  }

  void storeOutputs(Scope s) {
    for (size_t k = 0; k < L_.outputs.size(); ++k)
      store(L_.outputs[k].elem, outputPtr(k), eval(outNode_[k], s));
  }

  Module &m_;
  LLVMContext &c_;
  IRBuilder<> b_;
  const Dispatch &d_;
  const LoopKernel &L_;
  DispatchArgs a_{};
  std::vector<Value *> params_, bases_, dims_, idx_, regAcc_;
  std::vector<std::vector<Value *>> strides_;
  std::map<int, std::vector<Value *>> rowSlots_; // RowReduce node -> its lanes' slots
  std::map<int, Value *> rowStat_;  // RowReduce node -> its current row's value
  Value *descriptor_ = nullptr;     // a tile epilogue's operands (epilogueDescriptor)
  Value *rowTable_ = nullptr;       // a rows view's row offsets (rowTable)
  Value *rowStartsTable_ = nullptr; // its W row starts, and the group and run
  Value *rowGroup_ = nullptr, *rowRun_ = nullptr; // counters of the fill
  std::vector<RowShape> rowShape_;  // per node (RowVector.h)
  // The node each output stores: L_.outputs' own, or inside one of
  // rowCases' row loops, the side of the select that loop takes.
  std::vector<int> outNode_;
  bool reduction_ = false;
  unsigned streamLanes_ = 0;     // streamingStoreLanes() (RowVector.h)
  Value *streaming_ = nullptr;   // streamingChoice(), where streamLanes_
  Value *acc_ = nullptr;
  Value *j0_ = nullptr;
};

} // namespace

void emitLoopDispatch(Module &m, const Dispatch &d) {
  LoopEmitter(m, d).run();
}

} // namespace graft::codegen
