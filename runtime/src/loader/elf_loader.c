/* graft's own ELF loader: validate a slice's headers, map its PT_LOAD
 * segments into one reservation, relocate, then lock permissions down.
 *
 * Order matters for W^X: every segment is first mapped read-write so it can
 * be copied and relocated, then switched to its final permissions (never
 * write+execute), then PT_GNU_RELRO is made read-only, and only then is the
 * instruction cache flushed. Slices are copied from memory rather than
 * mmap'ed from a file because a bundle holds several slices at arbitrary
 * offsets and may not come from a file at all. */
#include <stdio.h>
#include <string.h>

#include "elf_format.h"
#include "elf_image.h"
#include "loader.h"
#include "platform/platform.h"

/* Program headers a slice may have; more means a corrupt or foreign file. */
#define MAX_PROGRAM_HEADERS 64u

/* What the header pass found, before anything is mapped. */
typedef struct load_plan_t {
  const graft_elf_arch_t* arch;
  const graft_elf_layout_t* layout;
  graft_elf_ehdr_t ehdr;
  size_t load_count;
  graft_elf_phdr_t loads[GRAFT_ELF_MAX_SEGMENTS];
  int has_dynamic;
  graft_elf_phdr_t dynamic;
  int has_relro;
  graft_elf_phdr_t relro;
} load_plan_t;

static uint64_t page_floor(uint64_t value, uint64_t page) {
  return value & ~(page - 1);
}
static uint64_t page_ceil(uint64_t value, uint64_t page) {
  return (value + page - 1) & ~(page - 1);
}

/* The identification bytes: an ELF file of the host's ISA, word size and
 * byte order. Sets the plan's ISA and layout. */
static graft_status_t validate_ident(const uint8_t* data, size_t size,
                                     load_plan_t* plan) {
  if (size < GRAFT_EI_NIDENT || memcmp(data, "\x7f" "ELF", 4) != 0) {
    return graft_status_make(GRAFT_DATA_LOSS, "slice is not an ELF file");
  }
  const graft_elf_arch_t* host = graft_elf_arch_host();
  if (!host) {
    return graft_status_make(GRAFT_UNIMPLEMENTED,
                             "this runtime was built for a CPU graft has no "
                             "target for; it cannot load slices");
  }
  uint8_t elf_class = data[GRAFT_EI_CLASS];
  plan->layout = graft_elf_layout(elf_class);
  if (!plan->layout) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "ELF class %u is not supported (expected 1, "
                             "ELFCLASS32, or 2, ELFCLASS64)",
                             elf_class);
  }
  if (elf_class != host->elf_class) {
    return graft_status_make(GRAFT_NOT_FOUND,
                             "slice is %u-bit (ELF class %u) but %s slices "
                             "are %u-bit",
                             elf_class == GRAFT_ELFCLASS32 ? 32u : 64u,
                             elf_class, host->name,
                             host->elf_class == GRAFT_ELFCLASS32 ? 32u : 64u);
  }
  if (data[GRAFT_EI_DATA] != GRAFT_ELFDATA2LSB) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "ELF data encoding %u is not supported (expected "
                             "1, little-endian)",
                             data[GRAFT_EI_DATA]);
  }
  plan->arch = host;
  return NULL;
}

