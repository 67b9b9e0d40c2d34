// Lowers a kernel-call dispatch: the workgroup function graft generates
// around a user kernel, from the call's plan (ir/KernelCall.h).
//
// KernelForm::Call unpacks bindings, sizes and workgroup ids into the
// argument list the plan spells out and calls the kernel directly (static
// linking: the symbol is resolved by LTO with the kernel's bitcode or by lld
// with its object). KernelForm::Dispatch forwards both state pointers to a
// kernel that is a whole dispatch function in graft's ABI.
//
// An import (KernelLink::Import) is called through the dispatch state's
// import table with IREE's convention, int fn(params, context, reserved):
// for the Call form |params| points to a struct on the stack whose fields
// are exactly the parameters a static kernel would take, in order, in the
// target's C layout; for the Dispatch form |params| is the dispatch state
// and |reserved| the workgroup state (docs/plugins.md).
#include "codegen/AbiTypes.h"
#include "codegen/Codegen.h"
#include "support/InternalError.h"

#include <llvm/IR/Intrinsics.h>

namespace graft::codegen {

using namespace llvm;

namespace {

// The C type of an integer argument: `index` is the target's intptr_t.
Type *argType(LLVMContext &c, DType t, Type *sizeTy) {
  switch (t) {
  case DType::I1: return Type::getInt1Ty(c);
  case DType::I8: return Type::getInt8Ty(c);
  case DType::I16: return Type::getInt16Ty(c);
  case DType::I32: return Type::getInt32Ty(c);
  case DType::I64: return Type::getInt64Ty(c);
  case DType::Index: return sizeTy;
  default: break;
  }
  GRAFT_INTERNAL_ERROR(std::string("a ") + dtypeName(t) + " size argument of a kernel call");
}

// Calls import |index| of the dispatch state: fn(params, context, reserved).
Value *callImport(IRBuilder<> &b, const DispatchArgs &a, unsigned index, Value *params,
                  Value *reserved) {
  Type *ptr = b.getPtrTy();
  Value *fn = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_32(ptr, a.imports, index), "import");
  Value *ctx =
      b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_32(ptr, a.importCtx, index), "import_ctx");
  FunctionType *ty = FunctionType::get(b.getInt32Ty(), {ptr, ptr, ptr}, false);
  return b.CreateCall(ty, fn, {params, ctx, reserved});
}

// Integer arguments of one call, computed at the top of the dispatch with
// graft/expr.h's checked floor arithmetic. Anything undefined, or a value
// that does not fit its parameter, sets |bad|: the dispatch then returns
// GRAFT_DISPATCH_STATUS_BAD_KERNEL_ARGUMENT instead of calling the kernel.
struct ArgExprEmitter {
  IRBuilder<> &b;
  Value *bad;

  Value *flag(Value *cond) {
    bad = b.CreateOr(bad, cond);
    return cond;
  }
  Value *overflowing(Intrinsic::ID id, Value *x, Value *y) {
    Value *r = b.CreateBinaryIntrinsic(id, x, y);
    flag(b.CreateExtractValue(r, 1));
    return b.CreateExtractValue(r, 0);
  }
  Value *binary(graft_expr_op_t op, Value *x, Value *y) {
    switch (op) {
    case GRAFT_EXPR_ADD: return overflowing(Intrinsic::sadd_with_overflow, x, y);
    case GRAFT_EXPR_SUB: return overflowing(Intrinsic::ssub_with_overflow, x, y);
    case GRAFT_EXPR_MUL: return overflowing(Intrinsic::smul_with_overflow, x, y);
    case GRAFT_EXPR_MIN: return b.CreateBinaryIntrinsic(Intrinsic::smin, x, y);
    case GRAFT_EXPR_MAX: return b.CreateBinaryIntrinsic(Intrinsic::smax, x, y);
    default: break;
    }
    GRAFT_CHECK(op == GRAFT_EXPR_DIV || op == GRAFT_EXPR_CEILDIV || op == GRAFT_EXPR_REM,
                "unexpected operator in a kernel argument");
    Value *zero = b.getInt64(0);
    Value *undefined = b.CreateICmpEQ(y, zero);
    if (op != GRAFT_EXPR_REM) // INT64_MIN / -1 overflows; its remainder is 0
      undefined = b.CreateOr(undefined, b.CreateAnd(b.CreateICmpEQ(x, b.getInt64(INT64_MIN)),
                                                    b.CreateICmpEQ(y, b.getInt64(-1))));
    flag(undefined);
    Value *d = b.CreateSelect(undefined, b.getInt64(1), y);
    Value *q = b.CreateSDiv(x, d), *r = b.CreateSRem(x, d);
    // Floor: a nonzero remainder whose sign differs from the divisor's.
    Value *adjust = b.CreateAnd(b.CreateICmpNE(r, zero),
                                b.CreateICmpSLT(b.CreateXor(r, d), zero));
    if (op == GRAFT_EXPR_REM)
      return b.CreateSelect(adjust, b.CreateAdd(r, d), r);
    Value *floorQ = b.CreateSelect(adjust, b.CreateSub(q, b.getInt64(1)), q);
    if (op == GRAFT_EXPR_DIV)
      return floorQ;
    Value *floorR = b.CreateSelect(adjust, b.CreateAdd(r, d), r);
    return b.CreateAdd(floorQ, b.CreateZExt(b.CreateICmpNE(floorR, zero), b.getInt64Ty()));
  }
  // |v| as |t|, flagging a value outside its range (i1: 0 or 1).
  Value *narrow(Value *v, Type *t) {
    if (t->getIntegerBitWidth() == 64)
      return v;
    Value *n = b.CreateTrunc(v, t);
    Value *back = t->isIntegerTy(1) ? b.CreateZExt(n, v->getType()) : b.CreateSExt(n, v->getType());
    flag(b.CreateICmpNE(back, v));
    return n;
  }
};

} // namespace

