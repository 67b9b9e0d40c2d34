/* Tests of the ELF loader's structural checks: program headers, dynamic
 * tags and relocation entries of the host fixture are patched one at a
 * time and each must be refused with a message naming the problem (or, for
 * the DT_HASH fallback, still load). Entries are read and patched through
 * the loader's own per-class layout (elf_format.h), so the same cases run
 * on 32-bit and 64-bit hosts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_format.h"
#include "elf_image.h"
#include "loader.h"
#include "loader_test.h"

#define DT_GNU_HASH 0x6ffffef5

typedef struct slice_t {
  uint8_t* data;
  size_t size;
  const graft_elf_layout_t* layout;
  graft_elf_ehdr_t ehdr;
} slice_t;

static slice_t slice_of(test_file_t file) {
  slice_t s;
  s.data = file.data;
  s.size = file.size;
  s.layout = graft_elf_layout(s.data[GRAFT_EI_CLASS]);
  if (!s.layout) {
    fprintf(stderr, "loader_test: fixture has ELF class %u\n",
            s.data[GRAFT_EI_CLASS]);
    exit(2);
  }
  graft_elf_read_ehdr(s.layout, s.data, &s.ehdr);
  return s;
}

static slice_t fresh_slice(void) {
  return slice_of(test_read_fixture(test_fixture_name(0, NULL)));
}

static uint8_t* phdr_at(slice_t* s, int index) {
  return s->data + s->ehdr.e_phoff + (size_t)index * s->layout->phdr_size;
}

/* The |nth| program header of |type| (counting from 0), or NULL. */
static uint8_t* find_phdr(slice_t* s, uint32_t type, int nth,
                          graft_elf_phdr_t* out) {
  for (int i = 0; i < s->ehdr.e_phnum; ++i) {
    graft_elf_read_phdr(s->layout, phdr_at(s, i), out);
    if (out->p_type == type && nth-- == 0) return phdr_at(s, i);
  }
  return NULL;
}

static uint64_t file_offset_of(slice_t* s, uint64_t vaddr) {
  graft_elf_phdr_t ph;
  for (int n = 0; find_phdr(s, GRAFT_PT_LOAD, n, &ph); ++n) {
    if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
      return vaddr - ph.p_vaddr + ph.p_offset;
    }
  }
  return 0;
}

/* The dynamic entry with |tag| in the file, or NULL. */
static uint8_t* find_dynamic(slice_t* s, int64_t tag, graft_elf_dyn_t* out) {
  graft_elf_phdr_t ph;
  if (!find_phdr(s, GRAFT_PT_DYNAMIC, 0, &ph)) return NULL;
  const unsigned size = s->layout->dyn_size;
  for (uint64_t off = 0; off + size <= ph.p_filesz; off += size) {
    graft_elf_read_dyn(s->layout, s->data + ph.p_offset + off, out);
    if (out->d_tag == tag) return s->data + ph.p_offset + off;
  }
  return NULL;
}

/* Rewrites the dynamic entry with |tag| (which must exist). */
static void patch_dynamic(slice_t* s, int64_t tag, int64_t new_tag,
                          uint64_t new_val) {
  graft_elf_dyn_t dyn;
  uint8_t* p = find_dynamic(s, tag, &dyn);
  test_check(p != NULL, "elf: fixture has the dynamic tag to patch", "");
  if (!p) return;
  graft_elf_write_field(p, s->layout->dyn.d_tag, (uint64_t)new_tag);
  graft_elf_write_field(p, s->layout->dyn.d_val, new_val);
}

/* The host ISA's relocation table tags (DT_RELA or DT_REL). */
typedef struct reloc_tags_t {
  int64_t table, size, other_table;
  const char *table_name, *other_name;
  unsigned entry_size;
} reloc_tags_t;

static reloc_tags_t host_reloc_tags(const slice_t* s) {
  if (graft_elf_arch_host()->reloc_format == GRAFT_ELF_REL) {
    return (reloc_tags_t){GRAFT_DT_REL, GRAFT_DT_RELSZ, GRAFT_DT_RELA,
                          "DT_REL", "DT_RELA", s->layout->rel_size};
  }
  return (reloc_tags_t){GRAFT_DT_RELA, GRAFT_DT_RELASZ, GRAFT_DT_REL,
                        "DT_RELA", "DT_REL", s->layout->rela_size};
}

static void expect_load(slice_t* s, const char* needle, const char* what) {
  graft_library_handle_t* handle = NULL;
  graft_status_t status = graft_library_open(s->data, s->size, &handle);
  if (needle) {
    test_expect_error(status, needle, what);
  } else {
    test_expect_ok(status, what);
  }
  graft_library_close(handle);
  free(s->data);
}

