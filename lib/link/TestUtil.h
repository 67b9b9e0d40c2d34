// Helpers shared by the link unit tests: a scratch directory and compiling
// small C sources with clang for a graft target.
#pragma once

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "targets/Target.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"

namespace graft::test {

// A fresh directory, removed with its contents at the end of the test.
class ScratchDir {
public:
  ScratchDir() {
    llvm::SmallString<128> p;
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("graft-link-test", p));
    path_ = std::string(p);
  }
  ~ScratchDir() { llvm::sys::fs::remove_directories(path_); }
  const std::string &path() const { return path_; }
  std::string file(const std::string &name) const { return path_ + "/" + name; }

private:
  std::string path_;
};

inline void writeText(const std::string &path, const std::string &text) {
  std::ofstream(path) << text;
}

// Runs a program, returns its exit code (-1 when it could not start);
// |output| receives stdout+stderr.
inline int run(const std::vector<std::string> &args, const std::string &logPath,
               std::string &output) {
  std::vector<llvm::StringRef> argv(args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {
      std::nullopt, llvm::StringRef(logPath), llvm::StringRef(logPath)};
  std::string err;
  int rc = llvm::sys::ExecuteAndWait(args[0], argv, std::nullopt, redirects, 0,
                                     0, &err);
  std::ifstream in(logPath);
  output.assign(std::istreambuf_iterator<char>(in),
                std::istreambuf_iterator<char>());
  output += err;
  return rc;
}

// Compiles |source| (C) to an object for |target| the way graft compiles
// user kernels: freestanding, position independent.
inline bool compileC(const TargetInfo &target, const std::string &source,
                     const std::string &dir, const std::string &name,
                     std::string &obj, const std::vector<std::string> &extraFlags = {}) {
  std::string src = dir + "/" + name + ".c";
  obj = dir + "/" + name + "." + target.name + ".o";
  writeText(src, source);
  std::vector<std::string> args = {GRAFT_TEST_CLANG,
                                   "--target=" +
                                       std::string(target.clangTriple),
                                   "-O2",
                                   "-fPIC",
                                   "-ffreestanding",
                                   "-fno-builtin",
                                   "-c",
                                   src,
                                   "-o",
                                   obj};
  for (const std::string &f : kernelClangFlags(target, target.baseline()))
    args.push_back(f);
  args.insert(args.end(), extraFlags.begin(), extraFlags.end());
  std::string output;
  int rc = run(args, dir + "/clang.log", output);
  EXPECT_EQ(rc, 0) << "clang failed for " << target.name << ":\n" << output;
  return rc == 0;
}

} // namespace graft::test
