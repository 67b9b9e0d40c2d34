/* 32-bit Arm relocations, instruction-cache maintenance and CPU features.
 *
 * The Arm ELF ABI (AAELF32) uses REL: the addend is the word already in the
 * relocated slot. Dynamic relocations in a freestanding slice:
 * R_ARM_RELATIVE (B + A), R_ARM_ABS32 (S + A), and R_ARM_GLOB_DAT /
 * R_ARM_JUMP_SLOT, which are S: their slots hold lld's placeholders (the
 * PLT header's address for JUMP_SLOT), not addends, and are overwritten,
 * as glibc does. Instruction fetch is not coherent with data writes:
 * __builtin___clear_cache makes the kernel's cacheflush system call.
 * Spec: https://github.com/ARM-software/abi-aa/blob/main/aaelf32/aaelf32.rst
 * (section 5.6, Relocation types).
 *
 * CPU features: Linux reports them in AT_HWCAP and AT_HWCAP2 (the kernel's
 * arch/arm/include/uapi/asm/hwcap.h). IREE defines no bits for 32-bit Arm,
 * so all of them are in graft's word. */
#include "arch/arch.h"
#include "elf_format.h"
#include "platform/platform.h"

static const graft_elf_reloc_rule_t kRules[] = {
    {0, GRAFT_RELOC_NONE, "R_ARM_NONE"},
    {2, GRAFT_RELOC_SYMBOL, "R_ARM_ABS32"},
    {21, GRAFT_RELOC_SYMBOL_NO_ADDEND, "R_ARM_GLOB_DAT"},
    {22, GRAFT_RELOC_SYMBOL_NO_ADDEND, "R_ARM_JUMP_SLOT"},
    {23, GRAFT_RELOC_RELATIVE, "R_ARM_RELATIVE"},
};

#define G GRAFT_CPU_DATA_GRAFT_FIELD
#define HW GRAFT_AT_HWCAP
#define HW2 GRAFT_AT_HWCAP2
static const graft_cpu_feature_t kFeatures[] = {
    {"neon", G, 0, HW, 12},      /* HWCAP_NEON */
    {"vfp3", G, 1, HW, 13},      /* HWCAP_VFPv3 */
    {"d32", G, 2, HW, 19},       /* HWCAP_VFPD32 */
    {"vfp4", G, 3, HW, 16},      /* HWCAP_VFPv4 */
    {"hwdiv-arm", G, 4, HW, 17}, /* HWCAP_IDIVA */
    {"hwdiv", G, 5, HW, 18},     /* HWCAP_IDIVT */
    {"fp16", G, 6, HW, 1},       /* HWCAP_HALF */
    {"aes", G, 7, HW2, 0},       /* HWCAP2_AES */
    {"sha2", G, 8, HW2, 3},      /* HWCAP2_SHA2 */
    {"crc", G, 9, HW2, 4},       /* HWCAP2_CRC32 */
};
#define FEATURE_COUNT (sizeof(kFeatures) / sizeof(kFeatures[0]))

#if defined(__arm__)
static void arm_flush_icache(void* begin, void* end) {
  __builtin___clear_cache((char*)begin, (char*)end);
}

static void arm_detect_cpu(uint64_t fields[GRAFT_CPU_DATA_FIELD_COUNT]) {
  graft_platform_hwcaps_detect(kFeatures, FEATURE_COUNT, fields);
}
#define FLUSH_ICACHE arm_flush_icache
#define DETECT_CPU arm_detect_cpu
#else
#define FLUSH_ICACHE NULL
#define DETECT_CPU NULL
#endif

const graft_elf_arch_t graft_elf_arch_arm = {
    .name = "arm",
    .machine = 40, /* EM_ARM */
    .elf_class = GRAFT_ELFCLASS32,
    .reloc_format = GRAFT_ELF_REL,
    .rules = kRules,
    .rule_count = sizeof(kRules) / sizeof(kRules[0]),
    .flush_icache = FLUSH_ICACHE,
    .cpu_features = kFeatures,
    .cpu_feature_count = FEATURE_COUNT,
    .detect_cpu = DETECT_CPU,
};
