// riscv64: RISC-V ELF psABI, LP64D (https://github.com/riscv-non-isa/riscv-elf-psabi-doc).
//
// The baseline is RV64GC (IMAFDC): what every Linux-capable RISC-V board
// runs. It has no vector unit, so its level declares no vector width: loops
// are scalar, over 32 floating-point registers. rv64gcv adds the vector
// extension (VLEN >= 128, as Linux profiles require). Linker relaxation is
// off: slices are loaded by graft's own loader, which never relaxes.
#include "Target.h"

namespace graft {

#if defined(__riscv) && __riscv_xlen == 64
static constexpr bool kIsHost = true;
#else
static constexpr bool kIsHost = false;
#endif

extern const TargetInfo riscv64Target;
const TargetInfo riscv64Target = {
    /*name=*/"riscv64",
    /*triple=*/"riscv64-unknown-linux-gnu",
    /*llvmBackend=*/"RISCV",
    /*abiName=*/"lp64d",
    /*abiFeatures=*/"-relax",
    /*levels=*/
    {
        {/*name=*/"rv64gc", /*llvmCpu=*/"generic-rv64",
         /*llvmFeatures=*/"+m,+a,+f,+d,+c,+zicsr,+zifencei", /*clangFlags=*/{"-march=rv64gc"},
         /*implies=*/{}, /*cpuFeatures=*/{"m", "a", "f", "d", "c"},
         /*vectorBits=*/0, /*vectorRegisters=*/32},
        {"rv64gcv", "generic-rv64", "+m,+a,+f,+d,+c,+zicsr,+zifencei,+v", {"-march=rv64gcv"},
         {"rv64gc"}, {"v"}, 128, 32},
    },
    /*elfMachine=*/243, // EM_RISCV
    /*elfClass=*/2,
    /*elfData=*/1,
    /*lldEmulation=*/"elf64lriscv",
    /*runtimeIR=*/"",
    /*clangTriple=*/"riscv64-unknown-linux-gnu",
    /*kernelFlags=*/{"-mabi=lp64d", "-mno-relax"},
    /*qemu=*/"qemu-riscv64",
    /*sysroot=*/"/usr/riscv64-linux-gnu",
    /*crossCC=*/"riscv64-linux-gnu-gcc",
    /*cmakeProcessor=*/"riscv64",
    /*qemuCpus=*/{{"rv64", "rv64gc"}, {"rv64,v=true,vlen=128", "rv64gcv"}},
    /*isHost=*/kIsHost,
};

} // namespace graft