void emitCallDispatch(Module &m, const Dispatch &d) {
  LLVMContext &c = m.getContext();
  IRBuilder<> b(c);
  DispatchArgs a = beginDispatchFunction(m, b, d.name);
  const CallKernel &k = d.call;
  const KernelCall &plan = *k.plan;
  Type *ptr = b.getPtrTy(), *i32 = b.getInt32Ty();
  Type *sizeTy = m.getDataLayout().getIntPtrType(c); // size_t
  // Kernels are compiled -ffreestanding, which marks them "no-builtins"; the
  // inliner refuses to inline such a function into one without the
  // attribute, and the kernel would stay an out-of-line call. This wrapper
  // only forwards arguments, so giving it the kernel's setting costs nothing.
  a.fn->addFnAttr("no-builtins");

  bool imported = plan.imported();
  if (plan.form == KernelForm::Dispatch && imported) {
    b.CreateRet(callImport(b, a, k.importIndex, a.fn->getArg(0), a.fn->getArg(1)));
    return;
  }
  if (plan.form == KernelForm::Dispatch) {
    FunctionCallee fn = m.getOrInsertFunction(plan.symbol, FunctionType::get(i32, {ptr, ptr}, false));
    Value *r = b.CreateCall(fn, {a.fn->getArg(0), a.fn->getArg(1)});
    b.CreateRet(r);
    return;
  }

  std::vector<Value *> params;
  for (unsigned i = 0; i < d.params.size(); ++i)
    params.push_back(loadParam(b, a, i));
  // Binding index of each tensor input / output.
  std::vector<int> inBinding(k.inputBuffers.size(), -1);
  unsigned nb = 0;
  for (size_t i = 0; i < k.inputBuffers.size(); ++i)
    if (k.inputBuffers[i] != ~0u)
      inBinding[i] = static_cast<int>(nb++);
  auto tensorPtr = [&](const KernelCallArg &arg) {
    unsigned bi = arg.operand >= 0 ? static_cast<unsigned>(inBinding[arg.operand])
                                   : nb + static_cast<unsigned>(arg.result);
    return loadBinding(b, a, bi);
  };
  auto dimsOf = [&](const KernelCallArg &arg) -> const std::vector<unsigned> & {
    return arg.operand >= 0 ? k.inputDimParams[arg.operand] : k.outputDimParams[arg.result];
  };

  ArgExprEmitter exprs{b, b.getFalse()};
  std::vector<Value *> nodes;
  for (const ArgExprNode &n : k.argNodes) {
    switch (n.kind) {
    case ArgExprNode::Kind::Entry: nodes.push_back(params[n.index]); break;
    case ArgExprNode::Kind::WorkgroupId: nodes.push_back(a.wgId[n.index]); break;
    case ArgExprNode::Kind::WorkgroupCount: nodes.push_back(a.wgCount[n.index]); break;
    case ArgExprNode::Kind::ProcessorId: nodes.push_back(a.workerId); break;
    case ArgExprNode::Kind::Binary:
      nodes.push_back(exprs.binary(n.op, nodes[n.lhs], nodes[n.rhs]));
      break;
    }
  }
  std::vector<Type *> types;
  std::vector<Value *> args;
  unsigned exprIdx = 0;
  for (const KernelCallArg &arg : plan.args) {
    switch (arg.kind) {
    case KernelCallArg::Kind::Buffer:
      types.push_back(ptr);
      args.push_back(tensorPtr(arg));
      break;
    case KernelCallArg::Kind::Memref: {
      // MLIR's memref expansion: base, aligned base, offset, sizes, strides.
      // The index fields are size_t in graft/kernel.h: as wide as a pointer
      // on the target (32 bits on arm), not i64.
      Value *p = tensorPtr(arg);
      const auto &dp = dimsOf(arg);
      types.insert(types.end(), {ptr, ptr, sizeTy});
      args.insert(args.end(), {p, p, ConstantInt::get(sizeTy, 0)});
      std::vector<Value *> strides(dp.size());
      Value *s = b.getInt64(1);
      for (size_t i = dp.size(); i-- > 0;) {
        strides[i] = s;
        s = b.CreateMul(s, params[dp[i]]);
      }
      for (unsigned p : dp) {
        types.push_back(sizeTy);
        args.push_back(b.CreateTrunc(params[p], sizeTy));
      }
      for (Value *st : strides) {
        types.push_back(sizeTy);
        args.push_back(b.CreateTrunc(st, sizeTy));
      }
      break;
    }
    case KernelCallArg::Kind::Scalar: {
      DType t = k.inputTypes[arg.operand];
      Value *v = wordToScalar(b, params[k.inputScalarParam[arg.operand]], t);
      if (t == DType::Index) // intptr_t
        v = b.CreateTrunc(v, sizeTy);
      types.push_back(v->getType());
      args.push_back(v);
      break;
    }
    case KernelCallArg::Kind::ProcessorData:
      types.push_back(ptr);
      args.push_back(a.processorData);
      break;
    case KernelCallArg::Kind::Size:
    case KernelCallArg::Kind::PerWorkgroup: {
      Type *t = argType(c, arg.type, sizeTy);
      types.push_back(t);
      args.push_back(exprs.narrow(nodes[k.exprRoots[exprIdx++]], t));
      break;
    }
    }
  }
  BasicBlock *callBlock = BasicBlock::Create(c, "call", a.fn);
  BasicBlock *badBlock = BasicBlock::Create(c, "bad_argument", a.fn);
  b.CreateCondBr(exprs.bad, badBlock, callBlock);
  b.SetInsertPoint(badBlock);
  b.CreateRet(b.getInt32(GRAFT_DISPATCH_STATUS_BAD_KERNEL_ARGUMENT));
  b.SetInsertPoint(callBlock);
  if (imported) {
    // The parameters, per-workgroup ones included, as the fields of one
    // struct, in C layout.
    StructType *st = StructType::get(c, types);
    Value *params = b.CreateAlloca(st, nullptr, "params");
    for (unsigned i = 0; i < args.size(); ++i)
      b.CreateStore(args[i], b.CreateStructGEP(st, params, i));
    b.CreateRet(callImport(b, a, k.importIndex, params, ConstantPointerNull::get(b.getPtrTy())));
    return;
  }
  Type *ret = plan.returnsStatus ? i32 : b.getVoidTy();
  FunctionCallee fn = m.getOrInsertFunction(plan.symbol, FunctionType::get(ret, types, false));
  CallInst *call = b.CreateCall(fn, args);
  // Integers narrower than a register are extended by the caller, as clang
  // declares C's bool (zero) and int8_t..int32_t (sign; riscv64 needs it for
  // int32_t too): an object-file kernel relies on it.
  for (unsigned i = 0; i < types.size(); ++i)
    if (types[i]->isIntegerTy() && types[i]->getIntegerBitWidth() < 64 && types[i] != sizeTy)
      call->addParamAttr(i, types[i]->isIntegerTy(1) ? Attribute::ZExt : Attribute::SExt);
  b.CreateRet(plan.returnsStatus ? static_cast<Value *>(call) : b.getInt32(0));
}

} // namespace graft::codegen
