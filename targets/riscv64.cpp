// riscv64: RISC-V ELF psABI, LP64D (https://github.com/riscv-non-isa/riscv-elf-psabi-doc).
//
// The baseline is RV64GC (IMAFDC): what every Linux-capable RISC-V board
// runs. The vector extension is not assumed, so loops are scalar (vectorBits
// 64 lets the loop vectorizer interleave). Linker relaxation is off: slices
// are loaded by graft's own loader, which never relaxes.
#include "Target.h"

namespace graft {

extern const TargetInfo riscv64Target;
const TargetInfo riscv64Target = {
    /*name=*/"riscv64",
    /*triple=*/"riscv64-unknown-linux-gnu",
    /*cpu=*/"generic-rv64",
    /*features=*/"+m,+a,+f,+d,+c,+zicsr,+zifencei,-relax",
    /*vectorBits=*/64,
    /*elfMachine=*/243, // EM_RISCV
    /*elfClass=*/2,
    /*elfData=*/1,
    /*lldEmulation=*/"elf64lriscv",
    /*clangTriple=*/"riscv64-unknown-linux-gnu",
    /*clangFlags=*/{"-march=rv64gc", "-mabi=lp64d", "-mno-relax"},
    /*qemu=*/"qemu-riscv64",
};

} // namespace graft
