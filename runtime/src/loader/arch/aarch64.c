/* AArch64 relocations, instruction-cache maintenance and CPU features.
 *
 * The AArch64 ELF ABI (AAELF64) uses RELA only. Dynamic relocations in a
 * freestanding slice: R_AARCH64_RELATIVE (B + A) for absolute pointers in
 * .data.rel.ro, R_AARCH64_ABS64 (S + A) for pointers to default-visibility
 * symbols, and R_AARCH64_GLOB_DAT / R_AARCH64_JUMP_SLOT, which unlike x86_64
 * are S + A. Type numbers start at 257 (0 and 256 both mean NONE). lld's
 * default max page size here is 64 KiB, so segments are congruent for any
 * kernel page size. Arm does not keep the instruction cache coherent with
 * data writes: code copied into the image must be cleaned to the point of
 * unification and invalidated before it runs, which __builtin___clear_cache
 * does (DC CVAU + IC IVAU + barriers).
 * Spec: https://github.com/ARM-software/abi-aa/blob/main/aaelf64/aaelf64.rst
 * (section 5.7, Dynamic relocations).
 *
 * CPU features are not readable at EL0 portably; Linux reports them in
 * AT_HWCAP and AT_HWCAP2, bit numbers as in the
 * kernel's Documentation/arch/arm64/elf_hwcaps.rst. Word 0 follows IREE's
 * ARM_64 bits; graft's word holds NEON, CRC32 and RDM. */
#include "arch/arch.h"
#include "elf_format.h"
#include "platform/platform.h"

static const graft_elf_reloc_rule_t kRules[] = {
    {0, GRAFT_RELOC_NONE, "R_AARCH64_NONE"},
    {256, GRAFT_RELOC_NONE, "R_AARCH64_NONE"},
    {257, GRAFT_RELOC_SYMBOL, "R_AARCH64_ABS64"},
    {1025, GRAFT_RELOC_SYMBOL, "R_AARCH64_GLOB_DAT"},
    {1026, GRAFT_RELOC_SYMBOL, "R_AARCH64_JUMP_SLOT"},
    {1027, GRAFT_RELOC_RELATIVE, "R_AARCH64_RELATIVE"},
};

#define G GRAFT_CPU_DATA_GRAFT_FIELD
#define HW GRAFT_AT_HWCAP
#define HW2 GRAFT_AT_HWCAP2
static const graft_cpu_feature_t kFeatures[] = {
    {"fp-armv8", 0, 0, HW, 0},      /* HWCAP_FP */
    {"lse", 0, 1, HW, 8},           /* HWCAP_ATOMICS */
    {"lse128", 0, 2, 0, 0},        /* not reported by Linux */
    {"fullfp16", 0, 10, HW, 10},    /* HWCAP_ASIMDHP */
    {"fp16fml", 0, 11, HW, 23},     /* HWCAP_ASIMDFHM */
    {"dotprod", 0, 12, HW, 20},     /* HWCAP_ASIMDDP */
    {"i8mm", 0, 13, HW2, 13},        /* HWCAP2_I8MM */
    {"bf16", 0, 14, HW2, 14},        /* HWCAP2_BF16 */
    {"sve", 0, 20, HW, 22},         /* HWCAP_SVE */
    {"sve2", 0, 21, HW2, 1},         /* HWCAP2_SVE2 */
    {"sve2p1", 0, 22, HW2, 36},      /* HWCAP2_SVE2P1 */
    {"sve2-bitperm", 0, 23, HW2, 4}, /* HWCAP2_SVEBITPERM */
    {"f32mm", 0, 24, HW2, 10},       /* HWCAP2_SVEF32MM */
    {"f64mm", 0, 25, HW2, 11},       /* HWCAP2_SVEF64MM */
    {"sme", 0, 30, HW2, 23},         /* HWCAP2_SME */
    {"sme2", 0, 31, HW2, 37},        /* HWCAP2_SME2 */
    {"sme2p1", 0, 32, HW2, 38},      /* HWCAP2_SME2P1 */
    {"sme-f16f16", 0, 33, HW2, 42},  /* HWCAP2_SME_F16F16 */
    {"sme-f64f64", 0, 34, HW2, 25},  /* HWCAP2_SME_F64F64 */
    {"sme-i16i64", 0, 35, HW2, 24},  /* HWCAP2_SME_I16I64 */
    {"neon", G, 0, HW, 1},          /* HWCAP_ASIMD */
    {"crc", G, 1, HW, 7},           /* HWCAP_CRC32 */
    {"rdm", G, 2, HW, 12},          /* HWCAP_ASIMDRDM */
};
#define FEATURE_COUNT (sizeof(kFeatures) / sizeof(kFeatures[0]))

#if defined(__aarch64__)
static void aarch64_flush_icache(void* begin, void* end) {
  __builtin___clear_cache((char*)begin, (char*)end);
}

static void aarch64_detect_cpu(uint64_t fields[GRAFT_CPU_DATA_FIELD_COUNT]) {
  graft_platform_hwcaps_detect(kFeatures, FEATURE_COUNT, fields);
}
#define FLUSH_ICACHE aarch64_flush_icache
#define DETECT_CPU aarch64_detect_cpu
#else
#define FLUSH_ICACHE NULL
#define DETECT_CPU NULL
#endif

const graft_elf_arch_t graft_elf_arch_aarch64 = {
    .name = "aarch64",
    .machine = 183, /* EM_AARCH64 */
    .elf_class = GRAFT_ELFCLASS64,
    .reloc_format = GRAFT_ELF_RELA,
    .rules = kRules,
    .rule_count = sizeof(kRules) / sizeof(kRules[0]),
    .flush_icache = FLUSH_ICACHE,
    .cpu_features = kFeatures,
    .cpu_feature_count = FEATURE_COUNT,
    .detect_cpu = DETECT_CPU,
};
