#include "driver/LibraryInfo.h"

#include "codegen/AbiTypes.h"
#include "ir/IR.h"
#include "link/TargetMachine.h"

#include "graft/abi.h"

#include <llvm/IR/DataLayout.h>
#include <llvm/Object/ELF.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Target/TargetMachine.h>

#include <map>
#include <set>

namespace graft {

namespace {

using namespace llvm;

// The slice's memory image as far as its file says: allocated sections at
// their addresses, and the value of every relative relocation.
class Image {
public:
  bool load(const std::vector<uint8_t> &elf, std::string &error) {
    MemoryBufferRef buffer(
        StringRef(reinterpret_cast<const char *>(elf.data()), elf.size()),
        "slice");
    auto file = object::ObjectFile::createELFObjectFile(buffer);
    if (!file) {
      error = "not a readable ELF file: " + toString(file.takeError());
      return false;
    }
    auto *obj = cast<object::ELFObjectFileBase>(file->get());
    pointerSize_ = obj->getBytesInAddress();
    little_ = obj->isLittleEndian();
    uint32_t relative =
        object::getELFRelativeRelocationType(obj->getEMachine());
    for (const object::SectionRef &s : obj->sections()) {
      object::ELFSectionRef es(s);
      if ((es.getFlags() & ELF::SHF_ALLOC) && !s.isBSS() &&
          es.getType() != ELF::SHT_NOBITS) {
        Expected<StringRef> contents = s.getContents();
        if (!contents) {
          error = toString(contents.takeError());
          return false;
        }
        sections_.push_back({s.getAddress(), *contents});
      }
      if (es.getType() != ELF::SHT_RELA && es.getType() != ELF::SHT_REL)
        continue;
      // A dynamic relocation section's entries are read as if it relocated
      // a section; the offsets are addresses either way.
      for (const object::RelocationRef &r : s.relocations()) {
        if (r.getType() != relative)
          continue;
        object::ELFRelocationRef er(r);
        if (es.getType() == ELF::SHT_RELA) {
          Expected<int64_t> addend = er.getAddend();
          if (!addend) {
            error = toString(addend.takeError());
            return false;
          }
          relocated_[r.getOffset()] = static_cast<uint64_t>(*addend);
        } else {
          uint64_t inPlace = 0;
          if (readRaw(r.getOffset(), pointerSize_, inPlace))
            relocated_[r.getOffset()] = inPlace;
        }
      }
    }
    for (const object::ELFSymbolRef &sym : obj->getDynamicSymbolIterators()) {
      Expected<StringRef> name = sym.getName();
      Expected<uint32_t> flags = sym.getFlags();
      if (!name || !flags) {
        consumeError(name.takeError());
        consumeError(flags.takeError());
        continue;
      }
      if (!(*flags & object::SymbolRef::SF_Undefined))
        exports_.insert(name->str());
    }
    return true;
  }

  // Whether the slice's dynamic symbol table defines |name|.
  bool exports(const std::string &name) const { return exports_.count(name) != 0; }
  unsigned pointerSize() const { return pointerSize_; }
  const std::map<uint64_t, uint64_t> &relocated() const { return relocated_; }

