/* One instruction set as the loader sees it: which relocation types a slice
 * may contain and what each computes, and how to make freshly written code
 * visible to instruction fetch.
 *
 * Each ISA is one file in this folder that defines one graft_elf_arch_t;
 * registry.c lists them. Relocation rules are data, not switch statements, so
 * adding an ISA is adding a file and a registry line. */
#ifndef GRAFT_RUNTIME_LOADER_ARCH_ARCH_H_
#define GRAFT_RUNTIME_LOADER_ARCH_ARCH_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a dynamic relocation writes into its 64-bit slot. B is the load base,
 * S the defined symbol's address, A the explicit addend. */
typedef enum graft_elf_reloc_kind_e {
  GRAFT_RELOC_NONE = 0,     /* nothing */
  GRAFT_RELOC_RELATIVE = 1, /* B + A */
  GRAFT_RELOC_SYMBOL = 2,   /* S + A */
  GRAFT_RELOC_SYMBOL_NO_ADDEND = 3, /* S (the psABI ignores A) */
} graft_elf_reloc_kind_t;

typedef struct graft_elf_reloc_rule_t {
  uint32_t type;              /* r_type */
  graft_elf_reloc_kind_t kind;
  const char* name;           /* "R_X86_64_RELATIVE", for diagnostics */
} graft_elf_reloc_rule_t;

typedef struct graft_elf_arch_t {
  uint16_t machine;           /* e_machine */
  const char* name;           /* "x86_64" */
  const graft_elf_reloc_rule_t* rules;
  size_t rule_count;
  /* Makes [begin, end) coherent between data and instruction caches after
   * it was written; NULL where the hardware keeps them coherent. */
  void (*flush_icache)(void* begin, void* end);
} graft_elf_arch_t;

extern const graft_elf_arch_t graft_elf_arch_x86_64;
extern const graft_elf_arch_t graft_elf_arch_aarch64;
extern const graft_elf_arch_t graft_elf_arch_riscv64;

/* The ISA with e_machine |machine|, or NULL when graft does not know it. */
const graft_elf_arch_t* graft_elf_arch_lookup(uint16_t machine);

/* The rule for |type|, or NULL when the ISA does not allow that type. */
const graft_elf_reloc_rule_t* graft_elf_arch_rule(const graft_elf_arch_t* arch,
                                                  uint32_t type);

/* e_machine of the CPU this runtime was compiled for (0 if unknown). */
uint16_t graft_elf_host_machine(void);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_LOADER_ARCH_ARCH_H_ */
