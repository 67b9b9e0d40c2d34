// x86_64: System V psABI (https://gitlab.com/x86-psABIs/x86-64-ABI).
//
// The baseline is x86-64-v2 (SSE4.2, POPCNT): every x86_64 CPU of the last
// fifteen years runs it, and vectors are 128 bits wide. Slices are
// position-independent ET_DYN objects; code uses the small PIC model, so all
// data is reached RIP-relative and the loader only sees R_X86_64_RELATIVE,
// R_X86_64_64 and R_X86_64_GLOB_DAT/JUMP_SLOT relocations.
#include "Target.h"

namespace graft {

extern const TargetInfo x86_64Target;
const TargetInfo x86_64Target = {
    /*name=*/"x86_64",
    /*triple=*/"x86_64-unknown-linux-gnu",
    /*cpu=*/"x86-64-v2",
    /*features=*/"",
    /*vectorBits=*/128,
    /*elfMachine=*/62, // EM_X86_64
    /*elfClass=*/2,    // ELFCLASS64
    /*elfData=*/1,     // ELFDATA2LSB
    /*lldEmulation=*/"elf_x86_64",
    /*clangTriple=*/"x86_64-unknown-linux-gnu",
    /*clangFlags=*/{"-march=x86-64-v2", "-mno-red-zone"},
    /*qemu=*/"qemu-x86_64",
};

} // namespace graft
