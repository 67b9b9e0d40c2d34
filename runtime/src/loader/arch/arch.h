/* One instruction set as the loader sees it: its ELF identity, which
 * relocation types a slice may contain and what each computes, how to make
 * freshly written code visible to instruction fetch, and which CPU features
 * it can detect and where it reports them.
 *
 * Each ISA is one file in this folder that defines one graft_elf_arch_t
 * named graft_elf_arch_<name>, where <name> is the target's name in
 * targets/Targets.def; registry.c lists them from that file. Relocation
 * rules and feature tables are data, not switch statements. Every ISA's file
 * is compiled on every host (they are mostly data, and this lets one host's
 * tests exercise all of them); only the host's own file enables its
 * instruction-cache and CPU-detection code. */
#ifndef GRAFT_RUNTIME_LOADER_ARCH_ARCH_H_
#define GRAFT_RUNTIME_LOADER_ARCH_ARCH_H_

#include <stddef.h>
#include <stdint.h>

#include "graft/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a dynamic relocation writes into its word-sized slot. B is the load
 * base, S the defined symbol's address, A the addend: explicit in a RELA
 * entry, the slot's previous contents for REL. */
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

/* Which relocation table format the psABI uses. */
typedef enum graft_elf_reloc_format_e {
  GRAFT_ELF_RELA = 0, /* DT_RELA: explicit addends (x86_64, AArch64, RISC-V) */
  GRAFT_ELF_REL = 1,  /* DT_REL: addends stored in the slots (32-bit Arm) */
} graft_elf_reloc_format_t;

/*===----------------------------------------------------------------------===
 * CPU features
 *
 * The runtime reports the CPU's features as uint64_t words in IREE's
 * cpu_data layout (iree/schemas/cpu_data.h, cpu_feature_bits.inl): words
 * 0..7 carry exactly the bits IREE defines for the ISA, at IREE's
 * positions, so the words can be handed to IREE plugins as their
 * processor_data. Word 8 is graft's own, for features graft's levels need
 * that IREE assigns no bit (POPCNT, BMI2, the RISC-V base extensions, all of
 * 32-bit Arm); it is never part of what IREE code sees. Zero means unknown
 * or absent.
 *===----------------------------------------------------------------------===*/

#define GRAFT_CPU_DATA_IREE_FIELD_COUNT 8 /* IREE_CPU_DATA_FIELD_COUNT */
#define GRAFT_CPU_DATA_GRAFT_FIELD 8
#define GRAFT_CPU_DATA_FIELD_COUNT GRAFT_PROCESSOR_DATA_WORD_COUNT /* abi.h */

/* One feature an ISA can detect. |name| is the LLVM feature name, the
 * vocabulary targets/<arch>.cpp's feature levels use. |source| and
 * |source_bit| say how the ISA's file detects it (a cpuid register, an
 * AT_HWCAP word, ...); their meaning is private to that file. */
typedef struct graft_cpu_feature_t {
  const char* name;
  uint8_t field; /* cpu_data word */
  uint8_t bit;   /* bit in that word */
  uint16_t source;
  uint8_t source_bit;
} graft_cpu_feature_t;

typedef struct graft_elf_arch_t {
  const char* name;           /* "x86_64": the target's name */
  uint16_t machine;           /* e_machine */
  uint8_t elf_class;          /* GRAFT_ELFCLASS32 / GRAFT_ELFCLASS64 */
  graft_elf_reloc_format_t reloc_format;
  const graft_elf_reloc_rule_t* rules;
  size_t rule_count;
  /* Makes [begin, end) coherent between data and instruction caches after
   * it was written; NULL where the hardware keeps them coherent. */
  void (*flush_icache)(void* begin, void* end);
  const graft_cpu_feature_t* cpu_features;
  size_t cpu_feature_count;
  /* Sets the bits of the running CPU's features in |fields| (zeroed by
   * the caller). Non-NULL only in the descriptor of the ISA the runtime
   * was compiled for: that is how the registry finds the host. */
  void (*detect_cpu)(uint64_t fields[GRAFT_CPU_DATA_FIELD_COUNT]);
  /* Asks the OS for what code using |features| (LLVM names, |count| of
   * them) needs before it runs, where the CPU has them: detect_cpu reports
   * such a feature only once the OS granted it. Returns why the OS refused,
   * or NULL (granted, nothing to ask, or the CPU lacks the feature). NULL
   * where nothing needs asking. */
  const char* (*enable_features)(const char* const* features, uint32_t count);
} graft_elf_arch_t;

/* The registered ISAs, in the order of targets/Targets.def. */
size_t graft_elf_arch_count(void);
const graft_elf_arch_t* graft_elf_arch_at(size_t index);

/* The ISA with e_machine |machine|, or NULL when graft does not know it. */
const graft_elf_arch_t* graft_elf_arch_lookup(uint16_t machine);

/* The ISA this runtime was compiled for, or NULL when it is none of the
 * registered ones (such a runtime can list bundles but load no slice). */
const graft_elf_arch_t* graft_elf_arch_host(void);

/* The rule for |type|, or NULL when the ISA does not allow that type. */
const graft_elf_reloc_rule_t* graft_elf_arch_rule(const graft_elf_arch_t* arch,
                                                  uint32_t type);

/* The feature of |arch| with LLVM name |name|, or NULL. */
const graft_cpu_feature_t* graft_cpu_feature_lookup(
    const graft_elf_arch_t* arch, const char* name);

/* Sets |feature|'s bit in |fields|. */
void graft_cpu_feature_set(const graft_cpu_feature_t* feature,
                           uint64_t fields[GRAFT_CPU_DATA_FIELD_COUNT]);

/* True when |feature|'s bit is set in |fields|. */
int graft_cpu_feature_test(const graft_cpu_feature_t* feature,
                           const uint64_t fields[GRAFT_CPU_DATA_FIELD_COUNT]);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_LOADER_ARCH_ARCH_H_ */
