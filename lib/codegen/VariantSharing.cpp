// Which ISA variants share code (VariantSharing.h).
#include "codegen/VariantSharing.h"

#include "support/InternalError.h"

#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>

namespace graft::codegen {

namespace {

// Integers narrower than 32 bits (not i1), scalar or vector elements: what
// integer dot products and rounding multiplies work on.
bool narrowInteger(llvm::Type *t) {
  llvm::Type *s = t->getScalarType();
  return s->isIntegerTy() && s->getIntegerBitWidth() > 1 && s->getIntegerBitWidth() < 32;
}

bool hasKind(const std::string &kind, llvm::Instruction &inst) {
  if (kind == "atomics")
    return inst.isAtomic();
  if (kind == "narrow-integers")
    return narrowInteger(inst.getType()) ||
           std::any_of(inst.op_begin(), inst.op_end(),
                       [](const llvm::Use &u) { return narrowInteger(u->getType()); });
  if (kind == "target-intrinsics") {
    auto *call = llvm::dyn_cast<llvm::CallBase>(&inst);
    if (!call)
      return false;
    if (call->isInlineAsm())
      return true;
    llvm::Function *callee = call->getCalledFunction();
    return callee && callee->isTargetIntrinsic();
  }
  GRAFT_INTERNAL_ERROR("unknown kind of IR '" + kind + "' in a feature level's changesOnly");
}

} // namespace

bool knownIRKind(const std::string &kind) {
  return kind == "atomics" || kind == "narrow-integers" || kind == "target-intrinsics";
}

bool levelMayChangeCode(const FeatureLevel &level, const llvm::Module &m) {
  if (level.changesOnly.empty())
    return true;
  for (const llvm::Function &cf : m) {
    llvm::Function &f = const_cast<llvm::Function &>(cf);
    for (llvm::Instruction &inst : llvm::instructions(f))
      for (const char *kind : level.changesOnly)
        if (hasKind(kind, inst))
          return true;
  }
  return false;
}

bool levelImplies(const TargetInfo &target, const FeatureLevel &level, const FeatureLevel &lower) {
  for (const char *name : level.implies) {
    const FeatureLevel *l = lookupLevel(target, name);
    GRAFT_CHECK(l, std::string("level ") + level.name + " implies an unknown level " + name);
    if (l == &lower || levelImplies(target, *l, lower))
      return true;
  }
  return false;
}

// Bitcode, not text: the same module, written in a fifth of the time (the
// IR printer tracks the column of every character it writes).
std::string variantKey(const llvm::Module &m) {
  llvm::SmallVector<char, 0> buffer;
  llvm::BitcodeWriter writer(buffer);
  writer.writeModule(m);
  writer.writeStrtab();
  return std::string(buffer.begin(), buffer.end());
}

} // namespace graft::codegen