static void program_header_cases(void) {
  graft_elf_phdr_t ph;
  slice_t s = fresh_slice();
  const graft_elf_layout_t* l = s.layout;
  uint8_t* p = find_phdr(&s, GRAFT_PT_LOAD, 1, &ph);
  graft_elf_write_field(p, l->phdr.p_vaddr, 0x10);
  graft_elf_write_field(p, l->phdr.p_offset, 0x10);
  expect_load(&s, "overlaps or shares a page", "elf: overlapping PT_LOAD");

  s = fresh_slice();
  p = find_phdr(&s, GRAFT_PT_LOAD, 2, &ph);
  /* Shrink the memory size rather than grow the file size, which could
   * reach past the end of a small file first. */
  graft_elf_write_field(p, l->phdr.p_memsz, ph.p_filesz - 1);
  expect_load(&s, "exceeds memory size", "elf: p_filesz > p_memsz");

  s = fresh_slice();
  p = find_phdr(&s, GRAFT_PT_LOAD, 1, &ph);
  graft_elf_write_field(p, l->phdr.p_offset, ph.p_offset + 8);
  expect_load(&s, "are not congruent modulo", "elf: offset/vaddr congruence");

  s = fresh_slice();
  p = find_phdr(&s, GRAFT_PT_LOAD, 2, &ph);
  graft_elf_write_field(p, l->phdr.p_memsz, 1ull << 31);
  expect_load(&s, "image limit", "elf: huge segment");

  s = fresh_slice();
  p = find_phdr(&s, GRAFT_PT_LOAD, 2, &ph);
  /* Past the end of the file, still congruent with p_vaddr. */
  graft_elf_write_field(p, l->phdr.p_offset,
                        ((s.size + 4095) & ~(size_t)4095) + ph.p_vaddr % 4096);
  expect_load(&s, "is outside the", "elf: segment past end of file");

  s = fresh_slice();
  p = find_phdr(&s, 0x6474e551u /* PT_GNU_STACK */, 0, &ph);
  graft_elf_write_field(p, l->phdr.p_type, GRAFT_PT_TLS);
  expect_load(&s, "thread-local storage", "elf: PT_TLS refused");

  /* PT_GNU_RELRO over the text segment used to be accepted and made
   * read-only, so the first dispatch faulted: RELRO must lie inside one
   * writable PT_LOAD. */
  s = fresh_slice();
  graft_elf_phdr_t text;
  find_phdr(&s, GRAFT_PT_LOAD, 1, &text);
  p = find_phdr(&s, GRAFT_PT_GNU_RELRO, 0, &ph);
  graft_elf_write_field(p, l->phdr.p_vaddr, text.p_vaddr);
  graft_elf_write_field(p, l->phdr.p_offset, text.p_offset);
  graft_elf_write_field(p, l->phdr.p_filesz, text.p_memsz);
  graft_elf_write_field(p, l->phdr.p_memsz, text.p_memsz);
  char expected[128];
  snprintf(expected, sizeof(expected),
           "PT_GNU_RELRO [0x%llx, +0x%llx) is not inside one writable PT_LOAD "
           "segment",
           (unsigned long long)text.p_vaddr, (unsigned long long)text.p_memsz);
  expect_load(&s, expected, "elf: PT_GNU_RELRO over the text segment");

  s = fresh_slice();
  p = find_phdr(&s, GRAFT_PT_GNU_RELRO, 0, &ph);
  graft_elf_write_field(p, l->phdr.p_memsz, ph.p_memsz + 0x10000);
  expect_load(&s, "is not inside one writable PT_LOAD segment",
              "elf: PT_GNU_RELRO past its segment");

  s = fresh_slice();
  p = find_phdr(&s, GRAFT_PT_DYNAMIC, 0, &ph);
  graft_elf_write_field(p, l->phdr.p_type, 0x6474e551u);
  expect_load(&s, "no PT_DYNAMIC", "elf: missing PT_DYNAMIC");
}

