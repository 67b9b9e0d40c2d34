// Emits the library metadata of a slice: the abi.h structs (library header,
// dispatch table and attributes, every function's host program) as constant
// globals, and the one exported symbol, graft_library_query.
//
// The struct types come from AbiTypes.h (checked against abi.h by
// AbiLayoutTest).
#include "codegen/AbiTypes.h"
#include "codegen/Codegen.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <map>
#include <set>

namespace graft::codegen {

using namespace llvm;

namespace {

class LibraryEmitter {
public:
  explicit LibraryEmitter(Module &m)
      : m_(m), c_(m.getContext()), i32_(Type::getInt32Ty(c_)), i64_(Type::getInt64Ty(c_)),
        ptr_(PointerType::get(c_, 0)) {}

  void run(const ProgramSet &ps, const std::string &moduleName) {
    StructType *attrsTy = dispatchAttrsType(c_);
    std::vector<Constant *> fns, attrs;
    for (const Dispatch &d : ps.dispatches) {
      Function *f = m_.getFunction(d.name);
      fns.push_back(f);
      attrs.push_back(ConstantStruct::get(
          attrsTy, {str(d.name), str(d.source), u32(d.bindings.size()), u32(d.params.size()),
                    u32(0),
                    u32(d.isCall && d.call.rule->form == Rule::Form::Dispatch
                            ? GRAFT_DISPATCH_FLAG_USER_KERNEL
                            : 0),
                    u32Array(bindingFlags(d))}));
    }
    std::vector<Constant *> functions;
    for (const FunctionProgram &fp : ps.functions)
      functions.push_back(function(fp));
    StructType *libTy = libraryType(c_);
    Constant *lib = ConstantStruct::get(
        libTy, {u32(GRAFT_LIBRARY_MAGIC), u32(GRAFT_ABI_VERSION), str(moduleName),
                str(std::string("graft ") + GRAFT_VERSION), u32(fns.size()), u32(0),
                u32(functions.size()), u32(0), array(ptr_, fns), array(attrsTy, attrs),
                ConstantPointerNull::get(ptr_), array(functionTy(), functions)});
    auto *g = new GlobalVariable(m_, libTy, true, GlobalValue::PrivateLinkage, lib,
                                 "graft_library");
    g->setAlignment(Align(8));

    // const graft_library_v1_t* graft_library_query(uint32_t max_abi_version)
    FunctionType *qt = FunctionType::get(ptr_, {i32_}, false);
    Function *q = Function::Create(qt, GlobalValue::ExternalLinkage, GRAFT_QUERY_SYMBOL, m_);
    q->setVisibility(GlobalValue::DefaultVisibility);
    q->addFnAttr(Attribute::NoUnwind);
    IRBuilder<> b(BasicBlock::Create(c_, "entry", q));
    Value *ok = b.CreateICmpUGE(q->getArg(0), b.getInt32(GRAFT_ABI_VERSION));
    b.CreateRet(b.CreateSelect(ok, g, ConstantPointerNull::get(ptr_)));
  }

private:
  // GRAFT_BINDING_* per binding: a dispatch writes the buffers of its
  // outputs and only reads the others; a user kernel may also read back what
  // it wrote. The loader checks these against the buffers each step binds
  // (no writes into arguments or constants).
  static std::vector<uint32_t> bindingFlags(const Dispatch &d) {
    std::set<uint32_t> outputs;
    if (d.isCall)
      outputs.insert(d.call.outputBuffers.begin(), d.call.outputBuffers.end());
    else
      for (const KernelOutput &o : d.loop.outputs)
        outputs.insert(o.buffer);
    uint32_t output = d.isCall ? GRAFT_BINDING_READ | GRAFT_BINDING_WRITE : GRAFT_BINDING_WRITE;
    std::vector<uint32_t> flags;
    for (uint32_t b : d.bindings)
      flags.push_back(outputs.count(b) ? output : GRAFT_BINDING_READ);
    return flags;
  }

  Constant *u32(uint64_t v) { return ConstantInt::get(i32_, v); }
  Constant *s64(int64_t v) { return ConstantInt::getSigned(i64_, v); }

  Constant *str(const std::string &s) {
    auto it = strings_.find(s);
    if (it != strings_.end())
      return it->second;
    Constant *init = ConstantDataArray::getString(c_, s, true);
    auto *g = new GlobalVariable(m_, init->getType(), true, GlobalValue::PrivateLinkage, init, ".str");
    g->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    g->setAlignment(Align(1));
    strings_[s] = g;
    return g;
  }

