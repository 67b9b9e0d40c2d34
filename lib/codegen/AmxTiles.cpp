// x86 AMX register tiles for the i8 packed matmul (AmxTiles.h).
//
// AMX (Intel SDM vol. 1, ch. 18) has eight tile registers of up to 16 rows
// of 64 bytes, configured per thread (ldtilecfg: each register's rows and
// bytes a row). tdpbssd C, A, B adds to each i32 C[m][n] the products of
// the four s8 A[m][4k .. 4k + 3] and the four s8 of B's row k at bytes 4n
// .. 4n + 3, over A's columns: A is m rows of K in order, B K / 4 rows of
// n quads, the layout of an rhs panel of quads (a row of 16 columns is one
// of B's 64-byte rows). So the rhs panel is read as packed, and the lhs is
// packed by rows: per 64 bytes of K (its K block padded with zeros to a
// multiple of 64), the mr rows' 64 bytes one after the other, so that an A
// tile is 1 KiB in a row (rows a K block apart, 2-4 KiB, would fall into
// the same few L1 sets). A 32 x 32 tile of sums is four 16 x 16 C tiles;
// each step of 64 of K loads two 16-row A tiles and two B tiles (the other
// four registers) and runs four tdpbssd, 65,536 products.
//
// Written with LLVM's shape-carrying AMX intrinsics
// (llvm.x86.tileloadd64.internal and friends): the X86 backend assigns the
// tile registers, writes the configuration from the shapes (constants
// here, so one configuration a function, loaded at its entry) and
// releases the tiles (tilerelease) on return.
#include "codegen/AmxTiles.h"

#include "codegen/AbiTypes.h"
#include "codegen/Codegen.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsX86.h>

#include <algorithm>
#include <vector>

