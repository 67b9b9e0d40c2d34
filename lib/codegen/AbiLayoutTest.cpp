// The LLVM struct types codegen builds from AbiFields.def must lay out every
// named field where abi.h puts it, on every target. The check compiles abi.h
// with clang for each target triple against static assertions generated
// from the table and the target's LLVM data layout: the offset and size of
// each named field and the size of each struct. A mismatch is an ABI break
// between compiler and runtime. Checking by name (not by position) is what
// catches two same-typed fields swapped in abi.h; the second test proves it
// on a copy of the header.
#include "codegen/AbiTypes.h"
#include "link/TargetMachine.h"
#include "targets/Target.h"

#include <gtest/gtest.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/LLVMContext.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace graft {
namespace {

namespace fs = std::filesystem;
using namespace llvm;

// C assertions that abi.h lays out every struct of the table as LLVM does
// for |t|.
std::string layoutAssertions(const TargetInfo &t) {
  std::string err;
  auto tm = createTargetMachine(t, err);
  EXPECT_TRUE(tm) << err;
  if (!tm)
    return "";
  DataLayout dl = tm->createDataLayout();
  LLVMContext c;
  std::ostringstream out;
  out << "#include <stddef.h>\n#include \"graft/abi.h\"\n";
  for (const codegen::AbiStructInfo &s : codegen::abiStructs(c)) {
    const StructLayout *sl = dl.getStructLayout(s.type);
    out << "_Static_assert(sizeof(" << s.cName << ") == " << sl->getSizeInBytes() << ", \""
        << s.cName << ": graft's table gives " << sl->getSizeInBytes() << " bytes\");\n";
    for (size_t i = 0; i < s.fields.size(); ++i) {
      std::string f = std::string(s.cName) + "." + s.fields[i];
      uint64_t off = sl->getElementOffset(static_cast<unsigned>(i));
      uint64_t size = dl.getTypeAllocSize(s.type->getElementType(static_cast<unsigned>(i)));
      out << "_Static_assert(offsetof(" << s.cName << ", " << s.fields[i] << ") == " << off
          << ", \"" << f << ": graft's table puts it at offset " << off << "\");\n";
      out << "_Static_assert(sizeof(((" << s.cName << " *)0)->" << s.fields[i] << ") == " << size
          << ", \"" << f << ": graft's table gives " << size << " bytes\");\n";
    }
  }
  return out.str();
}

struct ClangResult {
  bool ok;
  std::string output;
};

// Compiles the assertions for |t| against the abi.h under |includeDir|.
ClangResult checkHeader(const TargetInfo &t, const fs::path &includeDir, const fs::path &work) {
  fs::path src = work / (std::string("abi_layout_") + t.name + ".c");
  std::ofstream(src) << layoutAssertions(t);
  std::string cmd = std::string(GRAFT_CLANG_PATH) + " --target=" + t.triple +
                    " -std=c11 -ffreestanding -fsyntax-only -I" + includeDir.string() + " " +
                    src.string() + " 2>&1";
  ClangResult r{false, ""};
  FILE *p = popen(cmd.c_str(), "r");
  if (!p)
    return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
    r.output.append(buf.data(), n);
  r.ok = pclose(p) == 0;
  return r;
}

fs::path sourceDir() {
  const char *s = std::getenv("GRAFT_SOURCE_DIR");
  return s ? fs::path(s) : fs::path(GRAFT_SOURCE_DIR_DEFAULT);
}

fs::path workDir(const std::string &name) {
  fs::path d = fs::temp_directory_path() /
               ("graft_abi_layout_" + name + "_" + std::to_string(::getpid()));
  fs::create_directories(d / "graft");
  return d;
}

TEST(AbiLayout, TableMatchesHeaderOnEveryTarget) {
  fs::path work = workDir("ok");
  for (const TargetInfo *t : allTargets()) {
    ClangResult r = checkHeader(*t, sourceDir() / "runtime/include", work);
    EXPECT_TRUE(r.ok) << t->name << ":\n" << r.output;
  }
  fs::remove_all(work);
}

// Two same-typed fields of graft_dispatch_state_v1_t exchanged in a copy of
// abi.h: sizes and types all still agree, only the names moved, and the
// check must fail at the fields' names.
TEST(AbiLayout, SwappedSameTypedFieldsFail) {
  fs::path work = workDir("swap");
  std::ifstream in(sourceDir() / "runtime/include/graft/abi.h");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string h = ss.str();
  const std::string a = "  uint32_t constant_count;\n  uint32_t binding_count;\n";
  const std::string b = "  uint32_t binding_count;\n  uint32_t constant_count;\n";
  size_t at = h.find(a, h.find("typedef struct graft_dispatch_state_v1_t"));
  ASSERT_NE(at, std::string::npos) << "abi.h changed: update the fields this test swaps";
  h.replace(at, a.size(), b);
  std::ofstream(work / "graft/abi.h") << h;
  for (const TargetInfo *t : allTargets()) {
    ClangResult r = checkHeader(*t, work, work);
    EXPECT_FALSE(r.ok) << t->name;
    EXPECT_NE(r.output.find("graft_dispatch_state_v1_t.constant_count: graft's table puts it at "
                            "offset 12"),
              std::string::npos)
        << t->name << ":\n" << r.output;
    EXPECT_NE(r.output.find("graft_dispatch_state_v1_t.binding_count: graft's table puts it at "
                            "offset 16"),
              std::string::npos)
        << t->name << ":\n" << r.output;
  }
  fs::remove_all(work);
}

} // namespace
} // namespace graft
