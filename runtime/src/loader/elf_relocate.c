/* Applies a loaded slice's dynamic relocations (the ISA's DT_RELA or DT_REL
 * table, and DT_JMPREL).
 *
 * What each relocation type computes comes from the ISA's rule table
 * (arch/<isa>.c); this file only walks the tables and checks every entry:
 * the word-sized slot must lie inside a writable segment (anything else
 * would be a text relocation, impossible under W^X), symbolic relocations
 * must name a symbol the slice defines itself, and unknown types are errors
 * rather than silently skipped. For REL (32-bit Arm) the addend is the word
 * already in the slot. -z now means there is no lazy binding: JUMP_SLOT
 * entries are resolved here like everything else. Values are computed on
 * 64 bits and stored in the slot's width (4 or 8 bytes). */
#include <inttypes.h>
#include <string.h>

#include "elf_format.h"
#include "elf_image.h"

/* Address a symbolic relocation refers to: S. */
static graft_status_t symbol_address(const graft_elf_image_t* image,
                                     uint32_t index, const char* rule_name,
                                     uint64_t* out_address) {
  graft_elf_sym_t sym;
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

static uint64_t read_slot(const void* slot, unsigned width) {
  if (width == 4) {
    uint32_t v;
    memcpy(&v, slot, sizeof(v));
    return v;
  }
  uint64_t v;
  memcpy(&v, slot, sizeof(v));
  return v;
}

static void write_slot(void* slot, unsigned width, uint64_t value) {
  if (width == 4) {
    uint32_t v = (uint32_t)value;
    memcpy(slot, &v, sizeof(v));
  } else {
    memcpy(slot, &value, sizeof(value));
  }
}

static graft_status_t apply_one(const graft_elf_image_t* image,
                                const graft_elf_reloc_t* reloc, int rela) {
  const graft_elf_arch_t* arch = image->arch;
  const unsigned width = image->layout->word_size;
  const graft_elf_reloc_rule_t* rule = graft_elf_arch_rule(arch, reloc->r_type);
  if (!rule) {
    return graft_status_make(GRAFT_UNIMPLEMENTED,
                             "unsupported relocation type %u for %s at offset "
                             "0x%" PRIx64,
                             reloc->r_type, arch->name, reloc->r_offset);
  }
  if (rule->kind == GRAFT_RELOC_NONE) return NULL;
  if (reloc->r_offset > image->span_end ||
      !graft_elf_image_contains(
          image, graft_elf_image_address(image, reloc->r_offset), width,
          GRAFT_PF_W)) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "%s at offset 0x%" PRIx64
                             " is not inside a writable segment",
                             rule->name, reloc->r_offset);
  }
  void* slot = graft_elf_image_address(image, reloc->r_offset);
  const uint64_t addend =
      rela ? (uint64_t)reloc->r_addend : read_slot(slot, width);
  uint64_t value = 0;
  switch (rule->kind) {
    case GRAFT_RELOC_RELATIVE:
      value = (uint64_t)image->base + addend;
      break;
    case GRAFT_RELOC_SYMBOL:
    case GRAFT_RELOC_SYMBOL_NO_ADDEND: {
      graft_status_t status =
          symbol_address(image, reloc->r_sym, rule->name, &value);
      if (status) return status;
      if (rule->kind == GRAFT_RELOC_SYMBOL) value += addend;
      break;
    }
    case GRAFT_RELOC_NONE:
      break;
  }
  write_slot(slot, width, value);
  return NULL;
}

static graft_status_t apply_table(const graft_elf_image_t* image,
                                  const char* what, uint64_t vaddr,
                                  uint64_t size) {
  if (size == 0) return NULL;
  const int rela = image->arch->reloc_format == GRAFT_ELF_RELA;
  const unsigned entry_size =
      rela ? image->layout->rela_size : image->layout->rel_size;
  if (size % entry_size != 0) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "%s size %" PRIu64
                             " is not a multiple of the %u-byte entry",
                             what, size, entry_size);
  }
  if (vaddr > image->span_end ||
      !graft_elf_image_contains(image, graft_elf_image_address(image, vaddr),
                                size, GRAFT_PF_R)) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "%s [0x%" PRIx64 ", +0x%" PRIx64
                             ") is not inside a readable loaded segment",
                             what, vaddr, size);
  }
  const uint8_t* table =
      (const uint8_t*)graft_elf_image_address(image, vaddr);
  for (uint64_t i = 0; i < size / entry_size; ++i) {
    graft_elf_reloc_t reloc;
    graft_elf_read_reloc(image->layout, table + i * entry_size, rela, &reloc);
    graft_status_t status = apply_one(image, &reloc, rela);
    if (status) return status;
  }
  return NULL;
}

graft_status_t graft_elf_image_relocate(graft_elf_image_t* image) {
  const char* name =
      image->arch->reloc_format == GRAFT_ELF_RELA ? "DT_RELA" : "DT_REL";
  graft_status_t status = apply_table(image, name, image->dynamic.reloc,
                                      image->dynamic.relocsz);
  if (status) return status;
  return apply_table(image, "DT_JMPREL", image->dynamic.jmprel,
                     image->dynamic.pltrelsz);
}
