/* Tests of the ELF loader's structural checks: program headers, dynamic
 * tags and relocation entries of the host fixture are patched one at a
 * time and each must be refused with a message naming the problem (or, for
 * the DT_HASH fallback, still load). */
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
  graft_elf64_ehdr_t ehdr;
} slice_t;

static slice_t fresh_slice(void) {
  test_file_t file = test_read_fixture(test_fixture_name(0, NULL));
  slice_t s;
  s.data = file.data;
  s.size = file.size;
  memcpy(&s.ehdr, s.data, sizeof(s.ehdr));
  return s;
}

static uint8_t* phdr_at(slice_t* s, int index) {
  return s->data + s->ehdr.e_phoff + (size_t)index * sizeof(graft_elf64_phdr_t);
}

/* The |nth| program header of |type| (counting from 0), or NULL. */
static uint8_t* find_phdr(slice_t* s, uint32_t type, int nth,
                          graft_elf64_phdr_t* out) {
  for (int i = 0; i < s->ehdr.e_phnum; ++i) {
    memcpy(out, phdr_at(s, i), sizeof(*out));
    if (out->p_type == type && nth-- == 0) return phdr_at(s, i);
  }
  return NULL;
}

static uint64_t file_offset_of(slice_t* s, uint64_t vaddr) {
  graft_elf64_phdr_t ph;
  for (int n = 0; find_phdr(s, GRAFT_PT_LOAD, n, &ph); ++n) {
    if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
      return vaddr - ph.p_vaddr + ph.p_offset;
    }
  }
  return 0;
}

/* The dynamic entry with |tag| in the file, or NULL. */
static uint8_t* find_dynamic(slice_t* s, int64_t tag, graft_elf64_dyn_t* out) {
  graft_elf64_phdr_t ph;
  if (!find_phdr(s, GRAFT_PT_DYNAMIC, 0, &ph)) return NULL;
  for (uint64_t off = 0; off + sizeof(*out) <= ph.p_filesz;
       off += sizeof(*out)) {
    memcpy(out, s->data + ph.p_offset + off, sizeof(*out));
    if (out->d_tag == tag) return s->data + ph.p_offset + off;
  }
  return NULL;
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
  graft_elf64_phdr_t ph;
  slice_t s = fresh_slice();
  uint8_t* p = find_phdr(&s, GRAFT_PT_LOAD, 1, &ph);
  ph.p_vaddr = 0x10;
  ph.p_offset = 0x10;
  memcpy(p, &ph, sizeof(ph));
  expect_load(&s, "overlaps or shares a page", "elf: overlapping PT_LOAD");

  s = fresh_slice();
  p = find_phdr(&s, GRAFT_PT_LOAD, 2, &ph);
  ph.p_filesz = ph.p_memsz + 1;
  memcpy(p, &ph, sizeof(ph));
  expect_load(&s, "exceeds memory size", "elf: p_filesz > p_memsz");

  s = fresh_slice();
  p = find_phdr(&s, GRAFT_PT_LOAD, 1, &ph);
  ph.p_offset += 8;
  memcpy(p, &ph, sizeof(ph));
  expect_load(&s, "are not congruent modulo", "elf: offset/vaddr congruence");

  s = fresh_slice();
  p = find_phdr(&s, GRAFT_PT_LOAD, 2, &ph);
  ph.p_memsz = 1ull << 40;
  memcpy(p, &ph, sizeof(ph));
  expect_load(&s, "image limit", "elf: huge segment");

  s = fresh_slice();
  p = find_phdr(&s, GRAFT_PT_LOAD, 2, &ph);
  ph.p_offset = s.size - 4 + (ph.p_vaddr % 4096) - (s.size - 4) % 4096;
  memcpy(p, &ph, sizeof(ph));
  expect_load(&s, "is outside the", "elf: segment past end of file");

  s = fresh_slice();
  p = find_phdr(&s, 0x6474e551u /* PT_GNU_STACK */, 0, &ph);
  ph.p_type = GRAFT_PT_TLS;
  memcpy(p, &ph, sizeof(ph));
  expect_load(&s, "thread-local storage", "elf: PT_TLS refused");

  /* PT_GNU_RELRO over the text segment used to be accepted and made
   * read-only, so the first dispatch faulted: RELRO must lie inside one
   * writable PT_LOAD. */
  s = fresh_slice();
  graft_elf64_phdr_t text;
  find_phdr(&s, GRAFT_PT_LOAD, 1, &text);
  p = find_phdr(&s, GRAFT_PT_GNU_RELRO, 0, &ph);
  ph.p_vaddr = text.p_vaddr;
  ph.p_offset = text.p_offset;
  ph.p_filesz = ph.p_memsz = text.p_memsz;
  memcpy(p, &ph, sizeof(ph));
  char expected[128];
  snprintf(expected, sizeof(expected),
           "PT_GNU_RELRO [0x%llx, +0x%llx) is not inside one writable PT_LOAD "
           "segment",
           (unsigned long long)text.p_vaddr, (unsigned long long)text.p_memsz);
  expect_load(&s, expected, "elf: PT_GNU_RELRO over the text segment");

  s = fresh_slice();
  p = find_phdr(&s, GRAFT_PT_GNU_RELRO, 0, &ph);
  ph.p_memsz += 0x10000;
  memcpy(p, &ph, sizeof(ph));
  expect_load(&s, "is not inside one writable PT_LOAD segment",
              "elf: PT_GNU_RELRO past its segment");

  s = fresh_slice();
  p = find_phdr(&s, GRAFT_PT_DYNAMIC, 0, &ph);
  ph.p_type = 0x6474e551u;
  memcpy(p, &ph, sizeof(ph));
  expect_load(&s, "no PT_DYNAMIC", "elf: missing PT_DYNAMIC");
}

