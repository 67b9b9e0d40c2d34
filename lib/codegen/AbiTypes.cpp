#include "codegen/AbiTypes.h"

#include "codegen/ScalarOps.h"
#include "support/InternalError.h"

namespace graft::codegen {

using namespace llvm;

namespace {

// The LLVM type of a field kind of AbiFields.def.
Type *kindType(LLVMContext &c, const char *kind) {
  std::string k = kind;
  if (k == "U32")
    return Type::getInt32Ty(c);
  if (k == "U32X3")
    return ArrayType::get(Type::getInt32Ty(c), 3);
  if (k == "I64")
    return Type::getInt64Ty(c);
  GRAFT_CHECK(k == "PTR", "unknown abi field kind " + k);
  return PointerType::get(c, 0);
}

} // namespace

#define GRAFT_ABI_STRUCT(S, C) \
  template <> StructType *abiType<abi::S>(LLVMContext & c) { return StructType::get(c, {
#define GRAFT_ABI_FIELD(S, F, K) kindType(c, #K),
#define GRAFT_ABI_END(S) }); }
#include "codegen/AbiFields.def"

std::vector<AbiStructInfo> abiStructs(LLVMContext &c) {
  std::vector<AbiStructInfo> out;
#define GRAFT_ABI_STRUCT(S, C) out.push_back({#C, abiType<abi::S>(c), {
#define GRAFT_ABI_FIELD(S, F, K) #F,
#define GRAFT_ABI_END(S) }});
#include "codegen/AbiFields.def"
  return out;
}

DispatchArgs beginDispatchFunction(Module &m, IRBuilder<> &b, const std::string &name) {
  LLVMContext &c = m.getContext();
  FunctionType *ft = FunctionType::get(Type::getInt32Ty(c), {PointerType::get(c, 0), PointerType::get(c, 0)}, false);
  Function *fn = Function::Create(ft, GlobalValue::InternalLinkage, name, m);
  fn->addFnAttr(Attribute::NoUnwind);
  fn->addFnAttr(Attribute::NoFree);
  fn->addFnAttr("frame-pointer", "none");
  for (unsigned i = 0; i < 2; ++i) {
    fn->addParamAttr(i, Attribute::NoAlias);
    fn->addParamAttr(i, Attribute::ReadOnly);
    fn->addParamAttr(i, Attribute::NoCapture);
  }
  BasicBlock *entry = BasicBlock::Create(c, "entry", fn);
  b.SetInsertPoint(entry);
  DispatchArgs a{};
  a.fn = fn;
  Value *ds = fn->getArg(0), *ws = fn->getArg(1);
  ds->setName("dispatch_state");
  ws->setName("workgroup_state");
  StructType *dst = abiType<abi::DispatchState>(c), *wst = abiType<abi::WorkgroupState>(c);
  Type *i32 = Type::getInt32Ty(c), *i64 = Type::getInt64Ty(c);
  Type *ptr = PointerType::get(c, 0);
  auto field = [&](StructType *st, Value *base, auto name) {
    return b.CreateStructGEP(st, base, fieldIndex(name));
  };
  using DS = abi::DispatchState;
  using WS = abi::WorkgroupState;
  Value *countArr = field(dst, ds, DS::workgroup_count);
  Value *idArr = field(wst, ws, WS::workgroup_id);
  for (unsigned i = 0; i < 3; ++i) {
    a.wgCount[i] = b.CreateZExt(
        b.CreateLoad(i32, b.CreateConstInBoundsGEP2_32(ArrayType::get(i32, 3), countArr, 0, i)),
        i64, "wg_count");
    a.wgId[i] = b.CreateZExt(
        b.CreateLoad(i32, b.CreateConstInBoundsGEP2_32(ArrayType::get(i32, 3), idArr, 0, i)),
        i64, "wg_id");
  }
  a.workerId = b.CreateZExt(b.CreateLoad(i32, field(wst, ws, WS::worker_id)), i64, "worker_id");
  a.constants = b.CreateLoad(ptr, field(dst, ds, DS::constants), "constants");
  a.bindings = b.CreateLoad(ptr, field(dst, ds, DS::bindings), "bindings");
  a.imports = b.CreateLoad(ptr, field(dst, ds, DS::imports), "imports");
  a.importCtx = b.CreateLoad(ptr, field(dst, ds, DS::import_contexts), "import_contexts");
  a.scratch = b.CreateLoad(ptr, field(wst, ws, WS::scratch), "scratch");
  a.processorData = b.CreateLoad(ptr, field(dst, ds, DS::processor_data), "processor_data");
  return a;
}

Value *loadParam(IRBuilder<> &b, const DispatchArgs &a, unsigned i) {
  Type *i64 = b.getInt64Ty();
  return b.CreateLoad(i64, b.CreateConstInBoundsGEP1_32(i64, a.constants, i),
                      "param" + std::to_string(i));
}

Value *loadBinding(IRBuilder<> &b, const DispatchArgs &a, unsigned i) {
  Type *ptr = b.getPtrTy();
  auto *ld = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_32(ptr, a.bindings, i),
                          "binding" + std::to_string(i));
  // Buffers are 64-byte aligned (the executor guarantees it).
  ld->setMetadata(LLVMContext::MD_align,
                  MDNode::get(b.getContext(), ConstantAsMetadata::get(b.getInt64(64))));
  ld->setMetadata(LLVMContext::MD_nonnull, MDNode::get(b.getContext(), {}));
  return ld;
}

void prefetchLine(IRBuilder<> &b, Value *at) {
  b.CreateIntrinsic(Intrinsic::prefetch, {at->getType()},
                    {at, b.getInt32(0), b.getInt32(3), b.getInt32(1)});
}

BranchInst *emitLoop(IRBuilder<> &b, Value *lo, Value *hi, const std::string &name,
                     const std::function<void(Value *)> &body, uint64_t step) {
  return emitLoop(b, lo, hi, name, body, b.getInt64(step));
}

BranchInst *emitLoop(IRBuilder<> &b, Value *lo, Value *hi, const std::string &name,
                     const std::function<void(Value *)> &body, Value *step) {
  LLVMContext &c = b.getContext();
  Function *fn = b.GetInsertBlock()->getParent();
  BasicBlock *pre = b.GetInsertBlock();
  BasicBlock *head = BasicBlock::Create(c, name + ".head", fn);
  BasicBlock *bodyBB = BasicBlock::Create(c, name + ".body", fn);
  BasicBlock *exit = BasicBlock::Create(c, name + ".exit", fn);
  b.CreateBr(head);
  b.SetInsertPoint(head);
  PHINode *iv = b.CreatePHI(b.getInt64Ty(), 2, name);
  iv->addIncoming(lo, pre);
  b.CreateCondBr(b.CreateICmpSLT(iv, hi), bodyBB, exit);
  b.SetInsertPoint(bodyBB);
  body(iv);
  Value *next = b.CreateAdd(iv, step, name + ".next", true, true);
  iv->addIncoming(next, b.GetInsertBlock());
  BranchInst *back = b.CreateBr(head);
  b.SetInsertPoint(exit);
  return back;
}

Type *registerType(LLVMContext &c, DType t) {
  switch (t) {
  case DType::I1: return Type::getInt1Ty(c);
  case DType::I8: return Type::getInt8Ty(c);
  case DType::I16: return Type::getInt16Ty(c);
  case DType::I32: return Type::getInt32Ty(c);
  case DType::I64: case DType::Index: return Type::getInt64Ty(c);
  // f16/bf16 are storage types: computed in float (see ScalarOps.h).
  case DType::F16: case DType::BF16: return Type::getFloatTy(c);
  case DType::F32: return Type::getFloatTy(c);
  case DType::F64: return Type::getDoubleTy(c);
  case DType::Invalid: break;
  }
  GRAFT_INTERNAL_ERROR("a value of invalid element type reached codegen");
}

Type *memoryType(LLVMContext &c, DType t) {
  if (t == DType::F16 || t == DType::BF16)
    return Type::getInt16Ty(c);
  return t == DType::I1 ? Type::getInt8Ty(c) : registerType(c, t);
}

Value *wordToScalar(IRBuilder<> &b, Value *word, DType t) {
  LLVMContext &c = b.getContext();
  switch (t) {
  case DType::F32:
    return b.CreateBitCast(b.CreateTrunc(word, b.getInt32Ty()), Type::getFloatTy(c));
  case DType::F64:
    return b.CreateBitCast(word, Type::getDoubleTy(c));
  case DType::F16:
  case DType::BF16:
    return storageToFloat(b, b.CreateTrunc(word, b.getInt16Ty()), t);
  case DType::I1:
    return b.CreateICmpNE(word, b.getInt64(0));
  default:
    return b.CreateTrunc(word, registerType(c, t));
  }
}

} // namespace graft::codegen
