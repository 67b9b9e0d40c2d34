/* AArch64 relocations and instruction-cache maintenance.
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
 * (section 5.7, Dynamic relocations). */
#include "arch/arch.h"
#include "elf_format.h"

static const graft_elf_reloc_rule_t kRules[] = {
    {0, GRAFT_RELOC_NONE, "R_AARCH64_NONE"},
    {256, GRAFT_RELOC_NONE, "R_AARCH64_NONE"},
    {257, GRAFT_RELOC_SYMBOL, "R_AARCH64_ABS64"},
    {1025, GRAFT_RELOC_SYMBOL, "R_AARCH64_GLOB_DAT"},
    {1026, GRAFT_RELOC_SYMBOL, "R_AARCH64_JUMP_SLOT"},
    {1027, GRAFT_RELOC_RELATIVE, "R_AARCH64_RELATIVE"},
};

static void aarch64_flush_icache(void* begin, void* end) {
  __builtin___clear_cache((char*)begin, (char*)end);
}

const graft_elf_arch_t graft_elf_arch_aarch64 = {
    .machine = GRAFT_EM_AARCH64,
    .name = "aarch64",
    .rules = kRules,
    .rule_count = sizeof(kRules) / sizeof(kRules[0]),
    .flush_icache = aarch64_flush_icache,
};
