// arm: 32-bit Arm, AAPCS with the hard-float variant (AAPCS-VFP) as
// Debian's armhf uses it (https://github.com/ARM-software/abi-aa).
//
// The baseline is armv7-a with VFPv3-D32 (32 double registers), without
// NEON: NEON flushes denormals to zero, and LLVM does use it for float
// compares (and VMAX/VMIN) without fast-math, which gave results different
// from the evaluator's (0 < 2.9e-39 was false). So baseline slices run
// scalar on VFP, IEEE like every other target. armv7-a+neon (128-bit
// vectors, 16 Q registers; Cortex-A8/A9 and later) and armv7ve
// (Cortex-A7/A15/A17: VFPv4, integer divide) are levels for load-time
// variants (issue 8), which must keep floating point off NEON. Slices are ELFCLASS32 with REL relocations
// (addends in the slots); armv7-a has no divide instruction and no 64-bit
// one at all, so LLVM calls the AEABI helpers below, wrappers around the
// generic routines of lib/link/slice_runtime.c. Those helpers use the base
// (core-register) calling convention even under hard-float.
#include "Target.h"

namespace graft {

#if defined(__arm__)
static constexpr bool kIsHost = true;
#else
static constexpr bool kIsHost = false;
#endif

// AEABI run-time helper names (RTABI32, section 4) -> compiler-rt names.
// __aeabi_[u]ldivmod and __aeabi_[u]idivmod return quotient and remainder
// in r0-r3 / r0-r1: an aggregate return under arm_aapcscc.
static const char kAeabiIR[] = R"IR(
declare i64 @__divdi3(i64, i64)
declare i64 @__udivmoddi4(i64, i64, ptr)
declare i32 @__divsi3(i32, i32)
declare i32 @__udivsi3(i32, i32)
declare double @__floatdidf(i64)
declare double @__floatundidf(i64)
declare float @__floatdisf(i64)
declare float @__floatundisf(i64)
declare i64 @__fixdfdi(double)
declare i64 @__fixunsdfdi(double)
declare i64 @__fixsfdi(float)
declare i64 @__fixunssfdi(float)
declare float @__extendhfsf2(half)
declare half @__truncsfhf2(float)
declare half @__truncdfhf2(double)

define weak hidden arm_aapcscc { i64, i64 } @__aeabi_ldivmod(i64 %n, i64 %d) #0 {
  %q = call i64 @__divdi3(i64 %n, i64 %d)
  %qd = mul i64 %q, %d
  %r = sub i64 %n, %qd
  %a = insertvalue { i64, i64 } undef, i64 %q, 0
  %b = insertvalue { i64, i64 } %a, i64 %r, 1
  ret { i64, i64 } %b
}
define weak hidden arm_aapcscc { i64, i64 } @__aeabi_uldivmod(i64 %n, i64 %d) #0 {
  %rp = alloca i64
  %q = call i64 @__udivmoddi4(i64 %n, i64 %d, ptr %rp)
  %r = load i64, ptr %rp
  %a = insertvalue { i64, i64 } undef, i64 %q, 0
  %b = insertvalue { i64, i64 } %a, i64 %r, 1
  ret { i64, i64 } %b
}
define weak hidden arm_aapcscc i32 @__aeabi_idiv(i32 %n, i32 %d) #0 {
  %q = call i32 @__divsi3(i32 %n, i32 %d)
  ret i32 %q
}
define weak hidden arm_aapcscc i32 @__aeabi_uidiv(i32 %n, i32 %d) #0 {
  %q = call i32 @__udivsi3(i32 %n, i32 %d)
  ret i32 %q
}
define weak hidden arm_aapcscc { i32, i32 } @__aeabi_idivmod(i32 %n, i32 %d) #0 {
  %q = call i32 @__divsi3(i32 %n, i32 %d)
  %qd = mul i32 %q, %d
  %r = sub i32 %n, %qd
  %a = insertvalue { i32, i32 } undef, i32 %q, 0
  %b = insertvalue { i32, i32 } %a, i32 %r, 1
  ret { i32, i32 } %b
}
define weak hidden arm_aapcscc { i32, i32 } @__aeabi_uidivmod(i32 %n, i32 %d) #0 {
  %q = call i32 @__udivsi3(i32 %n, i32 %d)
  %qd = mul i32 %q, %d
  %r = sub i32 %n, %qd
  %a = insertvalue { i32, i32 } undef, i32 %q, 0
  %b = insertvalue { i32, i32 } %a, i32 %r, 1
  ret { i32, i32 } %b
}
define weak hidden arm_aapcscc double @__aeabi_l2d(i64 %x) #0 {
  %r = call double @__floatdidf(i64 %x)
  ret double %r
}
define weak hidden arm_aapcscc double @__aeabi_ul2d(i64 %x) #0 {
  %r = call double @__floatundidf(i64 %x)
  ret double %r
}
define weak hidden arm_aapcscc float @__aeabi_l2f(i64 %x) #0 {
  %r = call float @__floatdisf(i64 %x)
  ret float %r
}
define weak hidden arm_aapcscc float @__aeabi_ul2f(i64 %x) #0 {
  %r = call float @__floatundisf(i64 %x)
  ret float %r
}
define weak hidden arm_aapcscc i64 @__aeabi_d2lz(double %x) #0 {
  %r = call i64 @__fixdfdi(double %x)
  ret i64 %r
}
define weak hidden arm_aapcscc i64 @__aeabi_d2ulz(double %x) #0 {
  %r = call i64 @__fixunsdfdi(double %x)
  ret i64 %r
}
define weak hidden arm_aapcscc i64 @__aeabi_f2lz(float %x) #0 {
  %r = call i64 @__fixsfdi(float %x)
  ret i64 %r
}
define weak hidden arm_aapcscc i64 @__aeabi_f2ulz(float %x) #0 {
  %r = call i64 @__fixunssfdi(float %x)
  ret i64 %r
}
define weak hidden arm_aapcscc float @__gnu_h2f_ieee(i16 %h) #0 {
  %x = bitcast i16 %h to half
  %r = call float @__extendhfsf2(half %x)
  ret float %r
}
define weak hidden arm_aapcscc i16 @__gnu_f2h_ieee(float %f) #0 {
  %h = call half @__truncsfhf2(float %f)
  %r = bitcast half %h to i16
  ret i16 %r
}
define weak hidden arm_aapcscc i16 @__aeabi_d2h(double %d) #0 {
  %h = call half @__truncdfhf2(double %d)
  %r = bitcast half %h to i16
  ret i16 %r
}

