// Checks a linked slice against what graft's loader relies on (see
// Linker.h). The caller decides whose fault a violation is: the user's when
// the slice links code a user wrote, else graft's (an internal error).
#include <algorithm>
#include <cstdio>
#include <string>

#include "link/Linker.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/Error.h"

namespace graft {

namespace {

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string checkIdent(const TargetInfo &target,
                       const std::vector<uint8_t> &elf) {
  if (elf.size() < llvm::ELF::EI_NIDENT || elf[0] != 0x7f || elf[1] != 'E' ||
      elf[2] != 'L' || elf[3] != 'F')
    return "not an ELF file (" + std::to_string(elf.size()) + " bytes)";
  if (elf[llvm::ELF::EI_CLASS] != target.elfClass)
    return "ELF class " + std::to_string(elf[llvm::ELF::EI_CLASS]) +
           ", expected " + std::to_string(target.elfClass);
  if (elf[llvm::ELF::EI_DATA] != target.elfData)
    return "ELF data encoding " + std::to_string(elf[llvm::ELF::EI_DATA]) +
           ", expected " + std::to_string(target.elfData);
  return "";
}

// The checks, for the ELF layout (class and byte order) |ELFT| the target's
// slices have.
template <class ELFT>
std::string verifyLayout(const TargetInfo &target,
                         const std::vector<uint8_t> &elf,
                         const std::vector<std::string> &exported) {
  using Elf_Dyn = typename ELFT::Dyn;
  using Elf_Phdr = typename ELFT::Phdr;
  using Elf_Shdr = typename ELFT::Shdr;
  using Elf_Sym = typename ELFT::Sym;
  llvm::StringRef bytes(reinterpret_cast<const char *>(elf.data()), elf.size());
  auto fileOrErr = llvm::object::ELFFile<ELFT>::create(bytes);
  if (!fileOrErr)
    return "malformed ELF: " + llvm::toString(fileOrErr.takeError());
  const llvm::object::ELFFile<ELFT> &file = *fileOrErr;
  const auto &header = file.getHeader();
  if (header.e_type != llvm::ELF::ET_DYN)
    return "e_type is " + std::to_string(header.e_type) +
           ", expected ET_DYN (3)";
  if (header.e_machine != target.elfMachine)
    return "e_machine is " + std::to_string(header.e_machine) + ", expected " +
           std::to_string(target.elfMachine) + " (" + target.name + ")";

  auto phdrs = file.program_headers();
  if (!phdrs)
    return "malformed program headers: " + llvm::toString(phdrs.takeError());
  bool hasDynamic = false;
  for (const Elf_Phdr &ph : *phdrs) {
    if (ph.p_type == llvm::ELF::PT_INTERP)
      return "has a PT_INTERP segment (a freestanding slice has no "
             "interpreter)";
    if (ph.p_type == llvm::ELF::PT_DYNAMIC)
      hasDynamic = true;
    if (ph.p_type == llvm::ELF::PT_TLS)
      return "has a PT_TLS segment (slices have no thread-local storage)";
    if (ph.p_type == llvm::ELF::PT_LOAD && (ph.p_flags & llvm::ELF::PF_W) &&
        (ph.p_flags & llvm::ELF::PF_X))
      return "PT_LOAD segment at vaddr " + hex(ph.p_vaddr) +
             " is both writable and executable";
  }
  if (!hasDynamic)
    return "has no PT_DYNAMIC segment";

  auto dyn = file.dynamicEntries();
  if (!dyn)
    return "malformed dynamic section: " + llvm::toString(dyn.takeError());
  bool hasHash = false;
  for (const Elf_Dyn &d : *dyn) {
    switch (d.d_tag) {
    case llvm::ELF::DT_NEEDED:
      return "depends on a shared library (DT_NEEDED); slices must be "
             "self-contained";
    case llvm::ELF::DT_TEXTREL:
      return "has text relocations (DT_TEXTREL)";
    case llvm::ELF::DT_HASH:
      hasHash = true;
      break;
    default:
      break;
    }
  }
  if (!hasHash)
    return "has no SysV hash table (DT_HASH), which graft's loader needs";

  auto sections = file.sections();
  if (!sections)
    return "malformed section headers: " + llvm::toString(sections.takeError());
  const Elf_Shdr *dynsym = nullptr;
  for (const Elf_Shdr &sec : *sections)
    if (sec.sh_type == llvm::ELF::SHT_DYNSYM)
      dynsym = &sec;
  if (!dynsym)
    return "has no dynamic symbol table";
  auto syms = file.symbols(dynsym);
  auto strtab = file.getStringTableForSymtab(*dynsym);
  if (!syms || !strtab) {
    llvm::consumeError(syms.takeError());
    llvm::consumeError(strtab.takeError());
    return "malformed dynamic symbol table";
  }
  std::string names; // "graft_library_query" / "a, b"
  for (const std::string &e : exported)
    names += (names.empty() ? "" : ", ") + e;
  std::vector<bool> found(exported.size(), false);
  for (size_t i = 1; i < syms->size(); ++i) {
    const Elf_Sym &sym = (*syms)[i];
    auto name = sym.getName(*strtab);
    if (!name) {
      llvm::consumeError(name.takeError());
      return "dynamic symbol " + std::to_string(i) + " has a malformed name";
    }
    if (sym.st_shndx == llvm::ELF::SHN_UNDEF)
      return "has the undefined dynamic symbol '" + name->str() + "'";
    if (sym.getBinding() == llvm::ELF::STB_LOCAL)
      continue;
    auto it = std::find(exported.begin(), exported.end(), name->str());
    if (it == exported.end())
      return "exports '" + name->str() + "' besides " + names;
    if (sym.getType() != llvm::ELF::STT_FUNC)
      return *it + " is not a function (symbol type " +
             std::to_string(sym.getType()) + ")";
    found[it - exported.begin()] = true;
  }
  for (size_t i = 0; i < exported.size(); ++i)
    if (!found[i])
      return "does not export " + exported[i];
  return "";
}

} // namespace

std::string verifySlice(const TargetInfo &target,
                        const std::vector<uint8_t> &elf,
                        const std::vector<std::string> &exported) {
  std::string problem = checkIdent(target, elf);
  if (!problem.empty())
    return problem;
  const bool little = target.elfData == llvm::ELF::ELFDATA2LSB;
  if (target.elfClass == llvm::ELF::ELFCLASS32)
    return little ? verifyLayout<llvm::object::ELF32LE>(target, elf, exported)
                  : verifyLayout<llvm::object::ELF32BE>(target, elf, exported);
  return little ? verifyLayout<llvm::object::ELF64LE>(target, elf, exported)
                : verifyLayout<llvm::object::ELF64BE>(target, elf, exported);
}

} // namespace graft
