/* The ISAs the loader knows, and which one the runtime itself runs on.
 * Every ISA's relocation rules are compiled on every host: they are plain
 * data, and this lets one host's tests exercise all of them. */
#include "arch/arch.h"

#include "elf_format.h"

static const graft_elf_arch_t* const kArchs[] = {
    &graft_elf_arch_x86_64,
    &graft_elf_arch_aarch64,
    &graft_elf_arch_riscv64,
};

const graft_elf_arch_t* graft_elf_arch_lookup(uint16_t machine) {
  for (size_t i = 0; i < sizeof(kArchs) / sizeof(kArchs[0]); ++i) {
    if (kArchs[i]->machine == machine) return kArchs[i];
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

uint16_t graft_elf_host_machine(void) {
#if defined(__x86_64__)
  return GRAFT_EM_X86_64;
#elif defined(__aarch64__)
  return GRAFT_EM_AARCH64;
#elif defined(__riscv) && __riscv_xlen == 64
  return GRAFT_EM_RISCV;
#else
  return 0;
#endif
}
