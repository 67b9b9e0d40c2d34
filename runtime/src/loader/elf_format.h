/* The subset of the ELF format the loader reads, spelled out here so the
 * runtime does not depend on <elf.h> (absent on non-glibc hosts).
 * Reference: the System V gABI, https://www.sco.com/developers/gabi/latest/contents.html
 *
 * ELF32 and ELF64 differ only in where each field sits and how wide it is.
 * That difference is data, written once: a graft_elf_layout_t per class
 * gives every field's offset and width, and the graft_elf_read_* functions
 * (elf_layout.c) turn on-disk entries into the class-neutral structs below,
 * whose fields are all 64-bit. Nothing else in the loader knows the word
 * size. Fields are read with memcpy from unaligned bytes, never cast in
 * place: the input is untrusted and may sit at any alignment. Slices are
 * in the host's byte order (the loader checks EI_DATA first). */
#ifndef GRAFT_RUNTIME_LOADER_ELF_FORMAT_H_
#define GRAFT_RUNTIME_LOADER_ELF_FORMAT_H_

#include <stdint.h>

#define GRAFT_EI_NIDENT 16
#define GRAFT_EI_CLASS 4
#define GRAFT_EI_DATA 5
#define GRAFT_EI_VERSION 6
#define GRAFT_EI_OSABI 7
#define GRAFT_EI_ABIVERSION 8
#define GRAFT_ELFCLASS32 1
#define GRAFT_ELFCLASS64 2
#define GRAFT_ELFDATA2LSB 1
#define GRAFT_ELFDATA2MSB 2
#define GRAFT_EV_CURRENT 1
#define GRAFT_ET_DYN 3

#define GRAFT_PT_LOAD 1
#define GRAFT_PT_DYNAMIC 2
#define GRAFT_PT_TLS 7
#define GRAFT_PT_GNU_RELRO 0x6474e552u

#define GRAFT_PF_X 1u
#define GRAFT_PF_W 2u
#define GRAFT_PF_R 4u

#define GRAFT_SHT_DYNSYM 11

#define GRAFT_DT_NULL 0
#define GRAFT_DT_NEEDED 1
#define GRAFT_DT_PLTRELSZ 2
#define GRAFT_DT_HASH 4
#define GRAFT_DT_STRTAB 5
#define GRAFT_DT_SYMTAB 6
#define GRAFT_DT_RELA 7
#define GRAFT_DT_RELASZ 8
#define GRAFT_DT_RELAENT 9
#define GRAFT_DT_STRSZ 10
#define GRAFT_DT_SYMENT 11
#define GRAFT_DT_INIT 12
#define GRAFT_DT_REL 17
#define GRAFT_DT_RELSZ 18
#define GRAFT_DT_RELENT 19
#define GRAFT_DT_PLTREL 20
#define GRAFT_DT_TEXTREL 22
#define GRAFT_DT_JMPREL 23
#define GRAFT_DT_INIT_ARRAY 25
#define GRAFT_DT_INIT_ARRAYSZ 27
#define GRAFT_DT_PREINIT_ARRAY 32
#define GRAFT_DT_PREINIT_ARRAYSZ 33
#define GRAFT_DT_RELR 36

#define GRAFT_SHN_UNDEF 0
#define GRAFT_SHN_ABS 0xfff1u
#define GRAFT_STB_GLOBAL 1
#define GRAFT_STB_WEAK 2
#define GRAFT_STT_FUNC 2

#define GRAFT_ELF_ST_BIND(info) ((info) >> 4)
#define GRAFT_ELF_ST_TYPE(info) ((info)&0xf)

/*===----------------------------------------------------------------------===
 * Where each field is, per ELF class
 *===----------------------------------------------------------------------===*/

/* One field of an on-disk structure: byte offset and width (1, 2, 4 or 8). */
typedef struct graft_elf_field_t {
  uint8_t offset;
  uint8_t size;
} graft_elf_field_t;

