// aarch64: AAPCS64 (https://github.com/ARM-software/abi-aa).
//
// The baseline is armv8-a with NEON (mandatory on every AArch64 Linux CPU):
// 128-bit vectors, 32 vector registers. armv8.2-a+dotprod (Cortex-A55/A75
// and later) adds the 8.1 atomics and rounding multiplies and the int8 dot
// product. x18 is the platform register on some OSes, so slices never use
// it. Outline atomics are off: a slice has no libgcc to call into.
#include "Target.h"

namespace graft {

#if defined(__aarch64__)
static constexpr bool kIsHost = true;
#else
static constexpr bool kIsHost = false;
#endif

extern const TargetInfo aarch64Target;
const TargetInfo aarch64Target = {
    /*name=*/"aarch64",
    /*triple=*/"aarch64-unknown-linux-gnu",
    /*llvmBackend=*/"AArch64",
    /*abiName=*/"",
    /*abiFeatures=*/"+reserve-x18,-outline-atomics",
    /*levels=*/
    {
        {/*name=*/"armv8-a", /*llvmCpu=*/"generic",
         /*llvmFeatures=*/"+v8a,+neon,+fp-armv8", /*clangFlags=*/{"-march=armv8-a"},
         /*implies=*/{}, /*cpuFeatures=*/{"fp-armv8", "neon"},
         /*vectorBits=*/128, /*vectorRegisters=*/32,
         // Cortex-A53/A55 class: 32 KiB L1d, a 256 KiB L2 share.
         /*l1dBytes=*/32 * 1024, /*l2Bytes=*/256 * 1024, /*changesOnly=*/{},
         /*streamingStoreBytes=*/0, /*streamingStoreFence=*/"", /*halfConversion=*/true},
        {"armv8.2-a+dotprod", "generic", "+v8.2a,+neon,+fp-armv8,+dotprod",
         {"-march=armv8.2-a+dotprod"}, {"armv8-a"}, {"crc", "lse", "rdm", "dotprod"}, 128, 32, 32 * 1024, 256 * 1024,
         // LSE serves atomics, dotprod and RDM narrow integers, CRC its
         // intrinsics: float code is armv8-a's.
         /*changesOnly=*/{"atomics", "narrow-integers", "target-intrinsics"}, 0, "", true,
         /*pairMultiplyAdd=*/"", /*quadDotProduct=*/"llvm.aarch64.neon.sdot.v4i32.v16i8"},
    },
    /*elfMachine=*/183, // EM_AARCH64
    /*elfClass=*/2,
    /*elfData=*/1,
    /*lldEmulation=*/"aarch64linux",
    /*runtimeIR=*/"",
    /*clangTriple=*/"aarch64-unknown-linux-gnu",
    /*kernelFlags=*/{"-ffixed-x18", "-mno-outline-atomics"},
    /*qemu=*/"qemu-aarch64",
    /*sysroot=*/"/usr/aarch64-linux-gnu",
    /*crossCC=*/"aarch64-linux-gnu-gcc",
    /*cmakeProcessors=*/{"aarch64", "arm64"},
    /*qemuCpus=*/{{"cortex-a53", "armv8-a"}, {"max", "armv8.2-a+dotprod"}},
    /*isHost=*/kIsHost,
    /*aliases=*/{"arm64"},
};

} // namespace graft
