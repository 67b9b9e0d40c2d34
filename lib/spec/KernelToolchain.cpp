// See KernelToolchain.h.
#include "spec/KernelToolchain.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>

#include <cstdlib>

namespace graft {

namespace {

std::string env(const char *name) {
  const char *v = std::getenv(name);
  return v ? v : "";
}

// The directory of the running graft binary ("" if it cannot be told).
std::string binaryDir() {
  static int anchor;
  std::string exe = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  return exe.empty() ? "" : std::string(llvm::sys::path::parent_path(exe));
}

bool findClang(const std::string &dir, std::string &out, std::string &error) {
  if (std::string e = env("GRAFT_CLANG"); !e.empty()) {
    // A bare name is looked up on PATH, like a command.
    if (e.find('/') == std::string::npos) {
      if (auto found = llvm::sys::findProgramByName(e)) {
        out = *found;
        return true;
      }
      error = "GRAFT_CLANG is '" + e + "', which is not found on PATH";
      return false;
    }
    if (!llvm::sys::fs::can_execute(e)) {
      error = "GRAFT_CLANG is '" + e + "', which is not an executable file";
      return false;
    }
    out = e;
    return true;
  }
  for (const char *name : {"clang-19", "clang"}) {
    llvm::SmallString<256> p(dir);
    llvm::sys::path::append(p, name);
    if (!dir.empty() && llvm::sys::fs::can_execute(p)) {
      out = std::string(p);
      return true;
    }
  }
  if (auto found = llvm::sys::findProgramByName("clang-19")) {
    out = *found;
    return true;
  }
  error = "cannot find clang 19 to compile C kernels (looked for clang-19 and clang in " +
          (dir.empty() ? std::string("graft's directory") : dir) +
          ", then clang-19 on PATH); set GRAFT_CLANG to its path";
  return false;
}

bool findIncludeDir(const std::string &dir, std::string &out, std::string &error) {
  auto hasKernelHeader = [](const std::string &d) {
    llvm::SmallString<256> probe(d);
    llvm::sys::path::append(probe, "graft", "kernel.h");
    return llvm::sys::fs::exists(probe);
  };
  if (std::string e = env("GRAFT_INCLUDE_DIR"); !e.empty()) {
    if (!hasKernelHeader(e)) {
      error = "GRAFT_INCLUDE_DIR is '" + e + "', which has no graft/kernel.h";
      return false;
    }
    out = e;
    return true;
  }
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, "..", "include");
  llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
  if (!dir.empty() && hasKernelHeader(std::string(p))) {
    out = std::string(p);
    return true;
  }
  error = "cannot find graft's kernel headers: " + std::string(p) +
          "/graft/kernel.h does not exist (graft looks in ../include next to its "
          "binary); set GRAFT_INCLUDE_DIR to the directory holding graft/kernel.h";
  return false;
}

} // namespace

bool findKernelToolchain(KernelToolchain &out, std::string &error) {
  std::string dir = binaryDir();
  return findClang(dir, out.clang, error) && findIncludeDir(dir, out.includeDir, error);
}

} // namespace graft
