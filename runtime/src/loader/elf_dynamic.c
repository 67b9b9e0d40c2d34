/* The dynamic section of a loaded slice: where the symbol, string and
 * relocation tables are, and what the slice must not ask for (other shared
 * libraries, relocations in the other format than its ISA's psABI uses,
 * initializers, text relocations).
 *
 * The number of dynamic symbols is not in the dynamic section itself. It
 * comes from DT_HASH (nchain; graft links with --hash-style=sysv) or, when a
 * slice only has DT_GNU_HASH, from the SHT_DYNSYM section header. Every
 * table's whole range is checked against the loaded segments before any
 * entry is read. */
#include <inttypes.h>
#include <string.h>

#include "elf_format.h"
#include "elf_image.h"

/* A table [vaddr, +size) that must lie inside one readable segment. */
static graft_status_t check_table(const graft_elf_image_t* image,
                                  const char* what, uint64_t vaddr,
                                  uint64_t size) {
  if (vaddr > image->span_end ||
      !graft_elf_image_contains(image, graft_elf_image_address(image, vaddr),
                                size, GRAFT_PF_R)) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "%s [0x%" PRIx64 ", +0x%" PRIx64
                             ") is not inside a readable loaded segment",
                             what, vaddr, size);
  }
  return NULL;
}

/* Sizes .dynsym from the section headers when there is no DT_HASH. */
static graft_status_t count_symbols_from_sections(graft_elf_image_t* image,
                                                  const uint8_t* data,
                                                  uint64_t shoff,
                                                  uint16_t shnum) {
  /* The header pass checked that the section table is inside the file. */
  const graft_elf_layout_t* layout = image->layout;
  for (uint16_t i = 0; i < shnum; ++i) {
    graft_elf_shdr_t sh;
    graft_elf_read_shdr(layout, data + shoff + (uint64_t)i * layout->shdr_size,
                        &sh);
    if (sh.sh_type != GRAFT_SHT_DYNSYM || sh.sh_addr != image->dynamic.symtab)
      continue;
    if (sh.sh_entsize != layout->sym_size) {
      return graft_status_make(GRAFT_DATA_LOSS,
                               ".dynsym entry size %" PRIu64 ", expected %u",
                               sh.sh_entsize, layout->sym_size);
    }
    image->dynamic.sym_count = sh.sh_size / layout->sym_size;
    return NULL;
  }
  return graft_status_make(GRAFT_DATA_LOSS,
                           "slice has neither DT_HASH nor a .dynsym section "
                           "header; cannot size its symbol table");
}

static graft_status_t count_symbols(graft_elf_image_t* image, uint64_t hash,
                                    const uint8_t* data, uint64_t shoff,
                                    uint16_t shnum) {
  if (hash) {
    graft_status_t status = check_table(image, "DT_HASH", hash, 8);
    if (status) return status;
    uint32_t header[2]; /* nbucket, nchain */
    memcpy(header, graft_elf_image_address(image, hash), sizeof(header));
    image->dynamic.sym_count = header[1];
  } else {
    graft_status_t status =
        count_symbols_from_sections(image, data, shoff, shnum);
    if (status) return status;
  }
  if (image->dynamic.sym_count > (1u << 24)) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "dynamic symbol count %" PRIu64 " is implausible",
                             image->dynamic.sym_count);
  }
  return check_table(image, "dynamic symbol table", image->dynamic.symtab,
                     image->dynamic.sym_count * image->layout->sym_size);
}

/* A name from the dynamic string table, or NULL when out of range. */
static const char* dynamic_string(const graft_elf_image_t* image,
                                  uint64_t offset) {
  if (offset >= image->dynamic.strsz) return NULL;
  const char* str = (const char*)graft_elf_image_address(
      image, image->dynamic.strtab + offset);
  const char* end = (const char*)graft_elf_image_address(
      image, image->dynamic.strtab + image->dynamic.strsz);
  return memchr(str, '\0', (size_t)(end - str)) ? str : NULL;
}

