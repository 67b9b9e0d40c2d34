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

namespace graft::codegen {

using namespace llvm;

namespace {

Type *argType(LLVMContext &c, DType t) {
  return t == DType::I32 ? Type::getInt32Ty(c) : Type::getInt64Ty(c);
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

} // namespace

void emitCallDispatch(Module &m, const Dispatch &d, const TargetInfo &) {
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
      if (t == DType::I1)
        v = b.CreateZExt(v, b.getInt8Ty());
      types.push_back(v->getType());
      args.push_back(v);
      break;
    }
    case KernelCallArg::Kind::Size: {
      Value *v = params[k.exprParams[exprIdx++]];
      Type *t = argType(c, arg.type);
      types.push_back(t);
      args.push_back(b.CreateTrunc(v, t));
      break;
    }
    case KernelCallArg::Kind::WorkgroupId:
    case KernelCallArg::Kind::WorkgroupCount: {
      Value *v = arg.kind == KernelCallArg::Kind::WorkgroupId ? a.wgId[arg.axis] : a.wgCount[arg.axis];
      Type *t = argType(c, arg.type);
      types.push_back(t);
      args.push_back(b.CreateTrunc(v, t));
      break;
    }
    }
  }
  if (imported) {
    // The parameters as the fields of one struct, in C layout.
    StructType *st = StructType::get(c, types);
    Value *params = b.CreateAlloca(st, nullptr, "params");
    for (unsigned i = 0; i < args.size(); ++i)
      b.CreateStore(args[i], b.CreateStructGEP(st, params, i));
    b.CreateRet(callImport(b, a, k.importIndex, params, ConstantPointerNull::get(b.getPtrTy())));
    return;
  }
  Type *ret = plan.returnsStatus ? i32 : b.getVoidTy();
  FunctionCallee fn = m.getOrInsertFunction(plan.symbol, FunctionType::get(ret, types, false));
  Value *r = b.CreateCall(fn, args);
  b.CreateRet(plan.returnsStatus ? r : b.getInt32(0));
}

} // namespace graft::codegen
