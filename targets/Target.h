// A compilation target: everything the compiler, the build and the tests
// need to know about one architecture, as data. Each architecture is one file
// in this folder that defines `const TargetInfo <name>Target`, registered by
// one line in Targets.def; the loader's half is runtime/src/loader/arch/<name>.c.
// Nothing else names an architecture: code generation, linking, FatELF
// records, tile sizes, the cross-built runtimes, the cmake toolchain files and
// the test runners all derive what they need from these fields.
//
// This folder does not depend on LLVM: cmake compiles it into a small host
// program at configure time (TargetsTool.cpp) to learn the targets.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace graft {

// One ISA feature level of a target, Halide-style: a named set of CPU
// features that code may assume. levels[0] of a target is its baseline: what
// every slice is compiled for today. The other levels are the variants a
// slice may carry for newer CPUs (chosen at load time: issue 8).
struct FeatureLevel {
  const char *name;         // "x86-64-v3": how users and messages name it
  const char *llvmCpu;      // LLVM CPU (-mcpu)
  const char *llvmFeatures; // LLVM feature string on top of llvmCpu, or ""
  // Flags for clang compiling user kernels at this level ("-march=...").
  std::vector<std::string> clangFlags;
  // Levels whose features this one includes (their CPU features are
  // required too); names of earlier levels of the same target.
  std::vector<const char *> implies;
  // CPU features this level adds to what it implies, by their LLVM names.
  // The runtime must detect every one of them before it runs code compiled
  // for the level: the loader's arch file maps each name to a bit of the
  // cpu_data words it detects (runtime/src/loader/arch/<name>.c).
  std::vector<const char *> cpuFeatures;
  // Native vector width, which sizes loops and tiles; 0 when the level has
  // no vector unit (loops are scalar).
  unsigned vectorBits;
  // Architectural vector registers of that width; with no vector unit, the
  // floating-point registers. Register tiles are sized from this.
  unsigned vectorRegisters;
  // Per-core L1 data and L2 cache sizes, in bytes, of the smallest cores
  // that run the level's code: a packed matmul's blocks are sized from
  // them (lib/dispatch/Tiling.cpp), so they must not overstate.
  unsigned l1dBytes, l2Bytes;
  // Where the level's code can differ from that of the levels it implies,
  // as kinds of IR (lib/codegen/VariantSharing.h names them: "atomics",
  // "narrow-integers", "target-intrinsics"); empty: anywhere. A variant
  // whose IR has none of them and is the same as an implied level's shares
  // that level's code instead of compiling a copy.
  std::vector<const char *> changesOnly = {};
  // Elementwise dispatches whose results add up to at least this many
  // bytes write them with non-temporal (streaming) stores, which do not
  // read each line into the cache before overwriting it (the
  // write-allocate read is a third of the traffic of a 2-read, 1-write
  // chain) and leave it out of the cache; smaller results stay cached for
  // their consumer. A run-time choice on the sizes (lib/codegen/
  // LoopEmitter.cpp); 0: never (not measured to pay on the level).
  uint64_t streamingStoreBytes = 0;
  // The LLVM intrinsic a workgroup calls after its streaming stores so that
  // they are ordered before the stores that publish its end to other
  // threads ("llvm.x86.sse.sfence"); "" where release ordering already
  // covers them.
  const char *streamingStoreFence = "";
  // Whether the level widens f16 to f32 with an instruction (x86's F16C,
  // AArch64's FCVTL): the packed matmul then widens f16 operands with LLVM's
  // fpext instead of integer operations (the same values; lib/codegen/
  // PackedMatmul.cpp). Where it does not, fpext would become a libcall.
  bool halfConversion = false;
  // The LLVM intrinsic that multiplies <2n x i16> by <2n x i16> and adds
  // each pair of adjacent products into one i32 of <n x i32>, at the
  // level's vector width (x86's pmaddwd: "llvm.x86.avx2.pmadd.wd"): the
  // packed matmul of i8 operands calls it (lib/codegen/PackedMatmul.cpp).
  // "": widening multiply-adds instead, each product into a lane of its
  // own (AArch64's smlal), a column's even and odd sums added after the
  // loop (codegen's PairSums). (Generic IR for the pairwise sum is not
  // selected as pmaddwd on x86: LLVM's combines reassociate it first.)
  const char *pairMultiplyAdd = "";
  // The LLVM intrinsic that multiplies <4n x i8> by <4n x i8> and adds
  // each four adjacent products into one i32 of <n x i32> (AArch64's sdot:
  // "llvm.aarch64.neon.sdot.v4i32.v16i8"): where a level names one, the
  // packed matmul of i8 operands packs them as quads along K, kept as i8,
  // and calls it (16 products an instruction where smlal gives 4); "": as
  // pairs (pairMultiplyAdd).
  const char *quadDotProduct = "";
  // Whether quadDotProduct's first byte operand is unsigned (x86's
  // vpdpbusd: u8 x s8; AArch64's sdot is s8 x s8). The packed matmul then
  // offsets the rhs bytes by 128 (an xor of their sign bits) and subtracts
  // 128 times each lhs row's sum of the same K rows, itself a dot product
  // of the lhs quads with ones: the same i32 sums, exactly (modulo 2^32,
  // as all of them are).
  bool quadDotUnsigned = false;
  // Whether the level has x86's AMX tiles with their i8 dot product
  // (AMX-TILE, AMX-INT8: Sapphire Rapids and later Xeons): eight tile
  // registers of 16 rows x 64 bytes, tdpbssd summing a 16 x 64 tile of s8
  // by a 64 x 16 one into 16 x 16 i32 (16,384 products an instruction).
  // The packed matmul of i8 operands then multiplies its register tiles
  // with them (lib/codegen/AmxTiles.cpp): the lhs packed per 64 bytes of K
  // row by row, the rhs as quads (quadDotProduct's layout), both K blocks
  // padded with zeros to whole tiles of 64; blocks of few rows read the rhs
  // in place with quadDotProduct instead.
  bool matrixTiles = false;
};

