/* A slice mapped into memory by graft's own ELF loader: the address-space
 * reservation, where each segment landed and with which permissions, and the
 * dynamic tables needed to find symbols. Internal to runtime/src/loader.
 *
 * Lifecycle: graft_elf_image_load fills a caller-owned graft_elf_image_t (on
 * failure nothing stays mapped); graft_elf_image_unload releases it. */
#ifndef GRAFT_RUNTIME_LOADER_ELF_IMAGE_H_
#define GRAFT_RUNTIME_LOADER_ELF_IMAGE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/arch.h"
#include "elf_format.h"
#include "graft/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GRAFT_ELF_MAX_SEGMENTS 16u
/* Largest image span accepted; compute slices are far smaller, and a bound
 * keeps a corrupt header from reserving the address space. */
#define GRAFT_ELF_MAX_SPAN (1ull << 30)

typedef struct graft_elf_segment_t {
  uint64_t vaddr;  /* link-time address */
  uint64_t memsz;
  uint32_t flags;  /* GRAFT_PF_* */
} graft_elf_segment_t;

/* Dynamic-table facts, as link-time addresses; 0 = absent. The relocation
 * tables are in the ISA's format (DT_RELA or DT_REL, arch->reloc_format). */
typedef struct graft_elf_dynamic_t {
  uint64_t symtab;
  uint64_t sym_count;
  uint64_t strtab;
  uint64_t strsz;
  uint64_t reloc, relocsz; /* DT_RELA/DT_RELASZ or DT_REL/DT_RELSZ */
  uint64_t jmprel, pltrelsz;
} graft_elf_dynamic_t;

typedef struct graft_elf_image_t {
  const graft_elf_arch_t* arch;
  const graft_elf_layout_t* layout; /* the slice's ELF class */
  uint8_t* mapping;     /* start of the reservation */
  size_t mapping_size;
  uintptr_t base;       /* runtime address of link-time address 0 */
  uint64_t span_begin;  /* link-time page-aligned [begin, end) */
  uint64_t span_end;
  size_t segment_count;
  graft_elf_segment_t segments[GRAFT_ELF_MAX_SEGMENTS];
  graft_elf_dynamic_t dynamic;
} graft_elf_image_t;

/* Validates the ELF slice |data|[0, size) and maps it: reserve, copy
 * segments, relocate, protect (W^X, RELRO), flush the icache. |data| is not
 * referenced after this returns. */
graft_status_t graft_elf_image_load(const uint8_t* data, size_t size,
                                    graft_elf_image_t* out_image);
void graft_elf_image_unload(graft_elf_image_t* image);

/* The runtime address of link-time address |vaddr|, which the caller has
 * checked lies inside the image (so it fits a pointer on every host). */
static inline void* graft_elf_image_address(const graft_elf_image_t* image,
                                            uint64_t vaddr) {
  return (void*)(image->base + (uintptr_t)vaddr);
}

/* Queries on a loaded image (elf_image.c).
 * True when [ptr, ptr + length) lies inside one loaded segment whose flags
 * include all of |required_flags| (GRAFT_PF_*). */
bool graft_elf_image_contains(const graft_elf_image_t* image, const void* ptr,
                              uint64_t length, uint32_t required_flags);
/* True when |str| starts inside a readable segment and its NUL terminator
 * lies inside the same segment. */
bool graft_elf_image_contains_string(const graft_elf_image_t* image,
                                     const char* str);

/* Runtime address of the defined, exported function symbol |name|. */
graft_status_t graft_elf_image_lookup_function(const graft_elf_image_t* image,
                                               const char* name,
                                               void** out_address);

/* Internal steps of graft_elf_image_load (elf_dynamic.c, elf_relocate.c). */
graft_status_t graft_elf_image_parse_dynamic(graft_elf_image_t* image,
                                             uint64_t dynamic_vaddr,
                                             uint64_t dynamic_size,
                                             const uint8_t* data,
                                             uint64_t shoff, uint16_t shnum);
graft_status_t graft_elf_image_relocate(graft_elf_image_t* image);
/* Reads symbol |index| of the dynamic symbol table; its name is checked to
 * be a string inside the image. */
graft_status_t graft_elf_image_symbol(const graft_elf_image_t* image,
                                      uint64_t index,
                                      graft_elf_sym_t* out_sym,
                                      const char** out_name);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_LOADER_ELF_IMAGE_H_ */
