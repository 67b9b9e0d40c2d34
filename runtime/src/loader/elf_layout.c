/* Where ELF32 and ELF64 put each field the loader reads (elf_format.h), and
 * the readers that turn on-disk entries into class-neutral ones. This is the
 * only place that knows the two layouts; offsets and widths are the gABI's
 * (Elf32_* / Elf64_* in its "ELF Header", "Program Header", "Sections",
 * "Dynamic Section", "Symbol Table" and "Relocation" chapters). */
#include <string.h>

#include "elf_format.h"

#define F(offset, size) {(offset), (size)}

static const graft_elf_layout_t kElf32 = {
    .elf_class = GRAFT_ELFCLASS32,
    .word_size = 4,
    .ehdr_size = 52,
    .phdr_size = 32,
    .shdr_size = 40,
    .dyn_size = 8,
    .sym_size = 16,
    .rel_size = 8,
    .rela_size = 12,
    .r_sym_shift = 8,
    .r_type_mask = 0xffu,
    .ehdr =
        {.e_type = F(16, 2), .e_machine = F(18, 2), .e_version = F(20, 4),
         .e_phoff = F(28, 4), .e_shoff = F(32, 4), .e_ehsize = F(40, 2),
         .e_phentsize = F(42, 2), .e_phnum = F(44, 2),
         .e_shentsize = F(46, 2), .e_shnum = F(48, 2)},
    .phdr =
        {.p_type = F(0, 4), .p_flags = F(24, 4), .p_offset = F(4, 4),
         .p_vaddr = F(8, 4), .p_filesz = F(16, 4), .p_memsz = F(20, 4)},
    .shdr =
        {.sh_type = F(4, 4), .sh_addr = F(12, 4), .sh_size = F(20, 4),
         .sh_entsize = F(36, 4)},
    .dyn =
        {.d_tag = F(0, 4), .d_val = F(4, 4)},
    .sym =
        {.st_name = F(0, 4), .st_info = F(12, 1), .st_shndx = F(14, 2),
         .st_value = F(4, 4)},
    .rel =
        {.r_offset = F(0, 4), .r_info = F(4, 4), .r_addend = F(8, 4)},
};

static const graft_elf_layout_t kElf64 = {
    .elf_class = GRAFT_ELFCLASS64,
    .word_size = 8,
    .ehdr_size = 64,
    .phdr_size = 56,
    .shdr_size = 64,
    .dyn_size = 16,
    .sym_size = 24,
    .rel_size = 16,
    .rela_size = 24,
    .r_sym_shift = 32,
    .r_type_mask = 0xffffffffu,
    .ehdr =
        {.e_type = F(16, 2), .e_machine = F(18, 2), .e_version = F(20, 4),
         .e_phoff = F(32, 8), .e_shoff = F(40, 8), .e_ehsize = F(52, 2),
         .e_phentsize = F(54, 2), .e_phnum = F(56, 2),
         .e_shentsize = F(58, 2), .e_shnum = F(60, 2)},
    .phdr =
        {.p_type = F(0, 4), .p_flags = F(4, 4), .p_offset = F(8, 8),
         .p_vaddr = F(16, 8), .p_filesz = F(32, 8), .p_memsz = F(40, 8)},
    .shdr =
        {.sh_type = F(4, 4), .sh_addr = F(16, 8), .sh_size = F(32, 8),
         .sh_entsize = F(56, 8)},
    .dyn =
        {.d_tag = F(0, 8), .d_val = F(8, 8)},
    .sym =
        {.st_name = F(0, 4), .st_info = F(4, 1), .st_shndx = F(6, 2),
         .st_value = F(8, 8)},
    .rel =
        {.r_offset = F(0, 8), .r_info = F(8, 8), .r_addend = F(16, 8)},
};

const graft_elf_layout_t* graft_elf_layout(uint8_t elf_class) {
  if (elf_class == GRAFT_ELFCLASS32) return &kElf32;
  if (elf_class == GRAFT_ELFCLASS64) return &kElf64;
  return NULL;
}

uint64_t graft_elf_read_field(const uint8_t* entry, graft_elf_field_t field) {
  const uint8_t* p = entry + field.offset;
  switch (field.size) {
    case 1:
      return p[0];
    case 2: {
      uint16_t v;
      memcpy(&v, p, sizeof(v));
      return v;
    }
    case 4: {
      uint32_t v;
      memcpy(&v, p, sizeof(v));
      return v;
    }
    default: {
      uint64_t v;
      memcpy(&v, p, sizeof(v));
      return v;
    }
  }
}

