// See Describe.h.
#include "Describe.h"

#include "Target.h"

namespace graft {

bool parseTargetFormat(const std::string &text, TargetFormat &out) {
  if (text == "human")
    out = TargetFormat::Human;
  else if (text == "tsv")
    out = TargetFormat::Tsv;
  else if (text == "cmake")
    out = TargetFormat::CMake;
  else
    return false;
  return true;
}

namespace {

template <typename Item> std::string join(const std::vector<Item> &items, const char *sep) {
  std::string s;
  for (const Item &i : items)
    s += (s.empty() ? "" : sep) + std::string(i);
  return s;
}

void printHuman(std::FILE *out) {
  for (const TargetInfo *t : allTargets()) {
    std::string runs = t->isHost ? "runs natively" : std::string("runs under ") + t->qemu;
    std::fprintf(out, "%-8s  %s, ELF%u, %s\n", t->name, t->triple, t->pointerBits(),
                 runs.c_str());
    for (const FeatureLevel &l : t->levels) {
      std::string vectors = l.vectorBits ? std::to_string(l.vectorBits) + "-bit vectors"
                                         : std::string("no vectors");
      std::fprintf(out, "  %-18s  %s x %u registers%s\n", l.name, vectors.c_str(),
                   l.vectorRegisters, &l == &t->baseline() ? " (baseline)" : "");
    }
  }
}

void printTsv(std::FILE *out) {
  std::fprintf(out, "#target\tname\thost\tqemu\tsysroot\tclang_triple\tkernel_flags\t"
                    "word_bits\te_machine\tbaseline\n"
                    "#level\ttarget\tname\tvector_bits\tvector_registers\tcpu_features\n"
                    "#qemu-cpu\ttarget\tmodel\tlevel\n");
  for (const TargetInfo *t : allTargets()) {
    std::fprintf(out, "target\t%s\t%d\t%s\t%s\t%s\t%s\t%u\t%u\t%s\n", t->name,
                 t->isHost ? 1 : 0, t->qemu, t->sysroot, t->clangTriple,
                 join(kernelClangFlags(*t, t->baseline()), " ").c_str(), t->pointerBits(),
                 t->elfMachine, t->baseline().name);
    for (const FeatureLevel &l : t->levels)
      std::fprintf(out, "level\t%s\t%s\t%u\t%u\t%s\n", t->name, l.name, l.vectorBits,
                   l.vectorRegisters, join(requiredCpuFeatures(*t, l), " ").c_str());
    for (const QemuCpu &c : t->qemuCpus)
      std::fprintf(out, "qemu-cpu\t%s\t%s\t%s\n", t->name, c.model, c.level);
  }
}

void printCMake(std::FILE *out) {
  std::vector<std::string> names;
  for (const TargetInfo *t : allTargets())
    names.push_back(t->name);
  std::fprintf(out, "set(GRAFT_TARGETS \"%s\")\n", join(names, ";").c_str());
  const TargetInfo *host = hostTarget();
  std::fprintf(out, "set(GRAFT_HOST_TARGET \"%s\")\n", host ? host->name : "");
  for (const TargetInfo *t : allTargets()) {
    auto field = [&](const char *key, const char *value) {
      std::fprintf(out, "set(GRAFT_TARGET_%s_%s \"%s\")\n", t->name, key, value);
    };
    field("QEMU", t->qemu);
    field("SYSROOT", t->sysroot);
    field("CROSS_CC", t->crossCC);
    field("PROCESSOR", t->cmakeProcessors.front());
    field("PROCESSORS", join(t->cmakeProcessors, ";").c_str());
    field("ALIASES", join(t->aliases, ";").c_str());
    field("CLANG_TRIPLE", t->clangTriple);
  }
}

} // namespace

void printTargets(std::FILE *out, TargetFormat format) {
  switch (format) {
  case TargetFormat::Human:
    printHuman(out);
    break;
  case TargetFormat::Tsv:
    printTsv(out);
    break;
  case TargetFormat::CMake:
    printCMake(out);
    break;
  }
}

} // namespace graft