/* The names of an ISA's relocation table tags, for messages. */
typedef struct reloc_tags_t {
  int64_t table, size, entry_size;
  const char *table_name, *entry_name;
} reloc_tags_t;

static reloc_tags_t reloc_tags(graft_elf_reloc_format_t format) {
  if (format == GRAFT_ELF_REL) {
    return (reloc_tags_t){GRAFT_DT_REL, GRAFT_DT_RELSZ, GRAFT_DT_RELENT,
                          "DT_REL", "DT_RELENT"};
  }
  return (reloc_tags_t){GRAFT_DT_RELA, GRAFT_DT_RELASZ, GRAFT_DT_RELAENT,
                        "DT_RELA", "DT_RELAENT"};
}

graft_status_t graft_elf_image_parse_dynamic(graft_elf_image_t* image,
                                             uint64_t dynamic_vaddr,
                                             uint64_t dynamic_size,
                                             const uint8_t* data,
                                             uint64_t shoff, uint16_t shnum) {
  graft_status_t status =
      check_table(image, "PT_DYNAMIC", dynamic_vaddr, dynamic_size);
  if (status) return status;
  const graft_elf_layout_t* layout = image->layout;
  const graft_elf_arch_t* arch = image->arch;
  const reloc_tags_t mine = reloc_tags(arch->reloc_format);
  const reloc_tags_t other = reloc_tags(
      arch->reloc_format == GRAFT_ELF_REL ? GRAFT_ELF_RELA : GRAFT_ELF_REL);
  graft_elf_dynamic_t* dyn = &image->dynamic;
  uint64_t hash = 0, syment = 0, relent = 0, pltrel = 0, needed = 0;
  int has_needed = 0;
  size_t count = (size_t)(dynamic_size / layout->dyn_size);
  const uint8_t* table =
      (const uint8_t*)graft_elf_image_address(image, dynamic_vaddr);
  for (size_t i = 0; i < count; ++i) {
    graft_elf_dyn_t entry;
    graft_elf_read_dyn(layout, table + i * layout->dyn_size, &entry);
    if (entry.d_tag == GRAFT_DT_NULL) break;
    if (entry.d_tag == mine.table) {
      dyn->reloc = entry.d_val;
    } else if (entry.d_tag == mine.size) {
      dyn->relocsz = entry.d_val;
    } else if (entry.d_tag == mine.entry_size) {
      relent = entry.d_val;
    } else if (entry.d_tag == other.table || entry.d_tag == other.size) {
      return graft_status_make(GRAFT_DATA_LOSS,
                               "slice uses %s relocations; %s slices use %s",
                               other.table_name, arch->name, mine.table_name);
    }
    switch (entry.d_tag) {
      case GRAFT_DT_NEEDED: has_needed = 1; needed = entry.d_val; break;
      case GRAFT_DT_HASH: hash = entry.d_val; break;
      case GRAFT_DT_SYMTAB: dyn->symtab = entry.d_val; break;
      case GRAFT_DT_STRTAB: dyn->strtab = entry.d_val; break;
      case GRAFT_DT_STRSZ: dyn->strsz = entry.d_val; break;
      case GRAFT_DT_SYMENT: syment = entry.d_val; break;
      case GRAFT_DT_JMPREL: dyn->jmprel = entry.d_val; break;
      case GRAFT_DT_PLTRELSZ: dyn->pltrelsz = entry.d_val; break;
      case GRAFT_DT_PLTREL: pltrel = entry.d_val; break;
      case GRAFT_DT_RELR:
        return graft_status_make(GRAFT_UNIMPLEMENTED,
                                 "slice uses packed DT_RELR relocations, which "
                                 "the loader does not support (link without "
                                 "-z pack-relative-relocs)");
      case GRAFT_DT_TEXTREL:
        return graft_status_make(GRAFT_DATA_LOSS,
                                 "slice has text relocations (DT_TEXTREL), "
                                 "which W^X memory cannot apply");
      case GRAFT_DT_INIT:
      case GRAFT_DT_INIT_ARRAY:
      case GRAFT_DT_PREINIT_ARRAY:
        return graft_status_make(GRAFT_DATA_LOSS,
                                 "slice has initializers (dynamic tag %" PRId64
                                 "); graft slices must not need them",
                                 entry.d_tag);
      default:
        break;
    }
  }
  if (!dyn->symtab || !dyn->strtab) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "slice has no dynamic symbol table (DT_SYMTAB "
                             "and DT_STRTAB are required)");
  }
  if (syment && syment != layout->sym_size) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "DT_SYMENT is %" PRIu64 ", expected %u", syment,
                             layout->sym_size);
  }
  const unsigned entry_size = arch->reloc_format == GRAFT_ELF_REL
                                  ? layout->rel_size
                                  : layout->rela_size;
  if (relent && relent != entry_size) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "%s is %" PRIu64 ", expected %u", mine.entry_name,
                             relent, entry_size);
  }
  if (dyn->jmprel && pltrel != (uint64_t)mine.table) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "DT_PLTREL is %" PRIu64 ", expected %" PRId64
                             " (%s)",
                             pltrel, mine.table, mine.table_name);
  }
  status = check_table(image, "DT_STRTAB", dyn->strtab, dyn->strsz);
  if (status) return status;
  if (has_needed) {
    const char* name = dynamic_string(image, needed);
    return graft_status_make(GRAFT_DATA_LOSS,
                             "slice depends on shared library '%s' "
                             "(DT_NEEDED); slices must be self-contained",
                             name ? name : "?");
  }
  return count_symbols(image, hash, data, shoff, shnum);
}

