/* What the loader needs from the operating system: reserve a range of
 * address space, change its protection page by page, give it back. One file
 * per OS implements this (linux.c). */
#ifndef GRAFT_RUNTIME_LOADER_PLATFORM_PLATFORM_H_
#define GRAFT_RUNTIME_LOADER_PLATFORM_PLATFORM_H_

#include <stddef.h>
#include <stdint.h>

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

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_LOADER_PLATFORM_PLATFORM_H_ */
