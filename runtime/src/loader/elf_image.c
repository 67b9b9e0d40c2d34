/* Queries on a loaded image: whether a pointer range or a string lies inside
 * one of its segments with the permissions asked for. The dynamic-table
 * parser, the relocator and library validation check every address a slice
 * hands them with these before reading through it. */
#include <string.h>

#include "elf_image.h"

/* The segment holding [ptr, ptr + length), or NULL. */
static const graft_elf_segment_t* find_segment(const graft_elf_image_t* image,
                                               const void* ptr,
                                               uint64_t length) {
  uintptr_t address = (uintptr_t)ptr;
  if (!image->mapping || address < image->base) return NULL;
  uint64_t vaddr = address - image->base;
  for (size_t i = 0; i < image->segment_count; ++i) {
    const graft_elf_segment_t* seg = &image->segments[i];
    if (vaddr < seg->vaddr) continue;
    uint64_t offset = vaddr - seg->vaddr;
    if (offset < seg->memsz && length <= seg->memsz - offset) return seg;
  }
  return NULL;
}

bool graft_elf_image_contains(const graft_elf_image_t* image, const void* ptr,
                              uint64_t length, uint32_t required_flags) {
  const graft_elf_segment_t* seg = find_segment(image, ptr, length);
  return seg && (seg->flags & required_flags) == required_flags;
}

bool graft_elf_image_contains_string(const graft_elf_image_t* image,
                                     const char* str) {
  const graft_elf_segment_t* seg = find_segment(image, str, 1);
  if (!seg || !(seg->flags & GRAFT_PF_R)) return false;
  uint64_t remaining =
      seg->vaddr + seg->memsz - ((uintptr_t)str - image->base);
  return memchr(str, '\0', (size_t)remaining) != NULL;
}