graft_status_t graft_elf_image_symbol(const graft_elf_image_t* image,
                                      uint64_t index,
                                      graft_elf_sym_t* out_sym,
                                      const char** out_name) {
  if (index >= image->dynamic.sym_count) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "symbol index %" PRIu64 " is out of range (%" PRIu64
                             " dynamic symbols)",
                             index, image->dynamic.sym_count);
  }
  const graft_elf_layout_t* layout = image->layout;
  graft_elf_read_sym(layout,
                     (const uint8_t*)graft_elf_image_address(
                         image, image->dynamic.symtab + index * layout->sym_size),
                     out_sym);
  *out_name = dynamic_string(image, out_sym->st_name);
  if (!*out_name) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "symbol %" PRIu64 " has a name offset %u outside "
                             "the %" PRIu64 "-byte string table",
                             index, out_sym->st_name, image->dynamic.strsz);
  }
  return NULL;
}

graft_status_t graft_elf_image_lookup_function(const graft_elf_image_t* image,
                                               const char* name,
                                               void** out_address) {
  *out_address = NULL;
  for (uint64_t i = 1; i < image->dynamic.sym_count; ++i) {
    graft_elf_sym_t sym;
    const char* sym_name = NULL;
    graft_status_t status = graft_elf_image_symbol(image, i, &sym, &sym_name);
    if (status) return status;
    if (strcmp(sym_name, name) != 0) continue;
    unsigned bind = GRAFT_ELF_ST_BIND(sym.st_info);
    if (sym.st_shndx == GRAFT_SHN_UNDEF ||
        (bind != GRAFT_STB_GLOBAL && bind != GRAFT_STB_WEAK)) {
      continue;
    }
    if (GRAFT_ELF_ST_TYPE(sym.st_info) != GRAFT_STT_FUNC) {
      return graft_status_make(GRAFT_DATA_LOSS,
                               "symbol '%s' is not a function", name);
    }
    if (sym.st_value > image->span_end ||
        !graft_elf_image_contains(
            image, graft_elf_image_address(image, sym.st_value), 1,
            GRAFT_PF_X)) {
      return graft_status_make(GRAFT_DATA_LOSS,
                               "symbol '%s' at 0x%" PRIx64
                               " is not inside an executable segment",
                               name, sym.st_value);
    }
    *out_address = graft_elf_image_address(image, sym.st_value);
    return NULL;
  }
  return graft_status_make(GRAFT_NOT_FOUND,
                           "slice does not export '%s'", name);
}