static graft_status_t validate_ehdr(const uint8_t* data, size_t size,
                                    load_plan_t* plan) {
  graft_status_t status = validate_ident(data, size, plan);
  if (status) return status;
  const graft_elf_layout_t* layout = plan->layout;
  graft_elf_ehdr_t* ehdr = &plan->ehdr;
  if (size < layout->ehdr_size) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "truncated ELF header: slice has %zu bytes, "
                             "expected at least %u",
                             size, layout->ehdr_size);
  }
  graft_elf_read_ehdr(layout, data, ehdr);
  if (ehdr->e_ident[GRAFT_EI_VERSION] != GRAFT_EV_CURRENT ||
      ehdr->e_version != GRAFT_EV_CURRENT) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "ELF version %u/%u is not supported (expected 1)",
                             ehdr->e_ident[GRAFT_EI_VERSION], ehdr->e_version);
  }
  if (ehdr->e_type != GRAFT_ET_DYN) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "ELF type %u is not supported (expected 3, "
                             "ET_DYN shared object)",
                             ehdr->e_type);
  }
  if (ehdr->e_machine != plan->arch->machine) {
    return graft_status_make(GRAFT_NOT_FOUND,
                             "slice is for %s but this CPU is %s",
                             graft_elf_machine_name(ehdr->e_machine),
                             plan->arch->name);
  }
  if (ehdr->e_ehsize != layout->ehdr_size ||
      ehdr->e_phentsize != layout->phdr_size) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "ELF header size %u / program header size %u, "
                             "expected %u / %u",
                             ehdr->e_ehsize, ehdr->e_phentsize,
                             layout->ehdr_size, layout->phdr_size);
  }
  if (ehdr->e_phnum == 0 || ehdr->e_phnum > MAX_PROGRAM_HEADERS) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "slice has %u program headers, expected 1 to %u",
                             ehdr->e_phnum, MAX_PROGRAM_HEADERS);
  }
  uint64_t ph_bytes = (uint64_t)ehdr->e_phnum * layout->phdr_size;
  if (ehdr->e_phoff > size || ph_bytes > size - ehdr->e_phoff) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "program header table [%llu, +%llu) is outside "
                             "the %zu-byte slice",
                             (unsigned long long)ehdr->e_phoff,
                             (unsigned long long)ph_bytes, size);
  }
  if (ehdr->e_shnum != 0) {
    if (ehdr->e_shentsize != layout->shdr_size) {
      return graft_status_make(GRAFT_DATA_LOSS,
                               "section header size %u, expected %u",
                               ehdr->e_shentsize, layout->shdr_size);
    }
    uint64_t sh_bytes = (uint64_t)ehdr->e_shnum * layout->shdr_size;
    if (ehdr->e_shoff > size || sh_bytes > size - ehdr->e_shoff) {
      return graft_status_make(GRAFT_DATA_LOSS,
                               "section header table [%llu, +%llu) is outside "
                               "the %zu-byte slice",
                               (unsigned long long)ehdr->e_shoff,
                               (unsigned long long)sh_bytes, size);
    }
  }
  return NULL;
}

static graft_status_t validate_load(const graft_elf_phdr_t* ph, size_t index,
                                    size_t size, uint64_t page) {
  if (ph->p_offset > size || ph->p_filesz > size - ph->p_offset) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "program header %zu: file range [%llu, +%llu) is "
                             "outside the %zu-byte slice",
                             index, (unsigned long long)ph->p_offset,
                             (unsigned long long)ph->p_filesz, size);
  }
  if (ph->p_filesz > ph->p_memsz) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "program header %zu: file size %llu exceeds "
                             "memory size %llu",
                             index, (unsigned long long)ph->p_filesz,
                             (unsigned long long)ph->p_memsz);
  }
  if (ph->p_vaddr > GRAFT_ELF_MAX_SPAN ||
      ph->p_memsz > GRAFT_ELF_MAX_SPAN - ph->p_vaddr) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "program header %zu: segment [0x%llx, +0x%llx) "
                             "is beyond the %llu MiB image limit",
                             index, (unsigned long long)ph->p_vaddr,
                             (unsigned long long)ph->p_memsz,
                             (unsigned long long)(GRAFT_ELF_MAX_SPAN >> 20));
  }
  if (ph->p_offset % page != ph->p_vaddr % page) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "program header %zu: offset 0x%llx and address "
                             "0x%llx are not congruent modulo the %llu-byte "
                             "page",
                             index, (unsigned long long)ph->p_offset,
                             (unsigned long long)ph->p_vaddr,
                             (unsigned long long)page);
  }
  if ((ph->p_flags & GRAFT_PF_W) && (ph->p_flags & GRAFT_PF_X)) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "program header %zu: segment at 0x%llx is both "
                             "writable and executable; graft refuses W+X "
                             "memory",
                             index, (unsigned long long)ph->p_vaddr);
  }
  return NULL;
}

/* PT_GNU_RELRO names data that is written by relocation and read-only
 * afterwards, so it must lie inside one writable PT_LOAD: over text or
 * read-only data it would only change protections nothing asked for (made
 * read-only, an executable segment stops being executable). */
