/* The ISAs the loader knows, listed from targets/Targets.def (the one
 * registration of an architecture, shared with the compiler), and which one
 * the runtime itself runs on. */
#include <string.h>

#include "arch/arch.h"

#define GRAFT_TARGET(name) extern const graft_elf_arch_t graft_elf_arch_##name;
#include "targets/Targets.def"
#undef GRAFT_TARGET

static const graft_elf_arch_t* const kArchs[] = {
#define GRAFT_TARGET(name) &graft_elf_arch_##name,
#include "targets/Targets.def"
#undef GRAFT_TARGET
};

size_t graft_elf_arch_count(void) { return sizeof(kArchs) / sizeof(kArchs[0]); }

const graft_elf_arch_t* graft_elf_arch_at(size_t index) {
  return index < graft_elf_arch_count() ? kArchs[index] : NULL;
}

const graft_elf_arch_t* graft_elf_arch_lookup(uint16_t machine) {
  for (size_t i = 0; i < graft_elf_arch_count(); ++i) {
    if (kArchs[i]->machine == machine) return kArchs[i];
  }
  return NULL;
}

const graft_elf_arch_t* graft_elf_arch_host(void) {
  for (size_t i = 0; i < graft_elf_arch_count(); ++i) {
    if (kArchs[i]->detect_cpu) return kArchs[i];
  }
  return NULL;
}

const graft_elf_reloc_rule_t* graft_elf_arch_rule(const graft_elf_arch_t* arch,
                                                  uint32_t type) {
  for (size_t i = 0; i < arch->rule_count; ++i) {
    if (arch->rules[i].type == type) return &arch->rules[i];
  }
  return NULL;
}

const graft_cpu_feature_t* graft_cpu_feature_lookup(
    const graft_elf_arch_t* arch, const char* name) {
  for (size_t i = 0; i < arch->cpu_feature_count; ++i) {
    if (strcmp(arch->cpu_features[i].name, name) == 0) {
      return &arch->cpu_features[i];
    }
  }
  return NULL;
}

void graft_cpu_feature_set(const graft_cpu_feature_t* feature,
                           uint64_t fields[GRAFT_CPU_DATA_FIELD_COUNT]) {
  fields[feature->field] |= 1ull << feature->bit;
}

int graft_cpu_feature_test(const graft_cpu_feature_t* feature,
                           const uint64_t fields[GRAFT_CPU_DATA_FIELD_COUNT]) {
  return (int)((fields[feature->field] >> feature->bit) & 1u);
}
