/* RISC-V (RV64) relocations, instruction-cache maintenance and CPU features.
 *
 * The RISC-V psABI uses RELA only; one e_machine (EM_RISCV) covers RV32 and
 * RV64, told apart by EI_CLASS; this target is the ELFCLASS64 one. The
 * dynamic types a slice may carry: R_RISCV_RELATIVE (B + A), R_RISCV_64
 * (S + A) and R_RISCV_JUMP_SLOT (S; no addend). There is no GLOB_DAT: GOT
 * entries for preemptible symbols use R_RISCV_64. Instruction fetch is not
 * coherent with stores until a FENCE.I on every hart that may run the code;
 * __builtin___clear_cache becomes a call to __clear_cache (libgcc or
 * compiler-rt), which on Linux makes the riscv_flush_icache system call that
 * does that for all harts.
 * Spec: https://github.com/riscv-non-isa/riscv-elf-psabi-doc (riscv-elf.adoc,
 * Relocations).
 *
 * CPU features: Linux sets one AT_HWCAP bit per single-letter extension
 * (bit 'X' - 'A'); the vector sub-extensions are only in the
 * riscv_hwprobe system call's IMA_EXT_0 key (kernels before 6.4
 * and older qemu-user do not have it, and those bits then stay unknown).
 * Word 0 follows IREE's RISCV_64 bits; graft's word holds the base
 * extensions of rv64gc. */
#include "arch/arch.h"
#include "elf_format.h"
#include "platform/platform.h"

static const graft_elf_reloc_rule_t kRules[] = {
    {0, GRAFT_RELOC_NONE, "R_RISCV_NONE"},
    {2, GRAFT_RELOC_SYMBOL, "R_RISCV_64"},
    {3, GRAFT_RELOC_RELATIVE, "R_RISCV_RELATIVE"},
    {5, GRAFT_RELOC_SYMBOL_NO_ADDEND, "R_RISCV_JUMP_SLOT"},
};

#define G GRAFT_CPU_DATA_GRAFT_FIELD
#define LETTER(c) ((c) - 'a')
static const graft_cpu_feature_t kFeatures[] = {
    {"v", 0, 0, GRAFT_AT_HWCAP, LETTER('v')},
    {"zvfhmin", 0, 1, GRAFT_HWPROBE_IMA_EXT_0, 31},
    {"zvfh", 0, 2, GRAFT_HWPROBE_IMA_EXT_0, 30},
    {"zvfbfwma", 0, 3, GRAFT_HWPROBE_IMA_EXT_0, 54},
    {"m", G, 0, GRAFT_AT_HWCAP, LETTER('m')},
    {"a", G, 1, GRAFT_AT_HWCAP, LETTER('a')},
    {"f", G, 2, GRAFT_AT_HWCAP, LETTER('f')},
    {"d", G, 3, GRAFT_AT_HWCAP, LETTER('d')},
    {"c", G, 4, GRAFT_AT_HWCAP, LETTER('c')},
};
#define FEATURE_COUNT (sizeof(kFeatures) / sizeof(kFeatures[0]))

#if defined(__riscv) && __riscv_xlen == 64
static void riscv64_flush_icache(void* begin, void* end) {
  __builtin___clear_cache((char*)begin, (char*)end);
}

static void riscv64_detect_cpu(uint64_t fields[GRAFT_CPU_DATA_FIELD_COUNT]) {
  graft_platform_hwcaps_detect(kFeatures, FEATURE_COUNT, fields);
}
#define FLUSH_ICACHE riscv64_flush_icache
#define DETECT_CPU riscv64_detect_cpu
#else
#define FLUSH_ICACHE NULL
#define DETECT_CPU NULL
#endif

const graft_elf_arch_t graft_elf_arch_riscv64 = {
    .name = "riscv64",
    .machine = 243, /* EM_RISCV */
    .elf_class = GRAFT_ELFCLASS64,
    .reloc_format = GRAFT_ELF_RELA,
    .rules = kRules,
    .rule_count = sizeof(kRules) / sizeof(kRules[0]),
    .flush_icache = FLUSH_ICACHE,
    .cpu_features = kFeatures,
    .cpu_feature_count = FEATURE_COUNT,
    .detect_cpu = DETECT_CPU,
};