static graft_status_t validate_relro(const load_plan_t* plan) {
  const graft_elf_phdr_t* relro = &plan->relro;
  if (!plan->has_relro || relro->p_memsz == 0) return NULL;
  for (size_t i = 0; i < plan->load_count; ++i) {
    const graft_elf_phdr_t* load = &plan->loads[i];
    if ((load->p_flags & GRAFT_PF_W) && relro->p_vaddr >= load->p_vaddr &&
        relro->p_vaddr - load->p_vaddr <= load->p_memsz &&
        relro->p_memsz <= load->p_memsz - (relro->p_vaddr - load->p_vaddr)) {
      return NULL;
    }
  }
  return graft_status_make(GRAFT_DATA_LOSS,
                           "PT_GNU_RELRO [0x%llx, +0x%llx) is not inside one "
                           "writable PT_LOAD segment",
                           (unsigned long long)relro->p_vaddr,
                           (unsigned long long)relro->p_memsz);
}

static graft_status_t build_plan(const uint8_t* data, size_t size,
                                 uint64_t page, load_plan_t* plan) {
  graft_status_t status = validate_ehdr(data, size, plan);
  if (status) return status;
  for (size_t i = 0; i < plan->ehdr.e_phnum; ++i) {
    graft_elf_phdr_t ph;
    graft_elf_read_phdr(plan->layout,
                        data + plan->ehdr.e_phoff + i * plan->layout->phdr_size,
                        &ph);
    switch (ph.p_type) {
      case GRAFT_PT_LOAD: {
        if (ph.p_memsz == 0) break; /* occupies no memory */
        status = validate_load(&ph, i, size, page);
        if (status) return status;
        if (plan->load_count == GRAFT_ELF_MAX_SEGMENTS) {
          return graft_status_make(GRAFT_DATA_LOSS,
                                   "slice has more than %u PT_LOAD segments",
                                   GRAFT_ELF_MAX_SEGMENTS);
        }
        if (plan->load_count > 0) {
          /* The gABI requires ascending p_vaddr; pages must not be shared
           * because each segment gets its own protection. */
          const graft_elf_phdr_t* prev = &plan->loads[plan->load_count - 1];
          uint64_t prev_end = page_ceil(prev->p_vaddr + prev->p_memsz, page);
          if (page_floor(ph.p_vaddr, page) < prev_end) {
            return graft_status_make(
                GRAFT_DATA_LOSS,
                "program header %zu: segment at 0x%llx overlaps or shares a "
                "page with the previous segment (ends 0x%llx) or is out of "
                "order",
                i, (unsigned long long)ph.p_vaddr,
                (unsigned long long)(prev->p_vaddr + prev->p_memsz));
          }
        }
        plan->loads[plan->load_count++] = ph;
        break;
      }
      case GRAFT_PT_DYNAMIC:
        if (plan->has_dynamic) {
          return graft_status_make(GRAFT_DATA_LOSS,
                                   "slice has more than one PT_DYNAMIC");
        }
        plan->has_dynamic = 1;
        plan->dynamic = ph;
        break;
      case GRAFT_PT_GNU_RELRO:
        if (plan->has_relro) {
          return graft_status_make(GRAFT_DATA_LOSS,
                                   "slice has more than one PT_GNU_RELRO");
        }
        plan->has_relro = 1;
        plan->relro = ph;
        break;
      case GRAFT_PT_TLS:
        return graft_status_make(GRAFT_DATA_LOSS,
                                 "slice uses thread-local storage (PT_TLS), "
                                 "which graft slices cannot have");
      default:
        break; /* PT_PHDR, PT_GNU_STACK, notes, attributes: nothing to do */
    }
  }
  if (plan->load_count == 0) {
    return graft_status_make(GRAFT_DATA_LOSS, "slice has no PT_LOAD segment");
  }
  if (!plan->has_dynamic) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "slice has no PT_DYNAMIC; cannot find its "
                             "symbols");
  }
  return validate_relro(plan);
}

static uint32_t protection_of(uint32_t pf_flags) {
  uint32_t prot = GRAFT_PROT_NONE;
  if (pf_flags & GRAFT_PF_R) prot |= GRAFT_PROT_READ;
  if (pf_flags & GRAFT_PF_W) prot |= GRAFT_PROT_WRITE;
  if (pf_flags & GRAFT_PF_X) prot |= GRAFT_PROT_EXEC;
  return prot;
}

