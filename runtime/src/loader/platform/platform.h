/* What the loader needs from the operating system: reserve a range of
 * address space, change its protection page by page, give it back, and the
 * CPU features the OS reports. One file per OS implements this (linux.c). */
#ifndef GRAFT_RUNTIME_LOADER_PLATFORM_PLATFORM_H_
#define GRAFT_RUNTIME_LOADER_PLATFORM_PLATFORM_H_

#include <stddef.h>
#include <stdint.h>

#include "arch/arch.h"
#include "graft/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GRAFT_PROT_NONE 0u
#define GRAFT_PROT_READ 1u
#define GRAFT_PROT_WRITE 2u
#define GRAFT_PROT_EXEC 4u

/* The granule of protection changes, a power of two. */
size_t graft_platform_page_size(void);

/* Reserves |size| bytes (a page multiple) of zeroed, inaccessible address
 * space. The caller owns it and releases it with graft_platform_release. */
graft_status_t graft_platform_reserve(size_t size, void** out_base);

/* Sets the protection of the pages [addr, addr + size) inside a
 * reservation; |prot| is GRAFT_PROT_* bits and never WRITE|EXEC. */
graft_status_t graft_platform_protect(void* addr, size_t size, uint32_t prot);

void graft_platform_release(void* base, size_t size);

/* Where an OS reports a CPU feature (graft_cpu_feature_t.source of the
 * ISAs that ask the OS rather than the CPU). */
#define GRAFT_CPU_SOURCE_NONE 0   /* not reported */
#define GRAFT_AT_HWCAP 1          /* getauxval(AT_HWCAP) bit */
#define GRAFT_AT_HWCAP2 2         /* getauxval(AT_HWCAP2) bit */
#define GRAFT_HWPROBE_IMA_EXT_0 3 /* RISC-V riscv_hwprobe, key IMA_EXT_0 */

/* Sets in |fields| the bit of every feature of |features| that the OS
 * reports present; features from sources this OS or kernel lacks stay 0. */
void graft_platform_hwcaps_detect(const graft_cpu_feature_t* features,
                                  size_t count,
                                  uint64_t fields[GRAFT_CPU_DATA_FIELD_COUNT]);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_LOADER_PLATFORM_PLATFORM_H_ */