  bool readRaw(uint64_t address, unsigned bytes, uint64_t &out) const {
    for (const auto &[base, data] : sections_) {
      if (address < base || address - base > data.size() ||
          data.size() - (address - base) < bytes)
        continue;
      const uint8_t *p =
          reinterpret_cast<const uint8_t *>(data.data()) + (address - base);
      out = 0;
      for (unsigned i = 0; i < bytes; ++i)
        out |= uint64_t(p[little_ ? i : bytes - 1 - i]) << (8 * i);
      return true;
    }
    return false;
  }
  bool readPointer(uint64_t address, uint64_t &out) const {
    auto it = relocated_.find(address);
    if (it != relocated_.end()) {
      out = it->second;
      return true;
    }
    return readRaw(address, pointerSize_, out);
  }
  bool readString(uint64_t address, std::string &out) const {
    out.clear();
    for (uint64_t c = 0; readRaw(address + out.size(), 1, c);) {
      if (c == 0)
        return true;
      out += static_cast<char>(c);
      if (out.size() > 4096)
        return false;
    }
    return false;
  }

private:
  std::vector<std::pair<uint64_t, StringRef>> sections_;
  std::set<std::string> exports_;
  std::map<uint64_t, uint64_t> relocated_;
  unsigned pointerSize_ = 8;
  bool little_ = true;
};

// Field offsets of one abi.h struct on the target, by field name.
template <class S> struct Layout {
  const StructLayout *layout;
  uint64_t size;
  uint64_t at(S field) const { return layout->getElementOffset(codegen::fieldIndex(field)); }
};
using codegen::abi::FunctionDesc;
using codegen::abi::Library;
using codegen::abi::ValueType;
using codegen::abi::Variant;

class Reader {
public:
  Reader(const Image &image, const DataLayout &dl, LLVMContext &c)
      : image_(image), library_{dl.getStructLayout(codegen::abiType<Library>(c)), 0},
        function_{dl.getStructLayout(codegen::abiType<FunctionDesc>(c)), 0},
        value_{dl.getStructLayout(codegen::abiType<ValueType>(c)), 0},
        variant_{dl.getStructLayout(codegen::abiType<Variant>(c)), 0} {
    function_.size = function_.layout->getSizeInBytes();
    value_.size = value_.layout->getSizeInBytes();
    variant_.size = variant_.layout->getSizeInBytes();
  }

  bool read(LibraryInfo &out, std::string &error) {
    uint64_t header = 0;
    if (!findHeader(header)) {
      error = "no graft library header found (not a graft slice?)";
      return false;
    }
    uint64_t version = 0, count = 0, functions = 0, name = 0, producer = 0;
    image_.readRaw(header + 4, 4, version);
    out.abiVersion = static_cast<uint32_t>(version);
    if (version != GRAFT_ABI_VERSION) {
      error = "graft ABI version " + std::to_string(version) +
              "; this tool reads version " + std::to_string(GRAFT_ABI_VERSION);
      return false;
    }
    if (!image_.readPointer(header + library_.at(Library::name), name) ||
        !image_.readString(name, out.name) ||
        !image_.readPointer(header + library_.at(Library::producer), producer) ||
        !image_.readString(producer, out.producer) ||
        !image_.readRaw(header + library_.at(Library::function_count), 4, count) ||
        !image_.readPointer(header + library_.at(Library::functions), functions)) {
      error = "the library header points outside the slice";
      return false;
    }
    for (uint64_t i = 0; i < count; ++i) {
      std::string signature;
      if (!readFunction(functions + i * function_.size, signature)) {
        error = "function " + std::to_string(i) +
                " of the library header points outside the slice";
        return false;
      }
      out.functions.push_back(signature);
    }
    uint64_t variantCount = 0, variants = 0;
    if (!image_.readRaw(header + library_.at(Library::variant_count), 4, variantCount) ||
        (variantCount && !image_.readPointer(header + library_.at(Library::variants), variants))) {
      error = "the library header's variant table points outside the slice";
      return false;
    }
    for (uint64_t i = 0; i < variantCount; ++i) {
      std::string line;
      if (!readVariant(variants + i * variant_.size, line)) {
        error = "ISA variant " + std::to_string(i) + " of the library header points outside "
                "the slice";
        return false;
      }
      out.variants.push_back(line);
    }
    return true;
  }

private:
  // The library magic followed by relocated name and producer pointers.
  bool findHeader(uint64_t &out) const {
    for (const auto &[address, value] : image_.relocated()) {
      (void)value;
      uint64_t header = address - library_.at(Library::name), magic = 0;
      if (address < library_.at(Library::name) ||
          !image_.relocated().count(header + library_.at(Library::producer)) ||
          !image_.readRaw(header, 4, magic) || magic != GRAFT_LIBRARY_MAGIC)
        continue;
      out = header;
      return true;
    }
    return false;
  }

