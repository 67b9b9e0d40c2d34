// The registry's data is consistent: what a new target file must get right
// before anything else runs.
#include "Describe.h"
#include "Target.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <set>

namespace graft {
namespace {

TEST(Targets, NamesAndMachinesAreUnique) {
  std::set<std::string> names;
  std::set<uint16_t> machines;
  for (const TargetInfo *t : allTargets()) {
    EXPECT_TRUE(names.insert(t->name).second) << t->name;
    EXPECT_TRUE(machines.insert(t->elfMachine).second) << t->name;
    EXPECT_EQ(lookupTarget(t->name), t);
    EXPECT_EQ(lookupTargetByMachine(t->elfMachine), t);
  }
  EXPECT_EQ(lookupTarget("sparc"), nullptr);
}

TEST(Targets, ElfIdentityIsValid) {
  for (const TargetInfo *t : allTargets()) {
    EXPECT_TRUE(t->elfClass == 1 || t->elfClass == 2) << t->name;
    EXPECT_TRUE(t->elfData == 1 || t->elfData == 2) << t->name;
    EXPECT_EQ(t->pointerBits(), t->elfClass == 1 ? 32u : 64u) << t->name;
  }
}

TEST(Targets, AtMostOneIsTheHost) {
  int hosts = 0;
  for (const TargetInfo *t : allTargets())
    hosts += t->isHost;
  EXPECT_LE(hosts, 1);
#if defined(__x86_64__)
  ASSERT_NE(hostTarget(), nullptr);
  EXPECT_STREQ(hostTarget()->name, "x86_64");
#endif
}

// Every level has a unique name, implies only earlier levels of its target,
// and has a sane vector description; required features accumulate.
TEST(Targets, LevelsAreWellFormed) {
  for (const TargetInfo *t : allTargets()) {
    ASSERT_FALSE(t->levels.empty()) << t->name << " has no baseline level";
    EXPECT_TRUE(t->baseline().implies.empty()) << t->name;
    std::set<std::string> seen;
    for (const FeatureLevel &l : t->levels) {
      EXPECT_EQ(l.vectorBits % 8, 0u) << l.name;
      EXPECT_GT(l.vectorRegisters, 0u) << l.name;
      // Cache sizes a packed matmul's blocks can be cut from.
      EXPECT_GE(l.l1dBytes, 16u * 1024) << l.name;
      EXPECT_GT(l.l2Bytes, l.l1dBytes) << l.name;
      for (const char *implied : l.implies)
        EXPECT_TRUE(seen.count(implied)) << l.name << " implies '" << implied
                                         << "', which is not an earlier level of " << t->name;
      EXPECT_TRUE(seen.insert(l.name).second) << "two levels named " << l.name;
      EXPECT_EQ(lookupLevel(*t, l.name), &l);
      // A level needs at least what the levels it implies need.
      std::vector<std::string> mine = requiredCpuFeatures(*t, l);
      for (const char *implied : l.implies)
        for (const std::string &f : requiredCpuFeatures(*t, *lookupLevel(*t, implied)))
          EXPECT_NE(std::find(mine.begin(), mine.end(), f), mine.end())
              << l.name << " lacks " << f << " of " << implied;
    }
  }
}

TEST(Targets, FeatureStringsJoinLevelAndAbi) {
  const TargetInfo *a = lookupTarget("aarch64");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(llvmFeatureString(*a, a->baseline()),
            "+v8a,+neon,+fp-armv8,+reserve-x18,-outline-atomics");
  std::vector<std::string> flags = kernelClangFlags(*a, a->baseline());
  ASSERT_EQ(flags.size(), 3u);
  EXPECT_EQ(flags[0], "-march=armv8-a");
  EXPECT_EQ(flags[1], "-ffixed-x18");
}

TEST(Targets, FormatsParse) {
  TargetFormat f;
  EXPECT_TRUE(parseTargetFormat("tsv", f));
  EXPECT_EQ(f, TargetFormat::Tsv);
  EXPECT_TRUE(parseTargetFormat("cmake", f));
  EXPECT_TRUE(parseTargetFormat("human", f));
  EXPECT_FALSE(parseTargetFormat("json", f));
}

} // namespace
} // namespace graft
