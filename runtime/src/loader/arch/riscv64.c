/* RISC-V (RV64) relocations and instruction-cache maintenance.
 *
 * The RISC-V psABI uses RELA only; one e_machine (EM_RISCV) covers RV32 and
 * RV64, told apart by EI_CLASS, and the loader accepts ELFCLASS64 only. The
 * dynamic types a slice may carry: R_RISCV_RELATIVE (B + A), R_RISCV_64
 * (S + A) and R_RISCV_JUMP_SLOT (S; no addend). There is no GLOB_DAT: GOT
 * entries for preemptible symbols use R_RISCV_64. Instruction fetch is not
 * coherent with stores until a FENCE.I on every hart that may run the code;
 * __builtin___clear_cache becomes a call to __clear_cache (libgcc or
 * compiler-rt), which on Linux makes the riscv_flush_icache system call that
 * does that for all harts.
 * Spec: https://github.com/riscv-non-isa/riscv-elf-psabi-doc (riscv-elf.adoc,
 * Relocations). */
#include "arch/arch.h"
#include "elf_format.h"

static const graft_elf_reloc_rule_t kRules[] = {
    {0, GRAFT_RELOC_NONE, "R_RISCV_NONE"},
    {2, GRAFT_RELOC_SYMBOL, "R_RISCV_64"},
    {3, GRAFT_RELOC_RELATIVE, "R_RISCV_RELATIVE"},
    {5, GRAFT_RELOC_SYMBOL_NO_ADDEND, "R_RISCV_JUMP_SLOT"},
};

static void riscv64_flush_icache(void* begin, void* end) {
  __builtin___clear_cache((char*)begin, (char*)end);
}

const graft_elf_arch_t graft_elf_arch_riscv64 = {
    .machine = GRAFT_EM_RISCV,
    .name = "riscv64",
    .rules = kRules,
    .rule_count = sizeof(kRules) / sizeof(kRules[0]),
    .flush_icache = riscv64_flush_icache,
};
