/* The subset of the ELF64 format the loader reads, spelled out here so the
 * runtime does not depend on <elf.h> (absent on non-glibc hosts).
 * Reference: the System V gABI, https://www.sco.com/developers/gabi/latest/contents.html
 *
 * Structures are read with memcpy from unaligned bytes, never cast in place:
 * the input is untrusted and may sit at any alignment. */
#ifndef GRAFT_RUNTIME_LOADER_ELF_FORMAT_H_
#define GRAFT_RUNTIME_LOADER_ELF_FORMAT_H_

#include <stdint.h>

#define GRAFT_EI_NIDENT 16
#define GRAFT_EI_CLASS 4
#define GRAFT_EI_DATA 5
#define GRAFT_EI_VERSION 6
#define GRAFT_EI_OSABI 7
#define GRAFT_EI_ABIVERSION 8
#define GRAFT_ELFCLASS64 2
#define GRAFT_ELFDATA2LSB 1
#define GRAFT_EV_CURRENT 1
#define GRAFT_ET_DYN 3

#define GRAFT_EM_X86_64 62
#define GRAFT_EM_AARCH64 183
#define GRAFT_EM_RISCV 243

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

typedef struct graft_elf64_ehdr_t {
  uint8_t e_ident[GRAFT_EI_NIDENT];
  uint16_t e_type;
  uint16_t e_machine;
  uint32_t e_version;
  uint64_t e_entry;
  uint64_t e_phoff;
  uint64_t e_shoff;
  uint32_t e_flags;
  uint16_t e_ehsize;
  uint16_t e_phentsize;
  uint16_t e_phnum;
  uint16_t e_shentsize;
  uint16_t e_shnum;
  uint16_t e_shstrndx;
} graft_elf64_ehdr_t;

typedef struct graft_elf64_phdr_t {
  uint32_t p_type;
  uint32_t p_flags;
  uint64_t p_offset;
  uint64_t p_vaddr;
  uint64_t p_paddr;
  uint64_t p_filesz;
  uint64_t p_memsz;
  uint64_t p_align;
} graft_elf64_phdr_t;

typedef struct graft_elf64_shdr_t {
  uint32_t sh_name;
  uint32_t sh_type;
  uint64_t sh_flags;
  uint64_t sh_addr;
  uint64_t sh_offset;
  uint64_t sh_size;
  uint32_t sh_link;
  uint32_t sh_info;
  uint64_t sh_addralign;
  uint64_t sh_entsize;
} graft_elf64_shdr_t;

typedef struct graft_elf64_dyn_t {
  int64_t d_tag;
  uint64_t d_val;
} graft_elf64_dyn_t;

typedef struct graft_elf64_sym_t {
  uint32_t st_name;
  uint8_t st_info;
  uint8_t st_other;
  uint16_t st_shndx;
  uint64_t st_value;
  uint64_t st_size;
} graft_elf64_sym_t;

typedef struct graft_elf64_rela_t {
  uint64_t r_offset;
  uint64_t r_info;
  int64_t r_addend;
} graft_elf64_rela_t;

#define GRAFT_ELF64_R_SYM(info) ((uint32_t)((info) >> 32))
#define GRAFT_ELF64_R_TYPE(info) ((uint32_t)((info)&0xffffffffu))
#define GRAFT_ELF64_ST_BIND(info) ((info) >> 4)
#define GRAFT_ELF64_ST_TYPE(info) ((info)&0xf)

#endif /* GRAFT_RUNTIME_LOADER_ELF_FORMAT_H_ */
