// Emits the library metadata of a slice: the abi.h structs (library header,
// its ISA variants, each with its dispatch table and attributes and every
// function's host program, the import table) as constant globals, and the one
// exported symbol, graft_library_query.
//
// Every struct is built field by field by name (AbiConstant over the table
// in AbiFields.def, which AbiLayoutTest checks against abi.h).
#include "codegen/AbiTypes.h"
#include "codegen/Codegen.h"
#include "support/InternalError.h"
#include "targets/Target.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <cassert>
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

  void run(const TargetInfo &target, const std::vector<VariantSymbols> &variants,
           const std::string &moduleName) {
    assert(!variants.empty() && "a slice has at least one variant");
    std::vector<Tables> tables;
    std::vector<Constant *> variantDescs;
    for (const VariantSymbols &v : variants) {
      tables.push_back(variantTables(v));
      variantDescs.push_back(variant(target, *v.level, tables.back()));
    }
    const Tables &first = tables.front();
    // Imports belong to the library, not a variant: every variant lowers the
    // same rules, so each refers to the same table by the same index.
    const std::vector<std::string> &importNames = variants.front().programs->imports;
    for (const VariantSymbols &v : variants)
      GRAFT_CHECK(v.programs->imports == importNames, "variants share one import table");
    std::vector<Constant *> imports;
    for (const std::string &name : importNames)
      imports.push_back(str(name));
    using L = abi::Library;
    Constant *lib = AbiConstant<L>(c_)
                        .set(L::magic, u32(GRAFT_LIBRARY_MAGIC))
                        .set(L::abi_version, u32(GRAFT_ABI_VERSION))
                        .set(L::name, str(moduleName))
                        .set(L::producer, str(std::string("graft ") + GRAFT_VERSION))
                        .set(L::dispatch_count, u32(first.dispatchCount))
                        .set(L::import_count, u32(imports.size()))
                        .set(L::function_count, u32(first.functionCount))
                        .set(L::flags, u32(0))
                        .set(L::dispatches, first.dispatches)
                        .set(L::dispatch_attrs, first.attrs)
                        .set(L::imports, array(ptr_, imports))
                        .set(L::functions, first.functions)
                        .set(L::variant_count, u32(variantDescs.size()))
                        .set(L::reserved, u32(0))
                        .set(L::variants, array(abiType<abi::Variant>(c_), variantDescs))
                        .get();
    auto *g = new GlobalVariable(m_, lib->getType(), true, GlobalValue::PrivateLinkage, lib,
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
  // The tables of one variant: dispatch functions, their attributes and
  // the host programs that run them.
  struct Tables {
    size_t dispatchCount = 0, functionCount = 0;
    Constant *dispatches, *attrs, *functions;
  };

  Tables variantTables(const VariantSymbols &v) {
    using A = abi::DispatchAttrs;
    const ProgramSet &ps = *v.programs;
    std::vector<Constant *> fns, attrs;
    for (size_t i = 0; i < ps.dispatches.size(); ++i) {
      const Dispatch &d = ps.dispatches[i];
      Function *f = m_.getFunction(v.dispatchSymbols[i]);
      assert(f && "every dispatch of a variant is in the slice module");
      fns.push_back(f);
      bool userKernel = d.isCall && d.call.plan->form == KernelForm::Dispatch;
      bool hostCall = d.isCall && d.call.plan->link == KernelLink::Host;
      attrs.push_back(AbiConstant<A>(c_)
                          .set(A::name, str(d.name))
                          .set(A::source, str(d.source))
                          .set(A::binding_count, u32(d.bindings.size()))
                          .set(A::constant_count, u32(d.params.size()))
                          .set(A::scratch_size, u32(d.scratchBytes))
                          .set(A::flags, u32((userKernel ? GRAFT_DISPATCH_FLAG_USER_KERNEL : 0) |
                                             (hostCall ? GRAFT_DISPATCH_FLAG_HOST_CALL : 0)))
                          .set(A::binding_flags, u32Array(bindingFlags(d)))
                          .get());
    }
    std::vector<Constant *> functions;
    for (const FunctionProgram &fp : ps.functions)
      functions.push_back(function(fp, ps.dispatches));
    Tables t;
    t.dispatchCount = fns.size();
    t.functionCount = functions.size();
    t.dispatches = array(ptr_, fns);
    t.attrs = array(abiType<A>(c_), attrs);
    t.functions = array(abiType<abi::FunctionDesc>(c_), functions);
    return t;
  }

  // graft_variant_v1_t: the level's name and every CPU feature it needs,
  // which is what the loader tests the running CPU against.
  Constant *variant(const TargetInfo &target, const FeatureLevel &level, const Tables &t) {
    std::vector<Constant *> features;
    for (const std::string &f : requiredCpuFeatures(target, level))
      features.push_back(str(f));
    using V = abi::Variant;
    return AbiConstant<V>(c_)
        .set(V::level, str(level.name))
        .set(V::cpu_feature_count, u32(features.size()))
        .set(V::dispatch_count, u32(t.dispatchCount))
        .set(V::cpu_features, array(ptr_, features))
        .set(V::dispatches, t.dispatches)
        .set(V::dispatch_attrs, t.attrs)
        .set(V::function_count, u32(t.functionCount))
        .set(V::reserved, u32(0))
        .set(V::functions, t.functions)
        .get();
  }

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

  // A private constant array; null when empty. Arrays of the same
  // elements are one global (LLVM uniques constants, so the same elements
  // are the same Constant): a variant that shares its dispatches with the
  // level it implies and has the same host programs (x86-64-v4+vnni's
  // float code) refers to that level's tables instead of a copy of each.
  Constant *array(Type *elem, const std::vector<Constant *> &elems, unsigned align = 8) {
    if (elems.empty())
      return ConstantPointerNull::get(ptr_);
    ArrayType *at = ArrayType::get(elem, elems.size());
    return global(ConstantArray::get(at, elems), ".graft", align);
  }

  // The private constant global holding |init|, one per value and alignment.
  Constant *global(Constant *init, const char *name, unsigned align) {
    GlobalVariable *&g = globals_[{init, align}];
    if (!g) {
      g = new GlobalVariable(m_, init->getType(), true, GlobalValue::PrivateLinkage, init, name);
      g->setAlignment(Align(align));
    }
    return g;
  }

  Constant *u32Array(const std::vector<uint32_t> &v) {
    std::vector<Constant *> e;
    for (uint32_t x : v)
      e.push_back(u32(x));
    return array(i32_, e, 4);
  }

  Constant *valueTypeOf(const graft::Type &t, const std::string &name) {
    using V = abi::ValueType;
    std::vector<Constant *> dims;
    for (int64_t d : t.dims)
      dims.push_back(s64(d));
    return AbiConstant<V>(c_)
        .set(V::dtype, u32(static_cast<uint32_t>(t.elem)))
        .set(V::rank, u32(t.dims.size()))
        .set(V::dims, array(i64_, dims))
        .set(V::name, str(name))
        .get();
  }

  Constant *function(const FunctionProgram &fp, const std::vector<Dispatch> &dispatches) {
    const Function_ &fn = *fp.fn;
    std::vector<Constant *> args, results;
    for (const Value_ *a : fn.args)
      args.push_back(valueTypeOf(a->type, a->name));
    for (const graft::Type &t : fn.resultTypes)
      results.push_back(valueTypeOf(t, ""));

    using E = abi::Expr;
    std::vector<Constant *> exprs;
    for (const graft_expr_v1_t &e : fp.shapes.exprs.exprs())
      exprs.push_back(AbiConstant<E>(c_)
                          .set(E::op, u32(e.op))
                          .set(E::a, u32(e.a))
                          .set(E::imm, s64(e.imm))
                          .get());

    using B = abi::Buffer;
    std::vector<Constant *> bufs;
    for (const BufferDesc &bd : fp.buffers) {
      Constant *data = ConstantPointerNull::get(ptr_);
      if (!bd.data.empty()) {
        data = global(ConstantDataArray::get(c_, ArrayRef<uint8_t>(bd.data)), ".graft.const", 64);
      }
      bufs.push_back(AbiConstant<B>(c_)
                         .set(B::kind, u32(bd.kind))
                         .set(B::index, u32(bd.index))
                         .set(B::dtype, u32(static_cast<uint32_t>(bd.dtype)))
                         .set(B::rank, u32(bd.dims.size()))
                         .set(B::dims, u32Array(bd.dims))
                         .set(B::data, data)
                         .set(B::data_size, ConstantInt::get(i64_, bd.data.size()))
                         .get());
    }

    using C = abi::Check;
    std::vector<Constant *> checks;
    for (const ShapeCheck &ch : fp.shapes.checks)
      checks.push_back(AbiConstant<C>(c_)
                           .set(C::lhs, u32(ch.lhs))
                           .set(C::rhs, u32(ch.rhs))
                           .set(C::message, str(ch.message))
                           .get());

    using S = abi::Step;
    std::vector<Constant *> steps;
    for (const StepDesc &s : fp.steps) {
      std::vector<uint32_t> grid = {0, 0, 0}, params;
      if (s.kind != GRAFT_STEP_COPY) {
        const Dispatch &d = dispatches[s.dispatch];
        grid = {d.grid[0], d.grid[1], d.grid[2]};
        params = d.params;
      }
      steps.push_back(
          AbiConstant<S>(c_)
              .set(S::kind, u32(s.kind))
              .set(S::dispatch, u32(s.dispatch))
              .set(S::workgroup_count, ConstantArray::get(ArrayType::get(i32_, 3),
                                                          {u32(grid[0]), u32(grid[1]), u32(grid[2])}))
              .set(S::constant_count, u32(params.size()))
              .set(S::binding_count, u32(s.bindings.size()))
              .set(S::guard, u32(s.guard))
              .set(S::constants, u32Array(params))
              .set(S::bindings, u32Array(s.bindings))
              .set(S::import, u32(s.import))
              .set(S::reserved, u32(0))
              .get());
    }
    using F = abi::FunctionDesc;
    StructType *valueTy = abiType<abi::ValueType>(c_);
    return AbiConstant<F>(c_)
        .set(F::name, str(fn.name))
        .set(F::arg_count, u32(args.size()))
        .set(F::result_count, u32(results.size()))
        .set(F::args, array(valueTy, args))
        .set(F::results, array(valueTy, results))
        .set(F::result_buffers, u32Array(fp.resultBuffers))
        .set(F::expr_count, u32(exprs.size()))
        .set(F::buffer_count, u32(bufs.size()))
        .set(F::check_count, u32(checks.size()))
        .set(F::step_count, u32(steps.size()))
        .set(F::exprs, array(abiType<E>(c_), exprs))
        .set(F::buffers, array(abiType<B>(c_), bufs))
        .set(F::checks, array(abiType<C>(c_), checks))
        .set(F::steps, array(abiType<S>(c_), steps))
        .get();
  }

  using Function_ = graft::Function;
  using Value_ = graft::Value;
  using Type_ = graft::Type;
  Module &m_;
  LLVMContext &c_;
  IntegerType *i32_, *i64_;
  PointerType *ptr_;
  std::map<std::string, Constant *> strings_;
  std::map<std::pair<Constant *, unsigned>, GlobalVariable *> globals_;
};

} // namespace

void emitLibrary(Module &m, const TargetInfo &target, const std::vector<VariantSymbols> &variants,
                 const std::string &moduleName) {
  LibraryEmitter(m).run(target, variants, moduleName);
}

} // namespace graft::codegen
