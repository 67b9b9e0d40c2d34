// aarch64: AAPCS64 (https://github.com/ARM-software/abi-aa).
//
// The baseline is armv8-a with NEON (mandatory on every AArch64 Linux CPU):
// 128-bit vectors. x18 is the platform register on some OSes, so slices never
// use it. Outline atomics are off: a slice has no libgcc to call into.
#include "Target.h"

namespace graft {

extern const TargetInfo aarch64Target;
const TargetInfo aarch64Target = {
    /*name=*/"aarch64",
    /*triple=*/"aarch64-unknown-linux-gnu",
    /*cpu=*/"generic",
    /*features=*/"+v8a,+neon,+fp-armv8,+reserve-x18,-outline-atomics",
    /*vectorBits=*/128,
    /*elfMachine=*/183, // EM_AARCH64
    /*elfClass=*/2,
    /*elfData=*/1,
    /*lldEmulation=*/"aarch64linux",
    /*clangTriple=*/"aarch64-unknown-linux-gnu",
    /*clangFlags=*/{"-ffixed-x18", "-mno-outline-atomics"},
    /*qemu=*/"qemu-aarch64",
};

} // namespace graft
