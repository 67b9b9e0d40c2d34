// riscv64: RISC-V ELF psABI, LP64D (https://github.com/riscv-non-isa/riscv-elf-psabi-doc).
//
// The baseline is RV64GC (IMAFDC): what every Linux-capable RISC-V board
// runs. It has no vector unit, so its level declares no vector width: loops
// are scalar, over 32 floating-point registers. Linker relaxation is off:
// slices are loaded by graft's own loader, which never relaxes.
//
// No vector level (rv64gcv) yet: every variant must run in the tests, and
// Debian 12's qemu (7.2) aborts translating the RVV code LLVM emits for
// float/int conversions (an assertion in its RISC-V translator, not a guest
// fault). Declare it again with a qemu that runs it.
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
         /*vectorBits=*/0, /*vectorRegisters=*/32,
         // U74 / C910 class: 32 KiB L1d, a 256 KiB L2 share.
         /*l1dBytes=*/32 * 1024, /*l2Bytes=*/256 * 1024},
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
    /*cmakeProcessors=*/{"riscv64"},
    /*qemuCpus=*/{{"rv64", "rv64gc"}},
    /*isHost=*/kIsHost,
};

} // namespace graft
