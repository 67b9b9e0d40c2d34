/* Large host buffers in transparent huge pages: tensors of 2 MiB and more
 * (io/tensor.c) and the runtime's arenas of that size (exec/arena.c). A
 * mapping on a 2 MiB boundary, advised for THP (the Linux default mode is
 * 'madvise'), costs one page fault per 2 MiB instead of 512 and one TLB
 * entry; elsewhere the functions fail and callers use the heap. Internal to
 * the runtime. */
#ifndef GRAFT_RUNTIME_IO_PAGES_H_
#define GRAFT_RUNTIME_IO_PAGES_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GRAFT_HUGE_PAGE_BYTES ((uint64_t)2 << 20)

/* |bytes| rounded up to whole huge pages: what graft_pages_map maps. */
uint64_t graft_pages_length(uint64_t bytes);

/* Zeroed storage of graft_pages_length(|bytes|) bytes starting on a 2 MiB
 * boundary, or NULL (no mmap here, or it failed). */
void* graft_pages_map(uint64_t bytes);

/* Releases what graft_pages_map(|bytes|) returned. */
void graft_pages_unmap(void* data, uint64_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_IO_PAGES_H_ */
