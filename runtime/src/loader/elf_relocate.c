/* Applies a loaded slice's dynamic relocations (DT_RELA and DT_JMPREL).
 *
 * What each relocation type computes comes from the ISA's rule table
 * (arch/<isa>.c); this file only walks the tables and checks every entry:
 * the slot must lie inside a writable segment (anything else would be a
 * text relocation, impossible under W^X), symbolic relocations must name a
 * symbol the slice defines itself, and unknown types are errors rather than
 * silently skipped. -z now means there is no lazy binding: JUMP_SLOT entries
 * are resolved here like everything else. */
#include <inttypes.h>
#include <string.h>

#include "elf_format.h"
#include "elf_image.h"

/* Address a symbolic relocation refers to: S. */
static graft_status_t symbol_address(const graft_elf_image_t* image,
                                     uint32_t index, const char* rule_name,
                                     uint64_t* out_address) {
  graft_elf64_sym_t sym;
  const char* name = NULL;
  graft_status_t status = graft_elf_image_symbol(image, index, &sym, &name);
  if (status) {
    return graft_status_annotate(status, "%s relocation", rule_name);
  }
  if (index == 0 || sym.st_shndx == GRAFT_SHN_UNDEF) {
    return graft_status_make(GRAFT_NOT_FOUND,
                             "slice references undefined symbol '%s'; slices "
                             "must be self-contained",
                             name);
  }
  if (sym.st_shndx == GRAFT_SHN_ABS) {
    *out_address = sym.st_value;
    return NULL;
  }
  if (sym.st_value > image->span_end) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "symbol '%s' value 0x%" PRIx64
                             " is outside the image",
                             name, sym.st_value);
  }
  *out_address = image->base + sym.st_value;
  return NULL;
}

static graft_status_t apply_one(const graft_elf_image_t* image,
                                const graft_elf64_rela_t* rela) {
  const graft_elf_arch_t* arch = image->arch;
  uint32_t type = GRAFT_ELF64_R_TYPE(rela->r_info);
  const graft_elf_reloc_rule_t* rule = graft_elf_arch_rule(arch, type);
  if (!rule) {
    return graft_status_make(GRAFT_UNIMPLEMENTED,
                             "unsupported relocation type %u for %s at offset "
                             "0x%" PRIx64,
                             type, arch->name, rela->r_offset);
  }
  if (rule->kind == GRAFT_RELOC_NONE) return NULL;
  void* slot = (void*)(image->base + rela->r_offset);
  if (rela->r_offset > image->span_end ||
      !graft_elf_image_contains(image, slot, sizeof(uint64_t), GRAFT_PF_W)) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "%s at offset 0x%" PRIx64
                             " is not inside a writable segment",
                             rule->name, rela->r_offset);
  }
  uint64_t value = 0;
  switch (rule->kind) {
    case GRAFT_RELOC_RELATIVE:
      value = (uint64_t)image->base + (uint64_t)rela->r_addend;
      break;
    case GRAFT_RELOC_SYMBOL:
    case GRAFT_RELOC_SYMBOL_NO_ADDEND: {
      graft_status_t status = symbol_address(
          image, GRAFT_ELF64_R_SYM(rela->r_info), rule->name, &value);
      if (status) return status;
      if (rule->kind == GRAFT_RELOC_SYMBOL) value += (uint64_t)rela->r_addend;
      break;
    }
    case GRAFT_RELOC_NONE:
      break;
  }
  memcpy(slot, &value, sizeof(value));
  return NULL;
}

static graft_status_t apply_table(const graft_elf_image_t* image,
                                  const char* what, uint64_t vaddr,
                                  uint64_t size) {
  if (size == 0) return NULL;
  if (size % sizeof(graft_elf64_rela_t) != 0) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "%s size %" PRIu64
                             " is not a multiple of the 24-byte entry",
                             what, size);
  }
  const void* table = (const void*)(image->base + vaddr);
  if (vaddr > image->span_end ||
      !graft_elf_image_contains(image, table, size, GRAFT_PF_R)) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "%s [0x%" PRIx64 ", +0x%" PRIx64
                             ") is not inside a readable loaded segment",
                             what, vaddr, size);
  }
  for (uint64_t i = 0; i < size / sizeof(graft_elf64_rela_t); ++i) {
    graft_elf64_rela_t rela;
    memcpy(&rela, (const uint8_t*)table + i * sizeof(rela), sizeof(rela));
    graft_status_t status = apply_one(image, &rela);
    if (status) return status;
  }
  return NULL;
}

graft_status_t graft_elf_image_relocate(graft_elf_image_t* image) {
  graft_status_t status = apply_table(image, "DT_RELA", image->dynamic.rela,
                                      image->dynamic.relasz);
  if (status) return status;
  return apply_table(image, "DT_JMPREL", image->dynamic.jmprel,
                     image->dynamic.pltrelsz);
}