struct QemuCpu {
  const char *model; // qemu -cpu
  const char *level; // best FeatureLevel it runs
};

struct TargetInfo {
  const char *name; // "x86_64": what users write in --target

  // Code generation.
  const char *triple;      // LLVM triple for codegen of slices
  const char *llvmBackend; // LLVM's name of the backend to initialise, as in
                           // llvm/Config/Targets.def ("X86", "AArch64")
  const char *abiName;     // LLVM target ABI name ("lp64d"), or "" for the
                           // triple's default
  const char *abiFeatures; // LLVM features every level adds because the
                           // slice ABI needs them ("+reserve-x18"), or ""
  std::vector<FeatureLevel> levels; // levels[0] is the baseline

  // The slice file.
  uint16_t elfMachine;      // e_machine (EM_X86_64, EM_AARCH64, ...)
  uint8_t elfClass;         // ELFCLASS32 (1) or ELFCLASS64 (2); FatELF word size
  uint8_t elfData;          // ELFDATA2LSB (1) or ELFDATA2MSB (2)
  const char *lldEmulation; // -m for lld ("elf_x86_64")
  // LLVM IR linked into every slice's builtins object for this target only:
  // entry points the target's ABI names differently (ARM's __aeabi_*), as
  // thin wrappers around the generic routines of lib/link/slice_runtime.c.
  // "" when LLVM calls the generic names directly.
  const char *runtimeIR;

  // User kernels.
  const char *clangTriple;              // --target for compiling user C kernels
  std::vector<std::string> kernelFlags; // ABI flags every kernel needs, on top
                                        // of the level's clangFlags

  // Running and testing on another host, and cross-building the runtime.
  const char *qemu;           // qemu-user binary that runs this target's code
  const char *sysroot;        // target libc (Debian's cross packages)
  const char *crossCC;        // gcc cross compiler for the runtime
  // CMAKE_SYSTEM_PROCESSOR spellings of this architecture: the first is
  // what graft's own cross toolchain files set; the others are what
  // `uname -m` and other toolchain files report. graft_add_bundle() maps a
  // project's CMAKE_SYSTEM_PROCESSOR to its default target with these.
  std::vector<const char *> cmakeProcessors;
  // qemu CPU models the tests run the runtime's feature detection under,
  // each with the last of |levels| whose CPU features that model has (what
  // a load-time choice of level must pick there).
  std::vector<QemuCpu> qemuCpus;

  // True when graft itself was compiled for this architecture (each target
  // file tests its own predefined macros).
  bool isHost;

  // Other names users may write for it in --target and spec kernels
  // ("arm64", as Apple and LLVM spell aarch64); graft prints |name|.
  std::vector<const char *> aliases = {};

  const FeatureLevel &baseline() const { return levels.front(); }
  unsigned pointerBits() const { return elfClass == 1 ? 32 : 64; }
};

// All registered targets, in the order of Targets.def (the order of slices
// in a bundle).
const std::vector<const TargetInfo *> &allTargets();
// The target named |name| or one of its aliases, or null.
const TargetInfo *lookupTarget(const std::string &name);
// The target whose slices have ELF machine |machine|, or null.
const TargetInfo *lookupTargetByMachine(uint16_t machine);
// The target of the machine the compiler runs on, or null.
const TargetInfo *hostTarget();
// "x86_64, aarch64, riscv64" for messages.
std::string targetNames();

// The level of |target| named |name|, or null.
const FeatureLevel *lookupLevel(const TargetInfo &target,
                                const std::string &name);
// Every CPU feature |level| needs, its own and those of the levels it
// implies (transitively), each once, in a stable order.
std::vector<std::string> requiredCpuFeatures(const TargetInfo &target,
                                             const FeatureLevel &level);
// The LLVM feature string code for |level| is compiled with: the level's
// features and the target's ABI features.
std::string llvmFeatureString(const TargetInfo &target,
                              const FeatureLevel &level);
// clang flags for compiling a user kernel at |level|: the level's flags
// followed by the target's ABI flags.
std::vector<std::string> kernelClangFlags(const TargetInfo &target,
                                          const FeatureLevel &level);

} // namespace graft