void graft_elf_write_field(uint8_t* entry, graft_elf_field_t field,
                           uint64_t value) {
  uint8_t* p = entry + field.offset;
  switch (field.size) {
    case 1:
      p[0] = (uint8_t)value;
      break;
    case 2: {
      uint16_t v = (uint16_t)value;
      memcpy(p, &v, sizeof(v));
      break;
    }
    case 4: {
      uint32_t v = (uint32_t)value;
      memcpy(p, &v, sizeof(v));
      break;
    }
    default:
      memcpy(p, &value, sizeof(value));
      break;
  }
}

/* A signed field (d_tag, r_addend), sign-extended from its width. */
static int64_t read_signed(const uint8_t* entry, graft_elf_field_t field) {
  uint64_t v = graft_elf_read_field(entry, field);
  unsigned bits = 8u * field.size;
  if (bits < 64 && (v >> (bits - 1)) & 1u) v |= ~0ull << bits;
  return (int64_t)v;
}

void graft_elf_read_ehdr(const graft_elf_layout_t* l, const uint8_t* p,
                         graft_elf_ehdr_t* out) {
  memcpy(out->e_ident, p, GRAFT_EI_NIDENT);
  out->e_type = (uint16_t)graft_elf_read_field(p, l->ehdr.e_type);
  out->e_machine = (uint16_t)graft_elf_read_field(p, l->ehdr.e_machine);
  out->e_version = (uint32_t)graft_elf_read_field(p, l->ehdr.e_version);
  out->e_phoff = graft_elf_read_field(p, l->ehdr.e_phoff);
  out->e_shoff = graft_elf_read_field(p, l->ehdr.e_shoff);
  out->e_ehsize = (uint16_t)graft_elf_read_field(p, l->ehdr.e_ehsize);
  out->e_phentsize = (uint16_t)graft_elf_read_field(p, l->ehdr.e_phentsize);
  out->e_phnum = (uint16_t)graft_elf_read_field(p, l->ehdr.e_phnum);
  out->e_shentsize = (uint16_t)graft_elf_read_field(p, l->ehdr.e_shentsize);
  out->e_shnum = (uint16_t)graft_elf_read_field(p, l->ehdr.e_shnum);
}

void graft_elf_read_phdr(const graft_elf_layout_t* l, const uint8_t* p,
                         graft_elf_phdr_t* out) {
  out->p_type = (uint32_t)graft_elf_read_field(p, l->phdr.p_type);
  out->p_flags = (uint32_t)graft_elf_read_field(p, l->phdr.p_flags);
  out->p_offset = graft_elf_read_field(p, l->phdr.p_offset);
  out->p_vaddr = graft_elf_read_field(p, l->phdr.p_vaddr);
  out->p_filesz = graft_elf_read_field(p, l->phdr.p_filesz);
  out->p_memsz = graft_elf_read_field(p, l->phdr.p_memsz);
}

void graft_elf_read_shdr(const graft_elf_layout_t* l, const uint8_t* p,
                         graft_elf_shdr_t* out) {
  out->sh_type = (uint32_t)graft_elf_read_field(p, l->shdr.sh_type);
  out->sh_addr = graft_elf_read_field(p, l->shdr.sh_addr);
  out->sh_size = graft_elf_read_field(p, l->shdr.sh_size);
  out->sh_entsize = graft_elf_read_field(p, l->shdr.sh_entsize);
}

void graft_elf_read_dyn(const graft_elf_layout_t* l, const uint8_t* p,
                        graft_elf_dyn_t* out) {
  out->d_tag = read_signed(p, l->dyn.d_tag);
  out->d_val = graft_elf_read_field(p, l->dyn.d_val);
}

void graft_elf_read_sym(const graft_elf_layout_t* l, const uint8_t* p,
                        graft_elf_sym_t* out) {
  out->st_name = (uint32_t)graft_elf_read_field(p, l->sym.st_name);
  out->st_info = (uint8_t)graft_elf_read_field(p, l->sym.st_info);
  out->st_shndx = (uint16_t)graft_elf_read_field(p, l->sym.st_shndx);
  out->st_value = graft_elf_read_field(p, l->sym.st_value);
}

void graft_elf_read_reloc(const graft_elf_layout_t* l, const uint8_t* p,
                          int rela, graft_elf_reloc_t* out) {
  uint64_t info = graft_elf_read_field(p, l->rel.r_info);
  out->r_offset = graft_elf_read_field(p, l->rel.r_offset);
  out->r_sym = (uint32_t)(info >> l->r_sym_shift);
  out->r_type = (uint32_t)(info & l->r_type_mask);
  out->r_addend = rela ? read_signed(p, l->rel.r_addend) : 0;
}
