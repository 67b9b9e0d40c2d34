// The builtins objects embedded in graft are the bytes emitBuiltinsObject
// writes today, for every target (so bundles do not depend on which one a
// build used), and writeBuiltinsObject reports a path it cannot write.
#include "link/PrebuiltBuiltins.h"

#include <fstream>
#include <iterator>

#include "link/Builtins.h"
#include "link/TestUtil.h"

namespace graft {
namespace {

using test::ScratchDir;

std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(PrebuiltBuiltins, SameBytesAsEmittedForEveryTarget) {
  for (const TargetInfo *target : allTargets()) {
    size_t size = 0;
    const unsigned char *bytes = prebuiltBuiltinsObject(*target, size);
    ASSERT_NE(bytes, nullptr) << target->name << " has no prebuilt builtins";
    ScratchDir dir;
    SourceManager sm;
    DiagEngine diag(sm);
    diag.setEcho(false);
    ASSERT_TRUE(emitBuiltinsObject(*target, dir.file("emitted.o"), diag)) << diag.text();
    ASSERT_TRUE(writeBuiltinsObject(*target, dir.file("written.o"), diag)) << diag.text();
    std::string emitted = readBytes(dir.file("emitted.o"));
    EXPECT_EQ(std::string(reinterpret_cast<const char *>(bytes), size), emitted)
        << target->name;
    EXPECT_EQ(readBytes(dir.file("written.o")), emitted) << target->name;
  }
}

TEST(PrebuiltBuiltins, BadOutputPathIsReported) {
  SourceManager sm;
  DiagEngine diag(sm);
  diag.setEcho(false);
  EXPECT_FALSE(writeBuiltinsObject(*lookupTarget("x86_64"), "/nonexistent/dir/b.o", diag));
  EXPECT_EQ(diag.text().rfind("/nonexistent/dir/b.o: error: cannot open for writing: ", 0), 0u)
      << diag.text();
}

} // namespace
} // namespace graft