typedef struct graft_elf_layout_t {
  uint8_t elf_class;   /* GRAFT_ELFCLASS32 or GRAFT_ELFCLASS64 */
  uint8_t word_size;   /* 4 or 8: addresses, offsets, relocation slots */
  uint8_t ehdr_size, phdr_size, shdr_size, dyn_size, sym_size, rel_size,
      rela_size;
  uint8_t r_sym_shift;  /* r_info >> shift is the symbol index */
  uint32_t r_type_mask; /* r_info & mask is the relocation type */
  struct {
    graft_elf_field_t e_type, e_machine, e_version, e_phoff, e_shoff,
        e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum;
  } ehdr;
  struct {
    graft_elf_field_t p_type, p_flags, p_offset, p_vaddr, p_filesz, p_memsz;
  } phdr;
  struct {
    graft_elf_field_t sh_type, sh_addr, sh_size, sh_entsize;
  } shdr;
  struct {
    graft_elf_field_t d_tag, d_val;
  } dyn;
  struct {
    graft_elf_field_t st_name, st_info, st_shndx, st_value;
  } sym;
  struct {
    graft_elf_field_t r_offset, r_info, r_addend; /* r_addend: RELA only */
  } rel;
} graft_elf_layout_t;

/* The layout of ELF class |elf_class| (e_ident[EI_CLASS]), or NULL when it
 * is neither ELFCLASS32 nor ELFCLASS64. */
const graft_elf_layout_t* graft_elf_layout(uint8_t elf_class);

/* Reads / writes one field (zero-extended; d_tag is sign-extended). */
uint64_t graft_elf_read_field(const uint8_t* entry, graft_elf_field_t field);
void graft_elf_write_field(uint8_t* entry, graft_elf_field_t field,
                           uint64_t value);

/*===----------------------------------------------------------------------===
 * Class-neutral entries
 *===----------------------------------------------------------------------===*/

typedef struct graft_elf_ehdr_t {
  uint8_t e_ident[GRAFT_EI_NIDENT];
  uint16_t e_type;
  uint16_t e_machine;
  uint32_t e_version;
  uint64_t e_phoff;
  uint64_t e_shoff;
  uint16_t e_ehsize;
  uint16_t e_phentsize;
  uint16_t e_phnum;
  uint16_t e_shentsize;
  uint16_t e_shnum;
} graft_elf_ehdr_t;

typedef struct graft_elf_phdr_t {
  uint32_t p_type;
  uint32_t p_flags;
  uint64_t p_offset;
  uint64_t p_vaddr;
  uint64_t p_filesz;
  uint64_t p_memsz;
} graft_elf_phdr_t;

typedef struct graft_elf_shdr_t {
  uint32_t sh_type;
  uint64_t sh_addr;
  uint64_t sh_size;
  uint64_t sh_entsize;
} graft_elf_shdr_t;

typedef struct graft_elf_dyn_t {
  int64_t d_tag;
  uint64_t d_val;
} graft_elf_dyn_t;

typedef struct graft_elf_sym_t {
  uint32_t st_name;
  uint8_t st_info;
  uint16_t st_shndx;
  uint64_t st_value;
} graft_elf_sym_t;

/* A REL or RELA entry. For REL the addend is implicit: it is the word at
 * the relocated slot, which the relocation code reads. */
typedef struct graft_elf_reloc_t {
  uint64_t r_offset;
  uint32_t r_sym;
  uint32_t r_type;
  int64_t r_addend; /* RELA only */
} graft_elf_reloc_t;

void graft_elf_read_ehdr(const graft_elf_layout_t* layout, const uint8_t* p,
                         graft_elf_ehdr_t* out);
void graft_elf_read_phdr(const graft_elf_layout_t* layout, const uint8_t* p,
                         graft_elf_phdr_t* out);
void graft_elf_read_shdr(const graft_elf_layout_t* layout, const uint8_t* p,
                         graft_elf_shdr_t* out);
void graft_elf_read_dyn(const graft_elf_layout_t* layout, const uint8_t* p,
                        graft_elf_dyn_t* out);
void graft_elf_read_sym(const graft_elf_layout_t* layout, const uint8_t* p,
                        graft_elf_sym_t* out);
/* |rela|: the entry has an explicit r_addend (DT_RELA) or not (DT_REL). */
void graft_elf_read_reloc(const graft_elf_layout_t* layout, const uint8_t* p,
                          int rela, graft_elf_reloc_t* out);

#endif /* GRAFT_RUNTIME_LOADER_ELF_FORMAT_H_ */