  // A private constant array; null when empty.
  Constant *array(Type *elem, const std::vector<Constant *> &elems, unsigned align = 8) {
    if (elems.empty())
      return ConstantPointerNull::get(ptr_);
    ArrayType *at = ArrayType::get(elem, elems.size());
    auto *g = new GlobalVariable(m_, at, true, GlobalValue::PrivateLinkage,
                                 ConstantArray::get(at, elems), ".graft");
    g->setAlignment(Align(align));
    return g;
  }

  Constant *u32Array(const std::vector<uint32_t> &v) {
    std::vector<Constant *> e;
    for (uint32_t x : v)
      e.push_back(u32(x));
    return array(i32_, e, 4);
  }

  StructType *valueTypeTy() { return valueTypeType(c_); }
  StructType *functionTy() { return functionType(c_); }

  Constant *valueTypeOf(const graft::Type &t, const std::string &name) {
    std::vector<Constant *> dims;
    for (int64_t d : t.dims)
      dims.push_back(s64(d));
    return ConstantStruct::get(valueTypeTy(),
                               {u32(static_cast<uint32_t>(t.elem)), u32(t.dims.size()),
                                array(i64_, dims), str(name)});
  }

  Constant *function(const FunctionProgram &fp) {
    const Function_ &fn = *fp.fn;
    std::vector<Constant *> args, results;
    for (const Value_ *a : fn.args)
      args.push_back(valueTypeOf(a->type, a->name));
    for (const graft::Type &t : fn.resultTypes)
      results.push_back(valueTypeOf(t, ""));

    StructType *exprTy = exprType(c_);
    std::vector<Constant *> exprs;
    for (const graft_expr_v1_t &e : fp.shapes.exprs.exprs())
      exprs.push_back(ConstantStruct::get(exprTy, {u32(e.op), u32(e.a), s64(e.imm)}));

    StructType *bufTy = bufferType(c_);
    std::vector<Constant *> bufs;
    for (const BufferDesc &bd : fp.buffers) {
      Constant *data = ConstantPointerNull::get(ptr_);
      if (!bd.data.empty()) {
        Constant *init = ConstantDataArray::get(c_, ArrayRef<uint8_t>(bd.data));
        auto *g = new GlobalVariable(m_, init->getType(), true, GlobalValue::PrivateLinkage,
                                     init, ".graft.const");
        g->setAlignment(Align(64));
        data = g;
      }
      bufs.push_back(ConstantStruct::get(
          bufTy, {u32(bd.kind), u32(bd.index), u32(static_cast<uint32_t>(bd.dtype)),
                  u32(bd.dims.size()), u32Array(bd.dims), data,
                  ConstantInt::get(i64_, bd.data.size())}));
    }

    StructType *checkTy = checkType(c_);
    std::vector<Constant *> checks;
    for (const ShapeCheck &ch : fp.shapes.checks)
      checks.push_back(ConstantStruct::get(checkTy, {u32(ch.lhs), u32(ch.rhs), str(ch.message)}));

    StructType *stepTy = stepType(c_);
    std::vector<Constant *> steps;
    for (const StepDesc &s : fp.steps) {
      std::vector<uint32_t> grid = {0, 0, 0}, params;
      if (s.kind == GRAFT_STEP_DISPATCH) {
        const Dispatch &d = (*dispatches_)[s.dispatch];
        grid = {d.grid[0], d.grid[1], d.grid[2]};
        params = d.params;
      }
      steps.push_back(ConstantStruct::get(
          stepTy, {u32(s.kind), u32(s.dispatch),
                   ConstantArray::get(ArrayType::get(i32_, 3), {u32(grid[0]), u32(grid[1]), u32(grid[2])}),
                   u32(params.size()), u32(s.bindings.size()), u32(0), u32Array(params),
                   u32Array(s.bindings)}));
    }
    return ConstantStruct::get(
        functionTy(),
        {str(fn.name), u32(args.size()), u32(results.size()), array(valueTypeTy(), args),
         array(valueTypeTy(), results), u32Array(fp.resultBuffers), u32(exprs.size()),
         u32(bufs.size()), u32(checks.size()), u32(steps.size()), array(exprTy, exprs),
         array(bufTy, bufs), array(checkTy, checks), array(stepTy, steps)});
  }

public:
  const std::vector<Dispatch> *dispatches_ = nullptr;

private:
  using Function_ = graft::Function;
  using Value_ = graft::Value;
  using Type_ = graft::Type;
  Module &m_;
  LLVMContext &c_;
  IntegerType *i32_, *i64_;
  PointerType *ptr_;
  std::map<std::string, Constant *> strings_;
};

} // namespace

void emitLibrary(Module &m, const ProgramSet &programs, const std::string &moduleName) {
  LibraryEmitter e(m);
  e.dispatches_ = &programs.dispatches;
  e.run(programs, moduleName);
}

} // namespace graft::codegen
