// x86_64: System V psABI (https://gitlab.com/x86-psABIs/x86-64-ABI).
//
// The baseline is x86-64-v2 (SSE4.2, POPCNT): every x86_64 CPU of the last
// fifteen years runs it, and vectors are 128 bits wide. The higher levels are
// the psABI's microarchitecture levels: v3 adds AVX2, FMA and BMI with
// 256-bit vectors, v4 AVX-512 with 512-bit vectors and 32 registers;
// v3+avxvnni and v4+vnni add the i8 dot product of AVX-VNNI and AVX-512
// VNNI (not psABI levels), v4+amx AMX's tiles. The loader runs the last
// level a CPU has, so one with both VNNIs runs v4+vnni, one with AMX
// v4+amx. Slices
// are position-independent ET_DYN objects; code uses the small PIC model, so
// all data is reached RIP-relative and the loader only sees
// R_X86_64_RELATIVE, R_X86_64_64 and R_X86_64_GLOB_DAT/JUMP_SLOT relocations.
// Kernels are compiled without the red zone: nothing requires it, and
// leaf code that uses it cannot be interrupted safely by a signal handler
// sharing the stack in some embedders.
#include "Target.h"

namespace graft {

#if defined(__x86_64__)
static constexpr bool kIsHost = true;
#else
static constexpr bool kIsHost = false;
#endif

// Streaming stores (movntps and friends, from LLVM's !nontemporal) for
// elementwise results of 32 MiB and more. Measured on an Intel Xeon (2 MiB
// L2 per core, 300 MiB L3 shared) with a map whose result a matmul reads
// next: at 32 and 64 MiB streaming made the call 13-17% faster, at 16 MiB
// 10-20% slower (the consumer found the result in L3 before); a returned
// result gained at every size from 1 MiB (no consumer in the call).
// Every level has them (SSE2); they are weakly ordered, and sfence is what
// the SDM prescribes before other threads may read what they wrote.
static constexpr uint64_t kStreamingStoreBytes = 32ull << 20;
static constexpr const char *kSfence = "llvm.x86.sse.sfence";

extern const TargetInfo x86_64Target;
const TargetInfo x86_64Target = {
    /*name=*/"x86_64",
    /*triple=*/"x86_64-unknown-linux-gnu",
    /*llvmBackend=*/"X86",
    /*abiName=*/"",
    /*abiFeatures=*/"",
    /*levels=*/
    {
        {/*name=*/"x86-64-v2", /*llvmCpu=*/"x86-64-v2", /*llvmFeatures=*/"",
         /*clangFlags=*/{"-march=x86-64-v2"}, /*implies=*/{},
         /*cpuFeatures=*/{"sse3", "ssse3", "sse4.1", "sse4.2", "popcnt", "cx16", "sahf"},
         /*vectorBits=*/128, /*vectorRegisters=*/16,
         // Nehalem to Skylake client: 32 KiB L1d, 256 KiB L2.
         /*l1dBytes=*/32 * 1024, /*l2Bytes=*/256 * 1024, /*changesOnly=*/{},
         kStreamingStoreBytes, kSfence, /*halfConversion=*/false,
         /*pairMultiplyAdd=*/"llvm.x86.sse2.pmadd.wd"},
        {"x86-64-v3", "x86-64-v3", "", {"-march=x86-64-v3"}, {"x86-64-v2"},
         {"avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave"}, 256, 16,
         // Haswell: 32 KiB L1d, 256 KiB L2.
         32 * 1024, 256 * 1024, {}, kStreamingStoreBytes, kSfence, /*halfConversion=*/true,
         "llvm.x86.avx2.pmadd.wd"},
        // AVX-VNNI (Alder Lake and later cores without AVX-512, Sierra
        // Forest, Zen 5): vpdpbusd on 256-bit vectors, VEX-encoded, the
        // i8 matmul's quads as on v4+vnni; everything else is v3's.
        {"x86-64-v3+avxvnni", "x86-64-v3", "+avxvnni", {"-march=x86-64-v3", "-mavxvnni"},
         {"x86-64-v3"}, {"avxvnni"}, 256, 16, 32 * 1024, 256 * 1024,
         /*changesOnly=*/{"narrow-integers"}, kStreamingStoreBytes, kSfence,
         /*halfConversion=*/true, "llvm.x86.avx2.pmadd.wd",
         /*quadDotProduct=*/"llvm.x86.avx512.vpdpbusd.256", /*quadDotUnsigned=*/true},
        {"x86-64-v4", "x86-64-v4", "", {"-march=x86-64-v4"}, {"x86-64-v3"},
         {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}, 512, 32,
         // Skylake-SP and Zen 4: 32 KiB L1d, 1 MiB L2 (Ice Lake and later
         // Xeons have 48 KiB and 1.25-2 MiB).
         32 * 1024, 1024 * 1024, {}, kStreamingStoreBytes, kSfence, /*halfConversion=*/true,
         "llvm.x86.avx512.pmaddw.d.512"},
        // AVX-512 VNNI (Cascade Lake and later Xeons, Ice Lake, Zen 4):
        // vpdpbusd sums four u8 x s8 products into an i32 lane, so i8
        // matmuls pack quads (16 products an instruction where v4's
        // pmaddwd and paddd give 16 in two). Only narrow-integer code
        // changes: everything else is v4's, shared.
        {"x86-64-v4+vnni", "x86-64-v4", "+avx512vnni", {"-march=x86-64-v4", "-mavx512vnni"},
         {"x86-64-v4"}, {"avx512vnni"}, 512, 32, 32 * 1024, 1024 * 1024,
         /*changesOnly=*/{"narrow-integers"}, kStreamingStoreBytes, kSfence,
         /*halfConversion=*/true, "llvm.x86.avx512.pmaddw.d.512",
         /*quadDotProduct=*/"llvm.x86.avx512.vpdpbusd.512", /*quadDotUnsigned=*/true},
        // AMX (Sapphire Rapids and later Xeons, Granite Rapids): the i8
        // matmul's register tiles multiply in tile registers, 32 x 32
        // outputs in four of them (tdpbssd, s8 x s8: no offset); the
        // one-row sweep stays on v4+vnni's vpdpbusd. Only narrow-integer
        // code changes. Linux hands the tile state to a process only on
        // request (arch_prctl(ARCH_REQ_XCOMP_PERM)), which the loader makes.
        {"x86-64-v4+amx", "x86-64-v4", "+avx512vnni,+amx-tile,+amx-int8",
         {"-march=x86-64-v4", "-mavx512vnni", "-mamx-tile", "-mamx-int8"}, {"x86-64-v4+vnni"},
         {"amx-tile", "amx-int8"}, 512, 32, 32 * 1024, 1024 * 1024,
         /*changesOnly=*/{"narrow-integers"}, kStreamingStoreBytes, kSfence,
         /*halfConversion=*/true, "llvm.x86.avx512.pmaddw.d.512",
         /*quadDotProduct=*/"llvm.x86.avx512.vpdpbusd.512", /*quadDotUnsigned=*/true,
         /*matrixTiles=*/true},
    },
    /*elfMachine=*/62, // EM_X86_64
    /*elfClass=*/2,    // ELFCLASS64
    /*elfData=*/1,     // ELFDATA2LSB
    /*lldEmulation=*/"elf_x86_64",
    /*runtimeIR=*/"",
    /*clangTriple=*/"x86_64-unknown-linux-gnu",
    /*kernelFlags=*/{"-mno-red-zone"},
    /*qemu=*/"qemu-x86_64",
    /*sysroot=*/"/usr/x86_64-linux-gnu",
    /*crossCC=*/"x86_64-linux-gnu-gcc",
    /*cmakeProcessors=*/{"x86_64", "amd64"},
    // Detection is tested natively, against /proc/cpuinfo; these models run
    // the lower variants on a host that has more (qemu's TCG has no AVX-512).
    /*qemuCpus=*/{{"Nehalem", "x86-64-v2"}, {"max", "x86-64-v3"}},
    /*isHost=*/kIsHost,
};

} // namespace graft