static void dynamic_cases(void) {
  graft_elf_dyn_t dyn;
  slice_t s = fresh_slice();
  const reloc_tags_t tags = host_reloc_tags(&s);
  find_dynamic(&s, GRAFT_DT_HASH, &dyn);
  patch_dynamic(&s, GRAFT_DT_HASH, DT_GNU_HASH, dyn.d_val);
  expect_load(&s, NULL, "elf: no DT_HASH, .dynsym section header sizes it");

  s = fresh_slice();
  find_dynamic(&s, GRAFT_DT_HASH, &dyn);
  patch_dynamic(&s, GRAFT_DT_HASH, DT_GNU_HASH, dyn.d_val);
  /* e_shnum = 0: no section headers either */
  graft_elf_write_field(s.data, s.layout->ehdr.e_shnum, 0);
  expect_load(&s, "neither DT_HASH nor a .dynsym", "elf: no way to size .dynsym");

  s = fresh_slice();
  find_dynamic(&s, tags.table, &dyn);
  patch_dynamic(&s, tags.table, tags.other_table, dyn.d_val);
  char expected[160];
  snprintf(expected, sizeof(expected), "slice uses %s relocations; %s slices "
           "use %s", tags.other_name, graft_elf_arch_host()->name,
           tags.table_name);
  expect_load(&s, expected, "elf: the other relocation format refused");

  s = fresh_slice();
  patch_dynamic(&s, 0x1e /* DT_FLAGS */, GRAFT_DT_NEEDED, 1);
  expect_load(&s, "slice depends on shared library 'graft_library_query'",
              "elf: DT_NEEDED refused");

  s = fresh_slice();
  find_dynamic(&s, tags.size, &dyn);
  patch_dynamic(&s, tags.size, tags.size, dyn.d_val + 1);
  snprintf(expected, sizeof(expected), "not a multiple of the %u-byte entry",
           tags.entry_size);
  expect_load(&s, expected, "elf: relocation table size not whole entries");

  s = fresh_slice();
  patch_dynamic(&s, tags.table, tags.table, 0x7fff0000);
  snprintf(expected, sizeof(expected), "%s [0x7fff0000", tags.table_name);
  expect_load(&s, expected, "elf: relocation table outside the image");

  s = fresh_slice();
  find_dynamic(&s, GRAFT_DT_STRSZ, &dyn);
  patch_dynamic(&s, GRAFT_DT_STRSZ, GRAFT_DT_STRSZ, 1u << 30);
  expect_load(&s, "DT_STRTAB", "elf: DT_STRSZ too large");
}

/* The first entry of the host relocation table, in the file. */
static uint8_t* first_reloc(slice_t* s, const reloc_tags_t* tags) {
  graft_elf_dyn_t dyn;
  find_dynamic(s, tags->table, &dyn);
  return s->data + file_offset_of(s, dyn.d_val);
}

static void relocation_cases(void) {
  const char* host = graft_elf_arch_host()->name;
  slice_t s = fresh_slice();
  const graft_elf_layout_t* l = s.layout;
  const reloc_tags_t tags = host_reloc_tags(&s);
  graft_elf_write_field(first_reloc(&s, &tags), l->rel.r_info, 99);
  char expected[128];
  snprintf(expected, sizeof(expected), "unsupported relocation type 99 for %s",
           host);
  expect_load(&s, expected, "elf: unknown relocation type named");

  s = fresh_slice();
  /* The read-only program headers. */
  graft_elf_write_field(first_reloc(&s, &tags), l->rel.r_offset, 0x40);
  expect_load(&s, "is not inside a writable segment",
              "elf: relocation into read-only segment");

  s = fresh_slice();
  graft_elf_write_field(first_reloc(&s, &tags), l->rel.r_offset,
                        0xfffffffffffffff8ull);
  expect_load(&s, "is not inside a writable segment",
              "elf: relocation offset wraps");

  /* A symbolic relocation with a symbol index past the table. */
  s = slice_of(test_read_fixture(test_fixture_name(0, "symbolic")));
  graft_elf_dyn_t table, size;
  find_dynamic(&s, tags.table, &table);
  find_dynamic(&s, tags.size, &size);
  int patched = 0;
  for (uint64_t off = 0; off < size.d_val; off += tags.entry_size) {
    uint8_t* entry = s.data + file_offset_of(&s, table.d_val + off);
    graft_elf_reloc_t r;
    graft_elf_read_reloc(l, entry, tags.table == GRAFT_DT_RELA, &r);
    if (r.r_sym != 0) {
      graft_elf_write_field(entry, l->rel.r_info,
                            (uint64_t)4000 << l->r_sym_shift | r.r_type);
      patched = 1;
    }
  }
  test_check(patched, "elf: symbolic fixture has a symbol relocation", "");
  expect_load(&s, "symbol index 4000 is out of range",
              "elf: relocation symbol index out of range");
}

void test_elf_structure_cases(void) {
  program_header_cases();
  dynamic_cases();
  relocation_cases();
}
