/* x86_64 relocations and CPU features.
 *
 * The x86-64 psABI uses RELA only. A position-independent slice linked with
 * -z now and hidden visibility needs almost nothing at load time: lld
 * resolves every internal reference PC-relatively and leaves one
 * R_X86_64_RELATIVE (B + A) per absolute pointer in .data.rel.ro. The
 * symbolic types appear only for default-visibility symbols: R_X86_64_64 is
 * S + A, while R_X86_64_GLOB_DAT and R_X86_64_JUMP_SLOT are S and the psABI
 * gives them no addend (lld writes 0; we ignore whatever is there, like
 * glibc). x86 keeps instruction and data caches coherent, so no flush.
 * Spec: https://gitlab.com/x86-psABIs/x86-64-ABI (section 4.4, Relocation).
 *
 * CPU features come from cpuid. A vector extension is usable only when the
 * OS saves its register state on context switches: XGETBV(0) must show
 * the SSE and AVX state (YMM) for AVX, AVX2, FMA, F16C, FMA4 and XOP, also
 * the opmask and ZMM state for AVX-512, and the tile state for AMX. Linux
 * also hands the tile data state to a process only on request
 * (arch_prctl(ARCH_REQ_XCOMP_PERM), Documentation/arch/x86/xstate.rst):
 * until then the first tile instruction faults. AMX counts as detected
 * once the process has it; the request is made only when a variant that
 * needs AMX is about to be chosen (enable_features): granted, it is
 * process-wide and lasts for the process, whose signal frames grow by the
 * 8 KiB of tile data (an alternate signal stack of SIGSTKSZ no longer
 * fits), so a process that never runs AMX code never asks; refused, the
 * next lower variant runs. Bits 0..63 of word 0 are IREE's; graft's word holds the baseline
 * features IREE does not name (POPCNT, CMPXCHG16B, LAHF, BMI, ...).
 * Intel SDM vol. 2A, CPUID, tables 3-8 and 3-10. */
#include <string.h>

#include "arch/arch.h"
#include "elf_format.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif
#if defined(__x86_64__) && defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

static const graft_elf_reloc_rule_t kRules[] = {
    {0, GRAFT_RELOC_NONE, "R_X86_64_NONE"},
    {1, GRAFT_RELOC_SYMBOL, "R_X86_64_64"},
    {6, GRAFT_RELOC_SYMBOL_NO_ADDEND, "R_X86_64_GLOB_DAT"},
    {7, GRAFT_RELOC_SYMBOL_NO_ADDEND, "R_X86_64_JUMP_SLOT"},
    {8, GRAFT_RELOC_RELATIVE, "R_X86_64_RELATIVE"},
};

/* A feature's source: the cpuid register that reports it, and the register
 * state the OS must enable for it to be usable. */
enum {
  LEAF1_ECX,   /* cpuid(1).ecx */
  LEAF7_EBX,   /* cpuid(7, 0).ebx */
  LEAF7_ECX,   /* cpuid(7, 0).ecx */
  LEAF7_EDX,   /* cpuid(7, 0).edx */
  LEAF7_1_EAX, /* cpuid(7, 1).eax */
  EXT1_ECX,    /* cpuid(0x80000001).ecx */
  REGISTER_COUNT,
  NEEDS_YMM = 0x100,
  NEEDS_ZMM = 0x200,
  NEEDS_AMX = 0x400,
};
#define G GRAFT_CPU_DATA_GRAFT_FIELD

static const graft_cpu_feature_t kFeatures[] = {
    {"sse3", 0, 0, LEAF1_ECX, 0},
    {"ssse3", 0, 1, LEAF1_ECX, 9},
    {"sse4.1", 0, 2, LEAF1_ECX, 19},
    {"sse4.2", 0, 3, LEAF1_ECX, 20},
    {"sse4a", 0, 4, EXT1_ECX, 6},
    {"avx", 0, 10, LEAF1_ECX | NEEDS_YMM, 28},
    {"fma", 0, 11, LEAF1_ECX | NEEDS_YMM, 12},
    {"fma4", 0, 12, EXT1_ECX | NEEDS_YMM, 16},
    {"xop", 0, 13, EXT1_ECX | NEEDS_YMM, 11},
    {"f16c", 0, 14, LEAF1_ECX | NEEDS_YMM, 29},
    {"avx2", 0, 15, LEAF7_EBX | NEEDS_YMM, 5},
    {"avx512f", 0, 20, LEAF7_EBX | NEEDS_ZMM, 16},
    {"avx512cd", 0, 21, LEAF7_EBX | NEEDS_ZMM, 28},
    {"avx512vl", 0, 22, LEAF7_EBX | NEEDS_ZMM, 31},
    {"avx512dq", 0, 23, LEAF7_EBX | NEEDS_ZMM, 17},
    {"avx512bw", 0, 24, LEAF7_EBX | NEEDS_ZMM, 30},
    {"avx512ifma", 0, 25, LEAF7_EBX | NEEDS_ZMM, 21},
    {"avx512vbmi", 0, 26, LEAF7_ECX | NEEDS_ZMM, 1},
    {"avx512vpopcntdq", 0, 27, LEAF7_ECX | NEEDS_ZMM, 14},
    {"avx512vnni", 0, 28, LEAF7_ECX | NEEDS_ZMM, 11},
    {"avx512vbmi2", 0, 29, LEAF7_ECX | NEEDS_ZMM, 6},
    {"avx512bitalg", 0, 30, LEAF7_ECX | NEEDS_ZMM, 12},
    {"avx512bf16", 0, 31, LEAF7_1_EAX | NEEDS_ZMM, 5},
    {"avx512fp16", 0, 32, LEAF7_EDX | NEEDS_ZMM, 23},
    {"amx-tile", 0, 50, LEAF7_EDX | NEEDS_AMX, 24},
    {"amx-int8", 0, 51, LEAF7_EDX | NEEDS_AMX, 25},
    {"amx-bf16", 0, 52, LEAF7_EDX | NEEDS_AMX, 22},
    {"popcnt", G, 0, LEAF1_ECX, 23},
    {"cx16", G, 1, LEAF1_ECX, 13},
    {"sahf", G, 2, EXT1_ECX, 0},
    {"bmi", G, 3, LEAF7_EBX, 3},
    {"bmi2", G, 4, LEAF7_EBX, 8},
    {"lzcnt", G, 5, EXT1_ECX, 5},
    {"movbe", G, 6, LEAF1_ECX, 22},
    {"xsave", G, 7, LEAF1_ECX, 26},
    {"avxvnni", G, 8, LEAF7_1_EAX | NEEDS_YMM, 4},
};

