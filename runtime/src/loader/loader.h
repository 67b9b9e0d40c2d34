/* Loading a library from a bundle: select the slice for this CPU, map it
 * with graft's own ELF loader, call its query function and validate the
 * library header (every pointer, count and index) before anyone uses it.
 *
 * Internal interface between runtime/src/loader and runtime/src/exec. */
#ifndef GRAFT_RUNTIME_LOADER_H_
#define GRAFT_RUNTIME_LOADER_H_

#include <stddef.h>
#include <stdint.h>

#include "arch/arch.h"
#include "graft/abi.h"
#include "graft/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One slice of a FatELF bundle. */
typedef struct graft_fatelf_slice_t {
  uint16_t machine;   /* e_machine */
  uint8_t osabi;
  uint8_t osabi_version;
  uint8_t word_size;  /* ELFCLASS32 / ELFCLASS64 */
  uint8_t byte_order; /* ELFDATA2LSB / ELFDATA2MSB */
  uint64_t offset;
  uint64_t size;
} graft_fatelf_slice_t;

/* Lists the slices of |data| (a FatELF file, or a plain ELF file which is
 * reported as one slice). Fails with a message on any malformed record. */
graft_status_t graft_fatelf_list(const uint8_t* data, size_t size,
                                 graft_fatelf_slice_t* out_slices,
                                 size_t capacity, size_t* out_count);

/* Picks the slice for the running CPU; the error lists the slices present. */
graft_status_t graft_fatelf_select_host(const uint8_t* data, size_t size,
                                        graft_fatelf_slice_t* out_slice);

/* The registered target name of |machine| ("x86_64") or "machine 0x1234". */
const char* graft_elf_machine_name(uint16_t machine);

/* The CPU this runtime runs on: fills |out_fields| with its features in
 * IREE's cpu_data layout plus graft's own word (arch/arch.h: words 0..7 are
 * bit-for-bit what IREE's runtime reports and may be passed to IREE
 * plugins as processor_data; word 8 is graft's) and returns its ISA. The
 * ISA's file does the detection (cpuid and XGETBV on x86_64, the kernel's
 * AT_HWCAP/AT_HWCAP2 on Arm, AT_HWCAP and riscv_hwprobe on RISC-V). When
 * the runtime was built for an ISA graft has no target for, the words are
 * zero and the result is NULL. Detection runs on every call; it is cheap. */
const graft_elf_arch_t* graft_cpu_data(
    uint64_t out_fields[GRAFT_CPU_DATA_FIELD_COUNT]);

typedef struct graft_library_handle_s graft_library_handle_t;

/* Opens the library in |data| (FatELF or plain ELF): select, load, relocate,
 * protect, query, validate, choose the ISA variant for this CPU. |data| may
 * be freed after this returns. */
graft_status_t graft_library_open(const uint8_t* data, size_t size,
                                  graft_library_handle_t** out_handle);
/* Same, running the variant of level |isa| (NULL or "": the best this CPU
 * supports); an unknown level or one the CPU lacks features for fails
 * (variant.h). */
graft_status_t graft_library_open_isa(const uint8_t* data, size_t size,
                                      const char* isa,
                                      graft_library_handle_t** out_handle);
/* The validated library header as the executor runs it: its dispatch and
 * function tables are the chosen variant's. Valid until close. */
const graft_library_v1_t* graft_library_header(
    const graft_library_handle_t* handle);
/* The level of the chosen ISA variant ("x86-64-v4"), or "" when the slice
 * has no variants. Valid until close. */
const char* graft_library_level(const graft_library_handle_t* handle);
/* Machine of the loaded slice. */
uint16_t graft_library_machine(const graft_library_handle_t* handle);
/* The slice's GRAFT_UBSAN_INSTALL_SYMBOL function when it was built with
 * --sanitize=undefined (graft/abi.h), else NULL. Not called by the loader:
 * the executor's reporter is installed by whoever runs the library. */
graft_ubsan_install_fn_t graft_library_ubsan_install(
    const graft_library_handle_t* handle);
/* Runtime address of the slice's link-time address 0 (offsets in the
 * slice, for messages). */
uintptr_t graft_library_base(const graft_library_handle_t* handle);
void graft_library_close(graft_library_handle_t* handle);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_LOADER_H_ */
