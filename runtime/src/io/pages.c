/* Huge-page mappings (pages.h). */
#define _DEFAULT_SOURCE 1 /* madvise, MAP_ANONYMOUS */
#include "pages.h"

#include <stddef.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

uint64_t graft_pages_length(uint64_t bytes) {
  return (bytes + GRAFT_HUGE_PAGE_BYTES - 1) & ~(GRAFT_HUGE_PAGE_BYTES - 1);
}

#if defined(__linux__) && defined(MAP_ANONYMOUS)
void* graft_pages_map(uint64_t bytes) {
  uint64_t length = graft_pages_length(bytes);
  /* One huge page more than needed, then the head and tail around the
   * aligned part given back. */
  uint64_t padded = length + GRAFT_HUGE_PAGE_BYTES;
  if (length < bytes || padded < length || padded > SIZE_MAX) return NULL;
  char* base = mmap(NULL, (size_t)padded, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return NULL;
  uintptr_t aligned = ((uintptr_t)base + GRAFT_HUGE_PAGE_BYTES - 1) &
                      ~(uintptr_t)(GRAFT_HUGE_PAGE_BYTES - 1);
  char* data = (char*)aligned;
  size_t head = (size_t)(data - base);
  size_t tail = (size_t)(padded - head - length);
  if (head) munmap(base, head);
  if (tail) munmap(data + length, tail);
#if defined(MADV_HUGEPAGE)
  /* Advice only: where THP is off, the storage is ordinary pages. */
  (void)madvise(data, (size_t)length, MADV_HUGEPAGE);
#endif
  return data;
}

void graft_pages_unmap(void* data, uint64_t bytes) {
  munmap(data, (size_t)graft_pages_length(bytes));
}
#else
void* graft_pages_map(uint64_t bytes) {
  (void)bytes;
  return NULL;
}

void graft_pages_unmap(void* data, uint64_t bytes) {
  (void)data;
  (void)bytes;
}
#endif