; No unwind tables: they would need the EHABI personality routines.
attributes #0 = { nounwind }
)IR";

extern const TargetInfo armTarget;
const TargetInfo armTarget = {
    /*name=*/"arm",
    /*triple=*/"armv7a-unknown-linux-gnueabihf",
    /*llvmBackend=*/"ARM",
    /*abiName=*/"",
    /*abiFeatures=*/"",
    /*levels=*/
    {
        {/*name=*/"armv7-a", /*llvmCpu=*/"generic",
         /*llvmFeatures=*/"+v7,+vfp3,+d32,-neon", /*clangFlags=*/{"-march=armv7-a", "-mfpu=vfpv3"},
         /*implies=*/{}, /*cpuFeatures=*/{"vfp3", "d32"},
         /*vectorBits=*/0, /*vectorRegisters=*/32,
         // Cortex-A7/A9 class: 32 KiB L1d, a 256 KiB L2 share.
         /*l1dBytes=*/32 * 1024, /*l2Bytes=*/256 * 1024},
        {"armv7-a+neon", "generic", "+v7,+vfp3,+d32,+neon", {"-march=armv7-a", "-mfpu=neon"},
         {"armv7-a"}, {"neon"}, 128, 16, 32 * 1024, 256 * 1024},
        {"armv7ve", "cortex-a15", "+v7,+vfp4,+d32,+neon,+hwdiv-arm",
         {"-march=armv7ve", "-mfpu=neon-vfpv4"}, {"armv7-a+neon"}, {"vfp4", "hwdiv-arm"}, 128, 16,
         32 * 1024, 256 * 1024},
    },
    /*elfMachine=*/40, // EM_ARM
    /*elfClass=*/1,    // ELFCLASS32
    /*elfData=*/1,
    /*lldEmulation=*/"armelf_linux_eabi",
    /*runtimeIR=*/kAeabiIR,
    /*clangTriple=*/"armv7a-unknown-linux-gnueabihf",
    /*kernelFlags=*/{"-mfloat-abi=hard"},
    /*qemu=*/"qemu-arm",
    /*sysroot=*/"/usr/arm-linux-gnueabihf",
    /*crossCC=*/"arm-linux-gnueabihf-gcc",
    /*cmakeProcessors=*/{"arm", "armv7l", "armv7-a", "armv7", "armhf"},
    /*qemuCpus=*/{{"cortex-a9", "armv7-a+neon"}, {"cortex-a15", "armv7ve"}},
    /*isHost=*/kIsHost,
};

} // namespace graft
