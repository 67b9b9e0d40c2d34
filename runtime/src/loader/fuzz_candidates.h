/* For fuzzers: the library headers of a loaded image found without calling
 * its query function (which would run the input's own code, so a mutated
 * .text would crash in the fuzzed code rather than in graft): every
 * GRAFT_LIBRARY_MAGIC at an 8-aligned address of a readable segment is a
 * candidate, and graft_library_validate judges it. Used by fuzz_loader and
 * fuzz_host_program. */
#ifndef GRAFT_RUNTIME_LOADER_FUZZ_CANDIDATES_H_
#define GRAFT_RUNTIME_LOADER_FUZZ_CANDIDATES_H_

#include <string.h>

#include "elf_image.h"
#include "library_validate.h"

/* At most this many candidates are validated per input. */
#define GRAFT_FUZZ_MAX_CANDIDATES 4

/* Validates every candidate in |image|, loaded from |file_size| bytes;
 * stores those that pass in |valid| (GRAFT_FUZZ_MAX_CANDIDATES entries) and
 * returns how many did. A header is initialized data, so only the first
 * |file_size| bytes of a segment are searched: a segment's zero-filled rest
 * may be a gigabyte (a fuzzed p_memsz), which the loader maps without
 * touching but a full scan would fault in page by page. */
static size_t graft_fuzz_valid_libraries(
    const graft_elf_image_t* image, size_t file_size,
    const graft_library_v1_t* valid[GRAFT_FUZZ_MAX_CANDIDATES]) {
  size_t candidates = 0, valid_count = 0;
  for (size_t i = 0; i < image->segment_count; ++i) {
    const graft_elf_segment_t* seg = &image->segments[i];
    if (!(seg->flags & GRAFT_PF_R)) continue;
    uint64_t end = seg->memsz < file_size ? seg->memsz : file_size;
    for (uint64_t off = (8 - seg->vaddr % 8) % 8; off + 8 <= end; off += 8) {
      const uint8_t* p = (const uint8_t*)graft_elf_image_address(
          image, seg->vaddr + off);
      uint32_t magic;
      memcpy(&magic, p, sizeof(magic));
      if (magic != GRAFT_LIBRARY_MAGIC) continue;
      const graft_library_v1_t* lib = (const graft_library_v1_t*)(const void*)p;
      graft_status_t status = graft_library_validate(image, lib);
      if (status) {
        graft_status_free(status);
      } else {
        valid[valid_count++] = lib;
      }
      if (++candidates == GRAFT_FUZZ_MAX_CANDIDATES) return valid_count;
    }
  }
  return valid_count;
}

#endif /* GRAFT_RUNTIME_LOADER_FUZZ_CANDIDATES_H_ */