/* Reserves the span and copies every segment in, read-write. */
static graft_status_t map_segments(const uint8_t* data, const load_plan_t* plan,
                                   uint64_t page, graft_elf_image_t* image) {
  const graft_elf_phdr_t* last = &plan->loads[plan->load_count - 1];
  image->span_begin = page_floor(plan->loads[0].p_vaddr, page);
  image->span_end = page_ceil(last->p_vaddr + last->p_memsz, page);
  size_t span = (size_t)(image->span_end - image->span_begin);
  void* mapping = NULL;
  graft_status_t status = graft_platform_reserve(span, &mapping);
  if (status) return status;
  image->mapping = (uint8_t*)mapping;
  image->mapping_size = span;
  image->base = (uintptr_t)mapping - (uintptr_t)image->span_begin;
  for (size_t i = 0; i < plan->load_count; ++i) {
    const graft_elf_phdr_t* ph = &plan->loads[i];
    uint64_t begin = page_floor(ph->p_vaddr, page);
    uint64_t end = page_ceil(ph->p_vaddr + ph->p_memsz, page);
    status = graft_platform_protect(graft_elf_image_address(image, begin),
                                    (size_t)(end - begin),
                                    GRAFT_PROT_READ | GRAFT_PROT_WRITE);
    if (status) return status;
    /* The reservation is zero-filled, which covers .bss. */
    memcpy(graft_elf_image_address(image, ph->p_vaddr), data + ph->p_offset,
           (size_t)ph->p_filesz);
    image->segments[i].vaddr = ph->p_vaddr;
    image->segments[i].memsz = ph->p_memsz;
    image->segments[i].flags = ph->p_flags;
    image->segment_count = i + 1;
  }
  return NULL;
}

/* Final permissions, then RELRO, then the icache. */
static graft_status_t protect_segments(const load_plan_t* plan, uint64_t page,
                                       graft_elf_image_t* image) {
  for (size_t i = 0; i < image->segment_count; ++i) {
    const graft_elf_segment_t* seg = &image->segments[i];
    uint64_t begin = page_floor(seg->vaddr, page);
    uint64_t end = page_ceil(seg->vaddr + seg->memsz, page);
    graft_status_t status =
        graft_platform_protect(graft_elf_image_address(image, begin),
                               (size_t)(end - begin), protection_of(seg->flags));
    if (status) return status;
  }
  if (plan->has_relro && plan->relro.p_memsz > 0) {
    /* validate_relro placed it inside one writable segment. */
    const graft_elf_phdr_t* relro = &plan->relro;
    /* Like glibc, round the end down: a partial last page stays writable
     * rather than taking unrelated data with it. */
    uint64_t begin = page_floor(relro->p_vaddr, page);
    uint64_t end = page_floor(relro->p_vaddr + relro->p_memsz, page);
    if (end > begin) {
      graft_status_t status =
          graft_platform_protect(graft_elf_image_address(image, begin),
                                 (size_t)(end - begin), GRAFT_PROT_READ);
      if (status) return status;
    }
  }
  if (image->arch->flush_icache) {
    for (size_t i = 0; i < image->segment_count; ++i) {
      const graft_elf_segment_t* seg = &image->segments[i];
      if (!(seg->flags & GRAFT_PF_X)) continue;
      uint8_t* begin = (uint8_t*)graft_elf_image_address(image, seg->vaddr);
      image->arch->flush_icache(begin, begin + seg->memsz);
    }
  }
  return NULL;
}

graft_status_t graft_elf_image_load(const uint8_t* data, size_t size,
                                    graft_elf_image_t* out_image) {
  memset(out_image, 0, sizeof(*out_image));
  uint64_t page = graft_platform_page_size();
  load_plan_t plan;
  memset(&plan, 0, sizeof(plan));
  graft_status_t status = build_plan(data, size, page, &plan);
  if (status) return status;
  out_image->arch = plan.arch;
  out_image->layout = plan.layout;
  status = map_segments(data, &plan, page, out_image);
  if (!status) {
    status = graft_elf_image_parse_dynamic(
        out_image, plan.dynamic.p_vaddr, plan.dynamic.p_memsz, data,
        plan.ehdr.e_shoff, plan.ehdr.e_shnum);
  }
  if (!status) status = graft_elf_image_relocate(out_image);
  if (!status) status = protect_segments(&plan, page, out_image);
  if (status) graft_elf_image_unload(out_image);
  return status;
}

void graft_elf_image_unload(graft_elf_image_t* image) {
  if (!image) return;
  graft_platform_release(image->mapping, image->mapping_size);
  memset(image, 0, sizeof(*image));
}
