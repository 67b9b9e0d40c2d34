// The three leaf routines of a packed matmul (PackedMatmul in
// dispatch/Dispatch.h), generated as LLVM IR from the tile sizes the
// feature level gave: the rhs and lhs packing routines and the microkernel. The
// workgroup loops around them are in LoopEmitter.cpp.
//
// The microkernel is written with generic vectors: an mr x nv tile of
// <lanes x float> accumulators carried in registers over k; per k, nv
// vector loads from the packed rhs panel and, per row, one element of the
// packed lhs panel broadcast into nv multiply-adds. The broadcast is a
// plain splat so that x86 folds it into the FMA's memory operand. All three
// routines are kept out of
// line: they carry their own vector-width attributes (LLVM splits 512-bit
// vectors into halves unless a function asks for them), and one call per
// kc-long tile costs nothing measurable.
#include "codegen/AbiTypes.h"
#include "codegen/AmxTiles.h"
#include "codegen/Codegen.h"
#include "codegen/OptPipeline.h"
#include "codegen/ScalarOps.h"
#include "codegen/TileEpilogue.h"

#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <cassert>
#include <string>
#include <vector>

namespace graft::codegen {

using namespace llvm;

namespace {

// The types both leaves use.
struct LeafTypes {
  Type *i64, *ptr, *f32;
  Type *acc;            // the sums' type: float, or i32 for i8 pairs
  FixedVectorType *vec; // <lanes x acc>
  LeafTypes(LLVMContext &c, const PackedMatmul &p)
      : i64(Type::getInt64Ty(c)), ptr(PointerType::get(c, 0)), f32(Type::getFloatTy(c)),
        acc(p.pairs() ? Type::getInt32Ty(c) : f32), vec(FixedVectorType::get(acc, p.lanes)) {}
};

// Whether the rhs quads go to the level's dot product as u8 (b + 128:
// FeatureLevel::quadDotUnsigned, PairSums). The routines that pack the rhs
// store them so (not for AMX's tiles: PackedMatmul::rhsPackedUnsigned), and
// those that read it in place flip them as they read.
static bool rhsOffset(const PackedMatmul &p) { return p.quads() && p.quadDotUnsigned; }

// The groups of rows of K a block of |kc| rows has (ceil(kc / 4) quads):
// its panels' rows less AMX's padding (packedMatmulPanelRows).
static Value *panelGroups(IRBuilderBase &b, const PackedMatmul &p, Value *kc) {
  const unsigned g = p.kGroup();
  return g > 1 ? b.CreateLShr(b.CreateAdd(kc, b.getInt64(g - 1)), p.kGroupShift()) : kc;
}

// Zeros in rows [from, to) of the panel at |panel| (|width| i32 a row):
// AMX's padding of a K block to whole tiles.
static void zeroPanelRows(IRBuilder<> &b, Value *panel, Value *from, Value *to, unsigned width) {
  Type *i32 = b.getInt32Ty();
  auto *row = FixedVectorType::get(i32, width);
  emitLoop(b, from, to, "pad", [&](Value *j) {
    b.CreateAlignedStore(Constant::getNullValue(row),
                         b.CreateInBoundsGEP(i32, panel, b.CreateMul(j, b.getInt64(width))), Align(4));
  });
}

// |x| (i8 lanes, or i32 lanes of four i8) with every byte's sign bit
// flipped: each signed byte b as the unsigned byte b + 128.
static Value *flipSignBits(IRBuilder<> &b, Value *x) {
  const bool bytes = x->getType()->getScalarType()->isIntegerTy(8);
  return b.CreateXor(x, ConstantInt::get(x->getType(), bytes ? 0x80u : 0x80808080u));
}

// The leaf graft_matmul_<kind>_<tile> of |m|: created with an empty body
// (|fresh|) the first time a dispatch asks for it, shared after that.
Function *leaf(Module &m, const std::string &kind, ArrayRef<Type *> params,
               const PackedMatmul &p, bool &fresh, unsigned rows = 0) {
  std::string name = "graft_matmul_" + kind + "_" + std::to_string(rows ? rows : p.mr) + "x" +
                     std::to_string(p.nv) + "x" + std::to_string(p.lanes);
  fresh = false;
  if (Function *f = m.getFunction(name))
    return f;
  fresh = true;
  LLVMContext &c = m.getContext();
  Function *f = Function::Create(FunctionType::get(Type::getVoidTy(c), params, false),
                                 GlobalValue::InternalLinkage, name, m);
  f->addFnAttr(Attribute::NoUnwind);
  f->addFnAttr(Attribute::NoInline);
  f->addFnAttr("frame-pointer", "none");
  // The kind without its width or epilogue (packrows12: packrows;
  // tile_a_c0_max.0.1: tile), for the pipeline's idle runs.
  f->addFnAttr(kHandVectorizedAttr, StringRef(kind).split('_').first.rtrim("0123456789"));
  if (p.lanes > 1) {
    std::string bits = std::to_string(p.lanes * 32);
    f->addFnAttr("prefer-vector-width", bits);
    f->addFnAttr("min-legal-vector-width", bits);
  }
  for (Argument &arg : f->args())
    if (arg.getType()->isPointerTy())
      arg.addAttr(Attribute::NoAlias);
  return f;
}

// Marks every loop emitLoop made in |f| (a back edge is the branch of the
// block that feeds a ".head" phi its "<name>.next") to be left as written:
// the routines are vectorized by hand, and LLVM would otherwise vectorize
// and unroll their scalar edge loops (a few iterations each) into
// kilobytes of gathers on every level.
void keepLoopsAsWritten(Function &f) {
  LLVMContext &c = f.getContext();
  for (BasicBlock &bb : f) {
    if (!bb.getName().ends_with(".head"))
      continue;
    PHINode *iv = dyn_cast<PHINode>(&bb.front());
    if (!iv)
      continue;
    for (unsigned i = 0; i < iv->getNumIncomingValues(); ++i) {
      Value *v = iv->getIncomingValue(i);
      if (!v->getName().ends_with(".next"))
        continue;
      Instruction *latch = iv->getIncomingBlock(i)->getTerminator();
      MDNode *noVectorize = MDNode::get(
          c, {MDString::get(c, "llvm.loop.vectorize.enable"),
              ConstantAsMetadata::get(ConstantInt::getFalse(c))});
      MDNode *noUnroll = MDNode::get(c, {MDString::get(c, "llvm.loop.unroll.disable")});
      MDNode *loop = MDNode::getDistinct(c, {nullptr, noVectorize, noUnroll});
      loop->replaceOperandWith(0, loop);
      latch->setMetadata(LLVMContext::MD_loop, loop);
    }
  }
}

// Prefetches of the |bytes| bytes at |at| (one per 64-byte line).
void prefetchBytes(IRBuilder<> &b, Value *at, uint64_t bytes) {
  for (uint64_t off = 0; off < bytes; off += 64)
    prefetchLine(b, b.CreateConstGEP1_64(b.getInt8Ty(), at, off));
}

// A packed operand as stored: f32, or f16/bf16 that the packing routines
// widen exactly to f32 (mixed precision: f16 with fpext where the level
// has an instruction for it, else with storageToFloat's integer
// operations, as the generic loops do; bf16 is a shift). For f32 the IR is
// that of plain f32 loads.
struct Source {
  DType elem;
  Type *mem; // its type in memory: float, or i16 bits
  bool fpext; // f16 widened by fpext
  Source(LLVMContext &c, DType e, const PackedMatmul &p)
      : elem(e), mem(memoryType(c, e)), fpext(e == DType::F16 && p.halfConversion) {}
  // The element |off| elements past |base|.
  Value *at(IRBuilder<> &b, Value *base, Value *off) const {
    return b.CreateInBoundsGEP(mem, base, off);
  }
  Value *at(IRBuilder<> &b, Value *base, uint64_t off) const {
    return b.CreateConstInBoundsGEP1_64(mem, base, off);
  }
  // |n| elements at |ptr| as f32 (n = 0: one scalar).
  Value *load(IRBuilder<> &b, Value *ptr, unsigned n = 0) const {
    Type *t = n ? static_cast<Type *>(FixedVectorType::get(mem, n)) : mem;
    Value *v = b.CreateAlignedLoad(t, ptr, Align(dtypeSize(elem)));
    if (fpext)
      return b.CreateFPExt(b.CreateBitCast(v, t->getWithNewType(b.getHalfTy())),
                           t->getWithNewType(b.getFloatTy()));
    return elem == DType::F32 ? v : storageToFloat(b, v, elem);
  }
  // The routine names' mark of it ("" for f32): no underscore and not
  // only digits, so the routine's kind (OptPipeline's idle runs, which
  // were measured on f32 routines) is a kind of its own.
  std::string mark() const { return elem == DType::F32 ? "" : dtypeName(elem); }
};

// Row |k| of an rhs read where it lies: at k * ld, or, for a rows view
// (PackedMatmul::rhsRows), at the offset its row table holds (|ld| is then
// the table's address, LoopEmitter's rowTable).
Value *rhsRowAt(IRBuilder<> &b, const Source &from, const PackedMatmul &p, Value *base, Value *k,
                Value *ld) {
  if (!p.rhsRows)
    return from.at(b, base, b.CreateMul(k, ld));
  Value *table = b.CreateIntToPtr(ld, b.getPtrTy());
  Value *off = b.CreateLoad(b.getInt64Ty(), b.CreateInBoundsGEP(b.getInt64Ty(), table, k));
  return from.at(b, base, off);
}

// The mark of a rows view's routines ("" for any other rhs).
std::string rowsMark(const PackedMatmul &p) { return p.rhsRows ? "tab" : ""; }

} // namespace

// void pack(i64 kc, i64 cols, const float *b, i64 ldb, float *packed):
// the kc x cols block at |b| (row stride ldb) as panels of nr columns,
// panel q at packed + q*kc*nr, row k of it at + k*nr. The last panel is
// padded with zeros past |cols|, so the microkernel never needs an edge case
// along N. Its loops are kept as written: the vectorizer and unroller would
// otherwise runtime-unroll the panel copy and vectorize the ragged panel's
// column loop on every level (x86-64-v3's routine grew to 3.9 KB; the MLP
// bundle's LLVM time fell by a sixth without it).
static Function *packPairsRhs(Module &m, const PackedMatmul &p);

Function *packedMatmulPackRhs(Module &m, const PackedMatmul &p) {
  if (p.pairs())
    return packPairsRhs(m, p);
  LLVMContext &c = m.getContext();
  LeafTypes t(c, p);
  Type *i64 = t.i64, *f32 = t.f32;
  const Source from(c, p.rhsElem, p);
  bool fresh;
  Function *f = leaf(m, "pack" + from.mark() + rowsMark(p), {i64, i64, t.ptr, i64, t.ptr}, p, fresh);
  if (!fresh)
    return f;
  IRBuilder<> b(BasicBlock::Create(c, "entry", f));
  Value *kc = f->getArg(0), *cols = f->getArg(1), *src = f->getArg(2), *ldb = f->getArg(3),
        *dst = f->getArg(4);
  const uint64_t nr = p.nr();
  Value *nrV = b.getInt64(nr);
  Value *fullCols = b.CreateMul(b.CreateUDiv(cols, nrV), nrV);
  // Whole panels: nv vector copies per row.
  emitLoop(b, b.getInt64(0), fullCols, "q", [&](Value *q) {
    Value *panel = b.CreateInBoundsGEP(f32, dst, b.CreateMul(q, kc));
    emitLoop(b, b.getInt64(0), kc, "k", [&](Value *k) {
      Value *row = from.at(b, rhsRowAt(b, from, p, src, k, ldb), q);
      Value *to = b.CreateInBoundsGEP(f32, panel, b.CreateMul(k, nrV));
      for (unsigned v = 0; v < p.nv; ++v) {
        Value *x = from.load(b, from.at(b, row, v * p.lanes), p.lanes);
        b.CreateAlignedStore(x, b.CreateConstInBoundsGEP1_64(f32, to, v * p.lanes), Align(4));
      }
    });
  }, nr);
  // The ragged last panel: each column reads a clamped (always valid)
  // address and keeps the value only when it is inside the block.
  Value *rem = b.CreateSub(cols, fullCols);
  Value *panel = b.CreateInBoundsGEP(f32, dst, b.CreateMul(fullCols, kc));
  Value *lastCol = b.CreateSub(rem, b.getInt64(1));
  Value *kEnd = b.CreateSelect(b.CreateICmpSGT(rem, b.getInt64(0)), kc, b.getInt64(0));
  emitLoop(b, b.getInt64(0), kEnd, "kr", [&](Value *k) {
    Value *row = from.at(b, rhsRowAt(b, from, p, src, k, ldb), fullCols);
    Value *to = b.CreateInBoundsGEP(f32, panel, b.CreateMul(k, nrV));
    for (uint64_t col = 0; col < nr; ++col) {
      Value *cv = b.getInt64(col);
      Value *x = from.load(b, from.at(b, row, b.CreateBinaryIntrinsic(Intrinsic::umin, cv, lastCol)));
      x = b.CreateSelect(b.CreateICmpULT(cv, rem), x, ConstantFP::get(f32, 0.0));
      b.CreateStore(x, b.CreateConstInBoundsGEP1_64(f32, to, col));
    }
  });
  b.CreateRetVoid();
  keepLoopsAsWritten(*f);
  return f;
}

// Whether a transposed rhs is moved in transposes of the level's lanes
// (packRows' wide panels, the in-place tails): lanes of 8 or more, an nr of
// whole groups of them (x86-64-v3, v4).
bool packedMatmulTransposesLanes(const PackedMatmul &p) {
  return p.lanes >= 8 && p.nr() % p.lanes == 0;
}

// (Codegen.h.)
std::vector<Value *> transposeSquare(IRBuilderBase &b, std::vector<Value *> rows) {
  const unsigned L = unsigned(rows.size());
  for (unsigned blk = L / 2; blk >= 1; blk /= 2) {
    std::vector<int> lo(L), hi(L);
    for (unsigned j = 0; j < L; ++j) {
      lo[j] = int(j & blk ? L + j - blk : j);
      hi[j] = int(j & blk ? L + j : j + blk);
    }
    for (unsigned i = 0; i < L; ++i)
      if (!(i & blk)) {
        Value *a = rows[i], *c = rows[i + blk];
        rows[i] = b.CreateShuffleVector(a, c, lo);
        rows[i + blk] = b.CreateShuffleVector(a, c, hi);
      }
  }
  return rows;
}

// The widest panel packRows fills 4 columns at a time across all its rows
// (the lhs's mr rows): wider ones (a transposed rhs's nr rows) go one
// group of 4 rows at a time along kc. Measured on an AVX-512 Xeon (L1d 12
// ways), one thread: a transposed rhs of 1, 8 and 64 rows x 1024 x 1024
// 13-15%, 13% and 5% faster; the 12-row lhs packing slower (650 against
// 745 us for the 1024-square pack dispatch). A group of wide panels is the
// level's lanes of rows where they are 8 or more (x86-64-v3, v4), packed
// in transposes of that many rows and columns: fewer instructions per
// element than 4 x 4 (x86-64-v4: 16 loads, 64 shuffles and 16 stores for
// 256 elements, against 64, 128 and 64). Measured on the same Xeon, one
// thread, q @ k^T of 1, 4 and 8 rows against 4096 keys of 64: 25%, 23%
// and 17% faster (v3: 6% and 11% at 1 and 8 rows), 16384 keys of 128 15%;
// with 128 and 1024 rows (the rhs packed before the call) 1%.
constexpr uint64_t kRowsAcrossK = 12;

// void packRows(i64 kc, i64 rows, const float *a, i64 lda, float *packed):
// the rows x kc block at |a| (row stride lda) as panels of |width| rows,
// panel q at packed + q*width*kc, column k of it at + k*width, the last
// panel padded with zeros past |rows|. With width mr it packs the lhs: the
// microkernel then reads its mr lhs values of one k from one cache line
// instead of mr rows lda apart (which, at a power-of-two lda, all fall
// into the same L1 set). With width nr it packs an rhs stored transposed
// ([N, K], a transpose view) into the panels pack makes from [K, N]
// (|ofRhs|).
static Function *packPairsRows(Module &m, const PackedMatmul &p, unsigned width, bool ofRhs,
                               bool flip);

Function *packedMatmulPackRows(Module &m, const PackedMatmul &p, unsigned width, DType elem,
                               bool ofRhs) {
  if (p.pairs())
    return packPairsRows(m, p, width, ofRhs, ofRhs && p.rhsPackedUnsigned());
  LLVMContext &c = m.getContext();
  LeafTypes t(c, p);
  Type *i64 = t.i64, *f32 = t.f32;
  const Source from(c, elem, p);
  bool fresh;
  // (Wide panels are a kind of their own: the idle runs measured on the
  // lhs packing change their code.)
  const bool wide = width > kRowsAcrossK;
  Function *f = leaf(m, (wide ? "packwide" : "packrows") + std::to_string(width) + from.mark(),
                     {i64, i64, t.ptr, i64, t.ptr}, p, fresh);
  if (!fresh)
    return f;
  IRBuilder<> b(BasicBlock::Create(c, "entry", f));
  Value *kc = f->getArg(0), *rows = f->getArg(1), *src = f->getArg(2), *lda = f->getArg(3),
        *dst = f->getArg(4);
  Value *widthV = b.getInt64(width);
  Value *fullRows = b.CreateMul(b.CreateUDiv(rows, widthV), widthV);
  // Whole panels. Per 4 k, each group of 4 rows is a 4 x 4 transpose in
  // registers: 4 contiguous loads along the rows, 8 shuffles, 4 stores of
  // adjacent rows, instead of 16 scalar loads down columns lda apart (which
  // miss the L1 and the TLB at a large, power-of-two lda). Rows past the
  // last group of 4 and the last kc % 4 columns are copied one by one.
  Value *kc4 = b.CreateAnd(kc, b.getInt64(~uint64_t(3)));
  auto at = [&](Value *top, uint64_t r, Value *k) {
    return from.at(b, top, b.CreateAdd(b.CreateMul(b.getInt64(r), lda), k));
  };
  auto copyColumn = [&](Value *top, Value *panel, Value *k, uint64_t r0) {
    Value *to = b.CreateInBoundsGEP(f32, panel, b.CreateMul(k, widthV));
    for (uint64_t r = r0; r < width; ++r)
      b.CreateStore(from.load(b, at(top, r, k)), b.CreateConstInBoundsGEP1_64(f32, to, r));
  };
  const uint64_t groups = width / 4;
  // The 4 x 4 transpose of rows [g4, g4 + 4) by columns [k, k + 4).
  auto transpose = [&](Value *top, Value *panel, Value *g4, Value *k) {
    Value *groupTop = from.at(b, top, b.CreateMul(g4, lda));
    Value *row[4];
    for (unsigned i = 0; i < 4; ++i)
      row[i] = from.load(b, at(groupTop, i, k), 4);
    Value *lo01 = b.CreateShuffleVector(row[0], row[1], {0, 4, 1, 5});
    Value *hi01 = b.CreateShuffleVector(row[0], row[1], {2, 6, 3, 7});
    Value *lo23 = b.CreateShuffleVector(row[2], row[3], {0, 4, 1, 5});
    Value *hi23 = b.CreateShuffleVector(row[2], row[3], {2, 6, 3, 7});
    Value *col[4] = {b.CreateShuffleVector(lo01, lo23, {0, 1, 4, 5}),
                     b.CreateShuffleVector(lo01, lo23, {2, 3, 6, 7}),
                     b.CreateShuffleVector(hi01, hi23, {0, 1, 4, 5}),
                     b.CreateShuffleVector(hi01, hi23, {2, 3, 6, 7})};
    for (unsigned j = 0; j < 4; ++j) {
      Value *to = b.CreateInBoundsGEP(
          f32, panel, b.CreateAdd(b.CreateMul(b.CreateAdd(k, b.getInt64(j)), widthV), g4));
      b.CreateAlignedStore(col[j], to, Align(4));
    }
  };
  // The L x L transpose (L: the level's lanes, 8 or 16) of rows [g, g + L)
  // by columns [k, k + L): L loads along the rows, transposeSquare's
  // shuffles, and L stores of L adjacent rows.
  const unsigned L = p.lanes;
  auto transposeLanes = [&](Value *top, Value *panel, Value *g, Value *k) {
    Value *groupTop = from.at(b, top, b.CreateMul(g, lda));
    std::vector<Value *> row(L);
    for (unsigned i = 0; i < L; ++i)
      row[i] = from.load(b, at(groupTop, i, k), L);
    row = transposeSquare(b, row);
    for (unsigned j = 0; j < L; ++j) {
      Value *to = b.CreateInBoundsGEP(
          f32, panel, b.CreateAdd(b.CreateMul(b.CreateAdd(k, b.getInt64(j)), widthV), g));
      b.CreateAlignedStore(row[j], to, Align(4));
    }
  };
  emitLoop(b, b.getInt64(0), fullRows, "q", [&](Value *q) {
    Value *panel = b.CreateInBoundsGEP(f32, dst, b.CreateMul(q, kc));
    Value *top = from.at(b, src, b.CreateMul(q, lda));
    // The group loops are loops, not unrolled: a transposed rhs has nr / 4
    // groups (8 on x86-64-v4), and each level carries its own copy of this
    // routine.
    if (wide) {
      // Wide panels (a transposed rhs, 16 or 32 rows): one group of rows
      // at a time along the whole kc. Going across all of them per 4
      // columns, their lines (all in one L1 set at a power-of-two lda)
      // evicted each other before the next 4 columns used them. Where the
      // lanes are 8 or more and the panel is whole groups of them, L x L
      // transposes up to the last multiple of L columns, then 4 x 4 ones.
      assert(width % 4 == 0 && "wide panels are whole groups");
      const bool lanesWide = packedMatmulTransposesLanes(p) && width == p.nr();
      const unsigned G = lanesWide ? L : 4;
      Value *kcL = lanesWide ? b.CreateAnd(kc, b.getInt64(~uint64_t(L - 1))) : b.getInt64(0);
      emitLoop(b, b.getInt64(0), b.getInt64(width), "g", [&](Value *g) {
        if (lanesWide)
          emitLoop(b, b.getInt64(0), kcL, "kl", [&](Value *k) { transposeLanes(top, panel, g, k); }, L);
        emitLoop(b, b.getInt64(0), b.getInt64(G), "g4", [&](Value *sub) {
          Value *g4 = b.CreateAdd(g, sub);
          emitLoop(b, kcL, kc4, "k4", [&](Value *k) { transpose(top, panel, g4, k); }, 4);
        }, 4);
      }, G);
    } else {
      emitLoop(b, b.getInt64(0), kc4, "k4", [&](Value *k) {
        emitLoop(b, b.getInt64(0), b.getInt64(groups * 4), "g",
                 [&](Value *g4) { transpose(top, panel, g4, k); }, 4);
        if (groups * 4 < width)
          for (unsigned j = 0; j < 4; ++j)
            copyColumn(top, panel, b.CreateAdd(k, b.getInt64(j)), groups * 4);
      }, 4);
    }
    emitLoop(b, kc4, kc, "k", [&](Value *k) { copyColumn(top, panel, k, 0); });
  }, width);
  // The ragged last panel: each row reads a clamped (always valid) address
  // and keeps the value only when it is inside the block.
  Value *rem = b.CreateSub(rows, fullRows);
  Value *panel = b.CreateInBoundsGEP(f32, dst, b.CreateMul(fullRows, kc));
  Value *top = from.at(b, src, b.CreateMul(fullRows, lda));
  Value *lastRow = b.CreateSub(rem, b.getInt64(1));
  Value *kEnd = b.CreateSelect(b.CreateICmpSGT(rem, b.getInt64(0)), kc, b.getInt64(0));
  emitLoop(b, b.getInt64(0), kEnd, "kr", [&](Value *k) {
    Value *to = b.CreateInBoundsGEP(f32, panel, b.CreateMul(k, widthV));
    for (uint64_t r = 0; r < width; ++r) {
      Value *rv = b.getInt64(r);
      Value *row = b.CreateBinaryIntrinsic(Intrinsic::umin, rv, lastRow);
      Value *x = from.load(b, from.at(b, top, b.CreateAdd(b.CreateMul(row, lda), k)));
      x = b.CreateSelect(b.CreateICmpULT(rv, rem), x, ConstantFP::get(f32, 0.0));
      b.CreateStore(x, b.CreateConstInBoundsGEP1_64(f32, to, r));
    }
  });
  b.CreateRetVoid();
  keepLoopsAsWritten(*f);
  return f;
}

// i8 pairs (PackedMatmul::pairs): the panel rows of a K block of |kc|
// rows (ceil(kc / 2) pairs, ceil(kc / 4) quads; kc for every other
// matmul).
Value *packedMatmulPanelRows(IRBuilderBase &b, const PackedMatmul &p, Value *kc) {
  Value *groups = panelGroups(b, p, kc);
  if (!p.amx())
    return groups;
  const uint64_t d = PackedMatmul::kAmxDepth;
  return b.CreateAnd(b.CreateAdd(groups, b.getInt64(d - 1)), b.getInt64(~(d - 1)));
}

// The routine names' mark of i8 operands: pairs, or quads.
static std::string i8Mark(const PackedMatmul &p) {
  return p.amx() ? "i8amx" : p.quads() ? "i8q" : "i8";
}

// Row h of group |j| of a K block of |kc| rows (i8 quads: rows 4j .. 4j
// + 3): whether the block has it, and the row to read for it, row 4j
// where it does not (always a valid address; the lhs's value there is
// zero, so what it holds counts for nothing).
static Value *groupHasRow(IRBuilder<> &b, Value *j, unsigned h, Value *kc) {
  return b.CreateICmpULT(b.CreateAdd(b.CreateShl(j, 2), b.getInt64(h)), kc);
}
static Value *groupRowToRead(IRBuilder<> &b, Value *j, unsigned h, Value *kc) {
  Value *k = b.CreateShl(j, 2);
  return b.CreateSelect(groupHasRow(b, j, h, kc), b.CreateAdd(k, b.getInt64(h)), k);
}

// The quad (x[4j], .., x[4j + 3]) of the |kc| i8 values |stride| apart at
// |x| as one i32 holding four i8, zeros past kc; every read is at a valid
// address.
static Value *loadQuad(IRBuilder<> &b, Value *x, Value *stride, Value *j, Value *kc) {
  Type *i8 = b.getInt8Ty();
  Value *quad = PoisonValue::get(FixedVectorType::get(i8, 4));
  for (unsigned h = 0; h < 4; ++h) {
    Value *v = b.CreateLoad(i8, b.CreateInBoundsGEP(i8, x, b.CreateMul(groupRowToRead(b, j, h, kc), stride)));
    quad = b.CreateInsertElement(quad, b.CreateSelect(groupHasRow(b, j, h, kc), v, b.getInt8(0)),
                                 uint64_t(h));
  }
  return b.CreateBitCast(quad, b.getInt32Ty());
}

// Rows 4j .. 4j + 3 of an rhs as a panel row of i8 quads: the same
// columns of |rows| (four <n x i8>) interleaved into <4n x i8>, column c's
// four at 4c .. 4c + 3: two rounds of interleaving two vectors (AArch64's
// zip1 and zip2), bytes of rows (0, 1) and (2, 3), then their 16-bit
// pairs.
static Value *quadRow(IRBuilder<> &b, Value *const rows[4]) {
  const unsigned n = unsigned(cast<FixedVectorType>(rows[0]->getType())->getNumElements());
  auto interleave = [&](Value *x, Value *y, unsigned count) {
    std::vector<int> mask(2 * count);
    for (unsigned i = 0; i < count; ++i) {
      mask[2 * i] = int(i);
      mask[2 * i + 1] = int(count + i);
    }
    return b.CreateShuffleVector(x, y, mask);
  };
  auto *halves = FixedVectorType::get(b.getInt16Ty(), n);
  Value *lo = b.CreateBitCast(interleave(rows[0], rows[1], n), halves);
  Value *hi = b.CreateBitCast(interleave(rows[2], rows[3], n), halves);
  return b.CreateBitCast(interleave(lo, hi, n), FixedVectorType::get(b.getInt8Ty(), 4 * n));
}

// Whether pair |j| of a K block of |kc| rows has its second row (2j + 1 <
// kc: all but an odd block's last pair).
static Value *hasSecondRow(IRBuilder<> &b, Value *j, Value *kc) {
  return b.CreateICmpULT(b.CreateOr(b.CreateShl(j, 1), b.getInt64(1)), kc);
}

// The pair (x[2j], x[2j + 1]) of the |kc|
// i8 values |stride| apart at |x| as one i32 holding two i16, the second
// zero where 2j + 1 is kc (an odd K block's last pair); both reads are at
// valid addresses.
static Value *loadPair(IRBuilder<> &b, Value *x, Value *stride, Value *j, Value *kc) {
  Type *i8 = b.getInt8Ty(), *i16 = b.getInt16Ty();
  Value *k = b.CreateShl(j, 1);
  Value *hasHi = hasSecondRow(b, j, kc);
  Value *kHi = b.CreateSelect(hasHi, b.CreateAdd(k, b.getInt64(1)), k);
  Value *lo = b.CreateLoad(i8, b.CreateInBoundsGEP(i8, x, b.CreateMul(k, stride)));
  Value *hi = b.CreateLoad(i8, b.CreateInBoundsGEP(i8, x, b.CreateMul(kHi, stride)));
  hi = b.CreateSelect(hasHi, hi, b.getInt8(0));
  Value *pair = PoisonValue::get(FixedVectorType::get(i16, 2));
  pair = b.CreateInsertElement(pair, b.CreateSExt(lo, i16), uint64_t(0));
  pair = b.CreateInsertElement(pair, b.CreateSExt(hi, i16), uint64_t(1));
  return b.CreateBitCast(pair, b.getInt32Ty());
}

// Rows 2j and 2j + 1 of an rhs as a panel row of i8 pairs: the same
// columns of |lo| and |hi| (<n x i8>) interleaved and widened to <2n x i16>.
static Value *pairRow(IRBuilder<> &b, Value *lo, Value *hi) {
  const unsigned n = unsigned(cast<FixedVectorType>(lo->getType())->getNumElements());
  std::vector<int> interleave(2 * n);
  for (unsigned i = 0; i < n; ++i) {
    interleave[2 * i] = int(i);
    interleave[2 * i + 1] = int(n + i);
  }
  return b.CreateSExt(b.CreateShuffleVector(lo, hi, interleave),
                      FixedVectorType::get(b.getInt16Ty(), 2 * n));
}

// void pack(i64 kc, i64 cols, const i8 *b, i64 ldb, i32 *packed): pack's
// panels of nr columns for i8 pairs, ceil(kc / 2) rows each: row j of
// panel q (at packed + q*ceil(kc/2) + j*nr) holds, per column, rows 2j and
// 2j + 1 of the block widened to
// i16 and interleaved. Per pair of rows: two nr-byte loads, one
// interleaving shuffle, one widening and the stores; the ragged last
// panel and an odd kc's last row are padded with zeros. For quads
// (ceil(kc / 4) rows a panel), rows 4j .. 4j + 3 as they are, four
// nr-byte loads and quadRow's shuffles per panel row; zeros past kc.
static Function *packPairsRhs(Module &m, const PackedMatmul &p) {
  LLVMContext &c = m.getContext();
  LeafTypes t(c, p);
  Type *i64 = t.i64, *i8 = Type::getInt8Ty(c), *i32 = t.acc;
  const bool quads = p.quads();
  bool fresh;
  Function *f = leaf(m, "pack" + i8Mark(p), {i64, i64, t.ptr, i64, t.ptr}, p, fresh);
  if (!fresh)
    return f;
  IRBuilder<> b(BasicBlock::Create(c, "entry", f));
  Value *kc = f->getArg(0), *cols = f->getArg(1), *src = f->getArg(2), *ldb = f->getArg(3),
        *dst = f->getArg(4);
  const unsigned nr = p.nr();
  Value *nrV = b.getInt64(nr);
  // (A panel's rows: |pairs|, of which |groups| hold K; zeros after.)
  Value *pairs = packedMatmulPanelRows(b, p, kc), *groups = panelGroups(b, p, kc);
  const bool flip = p.rhsPackedUnsigned();
  Value *fullCols = b.CreateMul(b.CreateUDiv(cols, nrV), nrV);
  auto *bytes = FixedVectorType::get(i8, nr);
  emitLoop(b, b.getInt64(0), fullCols, "q", [&](Value *q) {
    Value *panel = b.CreateInBoundsGEP(i32, dst, b.CreateMul(q, pairs));
    if (p.amx())
      zeroPanelRows(b, panel, groups, pairs, nr);
    emitLoop(b, b.getInt64(0), groups, "j", [&](Value *j) {
      if (quads) {
        Value *to = b.CreateInBoundsGEP(i32, panel, b.CreateMul(j, nrV));
        Value *rows[4];
        for (unsigned h = 0; h < 4; ++h) {
          Value *at = b.CreateAdd(b.CreateMul(groupRowToRead(b, j, h, kc), ldb), q);
          rows[h] = b.CreateSelect(groupHasRow(b, j, h, kc),
                                   b.CreateAlignedLoad(bytes, b.CreateInBoundsGEP(i8, src, at), Align(1)),
                                   Constant::getNullValue(bytes));
        }
        Value *row = quadRow(b, rows);
        b.CreateAlignedStore(flip ? flipSignBits(b, row) : row, to, Align(4));
        return;
      }
      Value *k = b.CreateShl(j, 1);
      Value *hasHi = hasSecondRow(b, j, kc);
      Value *row0 = b.CreateInBoundsGEP(i8, src, b.CreateAdd(b.CreateMul(k, ldb), q));
      Value *row1 = b.CreateSelect(hasHi, b.CreateInBoundsGEP(i8, row0, ldb), row0);
      Value *lo = b.CreateAlignedLoad(bytes, row0, Align(1));
      Value *hi = b.CreateSelect(hasHi, b.CreateAlignedLoad(bytes, row1, Align(1)),
                                 Constant::getNullValue(bytes));
      b.CreateAlignedStore(pairRow(b, lo, hi), b.CreateInBoundsGEP(i32, panel, b.CreateMul(j, nrV)),
                           Align(4));
    });
  }, nr);
  Value *rem = b.CreateSub(cols, fullCols);
  Value *panel = b.CreateInBoundsGEP(i32, dst, b.CreateMul(fullCols, pairs));
  Value *lastCol = b.CreateSub(rem, b.getInt64(1));
  Value *jEnd = b.CreateSelect(b.CreateICmpSGT(rem, b.getInt64(0)), groups, b.getInt64(0));
  if (p.amx())
    zeroPanelRows(b, panel, jEnd, b.CreateSelect(b.CreateICmpSGT(rem, b.getInt64(0)), pairs, jEnd), nr);
  emitLoop(b, b.getInt64(0), jEnd, "jr", [&](Value *j) {
    Value *to = b.CreateInBoundsGEP(i32, panel, b.CreateMul(j, nrV));
    for (unsigned col = 0; col < nr; ++col) {
      Value *cv = b.getInt64(col);
      Value *at = b.CreateInBoundsGEP(
          i8, src, b.CreateAdd(fullCols, b.CreateBinaryIntrinsic(Intrinsic::umin, cv, lastCol)));
      Value *x = quads ? loadQuad(b, at, ldb, j, kc) : loadPair(b, at, ldb, j, kc);
      if (flip)
        x = flipSignBits(b, x);
      x = b.CreateSelect(b.CreateICmpULT(cv, rem), x, b.getInt32(0));
      b.CreateAlignedStore(x, b.CreateConstInBoundsGEP1_64(i32, to, col), Align(4));
    }
  });
  b.CreateRetVoid();
  keepLoopsAsWritten(*f);
  return f;
}

// void packRows(i64 kc, i64 rows, const i8 *a, i64 lda, i32 *packed):
// packRows' panels of |width| rows for i8 pairs (the lhs, width mr; a
// transposed rhs, width nr): element r of row j of panel q (at packed +
// q*ceil(kc/2) + j*width + r) holds a[r][2j] and a[r][2j + 1] widened to
// i16. Per 4 pairs, each group of 4 rows is an 8-byte load per row,
// widened, and a 4 x 4 transpose of the i32 pairs (transposeSquare); the
// rows past the last group of 4 take the same widened load and store its
// pairs one by one; the pairs past the last group of 4 and the ragged
// last panel go one pair at a time (loadPair). Quads likewise: a 16-byte
// load is four quads of a row as they lie (rows 4j .. 4j + 3 of K are a
// row's bytes 4j .. 4j + 3), the last ones one at a time (loadQuad).
static Function *packPairsRows(Module &m, const PackedMatmul &p, unsigned width, bool ofRhs,
                               bool flip) {
  LLVMContext &c = m.getContext();
  LeafTypes t(c, p);
  Type *i64 = t.i64, *i8 = Type::getInt8Ty(c), *i32 = t.acc;
  const bool quads = p.quads();
  bool fresh;
  // (|flip|: an rhs's quads as u8, rhsOffset: "u". AMX's lhs: row by row,
  // "r".)
  const bool amxLhs = p.amx() && !ofRhs;
  Function *f = leaf(m, "packrows" + std::to_string(width) + i8Mark(p) + (flip ? "u" : "") +
                            (amxLhs ? "r" : ""),
                     {i64, i64, t.ptr, i64, t.ptr}, p, fresh);
  if (!fresh)
    return f;
  if (amxLhs) {
    emitAmxPackLhsBody(*f, p, width);
    keepLoopsAsWritten(*f);
    return f;
  }
  IRBuilder<> b(BasicBlock::Create(c, "entry", f));
  Value *kc = f->getArg(0), *rows = f->getArg(1), *src = f->getArg(2), *lda = f->getArg(3),
        *dst = f->getArg(4);
  Value *widthV = b.getInt64(width), *one = b.getInt64(1);
  // (A panel's rows: |pairs|, of which |groups| hold K; zeros after.)
  Value *pairs = packedMatmulPanelRows(b, p, kc), *groups = panelGroups(b, p, kc);
  Value *pairs4 = b.CreateAnd(b.CreateLShr(kc, p.kGroupShift()), b.getInt64(~uint64_t(3)));
  Value *fullRows = b.CreateMul(b.CreateUDiv(rows, widthV), widthV);
  const unsigned grouped = width / 4 * 4;
  auto *wide = FixedVectorType::get(b.getInt16Ty(), 8);
  auto *quad = FixedVectorType::get(i32, 4);
  // Pairs (quads) [j, j + 4) of the row at |row| as <4 x i32>.
  auto fourPairs = [&](Value *row, Value *j) -> Value * {
    if (quads) {
      Value *x = b.CreateBitCast(b.CreateAlignedLoad(FixedVectorType::get(i8, 16),
                                                     b.CreateInBoundsGEP(i8, row, b.CreateShl(j, 2)), Align(1)),
                                 quad);
      return flip ? flipSignBits(b, x) : x;
    }
    Value *x = b.CreateAlignedLoad(FixedVectorType::get(i8, 8),
                                   b.CreateInBoundsGEP(i8, row, b.CreateShl(j, 1)), Align(1));
    return b.CreateBitCast(b.CreateSExt(x, wide), quad);
  };
  auto loadGroup = [&](Value *x, Value *j) {
    if (quads)
      return flip ? flipSignBits(b, loadQuad(b, x, one, j, kc)) : loadQuad(b, x, one, j, kc);
    return loadPair(b, x, one, j, kc);
  };
  auto rowAt = [&](Value *top, Value *r) {
    return b.CreateInBoundsGEP(i8, top, b.CreateMul(r, lda));
  };
  emitLoop(b, b.getInt64(0), fullRows, "q", [&](Value *q) {
    Value *panel = b.CreateInBoundsGEP(i32, dst, b.CreateMul(q, pairs));
    if (p.amx())
      zeroPanelRows(b, panel, groups, pairs, width);
    Value *top = rowAt(src, q);
    emitLoop(b, b.getInt64(0), pairs4, "j4", [&](Value *j) {
      emitLoop(b, b.getInt64(0), b.getInt64(grouped), "g", [&](Value *g) {
        std::vector<Value *> quads(4);
        for (unsigned i = 0; i < 4; ++i)
          quads[i] = fourPairs(rowAt(top, b.CreateAdd(g, b.getInt64(i))), j);
        quads = transposeSquare(b, quads);
        for (unsigned jj = 0; jj < 4; ++jj) {
          Value *to = b.CreateAdd(b.CreateMul(b.CreateAdd(j, b.getInt64(jj)), widthV), g);
          b.CreateAlignedStore(quads[jj], b.CreateInBoundsGEP(i32, panel, to), Align(4));
        }
      }, 4);
      for (unsigned r = grouped; r < width; ++r) {
        Value *x = fourPairs(rowAt(top, b.getInt64(r)), j);
        for (unsigned jj = 0; jj < 4; ++jj) {
          Value *to = b.CreateAdd(b.CreateMul(b.CreateAdd(j, b.getInt64(jj)), widthV), b.getInt64(r));
          b.CreateAlignedStore(b.CreateExtractElement(x, uint64_t(jj)),
                               b.CreateInBoundsGEP(i32, panel, to), Align(4));
        }
      }
    }, 4);
    emitLoop(b, pairs4, groups, "j", [&](Value *j) {
      Value *to = b.CreateInBoundsGEP(i32, panel, b.CreateMul(j, widthV));
      for (unsigned r = 0; r < width; ++r)
        b.CreateAlignedStore(loadGroup(rowAt(top, b.getInt64(r)), j),
                             b.CreateConstInBoundsGEP1_64(i32, to, r), Align(4));
    });
  }, width);
  Value *rem = b.CreateSub(rows, fullRows);
  Value *panel = b.CreateInBoundsGEP(i32, dst, b.CreateMul(fullRows, pairs));
  Value *top = rowAt(src, fullRows);
  Value *lastRow = b.CreateSub(rem, one);
  Value *jEnd = b.CreateSelect(b.CreateICmpSGT(rem, b.getInt64(0)), groups, b.getInt64(0));
  if (p.amx())
    zeroPanelRows(b, panel, jEnd, b.CreateSelect(b.CreateICmpSGT(rem, b.getInt64(0)), pairs, jEnd),
                  width);
  emitLoop(b, b.getInt64(0), jEnd, "jr", [&](Value *j) {
    Value *to = b.CreateInBoundsGEP(i32, panel, b.CreateMul(j, widthV));
    for (unsigned r = 0; r < width; ++r) {
      Value *rv = b.getInt64(r);
      Value *row = rowAt(top, b.CreateBinaryIntrinsic(Intrinsic::umin, rv, lastRow));
      Value *x = b.CreateSelect(b.CreateICmpULT(rv, rem), loadGroup(row, j), b.getInt32(0));
      b.CreateAlignedStore(x, b.CreateConstInBoundsGEP1_64(i32, to, r), Align(4));
    }
  });
  b.CreateRetVoid();
  keepLoopsAsWritten(*f);
  return f;
}

// How far ahead of its reads the microkernel prefetches each packed panel,
// in bytes (measured on an AVX-512 Xeon at 1 thread: 1024^3 +3-7% over the
// hardware prefetchers alone; the rhs 4 KiB ahead rather than 1 KiB: 2048^3
// a further 3.5%, 1024^3 1.6%; 8 KiB, or the lhs 6 KiB ahead, no better).
// The rhs panel was read by the tiles of the previous rows and is mostly
// in L1 already, except for the first mr rows of each panel, whose tile
// reads it from L2 or L3; the lhs panels stream from L2 for every tile.
constexpr uint64_t kRhsPrefetchBytes = 4096, kLhsPrefetchBytes = 3072;

// How many rows ahead the microkernels that read the rhs at a row stride
// (the packing one and the shorter ones) prefetch it: in place, rows ldb
// apart, each usually in a page of its own, which the hardware prefetchers
// do not follow (for a packed panel, rows nr apart, 1 KiB ahead on
// x86-64-v4). Measured on an AVX-512 Xeon at 1 thread against 16 rows:
// 1-8 rows read in place 3-8% faster, 16 and 64 rows (the packing tile)
// 10% and 3.5%; 12 rows in between, 32 and 48 slower.
constexpr uint64_t kRhsSourcePrefetchRows = 8;

// Prefetches for step k of the microkernel: the line of the lhs panel
// kLhsPrefetchBytes ahead and the lines of the rhs row |rhsAhead| rows
// ahead (|rhs|: row k of the rhs, |ldRhs| floats a row). Addresses past the
// panel are harmless (a prefetch never faults), so they are computed
// without inbounds.
static void emitPanelPrefetches(IRBuilder<> &b, Value *lhs, Value *k, Value *rhs, Value *ldRhs,
                                uint64_t rhsAhead, const PackedMatmul &p, const Source &rhsFrom) {
  Type *f32 = b.getFloatTy();
  const uint64_t lhsRow = uint64_t(p.mr) * 4;
  Value *lhsAhead = b.CreateAdd(k, b.getInt64(std::max<uint64_t>(1, kLhsPrefetchBytes / lhsRow)));
  prefetchLine(b, b.CreateGEP(f32, lhs, b.CreateMul(lhsAhead, b.getInt64(p.mr))));
  prefetchBytes(b, b.CreateGEP(rhsFrom.mem, rhs, b.CreateMul(ldRhs, b.getInt64(rhsAhead))),
                uint64_t(p.nr()) * dtypeSize(rhsFrom.elem));
}

// The level's dot product: |acc| plus, per lane, the four products of
// |u|'s bytes and |s|'s (<lanes x i32>, four bytes a lane), in the types
// the intrinsic declares (x86's <n x i32>, AArch64's <4n x i8>).
static Value *quadDot(IRBuilder<> &b, const PackedMatmul &p, Value *acc, Value *u, Value *s) {
  Module &m = *b.GetInsertBlock()->getModule();
  Type *sums = acc->getType();
  Type *bytes = FixedVectorType::get(b.getInt8Ty(), 4 * p.lanes);
  const Intrinsic::ID id = Function::lookupIntrinsicID(p.quadDotProduct);
  if (id != Intrinsic::not_intrinsic && !Intrinsic::isOverloaded(id))
    bytes = Intrinsic::getDeclaration(&m, id)->getFunctionType()->getParamType(1);
  FunctionCallee dot = m.getOrInsertFunction(p.quadDotProduct, sums, sums, bytes, bytes);
  return b.CreateCall(dot, {acc, b.CreateBitCast(u, bytes), b.CreateBitCast(s, bytes)});
}

// How a tile of i8 pairs keeps its sums (PackedMatmul::pairs). With the
// level's pairwise multiply-add (FeatureLevel::pairMultiplyAdd: x86's
// pmaddwd), in <lanes x i32>, a lane a column, as f32 tiles do: per step
// the intrinsic, then an add. Without, in <2 lanes x i32>, the products'
// own lanes (a column's even and odd k side by side): per step a widening
// multiply and an add (AArch64's smlal and smlal2, 4 products an
// instruction), the two lanes of each column added once, after the loop.
// (Adding each step's pairs took AArch64 4 instructions for 8 products,
// and 12 x 2 tiles spilled.) Every sum is exact in i32 (a product of i8
// values is at most 2^14 in magnitude), and i32 sums in any order are the
// same bits. Quads (PackedMatmul::quads) sum with the level's dot product
// (FeatureLevel::quadDotProduct, AArch64's sdot): per step the intrinsic,
// its four products and the add in one, into a lane a column. Where the
// level's dot product takes unsigned bytes first (quadDotUnsigned: x86's
// vpdpbusd, u8 x s8), the rhs quads go in with their sign bits flipped (b
// + 128 as u8: packed so, or flipped as read in place, rhsOffset) and the
// lhs's broadcast as they are, so each sum comes out
// 128 times the lhs quads' own sum too much: the tiles carry that sum per
// row (rowSums: the lhs quads against ones) and take it off after the
// loop (unoffset). All of it wraps modulo 2^32, as the sums do, so the
// result is exactly that of signed products.
struct PairSums {
  IRBuilder<> &b;
  const PackedMatmul &p;
  unsigned lanes;
  FixedVectorType *halves, *wide; // <2 lanes x i16>, <2 lanes x i32>
  bool split() const { return !p.quads() && !*p.pairMultiplyAdd; }
  PairSums(IRBuilder<> &b, const PackedMatmul &p)
      : b(b), p(p), lanes(p.lanes), halves(FixedVectorType::get(b.getInt16Ty(), 2 * p.lanes)),
        wide(FixedVectorType::get(b.getInt32Ty(), 2 * p.lanes)) {}
  // A start value <lanes x i32> as the loop carries it.
  Value *carried(Value *sums) const {
    if (!split())
      return sums;
    std::vector<int> interleave(2 * lanes);
    for (unsigned i = 0; i < 2 * lanes; ++i)
      interleave[i] = int(i % 2 ? lanes + i / 2 : i / 2);
    return b.CreateShuffleVector(sums, Constant::getNullValue(sums->getType()), interleave);
  }
  // |acc| plus the products of the pairs |x| and |y| (<lanes x i32>, each
  // lane two i16; quads: four i8).
  Value *step(Value *x, Value *y, Value *acc) const {
    if (p.quads()) {
      // (The broadcast lhs quad second: AArch64 selects sdot's indexed
      // form for it, x86 vpdpbusd's broadcast from memory. Unsigned
      // quads: |y| comes with its sign bits flipped, rhsOffset.)
      return quadDot(b, p, acc, y, x);
    }
    Value *x16 = b.CreateBitCast(x, halves), *y16 = b.CreateBitCast(y, halves);
    if (split())
      return b.CreateAdd(acc, b.CreateMul(b.CreateSExt(x16, wide), b.CreateSExt(y16, wide)));
    Module &m = *b.GetInsertBlock()->getModule();
    Type *sums = acc->getType();
    FunctionCallee madd = m.getOrInsertFunction(p.pairMultiplyAdd, sums, halves, halves);
    return b.CreateAdd(acc, b.CreateCall(madd, {x16, y16}));
  }
  // Unsigned quads (quadDotUnsigned): whether the sums need the lhs's
  // own; |sums| plus each lane's four bytes of |x| (lhs quads) summed;
  // the finished column sums |acc| less 128 times lane |lane| of |sums|
  // (<lanes x i32>, no lane: |sums| as it is).
  bool offset() const { return rhsOffset(p); }
  Value *rowSums(Value *sums, Value *x) const {
    return quadDot(b, p, sums, ConstantInt::get(x->getType(), 0x01010101u), x);
  }
  Value *unoffset(Value *acc, Value *sums, int lane = -1) const {
    Value *by = b.CreateShl(sums, 7);
    if (lane >= 0)
      by = b.CreateShuffleVector(by, std::vector<int>(lanes, lane));
    return b.CreateSub(acc, by);
  }
  // A carried value as the column sums <lanes x i32>.
  Value *finished(Value *acc) const {
    if (!split())
      return acc;
    std::vector<int> even(lanes), odd(lanes);
    for (unsigned i = 0; i < lanes; ++i) {
      even[i] = int(2 * i);
      odd[i] = int(2 * i + 1);
    }
    return b.CreateAdd(b.CreateShuffleVector(acc, even), b.CreateShuffleVector(acc, odd));
  }
};

// The sums of the quads of each of the first |rows| rows of an lhs panel
// in AMX's layout (PackedMatmul::amx: per 16 quads of K, its rows' 16 in
// turn), |depth| quads deep, each in every lane of a <lanes x i32>: the
// rows' 16 quads at a time against ones with the level's dot product, the
// lanes then added. For the tiles that read the rhs in place on AMX's level
// (u8 x s8 there: PairSums::unoffset).
static std::vector<Value *> amxRowSums(IRBuilder<> &b, const PackedMatmul &p, Value *lhs,
                                       Value *depth, unsigned rows) {
  assert(p.lanes == 16 && "a row's 16 quads a vector");
  LLVMContext &c = b.getContext();
  Function *f = b.GetInsertBlock()->getParent();
  Type *i32 = b.getInt32Ty();
  auto *vec = FixedVectorType::get(i32, p.lanes);
  const PairSums pairSums(b, p);
  BasicBlock *pred = b.GetInsertBlock();
  BasicBlock *head = BasicBlock::Create(c, "sums.head", f), *body = BasicBlock::Create(c, "sums.body", f),
             *exit = BasicBlock::Create(c, "sums.exit", f);
  b.CreateBr(head);
  b.SetInsertPoint(head);
  PHINode *j = b.CreatePHI(b.getInt64Ty(), 2, "j");
  j->addIncoming(b.getInt64(0), pred);
  std::vector<PHINode *> sums(rows);
  for (PHINode *&s : sums) {
    s = b.CreatePHI(vec, 2, "rowsum");
    s->addIncoming(Constant::getNullValue(vec), pred);
  }
  b.CreateCondBr(b.CreateICmpULT(j, depth), body, exit);
  b.SetInsertPoint(body);
  // Quads [j, j + lanes) of row r: at (j / 16 * mr + r) * 16 + j % 16.
  for (unsigned r = 0; r < rows; ++r) {
    Value *x = b.CreateAlignedLoad(vec, b.CreateInBoundsGEP(i32, lhs, amxLhsElement(b, p, j, r)),
                                   Align(4));
    sums[r]->addIncoming(pairSums.rowSums(sums[r], x), body);
  }
  j->addIncoming(b.CreateAdd(j, b.getInt64(p.lanes), "j.next", true, true), body);
  b.CreateBr(head);
  b.SetInsertPoint(exit);
  std::vector<Value *> out(rows);
  for (unsigned r = 0; r < rows; ++r)
    out[r] = b.CreateVectorSplat(p.lanes, b.CreateAddReduce(sums[r]));
  return out;
}

std::vector<unsigned> packedMatmulTailRows(const PackedMatmul &p) {
  // (AMX: a tile's rows are a multiple of 8, at most 8 of them zeros.)
  const unsigned step = p.amx() ? 8 : p.mr >= 8 ? 4 : 2;
  std::vector<unsigned> rows;
  for (unsigned h = step; h < p.mr; h += step)
    rows.push_back(h);
  return rows;
}

// void tile(i64 kc, const float *lhs, const float *rhs, float *acc, i64 ldacc,
//           const float *init, i64 first, i64 ldrhs, float *packed[, float *out,
//           i64 ldout, i64 last]):
// (For i8 pairs, PackedMatmul::pairs: the sums, init and acc are i32, the
// panels hold pairs, a step is two rows of K (PairSums), and a tile made
// for an i8 rhs reads it in place, pairing rows 2k and 2k + 1 as it goes;
// the rest below holds as written.)
// acc[r][0..nr) = start[r] + sum over k in order of lhs[k][r] * rhs[k][..]
// for r < rows, where start[r] is acc[r][..] (going on from the previous K
// block) or, where |first| is nonzero, the row of nr values at |init| (the
// first K block of a sum whose first term is one value, a fill: the tile
// in |acc| is then neither written before nor read); one multiply-add
// (fused where the level has FMA) per k, with
// |lhs| an mr-row panel of packRows and |rhs| an nr-column panel of pack
// (or of packRows, for a transposed rhs).
// Per k the microkernel reads nv rhs vectors and |rows| adjacent lhs values,
// each broadcast straight from memory into nv multiply-adds.
//
// Every microkernel takes the same arguments, so that a dispatch picks one
// with a select. The mr-row one reads the packed panel (rows nr apart) and
// ignores |ldrhs| and |packed|; the shorter ones read row k of the rhs at
// rhs + k*ldrhs: a packed panel (ldrhs = nr) or, for a block of fewer than
// mr rows, whose one tile per panel would read a packed copy only once,
// the rhs in place (ldrhs = ldb; f16 or bf16 widened as they are read).
// With |packing| it is tilepack: the same sums over mr rows, reading its
// rhs panel in place (row k at rhs + k*ldrhs) and storing each row it
// reads into |packed| as pack would, so that the tiles of the panel's
// other rows read it packed. Packing thus overlaps the multiply-adds of
// the panel's first tile instead of running before them.
//
// Where the level's tiles store outputs (PackedMatmul::tilesStoreOutputs),
// every microkernel takes three more arguments, float *out, i64 ldout,
// i64 last (one signature, so that a dispatch picks its tile height with a
// select). In the mr-row ones, where |last| is nonzero, the finished sums
// are stored at out[r * ldout + ..] instead of into |acc| (all mr x nr of
// them: the caller passes last only for a tile inside the output), and one
// made for an epilogue |epi| (TileEpilogue.h; nullptr: the sums are the
// outputs) then applies it to them in place. For an epilogue with
// operands |out| points to their descriptor instead (word 0 the output's
// address; epilogueDescriptorWords), which the shorter ones ignore too.
//
// With |transposed| it is tailt, a tile of fewer than mr rows that reads a
// transposed rhs in place: rhs[n][k] at rhs + n*ldrhs + k, as stored (f32,
// f16 or bf16), kc a multiple of the lanes (packedMatmulTransposesLanes).
// Per lanes of k, each group of lanes columns is loaded along k and
// transposed in registers (transposeSquare, as packRows packs it), then
// its lanes steps of k run as above: the same multiply-adds in the same k
// order as reading the panel packed, so the same bytes. Measured on an
// AVX-512 Xeon, 1 thread, q @ k^T against 4096 keys of 64, against packing
// the panels first: 1, 4 and 8 rows 25%, 21% and 14% faster (x86-64-v3: 1
// and 4 rows 22% and 18%); 1 row against 16384 keys of 128 17%, of which
// the prefetch of each row's next lanes of k 8%.
static Function *emitTile(Module &m, const PackedMatmul &p, unsigned rows, bool packing,
                          const TileEpilogue *epi, DType rhsElem, bool transposed = false) {
  LLVMContext &c = m.getContext();
  LeafTypes t(c, p);
  Type *i64 = t.i64, *elem = t.acc, *vec = t.vec;
  // (elem: a panel's element, the sums' type: float, or an i32 that holds
  // a pair of i16 in an lhs panel.)
  bool fresh;
  std::vector<Type *> params = {i64, t.ptr, t.ptr, t.ptr, i64, t.ptr, i64, i64, t.ptr};
  const bool stores = p.tilesStoreOutputs();
  if (stores)
    params.insert(params.end(), {t.ptr, i64, i64});
  // The rhs as the tile reads it: f32 panels, or in place as stored (i8
  // pairs: panels of i32, each two i16).
  // i8 pairs read panels of pairs (rhsElem f32: packed), or, in place,
  // rows 2k and 2k + 1 of the i8 rhs per step, paired as they are read.
  const bool pairs = p.pairs(), quads = p.quads();
  const bool pairsInPlace = pairs && rhsElem == DType::I8;
  const Source rhsFrom(c, pairs && !pairsInPlace ? DType::I32 : rhsElem, p);
  assert((!transposed || (rows < p.mr && !packing && !epi)) && "tailt is a plain short tile");
  assert((!pairs || (!transposed && !epi && (pairsInPlace || !packing))) &&
         "i8 pairs: no transposing tail, no epilogue; the packing tile reads i8 rows");
  std::string kind = transposed ? "tailt"
                     : packing  ? "tilepack"
                     : rows < p.mr ? "tail"
                                   : "tile";
  kind += pairsInPlace ? i8Mark(p) + "src" : pairs ? i8Mark(p) : rhsFrom.mark();
  // (The packing tile of a rows view reads its rows through a table.)
  const bool tableRows = packing && p.rhsRows;
  if (tableRows)
    kind += rowsMark(p);
  if (epi)
    kind += "_" + epi->key;
  Function *f = leaf(m, kind, params, p, fresh, rows);
  if (!fresh)
    return f;
  // (AMX: the tiles that read packed panels; those of a block of few rows
  // read the rhs in place as on the level below, the lhs in AMX's layout.)
  const bool amxLhs = p.amx();
  if (amxLhs && !pairsInPlace) {
    assert(!packing && stores && "AMX tiles read packed panels");
    emitAmxTileBody(*f, p, rows);
    return f;
  }
  assert((!amxLhs || (!packing && rows < p.mr)) && "AMX: in place, only the tails");
  BasicBlock *entry = BasicBlock::Create(c, "entry", f);
  IRBuilder<> b(entry);
  Value *kc = f->getArg(0), *lhs = f->getArg(1), *rhs = f->getArg(2), *acc = f->getArg(3),
        *ldacc = f->getArg(4);
  Value *nrV = b.getInt64(p.nr());
  // The accumulators start from |init| (row stride 0) or from |acc|.
  Value *first = b.CreateICmpNE(f->getArg(6), b.getInt64(0));
  Value *start = b.CreateSelect(first, f->getArg(5), acc);
  Value *ldstart = b.CreateSelect(first, b.getInt64(0), ldacc);
  // (The mr-row tile's panel stride stays a constant in its hot loop.)
  const bool strided = packing || rows < p.mr;
  Value *ldRhs = strided ? f->getArg(7) : nrV, *packed = packing ? f->getArg(8) : nullptr;
  const unsigned mr = rows, nv = p.nv, lanes = p.lanes;
  std::vector<Value *> accPtr(mr * nv), init(mr * nv);
  for (unsigned r = 0; r < mr; ++r) {
    Value *accRow = b.CreateInBoundsGEP(elem, acc, b.CreateMul(b.getInt64(r), ldacc));
    Value *startRow = b.CreateInBoundsGEP(elem, start, b.CreateMul(b.getInt64(r), ldstart));
    for (unsigned v = 0; v < nv; ++v) {
      if (!stores)
        accPtr[r * nv + v] = b.CreateConstInBoundsGEP1_64(elem, accRow, v * lanes);
      init[r * nv + v] = b.CreateAlignedLoad(
          vec, b.CreateConstInBoundsGEP1_64(elem, startRow, v * lanes), Align(4));
    }
  }
  // The steps over the K block: its rows, or its pairs of rows (the last
  // one of an odd kc half zeros, as packed).
  // (In place on AMX's level: K as read, not padded.)
  Value *kSteps = amxLhs ? panelGroups(b, p, kc) : packedMatmulPanelRows(b, p, kc);
  // A loop over k from the current block: k and one accumulator per start
  // value as loop-carried values (PHIs in the loop's head), the builder
  // left in its body; the caller adds the latch's values and branches back.
  struct KLoop {
    BasicBlock *head, *body, *exit;
    PHINode *k;
    std::vector<PHINode *> accs;
  };
  auto openKLoop = [&](const std::vector<Value *> &starts) {
    BasicBlock *pred = b.GetInsertBlock();
    KLoop l{BasicBlock::Create(c, "k.head", f), BasicBlock::Create(c, "k.body", f),
            BasicBlock::Create(c, "k.exit", f), nullptr, {}};
    b.CreateBr(l.head);
    b.SetInsertPoint(l.head);
    l.k = b.CreatePHI(i64, 2, "k");
    l.k->addIncoming(b.getInt64(0), pred);
    for (Value *start : starts) {
      l.accs.push_back(b.CreatePHI(start->getType(), 2, "acc"));
      l.accs.back()->addIncoming(start, pred);
    }
    b.CreateCondBr(b.CreateICmpSLT(l.k, kSteps), l.body, l.exit);
    b.SetInsertPoint(l.body);
    return l;
  };
  // The sums as they leave the k loop(s).
  std::vector<Value *> finals(mr * nv);
  if (transposed) {
    // One loop over k per group of lanes columns, so that a group's lanes
    // transposed vectors and its rows' accumulators fit in the registers
    // together.
    for (unsigned v = 0; v < nv; ++v) {
      std::vector<Value *> starts(mr);
      for (unsigned r = 0; r < mr; ++r)
        starts[r] = init[r * nv + v];
      KLoop l = openKLoop(starts);
      PHINode *k = l.k;
      std::vector<Value *> cols(lanes);
      for (unsigned i = 0; i < lanes; ++i)
        cols[i] = rhsFrom.load(
            b, rhsFrom.at(b, rhs, b.CreateAdd(b.CreateMul(b.getInt64(v * lanes + i), ldRhs), k)),
            lanes);
      // Each row's next lanes of k (the next line at 16 lanes of f32).
      for (unsigned i = 0; i < lanes; ++i)
        prefetchLine(b, b.CreateGEP(rhsFrom.mem, rhs,
                                    b.CreateAdd(b.CreateMul(b.getInt64(v * lanes + i), ldRhs),
                                                b.CreateAdd(k, b.getInt64(lanes)))));
      cols = transposeSquare(b, cols);
      std::vector<Value *> cur(l.accs.begin(), l.accs.end());
      for (unsigned kk = 0; kk < lanes; ++kk) {
        Value *lhsCol = b.CreateInBoundsGEP(
            elem, lhs, b.CreateMul(b.CreateAdd(k, b.getInt64(kk)), b.getInt64(p.mr)));
        for (unsigned r = 0; r < mr; ++r) {
          Value *x = b.CreateLoad(elem, b.CreateConstInBoundsGEP1_64(elem, lhsCol, r));
          cur[r] = b.CreateIntrinsic(Intrinsic::fmuladd, {vec},
                                     {b.CreateVectorSplat(lanes, x), cols[kk], cur[r]});
        }
      }
      for (unsigned r = 0; r < mr; ++r)
        l.accs[r]->addIncoming(cur[r], l.body);
      k->addIncoming(b.CreateAdd(k, b.getInt64(lanes), "k.next", true, true), l.body);
      b.CreateBr(l.head);
      b.SetInsertPoint(l.exit);
      for (unsigned r = 0; r < mr; ++r)
        finals[r * nv + v] = l.accs[r];
    }
  } else {
    // for (k = 0; k < kc; ++k), with the accumulators as loop-carried values.
    const PairSums pairSums(b, p);
    std::vector<Value *> starts = init;
    if (pairs)
      for (Value *&v : starts)
        v = pairSums.carried(v);
    // Unsigned quads: the lhs rows' sums, carried after the accumulators,
    // a vector of lanes rows each. (AMX's lhs layout: summed before the
    // loop instead, a row's quads 16 at a time, amxRowSums.)
    const unsigned sumVecs = pairSums.offset() && !amxLhs ? (mr + lanes - 1) / lanes : 0;
    std::vector<Value *> amxSums;
    if (amxLhs)
      amxSums = amxRowSums(b, p, lhs, packedMatmulPanelRows(b, p, kc), mr);
    for (unsigned i = 0; i < sumVecs; ++i)
      starts.push_back(Constant::getNullValue(vec));
    KLoop l = openKLoop(starts);
    PHINode *k = l.k;
    std::vector<PHINode *> &accs = l.accs;
    BasicBlock *body = l.body;
    // (Pairs in place: rows 2k and 2k + 1; where an odd block has no row
    // 2k + 1, row 2k again, whose products count for nothing: the packed
    // lhs pair's second half is zero. A select of zeros instead became a
    // branch per vector, x86's CodeGenPrepare sinking the loads. Quads:
    // rows 4k .. 4k + 3, row 4k again for those past the block.)
    Value *rhsRow = tableRows       ? rhsRowAt(b, rhsFrom, p, rhs, k, ldRhs)
                    : pairsInPlace ? rhsFrom.at(b, rhs, b.CreateMul(b.CreateShl(k, p.kGroupShift()), ldRhs))
                                   : rhsFrom.at(b, rhs, b.CreateMul(k, ldRhs));
    Value *hiRow = nullptr;
    if (pairsInPlace && !quads) {
      hiRow = b.CreateSelect(hasSecondRow(b, k, kc), rhsFrom.at(b, rhsRow, ldRhs), rhsRow);
    }
    // (Row r at + r * lhsRow: AMX's layout, packed per 16 quads of K row
    // by row, or the panel's column of mr quads.)
    Value *lhsCol = b.CreateInBoundsGEP(
        elem, lhs, amxLhs ? amxLhsElement(b, p, k, 0) : b.CreateMul(k, b.getInt64(p.mr)));
    const uint64_t lhsRow = amxLhs ? PackedMatmul::kAmxDepth : 1;
    std::vector<Value *> rv(nv);
    // Quads in place: the panel's four rows interleaved whole, then cut
    // into its nv vectors.
    Value *quadPanel = nullptr;
    if (pairsInPlace && quads) {
      auto *bytes = FixedVectorType::get(b.getInt8Ty(), p.nr());
      Value *rows[4];
      for (unsigned h = 0; h < 4; ++h)
        rows[h] = b.CreateAlignedLoad(
            bytes, rhsFrom.at(b, rhs, b.CreateMul(groupRowToRead(b, k, h, kc), ldRhs)), Align(1));
      quadPanel = quadRow(b, rows);
    }
    for (unsigned v = 0; v < nv; ++v) {
      if (quadPanel) {
        std::vector<int> part(4 * lanes);
        for (unsigned i = 0; i < 4 * lanes; ++i)
          part[i] = int(v * 4 * lanes + i);
        rv[v] = b.CreateBitCast(b.CreateShuffleVector(quadPanel, part), vec);
      } else if (pairsInPlace) {
        auto *bytes = FixedVectorType::get(b.getInt8Ty(), lanes);
        Value *lo = b.CreateAlignedLoad(bytes, rhsFrom.at(b, rhsRow, v * lanes), Align(1));
        Value *hi = b.CreateAlignedLoad(bytes, rhsFrom.at(b, hiRow, v * lanes), Align(1));
        rv[v] = b.CreateBitCast(pairRow(b, lo, hi), vec);
      } else {
        rv[v] = pairs ? b.CreateAlignedLoad(vec, rhsFrom.at(b, rhsRow, v * lanes), Align(4))
                      : rhsFrom.load(b, rhsFrom.at(b, rhsRow, v * lanes), lanes);
      }
    }
    // (Unsigned quads read in place: flipped here, and packed so.)
    if (pairsInPlace && rhsOffset(p))
      for (Value *&v : rv)
        v = flipSignBits(b, v);
    if (packing) {
      Value *to = b.CreateInBoundsGEP(elem, packed, b.CreateMul(k, nrV));
      for (unsigned v = 0; v < nv; ++v)
        b.CreateAlignedStore(rv[v], b.CreateConstInBoundsGEP1_64(elem, to, v * lanes), Align(4));
    }
    const uint64_t rhsAhead =
        strided ? kRhsSourcePrefetchRows : std::max<uint64_t>(1, kRhsPrefetchBytes / (p.nr() * 4));
    if (tableRows) {
      // The row kRhsSourcePrefetchRows ahead, from the table (which runs
      // that far past the K block, LoopEmitter's rowTable).
      Value *ahead = rhsRowAt(b, rhsFrom, p, rhs, b.CreateAdd(k, b.getInt64(rhsAhead)), ldRhs);
      emitPanelPrefetches(b, lhs, k, ahead, b.getInt64(0), 0, p, rhsFrom);
    } else {
      emitPanelPrefetches(b, lhs, k, rhsRow, ldRhs, rhsAhead, p, rhsFrom);
      // (Pairs in place: a step reads two rows, so row 2k + rhsAhead + 1
      // too; quads four.)
      for (unsigned h = 1; pairsInPlace && h < p.kGroup(); ++h)
        prefetchBytes(b, b.CreateGEP(b.getInt8Ty(), rhsRow, b.CreateMul(ldRhs, b.getInt64(rhsAhead + h))),
                      p.nr());
    }
    // Quads: the lhs column's quads four at a time (every group of 4 that
    // lies in the mr-wide panel), each row's broadcast a lane of those:
    // AArch64's sdot by element, one load per four rows where a broadcast
    // load each (ld1r, with its address computed apart) took two
    // instructions a row.
    std::vector<Value *> lhsQuads((mr + 3) / 4, nullptr);
    for (unsigned r = 0; r < mr; ++r) {
      Value *splat;
      if (quads && !amxLhs && r / 4 * 4 + 4 <= p.mr) {
        Value *&four = lhsQuads[r / 4];
        if (!four)
          four = b.CreateAlignedLoad(FixedVectorType::get(elem, 4),
                                     b.CreateConstInBoundsGEP1_64(elem, lhsCol, r / 4 * 4), Align(4));
        splat = b.CreateShuffleVector(four, std::vector<int>(lanes, int(r % 4)));
      } else {
        Value *x = b.CreateLoad(elem, b.CreateConstInBoundsGEP1_64(elem, lhsCol, r * lhsRow));
        splat = b.CreateVectorSplat(lanes, x);
      }
      for (unsigned v = 0; v < nv; ++v) {
        Value *next =
            pairs ? pairSums.step(splat, rv[v], accs[r * nv + v])
                  : b.CreateIntrinsic(Intrinsic::fmuladd, {vec}, {splat, rv[v], accs[r * nv + v]});
        accs[r * nv + v]->addIncoming(next, body);
      }
    }
    // (The step's quads of the tile's rows, lanes at a time: a masked
    // load for the last rows, which never reads past the panel row's mr.)
    for (unsigned i = 0; i < sumVecs; ++i) {
      const unsigned n = std::min(lanes, mr - i * lanes);
      Value *at = b.CreateConstInBoundsGEP1_64(elem, lhsCol, i * lanes);
      Value *quadsOfRows;
      if (n == lanes) {
        quadsOfRows = b.CreateAlignedLoad(vec, at, Align(4));
      } else {
        std::vector<Constant *> mask(lanes);
        for (unsigned j = 0; j < lanes; ++j)
          mask[j] = b.getInt1(j < n);
        quadsOfRows = b.CreateMaskedLoad(vec, at, Align(4), ConstantVector::get(mask),
                                         Constant::getNullValue(vec));
      }
      accs[mr * nv + i]->addIncoming(pairSums.rowSums(accs[mr * nv + i], quadsOfRows), body);
    }
    k->addIncoming(b.CreateAdd(k, b.getInt64(1), "k.next", true, true), body);
    b.CreateBr(l.head);
    b.SetInsertPoint(l.exit);
    for (size_t i = 0; i < size_t(mr) * nv; ++i)
      finals[i] = pairs ? pairSums.finished(accs[i]) : accs[i];
    for (unsigned r = 0; r < mr && sumVecs; ++r)
      for (unsigned v = 0; v < nv; ++v)
        finals[r * nv + v] =
            pairSums.unoffset(finals[r * nv + v], accs[mr * nv + r / lanes], int(r % lanes));
    for (unsigned r = 0; r < mr && amxLhs; ++r)
      for (unsigned v = 0; v < nv; ++v)
        finals[r * nv + v] = pairSums.unoffset(finals[r * nv + v], amxSums[r]);
  }

  // The finished sums go to |out| (row stride ldout) where |last| is
  // nonzero, else back to |acc|. Only whole mr-row tiles store outputs:
  // the shorter ones ignore the three arguments. (Chosen here, after the
  // loop: made in the entry block, the store addresses stayed live across
  // the k loop and AArch64's build of the bundle took a sixteenth longer.)
  const unsigned outArg = 9;
  Value *last = stores ? b.CreateICmpNE(f->getArg(outArg + 2), b.getInt64(0)) : nullptr;
  Value *dest = acc, *lddest = ldacc;
  // (An epilogue with operands: |out| points to its descriptor, word 0 the
  // output's address; TileEpilogue.h.)
  const bool descriptor = epi && !epi->operands.empty();
  if (stores && rows == p.mr) {
    Value *out = f->getArg(outArg);
    if (descriptor)
      out = b.CreateIntToPtr(b.CreateAlignedLoad(i64, out, Align(8)), t.ptr);
    dest = b.CreateSelect(last, out, acc);
    lddest = b.CreateSelect(last, f->getArg(outArg + 1), ldacc);
  }
  for (unsigned r = 0; r < mr && stores; ++r) {
    Value *row = b.CreateInBoundsGEP(elem, dest, b.CreateMul(b.getInt64(r), lddest));
    for (unsigned v = 0; v < nv; ++v)
      accPtr[r * nv + v] = b.CreateConstInBoundsGEP1_64(elem, row, v * lanes);
  }
  for (unsigned t = 0; t < mr * nv; ++t)
    b.CreateAlignedStore(finals[t], accPtr[t], Align(4));
  // The epilogue, in place over the outputs just stored (in L1): a loop
  // over the rows, not one copy per accumulator (build time).
  if (epi) {
    BasicBlock *apply = BasicBlock::Create(c, "epilogue", f);
    BasicBlock *done = BasicBlock::Create(c, "done", f);
    b.CreateCondBr(last, apply, done);
    b.SetInsertPoint(apply);
    // The operands from the descriptor: an input's address at the tile's
    // first row and column and its row stride, a dispatch constant's word.
    const size_t nops = epi->operands.size();
    std::vector<Value *> opBase(nops), opStride(nops);
    for (unsigned k = 0; k < nops; ++k) {
      Value *word = b.CreateAlignedLoad(
          i64, b.CreateConstInBoundsGEP1_64(i64, f->getArg(outArg), epilogueOperandWord(k)), Align(8));
      if (epi->operands[k].param) {
        opBase[k] = b.CreateVectorSplat(lanes, wordToScalar(b, word, DType::F32));
        continue;
      }
      opBase[k] = b.CreateIntToPtr(word, t.ptr);
      opStride[k] = b.CreateAlignedLoad(
          i64, b.CreateConstInBoundsGEP1_64(i64, f->getArg(outArg), epilogueOperandWord(k) + 1),
          Align(8));
    }
    Type *f32 = b.getFloatTy();
    emitLoop(b, b.getInt64(0), b.getInt64(mr), "r", [&](Value *r) {
      Value *row = b.CreateInBoundsGEP(elem, dest, b.CreateMul(r, lddest));
      std::vector<Value *> opRow(nops);
      for (size_t k = 0; k < nops; ++k)
        if (!epi->operands[k].param)
          opRow[k] = b.CreateInBoundsGEP(f32, opBase[k], b.CreateMul(r, opStride[k]));
      for (unsigned v = 0; v < nv; ++v) {
        Value *at = b.CreateConstInBoundsGEP1_64(elem, row, v * lanes);
        Value *x = b.CreateAlignedLoad(vec, at, Align(4));
        // Operand k at this row and the vector's columns: its lanes where
        // it varies along the columns, else its one value broadcast.
        auto operand = [&](unsigned k) -> Value * {
          const EpilogueOperand &o = epi->operands[k];
          if (o.param)
            return opBase[k];
          if (o.columns)
            return b.CreateAlignedLoad(vec, b.CreateConstInBoundsGEP1_64(f32, opRow[k], v * lanes),
                                       Align(4));
          return b.CreateVectorSplat(lanes, b.CreateAlignedLoad(f32, opRow[k], Align(4)));
        };
        b.CreateAlignedStore(emitTileEpilogue(b, *epi, x, operand), at, Align(4));
      }
    });
    b.CreateBr(done);
    b.SetInsertPoint(done);
  }
  b.CreateRetVoid();
  // Its loop is left as written too: LLVM unrolled the short tiles' loops
  // (x86-64-v4's 4-row tile doubled to 588 bytes) for no measured gain, and
  // with the packing tile the MLP bundle for two targets grew by 4 KiB and
  // its build by a tenth.
  keepLoopsAsWritten(*f);
  return f;
}

// void sweep(i64 kc, const float *lhs, const T *rhs, float *acc,
//            const float *init, i64 first, i64 ldrhs, i64 cols, i64 step):
// the one-row tile over |cols| columns (whole panels) of an rhs read in
// place (row k at rhs + k*ldrhs, as stored): acc[0..cols) = start + sum
// over k in order of lhs[k*step] * rhs[k][..] (step: mr in a packed lhs
// panel, 1 in an f32 lhs row read in place), start as in tile (|init|'s
// nr values for each panel where |first| is nonzero, else acc). Rather
// than a panel at a time down all kc rows (rows ldrhs apart, each in a
// page of its own, which the hardware prefetchers do not follow), it
// sweeps kSweepRows rows at a time across all the panels, each panel's
// accumulators in registers for those rows and in |acc| between them:
// every row read front to back, the same multiply-adds in the same k
// order, so the same bytes as the tile. Measured on an AVX-512 Xeon, 1
// thread, against the tail per panel: 1 x 64 x 4096 0.49-0.59x the time,
// 1 x 256 x 2048 0.68-0.73x, 1 x 1024 x 1024 (one panel a workgroup)
// 0.98x; 8 rows at a time 0.61 / 0.80 / 1.0, 32 as 16. It takes
// kSweepPanels panels at a time where it has them, their accumulators
// independent chains of multiply-adds: a long K over few panels (decode's
// p @ V, 1 x 4096 x 64) is otherwise as slow as one panel's chain of
// dependent multiply-adds, whatever the memory. With the grid giving a
// one-row workgroup of at most that many panels all of them
// (PackedGrid.cpp), on Zen 3 (AVX2), 1 / 2 threads: 1 x 64 x 4096 0.80x /
// 0.81x the time, 1 x 256 x 2048 0.78x / 0.87x, 1 x 1024 x 1024 and
// 1 x 4096 x 256 (a panel a workgroup) 1.0x; 1 x 4096 x 64 0.52x at 1
// thread, but 1.18x at 2 (one workgroup reads V from L3 where four read
// it from two cores' L2) until the lhs row was read in place (|step|
// 1: 0.43x and 0.69x in all).
// It costs the MLP bundle for two targets 4.7 KB (59,424 B) and its build
// 0.02 s (0.38-0.41 s).
constexpr unsigned kSweepRows = 16, kSweepPanels = PackedMatmul::kSweepPanels;

// How the sweep pairs a panel's two rows of i8 pairs (nr = 2 L columns,
// L the lanes): both rows widened to <nr x i16>, then vector h (0, 1)
// takes, from each 16-byte chunk (c = min(4, L) pairs) of the two, the
// columns of its half of that chunk: x86's punpcklwd and punpckhwd, one
// instruction each where the whole row pairing (pairRow) took a shuffle
// and a widening per vector. Column j of vector h is col(h, j) = 2c(j /
// c) + ch + j % c, so the sums run in that order between the loads and
// stores of a sweep's rows: |scatter| makes vector h from the two vectors
// of a panel's columns in order, |gather| the other way, and |pairs| the
// pairing (operands: the widened rows 2k and 2k + 1).
struct ChunkOrder {
  std::vector<int> scatter[2], gather[2], pairs[2];
  explicit ChunkOrder(unsigned lanes) {
    const unsigned c = std::min(4u, lanes), nr = 2 * lanes;
    std::vector<int> where(nr); // column -> position in the scattered pair of vectors
    for (unsigned h = 0; h < 2; ++h)
      for (unsigned j = 0; j < lanes; ++j) {
        const unsigned col = 2 * c * (j / c) + c * h + j % c;
        scatter[h].push_back(int(col));
        where[col] = int(h * lanes + j);
        pairs[h].push_back(int(col));
        pairs[h].push_back(int(nr + col));
      }
    for (unsigned h = 0; h < 2; ++h)
      for (unsigned j = 0; j < lanes; ++j)
        gather[h].push_back(where[h * lanes + j]);
  }
};

Function *packedMatmulRowSweep(Module &m, const PackedMatmul &p, DType rhsElem) {
  LLVMContext &c = m.getContext();
  LeafTypes t(c, p);
  Type *i64 = t.i64, *f32 = t.f32, *vec = t.vec;
  const Source rhsFrom(c, rhsElem, p);
  // (i8 pairs: a step is a pair of rows, read in place and paired as in
  // the tiles, the lhs a packed panel of pairs.)
  // (Quads: four rows a step, interleaved whole per panel as the tiles
  // do, the sums in column order.)
  const bool pairs = p.pairs(), quads = p.quads();
  bool fresh;
  Function *f = leaf(m, "sweep" + (pairs ? i8Mark(p) + "src" : rhsFrom.mark()),
                     {i64, t.ptr, t.ptr, t.ptr, t.ptr, i64, i64, i64, i64}, p, fresh, 1);
  if (!fresh)
    return f;
  IRBuilder<> b(BasicBlock::Create(c, "entry", f));
  Value *kc = f->getArg(0), *lhs = f->getArg(1), *rhs = f->getArg(2), *acc = f->getArg(3),
        *init = f->getArg(4), *first = b.CreateICmpNE(f->getArg(5), b.getInt64(0)),
        *ldRhs = f->getArg(6), *cols = f->getArg(7), *lhsStep = f->getArg(8);
  const uint64_t nr = p.nr(), lanes = p.lanes, nv = p.nv;
  const PairSums pairSums(b, p);
  assert((!pairs || nv == 2) && "a panel of pairs is two vectors");
  const ChunkOrder chunkOrder{unsigned(lanes)};
  // (Its K as read in place: no padding.)
  Value *kSteps = panelGroups(b, p, kc);
  emitLoop(b, b.getInt64(0), kSteps, "k0", [&](Value *k0) {
    Value *k1 =
        b.CreateBinaryIntrinsic(Intrinsic::umin, b.CreateAdd(k0, b.getInt64(kSweepRows)), kSteps);
    // The first rows start from |init| (the same nr values for every
    // panel: column stride 0), the others from |acc|: arithmetic on the
    // pointers, not a branch for the optimizer to unswitch the loops on.
    Value *fromInit = b.CreateAnd(first, b.CreateICmpEQ(k0, b.getInt64(0)));
    Value *startBase = b.CreateSelect(fromInit, init, acc);
    Value *startStride = b.CreateSelect(fromInit, b.getInt64(0), b.getInt64(1));
    // Rows [k0, k1) of |n| panels from the one at |col| (never empty:
    // k0 < kc), their nv accumulators each as loop-carried values of a
    // loop tested at its end: n panels are n * nv independent chains of
    // multiply-adds, which a long K with few panels needs (one panel's
    // chain is as slow as its latency).
    auto panels = [&](Value *col, unsigned n) {
      Value *startCol = b.CreateInBoundsGEP(f32, startBase, b.CreateMul(col, startStride));
      std::vector<Value *> start(n * nv), ptr(n * nv);
      for (unsigned v = 0; v < n * nv; ++v) {
        ptr[v] = b.CreateInBoundsGEP(f32, acc, b.CreateAdd(col, b.getInt64(v * lanes)));
        // |init| holds one panel's nr values (stride 0), |acc| all of them.
        Value *at = b.CreateAdd(b.CreateMul(startStride, b.getInt64((v / nv) * nr)),
                                b.getInt64((v % nv) * lanes));
        start[v] = b.CreateAlignedLoad(vec, b.CreateInBoundsGEP(f32, startCol, at), Align(4));
      }
      if (pairs && !quads)
        for (unsigned q = 0; q < n; ++q) {
          Value *in[2] = {start[q * 2], start[q * 2 + 1]};
          for (unsigned h = 0; h < 2; ++h)
            start[q * 2 + h] =
                pairSums.carried(b.CreateShuffleVector(in[0], in[1], chunkOrder.scatter[h]));
        }
      BasicBlock *pred = b.GetInsertBlock();
      BasicBlock *body = BasicBlock::Create(c, "k.head", f), *exit = BasicBlock::Create(c, "k.exit", f);
      b.CreateBr(body);
      b.SetInsertPoint(body);
      PHINode *k = b.CreatePHI(i64, 2, "k");
      k->addIncoming(k0, pred);
      std::vector<PHINode *> accs;
      for (Value *v : start) {
        accs.push_back(b.CreatePHI(v->getType(), 2, "acc"));
        accs.back()->addIncoming(v, pred);
      }
      // (Unsigned quads: the row's sum of the lhs, in every lane.)
      PHINode *rowSum = nullptr;
      if (pairSums.offset()) {
        rowSum = b.CreatePHI(vec, 2, "rowsum");
        rowSum->addIncoming(Constant::getNullValue(vec), pred);
      }
      // (AMX's lhs panel: per 16 quads of K, its rows' 16 in turn.)
      Value *lhsAt = p.amx() ? amxLhsElement(b, p, k, 0) : b.CreateMul(k, lhsStep);
      Value *x = b.CreateLoad(t.acc, b.CreateInBoundsGEP(t.acc, lhs, lhsAt));
      Value *splat = b.CreateVectorSplat(lanes, x);
      if (rowSum)
        rowSum->addIncoming(pairSums.rowSums(rowSum, splat), body);
      Value *row = rhsFrom.at(
          b, rhs, b.CreateAdd(b.CreateMul(pairs ? b.CreateShl(k, p.kGroupShift()) : k, ldRhs), col));
      Value *hiRow = nullptr;
      std::vector<Value *> quadRows; // rows 4k .. 4k + 3 (4k again past the block)
      if (quads) {
        for (unsigned h = 0; h < 4; ++h)
          quadRows.push_back(
              rhsFrom.at(b, rhs, b.CreateAdd(b.CreateMul(groupRowToRead(b, k, h, kc), ldRhs), col)));
      } else if (pairs) {
        hiRow = b.CreateSelect(hasSecondRow(b, k, kc), rhsFrom.at(b, row, ldRhs), row);
      }
      std::vector<Value *> next(n * nv);
      // Pairs: each panel's two rows widened, then paired a 16-byte chunk
      // at a time (chunkOrder: x86's punpcklwd and punpckhwd).
      std::vector<Value *> pairVecs(n * nv);
      for (unsigned q = 0; quads && q < n; ++q) {
        auto *bytes = FixedVectorType::get(b.getInt8Ty(), unsigned(nr));
        Value *rows[4];
        for (unsigned h = 0; h < 4; ++h)
          rows[h] = b.CreateAlignedLoad(bytes, rhsFrom.at(b, quadRows[h], q * nr), Align(1));
        Value *all = quadRow(b, rows);
        for (unsigned v = 0; v < nv; ++v) {
          std::vector<int> part(4 * lanes);
          for (unsigned i = 0; i < 4 * lanes; ++i)
            part[i] = int(v * 4 * lanes + i);
          pairVecs[q * nv + v] = b.CreateBitCast(b.CreateShuffleVector(all, part), vec);
          if (rhsOffset(p))
            pairVecs[q * nv + v] = flipSignBits(b, pairVecs[q * nv + v]);
        }
      }
      for (unsigned q = 0; pairs && !quads && q < n; ++q) {
        auto *bytes = FixedVectorType::get(b.getInt8Ty(), unsigned(nr));
        auto *halves = FixedVectorType::get(b.getInt16Ty(), unsigned(nr));
        Value *lo = b.CreateSExt(
            b.CreateAlignedLoad(bytes, rhsFrom.at(b, row, q * nr), Align(1)), halves);
        // (As in the tiles: an odd block's last pair reads row 2k twice.)
        Value *hi = b.CreateSExt(
            b.CreateAlignedLoad(bytes, rhsFrom.at(b, hiRow, q * nr), Align(1)), halves);
        for (unsigned h = 0; h < 2; ++h)
          pairVecs[q * 2 + h] = b.CreateBitCast(b.CreateShuffleVector(lo, hi, chunkOrder.pairs[h]), vec);
      }
      // (The next group's lines of the two rows, which it reads next: 1 x
      // 1024 x 1024 5% faster on Zen 3.)
      if (quads)
        for (Value *r : quadRows)
          prefetchLine(b, b.CreateGEP(b.getInt8Ty(), r, b.getInt64(n * nr)));
      else if (pairs) {
        prefetchLine(b, b.CreateGEP(b.getInt8Ty(), row, b.getInt64(n * nr)));
        prefetchLine(b, b.CreateGEP(b.getInt8Ty(), hiRow, b.getInt64(n * nr)));
      }
      for (unsigned v = 0; v < n * nv; ++v) {
        if (pairs) {
          next[v] = pairSums.step(splat, pairVecs[v], accs[v]);
        } else {
          Value *r = rhsFrom.load(b, rhsFrom.at(b, row, v * lanes), lanes);
          next[v] = b.CreateIntrinsic(Intrinsic::fmuladd, {vec}, {splat, r, accs[v]});
        }
        accs[v]->addIncoming(next[v], body);
      }
      Value *kNext = b.CreateAdd(k, b.getInt64(1), "k.next", true, true);
      k->addIncoming(kNext, body);
      b.CreateCondBr(b.CreateICmpULT(kNext, k1), body, exit);
      b.SetInsertPoint(exit);
      std::vector<Value *> sums(next);
      if (rowSum)
        for (Value *&v : sums)
          v = pairSums.unoffset(v, rowSum->getIncomingValueForBlock(body));
      if (pairs && !quads)
        for (unsigned q = 0; q < n; ++q)
          for (unsigned h = 0; h < 2; ++h)
            sums[q * 2 + h] = b.CreateShuffleVector(pairSums.finished(next[q * 2]),
                                                    pairSums.finished(next[q * 2 + 1]),
                                                    chunkOrder.gather[h]);
      for (unsigned v = 0; v < n * nv; ++v)
        b.CreateAlignedStore(sums[v], ptr[v], Align(4));
    };
    // Groups of kSweepPanels panels, then the rest one at a time.
    Value *grouped = b.CreateMul(b.CreateUDiv(cols, b.getInt64(kSweepPanels * nr)),
                                 b.getInt64(kSweepPanels * nr));
    emitLoop(b, b.getInt64(0), grouped, "qg", [&](Value *col) { panels(col, kSweepPanels); },
             kSweepPanels * nr);
    emitLoop(b, grouped, cols, "q", [&](Value *col) { panels(col, 1); }, nr);
  }, kSweepRows);
  b.CreateRetVoid();
  keepLoopsAsWritten(*f);
  return f;
}

Function *packedMatmulTile(Module &m, const PackedMatmul &p, unsigned rows,
                           const TileEpilogue *epi, DType rhs) {
  assert((rhs == DType::F32 || rows < p.mr) && "the mr-row tile reads f32 panels");
  return emitTile(m, p, rows, false, epi, rhs);
}

Function *packedMatmulTilePacking(Module &m, const PackedMatmul &p, const TileEpilogue *epi) {
  return emitTile(m, p, p.mr, true, epi, p.rhsElem);
}

Function *packedMatmulTransposedTail(Module &m, const PackedMatmul &p, unsigned rows) {
  assert(packedMatmulTransposesLanes(p) && rows < p.mr && "tailt: lanes of 8 or more, short");
  return emitTile(m, p, rows, false, nullptr, p.rhsElem, true);
}

} // namespace graft::codegen