namespace graft::codegen {

using namespace llvm;

namespace {
// A tile's rows at most, and its bytes a row (kAmxDepth quads of K, as
// many i32 sums).
constexpr unsigned kTileRows = 16, kTileBytes = 4 * PackedMatmul::kAmxDepth;
// Lines of the destination of the sums prefetched a step.
constexpr unsigned kPrefetchLines = 4;
} // namespace

Value *amxLhsElement(IRBuilderBase &b, const PackedMatmul &p, Value *k, unsigned r) {
  const uint64_t d = PackedMatmul::kAmxDepth;
  return b.CreateAdd(b.CreateMul(b.CreateUDiv(k, b.getInt64(d)), b.getInt64(uint64_t(p.mr) * d)),
                     b.CreateAdd(b.getInt64(uint64_t(r) * d), b.CreateURem(k, b.getInt64(d))));
}

void emitAmxTileBody(Function &f, const PackedMatmul &p, unsigned rows) {
  LLVMContext &c = f.getContext();
  IRBuilder<> b(BasicBlock::Create(c, "entry", &f));
  Type *i8 = b.getInt8Ty(), *i64 = b.getInt64Ty(), *amx = Type::getX86_AMXTy(c);
  Value *kc = f.getArg(0), *lhs = f.getArg(1), *rhs = f.getArg(2), *acc = f.getArg(3),
        *ldacc = f.getArg(4), *init = f.getArg(5);
  Value *first = b.CreateICmpNE(f.getArg(6), b.getInt64(0));
  Value *out = f.getArg(9), *ldout = f.getArg(10);
  Value *last = b.CreateICmpNE(f.getArg(11), b.getInt64(0));
  const unsigned nr = p.nr(), cols = nr / kTileRows;
  const unsigned blocks = (rows + kTileRows - 1) / kTileRows;
  assert(nr % kTileRows == 0 && blocks * cols + blocks + cols <= 8 && "the tiles fit the registers");
  // Each block of rows' height (the last may be shorter).
  std::vector<Value *> height(blocks);
  for (unsigned a = 0; a < blocks; ++a)
    height[a] = b.getInt16(uint16_t(std::min(kTileRows, rows - a * kTileRows)));
  Value *width = b.getInt16(kTileBytes);
  auto load = [&](Value *h, Value *at, Value *strideBytes) {
    return b.CreateIntrinsic(amx, Intrinsic::x86_tileloadd64_internal, {h, width, at, strideBytes});
  };
  // Tile (a, col) of a [rows][nr] i32 array at |base|, |ld| elements a row.
  auto tileAt = [&](Value *base, Value *ld, unsigned a, unsigned col) {
    Value *at = b.CreateAdd(b.CreateMul(b.getInt64(a * kTileRows), ld), b.getInt64(col * kTileRows));
    return b.CreateInBoundsGEP(b.getInt32Ty(), base, at);
  };
  // The sums start from |init| (one row of nr values: row stride 0) or
  // from |acc|.
  Value *start = b.CreateSelect(first, init, acc);
  Value *ldstart = b.CreateSelect(first, b.getInt64(0), ldacc);
  std::vector<Value *> sums(blocks * cols);
  for (unsigned a = 0; a < blocks; ++a)
    for (unsigned col = 0; col < cols; ++col)
      sums[a * cols + col] =
          load(height[a], tileAt(start, ldstart, a, col), b.CreateShl(ldstart, 2));
  // Where the sums go: into the output where |last| (a whole tile inside
  // it, the last K block: PackedMatmul::tilesStoreOutputs), else back into
  // |acc|.
  Value *to = b.CreateSelect(last, out, acc);
  Value *ldto = b.CreateSelect(last, ldout, ldacc);
  // The K block's panel rows (a multiple of kAmxDepth quads, zeros past kc).
  Value *depth = packedMatmulPanelRows(b, p, kc);
  Value *steps = b.CreateUDiv(depth, b.getInt64(PackedMatmul::kAmxDepth));
  Value *lhsStride = b.getInt64(kTileBytes), *rhsStride = b.getInt64(nr * 4);
  BasicBlock *pred = b.GetInsertBlock();
  BasicBlock *head = BasicBlock::Create(c, "k.head", &f), *body = BasicBlock::Create(c, "k.body", &f),
             *exit = BasicBlock::Create(c, "k.exit", &f);
  b.CreateBr(head);
  b.SetInsertPoint(head);
  PHINode *s = b.CreatePHI(i64, 2, "k");
  s->addIncoming(b.getInt64(0), pred);
  std::vector<PHINode *> carried;
  for (Value *v : sums) {
    carried.push_back(b.CreatePHI(amx, 2, "acc"));
    carried.back()->addIncoming(v, pred);
  }
  b.CreateCondBr(b.CreateICmpULT(s, steps), body, exit);
  b.SetInsertPoint(body);
  // Step s: K bytes [64s, 64s + 64) of each row (quads [16s, 16s + 16)).
  Value *lhsAt = b.CreateInBoundsGEP(i8, lhs, b.CreateMul(s, b.getInt64(p.mr * kTileBytes)));
  Value *rhsAt = b.CreateInBoundsGEP(i8, rhs, b.CreateMul(s, b.getInt64(kTileRows * nr * 4)));
  // A few lines of where the sums go each step (a read prefetch: the level
  // has no PREFETCHW; steps past the tile's lines prefetch the next tile's
  // or past it: harmless). Measured on a Sapphire
  // Rapids Xeon against none (graft-ab, 30 pairs): 1024-cube and 128 x 768
  // x 3072 at 2 threads 0.90-0.94 and 0.88-0.95 of the time, at 1 thread
  // the same.
  const unsigned lines = nr * 4 / 64;
  for (unsigned i = 0; i < kPrefetchLines; ++i) {
    Value *line = b.CreateAdd(b.CreateMul(s, b.getInt64(kPrefetchLines)), b.getInt64(i));
    Value *row = b.CreateUDiv(line, b.getInt64(lines));
    Value *at = b.CreateAdd(b.CreateMul(row, b.CreateShl(ldto, 2)),
                            b.CreateShl(b.CreateURem(line, b.getInt64(lines)), 6));
    b.CreateIntrinsic(Intrinsic::prefetch, {b.getPtrTy()},
                      {b.CreateGEP(i8, to, at), b.getInt32(1), b.getInt32(3), b.getInt32(1)});
  }
  std::vector<Value *> rhsTiles(cols);
  for (unsigned col = 0; col < cols; ++col)
    rhsTiles[col] = load(b.getInt16(kTileRows),
                         b.CreateConstInBoundsGEP1_64(i8, rhsAt, col * kTileBytes), rhsStride);
  // (Every operand tile loaded before the products, each in a register of
  // its own: tile registers are not renamed, so a load into the register
  // an earlier product still reads waits for that product.)
  std::vector<Value *> lhsTiles(blocks);
  for (unsigned a = 0; a < blocks; ++a)
    lhsTiles[a] =
        load(height[a], b.CreateConstInBoundsGEP1_64(i8, lhsAt, a * kTileRows * kTileBytes), lhsStride);
  std::vector<Value *> next(sums.size());
  for (unsigned a = 0; a < blocks; ++a)
    for (unsigned col = 0; col < cols; ++col)
      next[a * cols + col] = b.CreateIntrinsic(
          amx, Intrinsic::x86_tdpbssd_internal,
          {height[a], width, width, carried[a * cols + col], lhsTiles[a], rhsTiles[col]});
  for (size_t i = 0; i < next.size(); ++i)
    carried[i]->addIncoming(next[i], body);
  s->addIncoming(b.CreateAdd(s, b.getInt64(1), "k.next", true, true), body);
  b.CreateBr(head);
  b.SetInsertPoint(exit);
  // (Staged through a buffer on the stack and copied by vector stores,
  // the 1024-cube was no faster.)
  for (unsigned a = 0; a < blocks; ++a)
    for (unsigned col = 0; col < cols; ++col)
      b.CreateIntrinsic(b.getVoidTy(), Intrinsic::x86_tilestored64_internal,
                        {height[a], width, tileAt(to, ldto, a, col), b.CreateShl(ldto, 2),
                         carried[a * cols + col]});
  b.CreateRetVoid();
}

void emitAmxPackLhsBody(Function &f, const PackedMatmul &p, unsigned width) {
  LLVMContext &c = f.getContext();
  IRBuilder<> b(BasicBlock::Create(c, "entry", &f));
  Type *i8 = b.getInt8Ty();
  Value *kc = f.getArg(0), *rows = f.getArg(1), *src = f.getArg(2), *lda = f.getArg(3),
        *dst = f.getArg(4);
  auto *line = FixedVectorType::get(i8, kTileBytes);
  // A packed row's bytes (4 per quad, a multiple of 64), the whole 64-byte
  // pieces of kc, and the distance between a row's pieces (a panel's rows).
  Value *rowBytes = b.CreateShl(packedMatmulPanelRows(b, p, kc), 2);
  Value *whole = b.CreateAnd(kc, b.getInt64(~uint64_t(kTileBytes - 1)));
  Value *pieces = b.getInt64(uint64_t(width) * kTileBytes);
  Value *widthV = b.getInt64(width);
  Value *allRows = b.CreateMul(b.CreateUDiv(b.CreateAdd(rows, b.getInt64(width - 1)), widthV), widthV);
  // Byte t of row r's block (t < rowBytes): piece t / 64 of the row.
  auto at = [&](Value *r, Value *t) {
    Value *panel = b.CreateMul(b.CreateUDiv(r, widthV), b.CreateMul(widthV, rowBytes));
    Value *row = b.CreateShl(b.CreateURem(r, widthV), 6);
    Value *piece = b.CreateMul(b.CreateLShr(t, 6), pieces);
    return b.CreateInBoundsGEP(
        i8, dst,
        b.CreateAdd(b.CreateAdd(panel, row), b.CreateAdd(piece, b.CreateAnd(t, b.getInt64(kTileBytes - 1)))));
  };
  emitLoop(b, b.getInt64(0), rows, "r", [&](Value *r) {
    Value *from = b.CreateInBoundsGEP(i8, src, b.CreateMul(r, lda));
    emitLoop(b, b.getInt64(0), whole, "c", [&](Value *t) {
      b.CreateAlignedStore(b.CreateAlignedLoad(line, b.CreateInBoundsGEP(i8, from, t), Align(1)),
                           at(r, t), Align(4));
    }, kTileBytes);
    // The rest of kc byte by byte (each read inside the row), zeros after.
    Value *lastByte = b.CreateSub(kc, b.getInt64(1));
    emitLoop(b, whole, rowBytes, "t", [&](Value *t) {
      Value *x = b.CreateLoad(
          i8, b.CreateInBoundsGEP(i8, from, b.CreateBinaryIntrinsic(Intrinsic::umin, t, lastByte)));
      b.CreateStore(b.CreateSelect(b.CreateICmpULT(t, kc), x, b.getInt8(0)), at(r, t));
    });
  });
  // The last panel's rows past |rows|.
  emitLoop(b, rows, allRows, "z", [&](Value *r) {
    emitLoop(b, b.getInt64(0), rowBytes, "zc", [&](Value *t) {
      b.CreateAlignedStore(Constant::getNullValue(line), at(r, t), Align(4));
    }, kTileBytes);
  });
  b.CreateRetVoid();
}

} // namespace graft::codegen
