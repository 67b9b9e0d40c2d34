/* tl_validate (test_library.h): the loader's validator applied to a
 * library written in C inside a test program. A slice's header is checked
 * against the image the loader mapped; here the image is the test program
 * itself, described from its own program headers, since that is where a
 * hand-written library's tables, strings and dispatch code live. */
#define _GNU_SOURCE 1
#include <link.h>
#include <string.h>

#include "exec/test_library.h"
#include "loader/library_validate.h"

/* The first object dl_iterate_phdr reports is the program itself. */
static int describe_program(struct dl_phdr_info* info, size_t size,
                            void* data) {
  (void)size;
  graft_elf_image_t* image = data;
  uint64_t lowest = UINT64_MAX;
  for (size_t i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || ph->p_memsz == 0) continue;
    if (image->segment_count == GRAFT_ELF_MAX_SEGMENTS) break;
    graft_elf_segment_t* seg = &image->segments[image->segment_count++];
    seg->vaddr = ph->p_vaddr;
    seg->memsz = ph->p_memsz;
    /* ELF's PF_* bits are graft's GRAFT_PF_* bits. */
    seg->flags = ph->p_flags;
    if (ph->p_vaddr < lowest) lowest = ph->p_vaddr;
  }
  image->base = (uintptr_t)info->dlpi_addr;
  image->mapping = (uint8_t*)graft_elf_image_address(image, lowest);
  return 1; /* stop after the program */
}

graft_status_t tl_validate(const graft_library_v1_t* library) {
  graft_elf_image_t image;
  memset(&image, 0, sizeof(image));
  dl_iterate_phdr(describe_program, &image);
  return graft_library_validate(&image, library);
}
