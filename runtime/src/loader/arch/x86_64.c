/* x86_64 relocations.
 *
 * The x86-64 psABI uses RELA only. A position-independent slice linked with
 * -z now and hidden visibility needs almost nothing at load time: lld
 * resolves every internal reference PC-relatively and leaves one
 * R_X86_64_RELATIVE (B + A) per absolute pointer in .data.rel.ro. The
 * symbolic types appear only for default-visibility symbols: R_X86_64_64 is
 * S + A, while R_X86_64_GLOB_DAT and R_X86_64_JUMP_SLOT are S and the psABI
 * gives them no addend (lld writes 0; we ignore whatever is there, like
 * glibc). x86 keeps instruction and data caches coherent, so no flush.
 * Spec: https://gitlab.com/x86-psABIs/x86-64-ABI (section 4.4, Relocation). */
#include "arch/arch.h"
#include "elf_format.h"

static const graft_elf_reloc_rule_t kRules[] = {
    {0, GRAFT_RELOC_NONE, "R_X86_64_NONE"},
    {1, GRAFT_RELOC_SYMBOL, "R_X86_64_64"},
    {6, GRAFT_RELOC_SYMBOL_NO_ADDEND, "R_X86_64_GLOB_DAT"},
    {7, GRAFT_RELOC_SYMBOL_NO_ADDEND, "R_X86_64_JUMP_SLOT"},
    {8, GRAFT_RELOC_RELATIVE, "R_X86_64_RELATIVE"},
};

const graft_elf_arch_t graft_elf_arch_x86_64 = {
    .machine = GRAFT_EM_X86_64,
    .name = "x86_64",
    .rules = kRules,
    .rule_count = sizeof(kRules) / sizeof(kRules[0]),
    .flush_icache = NULL,
};