  // "x86-64-v4: 1 dispatch(es), needs sse3 ... avx512vl"
  bool readVariant(uint64_t at, std::string &out) const {
    uint64_t level = 0, dispatches = 0, featureCount = 0, features = 0;
    if (!image_.readPointer(at + variant_.at(Variant::level), level) ||
        !image_.readString(level, out) ||
        !image_.readRaw(at + variant_.at(Variant::dispatch_count), 4, dispatches) ||
        !image_.readRaw(at + variant_.at(Variant::cpu_feature_count), 4, featureCount) ||
        (featureCount && !image_.readPointer(at + variant_.at(Variant::cpu_features), features)))
      return false;
    out += ": " + std::to_string(dispatches) + " dispatch(es)";
    for (uint64_t i = 0; i < featureCount; ++i) {
      uint64_t name = 0;
      std::string feature;
      if (!image_.readPointer(features + i * image_.pointerSize(), name) ||
          !image_.readString(name, feature))
        return false;
      out += (i ? " " : ", needs ") + feature;
    }
    return true;
  }

  bool readFunction(uint64_t at, std::string &out) const {
    uint64_t name = 0, args = 0, results = 0, argCount = 0, resultCount = 0;
    std::string fnName;
    if (!image_.readPointer(at + function_.at(FunctionDesc::name), name) ||
        !image_.readString(name, fnName) ||
        !image_.readRaw(at + function_.at(FunctionDesc::arg_count), 4, argCount) ||
        !image_.readRaw(at + function_.at(FunctionDesc::result_count), 4, resultCount) ||
        !image_.readPointer(at + function_.at(FunctionDesc::args), args) ||
        !image_.readPointer(at + function_.at(FunctionDesc::results), results))
      return false;
    out = fnName + "(";
    for (uint64_t i = 0; i < argCount; ++i) {
      std::string type;
      if (!readValueType(args + i * value_.size, type))
        return false;
      out += (i ? ", " : "") + type;
    }
    out += ") -> ";
    std::string list;
    for (uint64_t i = 0; i < resultCount; ++i) {
      std::string type;
      if (!readValueType(results + i * value_.size, type))
        return false;
      list += (i ? ", " : "") + type;
    }
    out += resultCount == 1 ? list : "(" + list + ")";
    return true;
  }

  // A graft_value_type_v1_t, printed as the runtime prints it (graft_value_type_format): "tensor<?x4xf32>", "f32".
  bool readValueType(uint64_t at, std::string &out) const {
    uint64_t dtype = 0, rank = 0, dims = 0;
    if (!image_.readRaw(at + value_.at(ValueType::dtype), 4, dtype) ||
        !image_.readRaw(at + value_.at(ValueType::rank), 4, rank) ||
        !image_.readPointer(at + value_.at(ValueType::dims), dims) || dtype == 0 ||
        dtype >= GRAFT_DTYPE_COUNT_ || rank > GRAFT_MAX_RANK)
      return false;
    std::string elem = dtypeName(static_cast<DType>(dtype));
    if (rank == 0) {
      out = elem;
      return true;
    }
    out = "tensor<";
    for (uint64_t d = 0; d < rank; ++d) {
      uint64_t dim = 0;
      if (!image_.readRaw(dims + 8 * d, 8, dim))
        return false;
      out += static_cast<int64_t>(dim) == GRAFT_DIM_DYNAMIC
                 ? "?"
                 : std::to_string(dim);
      out += "x";
    }
    out += elem + ">";
    return true;
  }

  const Image &image_;
  Layout<Library> library_;
  Layout<FunctionDesc> function_;
  Layout<ValueType> value_;
  Layout<Variant> variant_;
};

} // namespace

bool readLibraryInfo(const std::vector<uint8_t> &elf, const TargetInfo &target,
                     LibraryInfo &out, std::string &error) {
  Image image;
  if (!image.load(elf, error))
    return false;
  std::unique_ptr<TargetMachine> tm = createTargetMachine(target, error);
  if (!tm)
    return false;
  DataLayout dl = tm->createDataLayout();
  LLVMContext context;
  Reader reader(image, dl, context);
  out.sanitizeUndefined = image.exports(GRAFT_UBSAN_INSTALL_SYMBOL);
  return reader.read(out, error);
}

} // namespace graft