#if defined(__x86_64__)
/* cpuid(leaf, subleaf), or zeros when the CPU does not have that leaf. */
static void cpuid(unsigned leaf, unsigned subleaf, unsigned regs[4]) {
  regs[0] = regs[1] = regs[2] = regs[3] = 0;
  unsigned max = __get_cpuid_max(leaf & 0x80000000u, 0);
  if (leaf > max) return;
  __cpuid_count(leaf, subleaf, regs[0], regs[1], regs[2], regs[3]);
}

enum { ARCH_GET_XCOMP_PERM = 0x1022, ARCH_REQ_XCOMP_PERM = 0x1023, XFEATURE_XTILEDATA = 18 };

/* Whether this process may use the AMX tile data state: granted (Linux,
 * asked for or not: |request|); elsewhere the XCR0 bits say it all. */
static int amx_granted(int request) {
#if defined(__linux__)
  unsigned long granted = 0;
  if (syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &granted) == 0 &&
      (granted >> XFEATURE_XTILEDATA) & 1u) {
    return 1;
  }
  return request &&
         syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0;
#else
  (void)request;
  return 1;
#endif
}

/* XCR0: the register state the OS saves (XGETBV needs OSXSAVE, cpuid(1)
 * ecx bit 27). */
static uint64_t xcr0_of(unsigned leaf1_ecx) {
  if (!(leaf1_ecx & (1u << 27))) return 0;
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t)hi << 32 | lo;
}

static void x86_64_detect_cpu(uint64_t fields[GRAFT_CPU_DATA_FIELD_COUNT]) {
  unsigned leaf1[4], leaf7[4], leaf7_1[4], ext1[4];
  cpuid(1, 0, leaf1);
  cpuid(7, 0, leaf7);
  cpuid(7, 1, leaf7_1);
  cpuid(0x80000001u, 0, ext1);
  const unsigned regs[REGISTER_COUNT] = {leaf1[2], leaf7[1], leaf7[2],
                                         leaf7[3], leaf7_1[0], ext1[2]};
  const uint64_t xcr0 = xcr0_of(leaf1[2]);
  const int ymm = (xcr0 & 0x6) == 0x6;
  const int zmm = ymm && (xcr0 & 0xe0) == 0xe0;
  /* (AMX only once this process was granted its state: a kernel reading
   * processor data may then use the tiles.) */
  const int amx = (xcr0 & 0x60000) == 0x60000 && amx_granted(0);
  for (size_t i = 0; i < sizeof(kFeatures) / sizeof(kFeatures[0]); ++i) {
    const graft_cpu_feature_t* f = &kFeatures[i];
    if (((f->source & NEEDS_YMM) && !ymm) || ((f->source & NEEDS_ZMM) && !zmm) ||
        ((f->source & NEEDS_AMX) && !amx)) {
      continue;
    }
    if ((regs[f->source & 0xff] >> f->source_bit) & 1u) {
      graft_cpu_feature_set(f, fields);
    }
  }
}
/* AMX's tile state, asked of the kernel when code that needs it is about
 * to be chosen, where the CPU has AMX and the OS saves its state. */
static const char* x86_64_enable_features(const char* const* features,
                                          uint32_t count) {
  int amx = 0;
  for (uint32_t i = 0; i < count; ++i) {
    amx |= strncmp(features[i], "amx-", 4) == 0;
  }
  unsigned leaf1[4], leaf7[4];
  cpuid(1, 0, leaf1);
  cpuid(7, 0, leaf7);
  const int has = (leaf7[3] >> 24) & 1u && (xcr0_of(leaf1[2]) & 0x60000) == 0x60000;
  if (!amx || !has || amx_granted(1)) return NULL;
  return "the kernel did not grant this process the AMX tile state "
         "(arch_prctl ARCH_REQ_XCOMP_PERM)";
}
#define DETECT_CPU x86_64_detect_cpu
#define ENABLE_FEATURES x86_64_enable_features
#else
#define DETECT_CPU NULL
#define ENABLE_FEATURES NULL
#endif

const graft_elf_arch_t graft_elf_arch_x86_64 = {
    .name = "x86_64",
    .machine = 62, /* EM_X86_64 */
    .elf_class = GRAFT_ELFCLASS64,
    .reloc_format = GRAFT_ELF_RELA,
    .rules = kRules,
    .rule_count = sizeof(kRules) / sizeof(kRules[0]),
    .flush_icache = NULL,
    .cpu_features = kFeatures,
    .cpu_feature_count = sizeof(kFeatures) / sizeof(kFeatures[0]),
    .detect_cpu = DETECT_CPU,
    .enable_features = ENABLE_FEATURES,
};
