// Unit tests of depfile reading (clang's -MD output) and writing (-MP rules).
#include "support/Depfile.h"

#include <gtest/gtest.h>

namespace graft {
namespace {

using Paths = std::vector<std::string>;

TEST(Depfile, ReadsClangOutput) {
  std::string text = "/w/k.bc: /s/k.c /s/inc/k.h \\\n"
                     "  /usr/lib/llvm-19/lib/clang/19/include/stdint.h \\\n"
                     "  /s/inc/k.h\n";
  EXPECT_EQ(parseDepfilePrerequisites(text),
            (Paths{"/s/k.c", "/s/inc/k.h", "/usr/lib/llvm-19/lib/clang/19/include/stdint.h"}));
}

TEST(Depfile, Escapes) {
  std::string text = "out\\ file.o: my\\ dir/a.c cost$$.h hash\\#.h back\\slash.h\r\n";
  EXPECT_EQ(parseDepfilePrerequisites(text),
            (Paths{"my dir/a.c", "cost$.h", "hash#.h", "back\\slash.h"}));
}

TEST(Depfile, SeveralTargetsAndPhonyRules) {
  std::string text = "a.o b.o : x.h y.h\n\nx.h:\n\ny.h:\n";
  EXPECT_EQ(parseDepfilePrerequisites(text), (Paths{"x.h", "y.h"}));
}

TEST(Depfile, WritesOneRuleAndPhonyTargets) {
  EXPECT_EQ(formatDepfile("out dir/b.graft", {"g.graph", "k$.h"}),
            "out\\ dir/b.graft: \\\n  g.graph \\\n  k$$.h\n\ng.graph:\n\nk$$.h:\n");
}

TEST(Depfile, RoundTrip) {
  Paths in = {"/a b/c.h", "d#e.c", "$x.yaml"};
  EXPECT_EQ(parseDepfilePrerequisites(formatDepfile("o", in)), in);
}

} // namespace
} // namespace graft