static void dynamic_cases(void) {
  graft_elf64_dyn_t dyn;
  slice_t s = fresh_slice();
  uint8_t* p = find_dynamic(&s, GRAFT_DT_HASH, &dyn);
  dyn.d_tag = DT_GNU_HASH;
  memcpy(p, &dyn, sizeof(dyn));
  expect_load(&s, NULL, "elf: no DT_HASH, .dynsym section header sizes it");

  s = fresh_slice();
  p = find_dynamic(&s, GRAFT_DT_HASH, &dyn);
  dyn.d_tag = DT_GNU_HASH;
  memcpy(p, &dyn, sizeof(dyn));
  memset(s.data + 60, 0, 2); /* e_shnum = 0: no section headers either */
  expect_load(&s, "neither DT_HASH nor a .dynsym", "elf: no way to size .dynsym");

  s = fresh_slice();
  p = find_dynamic(&s, GRAFT_DT_RELA, &dyn);
  dyn.d_tag = GRAFT_DT_REL;
  memcpy(p, &dyn, sizeof(dyn));
  expect_load(&s, "slice uses DT_REL relocations; only DT_RELA",
              "elf: DT_REL refused");

  s = fresh_slice();
  p = find_dynamic(&s, 0x1e /* DT_FLAGS */, &dyn);
  dyn.d_tag = GRAFT_DT_NEEDED;
  dyn.d_val = 1;
  memcpy(p, &dyn, sizeof(dyn));
  expect_load(&s, "slice depends on shared library 'graft_library_query'",
              "elf: DT_NEEDED refused");

  s = fresh_slice();
  p = find_dynamic(&s, GRAFT_DT_RELASZ, &dyn);
  dyn.d_val += 1;
  memcpy(p, &dyn, sizeof(dyn));
  expect_load(&s, "not a multiple of the 24-byte entry", "elf: bad DT_RELASZ");

  s = fresh_slice();
  p = find_dynamic(&s, GRAFT_DT_RELA, &dyn);
  dyn.d_val = 0x7fff0000;
  memcpy(p, &dyn, sizeof(dyn));
  expect_load(&s, "DT_RELA [0x7fff0000", "elf: DT_RELA outside the image");

  s = fresh_slice();
  p = find_dynamic(&s, GRAFT_DT_STRSZ, &dyn);
  dyn.d_val = 1u << 30;
  memcpy(p, &dyn, sizeof(dyn));
  expect_load(&s, "DT_STRTAB", "elf: DT_STRSZ too large");
}

static void relocation_cases(void) {
  const char* host = graft_elf_machine_name(graft_elf_host_machine());
  graft_elf64_dyn_t dyn;
  slice_t s = fresh_slice();
  find_dynamic(&s, GRAFT_DT_RELA, &dyn);
  uint8_t* rela = s.data + file_offset_of(&s, dyn.d_val);
  graft_elf64_rela_t r;
  memcpy(&r, rela, sizeof(r));
  r.r_info = 99;
  memcpy(rela, &r, sizeof(r));
  char expected[128];
  snprintf(expected, sizeof(expected), "unsupported relocation type 99 for %s",
           host);
  expect_load(&s, expected, "elf: unknown relocation type named");

  s = fresh_slice();
  rela = s.data + file_offset_of(&s, dyn.d_val);
  memcpy(&r, rela, sizeof(r));
  r.r_offset = 0x40; /* the read-only program headers */
  memcpy(rela, &r, sizeof(r));
  expect_load(&s, "is not inside a writable segment",
              "elf: relocation into read-only segment");

  s = fresh_slice();
  rela = s.data + file_offset_of(&s, dyn.d_val);
  memcpy(&r, rela, sizeof(r));
  r.r_offset = 0xfffffffffffffff8ull;
  memcpy(rela, &r, sizeof(r));
  expect_load(&s, "is not inside a writable segment",
              "elf: relocation offset wraps");

  /* A symbolic relocation with a symbol index past the table. */
  test_file_t file = test_read_fixture(test_fixture_name(0, "symbolic"));
  s.data = file.data;
  s.size = file.size;
  memcpy(&s.ehdr, s.data, sizeof(s.ehdr));
  find_dynamic(&s, GRAFT_DT_RELA, &dyn);
  graft_elf64_dyn_t relasz;
  find_dynamic(&s, GRAFT_DT_RELASZ, &relasz);
  int patched = 0;
  for (uint64_t off = 0; off < relasz.d_val; off += sizeof(r)) {
    rela = s.data + file_offset_of(&s, dyn.d_val + off);
    memcpy(&r, rela, sizeof(r));
    if (GRAFT_ELF64_R_SYM(r.r_info) != 0) {
      r.r_info = ((uint64_t)4000 << 32) | GRAFT_ELF64_R_TYPE(r.r_info);
      memcpy(rela, &r, sizeof(r));
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
