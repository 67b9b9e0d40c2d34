/* Tests of FatELF selection and the ELF loader against the checked-in ABI
 * fixtures (tests/fixtures/abi): loading and running the host slice, every
 * kind of malformed input failing with a specific message, and truncated or
 * corrupted files never crashing.
 *
 * usage: loader_test <fixture-dir>   (default: $GRAFT_SOURCE_DIR/tests/fixtures/abi) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "elf_format.h"
#include "elf_image.h"
#include "library_validate.h"
#include "loader.h"
#include "loader_test.h"

static const char* g_fixture_dir;
static int g_passed, g_failed;

int test_check(int ok, const char* what, const char* detail) {
  if (ok) {
    ++g_passed;
    printf("ok   %s\n", what);
  } else {
    ++g_failed;
    printf("FAIL %s: %s\n", what, detail ? detail : "");
  }
  return ok;
}

int test_expect_error(graft_status_t status, const char* needle,
                      const char* what) {
  if (!status) return test_check(0, what, "succeeded, expected an error");
  const char* message = graft_status_message(status);
  char detail[1024];
  snprintf(detail, sizeof(detail), "expected '%s' in '%s'", needle, message);
  int ok = test_check(strstr(message, needle) != NULL, what, detail);
  graft_status_free(status);
  return ok;
}

int test_expect_ok(graft_status_t status, const char* what) {
  int ok = test_check(status == NULL, what, graft_status_message(status));
  graft_status_free(status);
  return ok;
}

test_file_t test_read_fixture(const char* name) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", g_fixture_dir, name);
  test_file_t file = {NULL, 0};
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "loader_test: cannot open fixture %s\n", path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  file.data = (uint8_t*)malloc(size > 0 ? (size_t)size : 1);
  file.size = size > 0 ? (size_t)size : 0;
  if (!file.data || fread(file.data, 1, file.size, f) != file.size) {
    fprintf(stderr, "loader_test: cannot read fixture %s\n", path);
    exit(2);
  }
  fclose(f);
  return file;
}

const char* test_fixture_name(int other, const char* variant) {
  static char name[256];
  const graft_elf_arch_t* host = graft_elf_arch_host();
  const graft_elf_arch_t* isa = host;
  for (size_t i = 0; other && i < graft_elf_arch_count(); ++i) {
    if (graft_elf_arch_at(i) != host) {
      isa = graft_elf_arch_at(i);
      break;
    }
  }
  snprintf(name, sizeof(name), "fixture_%s%s%s.so", isa->name,
           variant ? "_" : "", variant ? variant : "");
  return name;
}

/* Calls the fixture's only dispatch like the executor would, over
 * ceildiv(n, 64) workgroups, and checks out = a + b. */
static void run_add_dispatch(const graft_library_v1_t* lib, const char* what) {
  enum { N = 150 };
  float a[N], b[N], out[N];
  for (int i = 0; i < N; ++i) {
    a[i] = (float)i;
    b[i] = 0.5f * (float)i - 3.0f;
    out[i] = -1.0f;
  }
  void* bindings[3] = {a, b, out};
  uint64_t lengths[3] = {sizeof(a), sizeof(b), sizeof(out)};
  uint64_t constants[1] = {N};
  graft_dispatch_state_v1_t state = {
      .workgroup_count = {(N + 63) / 64, 1, 1},
      .constant_count = 1,
      .binding_count = 3,
      .constants = constants,
      .bindings = bindings,
      .binding_lengths = lengths,
  };
  int rc = 0;
  for (uint32_t x = 0; x < state.workgroup_count[0]; ++x) {
    graft_workgroup_state_v1_t wg = {.workgroup_id = {x, 0, 0}};
    rc |= lib->dispatches[0](&state, &wg);
  }
  int bad = -1;
  for (int i = 0; i < N && bad < 0; ++i) {
    if (out[i] != a[i] + b[i]) bad = i;
  }
  char detail[128];
  snprintf(detail, sizeof(detail), "rc %d, first wrong element %d", rc, bad);
  test_check(rc == 0 && bad < 0, what, detail);
}

static void check_fixture_header(const graft_library_v1_t* lib,
                                 const char* what) {
  int ok = lib && strcmp(lib->name, "fixture") == 0 &&
           lib->function_count == 1 &&
           strcmp(lib->functions[0].name, "add") == 0 &&
           lib->functions[0].step_count == 1 && lib->dispatch_count == 1 &&
           strcmp(lib->dispatch_attrs[0].name, "add_dispatch_0_map") == 0;
  test_check(ok, what, "header content differs from fixture.c");
}

static void test_fatelf_list(void) {
  test_file_t fat = test_read_fixture("fixture.fatelf");
  graft_fatelf_slice_t slices[8];
  size_t count = 0;
  test_expect_ok(graft_fatelf_list(fat.data, fat.size, slices, 8, &count),
                 "fatelf: list fixture bundle");
  /* regen.sh bundles one slice per registered target, in registry order. */
  int ok = count == graft_elf_arch_count();
  for (size_t i = 0; ok && i < count; ++i) {
    ok = slices[i].machine == graft_elf_arch_at(i)->machine &&
         slices[i].word_size == graft_elf_arch_at(i)->elf_class &&
         slices[i].offset % 4096 == 0;
  }
  test_check(ok, "fatelf: one slice per registered target, in order",
             "wrong records");
  test_file_t elf = test_read_fixture(test_fixture_name(0, NULL));
  test_expect_ok(graft_fatelf_list(elf.data, elf.size, slices, 8, &count),
                 "fatelf: plain ELF lists");
  test_check(count == 1 && slices[0].offset == 0 && slices[0].size == elf.size,
             "fatelf: plain ELF is one whole-file slice", "wrong record");
  free(elf.data);
  free(fat.data);
}

static void test_open_and_run(void) {
  test_file_t fat = test_read_fixture("fixture.fatelf");
  graft_library_handle_t* handle = NULL;
  if (test_expect_ok(graft_library_open(fat.data, fat.size, &handle),
                     "open: host slice from FatELF")) {
    test_check(graft_library_machine(handle) == graft_elf_arch_host()->machine,
               "open: selected the host machine", "wrong machine");
    const graft_library_v1_t* lib = graft_library_header(handle);
    /* The bundle bytes may go away once open returns. */
    memset(fat.data, 0, fat.size);
    check_fixture_header(lib, "open: header matches fixture.c");
    run_add_dispatch(lib, "open: dispatch computes a + b");
    graft_library_close(handle);
  }
  free(fat.data);

  test_file_t elf = test_read_fixture(test_fixture_name(0, NULL));
  if (test_expect_ok(graft_library_open(elf.data, elf.size, &handle),
                     "open: plain host ELF")) {
    run_add_dispatch(graft_library_header(handle), "open: plain ELF runs");
    graft_library_close(handle);
  }
  free(elf.data);

  /* Default-visibility dispatch: the table entry is a symbolic relocation
   * (R_X86_64_64 / R_AARCH64_ABS64 / R_RISCV_64), not RELATIVE. */
  test_file_t sym = test_read_fixture(test_fixture_name(0, "symbolic"));
  if (test_expect_ok(graft_library_open(sym.data, sym.size, &handle),
                     "open: slice with symbolic relocation")) {
    run_add_dispatch(graft_library_header(handle),
                     "open: symbolic relocation resolved");
    graft_library_close(handle);
  }
  free(sym.data);
}

/* The fixture's ISA variants: the loader runs the one the CPU supports,
 * runs a requested one, and refuses an unknown level or one whose CPU
 * features are missing, naming the levels or the features. */
static void test_variants(void) {
  test_file_t fat = test_read_fixture("fixture.fatelf");
  graft_library_handle_t* handle = NULL;
  if (test_expect_ok(graft_library_open(fat.data, fat.size, &handle),
                     "variants: open with the best level")) {
    test_check(strcmp(graft_library_level(handle), "fixture-base") == 0,
               "variants: the CPU's best is fixture-base",
               graft_library_level(handle));
    graft_library_close(handle);
  }
  if (test_expect_ok(
          graft_library_open_isa(fat.data, fat.size, "fixture-base", &handle),
          "variants: a requested level runs")) {
    run_add_dispatch(graft_library_header(handle), "variants: forced runs");
    graft_library_close(handle);
  }
  test_expect_error(
      graft_library_open_isa(fat.data, fat.size, "fixture-future", &handle),
      "ISA level 'fixture-future' cannot run on this CPU: it lacks "
      "graft-fixture-never (unknown to this runtime)",
      "variants: a level the CPU lacks features for");
  test_expect_error(
      graft_library_open_isa(fat.data, fat.size, "x86-64-v9", &handle),
      "unknown ISA level 'x86-64-v9'; the slice has fixture-base, "
      "fixture-future",
      "variants: an unknown level lists the known ones");
  free(fat.data);
}

static void test_refusals(void) {
  graft_library_handle_t* handle = NULL;
  test_file_t undef = test_read_fixture(test_fixture_name(0, "undefined"));
  test_expect_error(graft_library_open(undef.data, undef.size, &handle),
                    "slice references undefined symbol 'memcpy'; slices must "
                    "be self-contained",
                    "refuse: undefined symbol named");
  free(undef.data);

  test_file_t abi = test_read_fixture(test_fixture_name(0, "abi99"));
  test_expect_error(graft_library_open(abi.data, abi.size, &handle),
                    "bundle ABI version 99 is not supported by this runtime "
                    "(supports 2)",
                    "refuse: ABI version 99");
  free(abi.data);

  /* The loader accepts a slice with imports; resolving them is the
   * module's job (exec/import_table.c), which refuses it with this check
   * when required ones stay unresolved. */
  test_file_t imports = test_read_fixture(test_fixture_name(0, "imports"));
  test_expect_ok(graft_library_open(imports.data, imports.size, &handle),
                 "imports: a slice with imports loads");
  if (handle) {
    test_expect_error(
        graft_library_check_imports(graft_library_header(handle), NULL),
        "library 'fixture' requires 2 imports that nothing provides: "
        "'fixture_ukernel', 'fixture_helper'",
        "imports: unresolved required imports listed");
    graft_library_close(handle);
    handle = NULL;
  }
  free(imports.data);

  const char* host = graft_elf_arch_host()->name;
  test_file_t other = test_read_fixture(test_fixture_name(1, NULL));
  uint16_t other_machine;
  memcpy(&other_machine, other.data + 18, 2);
  char expected[256];
  snprintf(expected, sizeof(expected), "no slice for this CPU (%s); the "
           "file has: %s", host, graft_elf_machine_name(other_machine));
  test_expect_error(graft_library_open(other.data, other.size, &handle),
                    expected, "refuse: wrong machine names both");
  /* The host's own slice relabelled for the other machine: only e_machine
   * is wrong (the other fixture may also differ in ELF class). */
  graft_elf_image_t image;
  test_file_t relabelled = test_read_fixture(test_fixture_name(0, NULL));
  memcpy(relabelled.data + 18, &other_machine, 2);
  snprintf(expected, sizeof(expected), "slice is for %s but this CPU is %s",
           graft_elf_machine_name(other_machine), host);
  test_expect_error(
      graft_elf_image_load(relabelled.data, relabelled.size, &image),
      expected, "refuse: ELF loader checks e_machine");
  free(relabelled.data);
  free(other.data);
  test_check(handle == NULL, "refuse: no handle on failure", "handle set");
}

/* Patches the PT_LOAD with PF_X to also be writable. */
static void test_wx_refused(void) {
  test_file_t elf = test_read_fixture(test_fixture_name(0, NULL));
  const graft_elf_layout_t* l = graft_elf_layout(elf.data[GRAFT_EI_CLASS]);
  graft_elf_ehdr_t eh;
  graft_elf_read_ehdr(l, elf.data, &eh);
  int patched = 0;
  for (int i = 0; i < eh.e_phnum; ++i) {
    uint8_t* p = elf.data + eh.e_phoff + (size_t)i * l->phdr_size;
    graft_elf_phdr_t ph;
    graft_elf_read_phdr(l, p, &ph);
    if (ph.p_type == GRAFT_PT_LOAD && (ph.p_flags & GRAFT_PF_X)) {
      graft_elf_write_field(p, l->phdr.p_flags, ph.p_flags | GRAFT_PF_W);
      patched = 1;
    }
  }
  graft_library_handle_t* handle = NULL;
  test_check(patched, "refuse W+X: fixture has an executable segment", "");
  test_expect_error(graft_library_open(elf.data, elf.size, &handle),
                    "both writable and executable", "refuse: W+X segment");
  free(elf.data);
}

/* Every prefix of a slice or a bundle must fail cleanly. */
static void test_truncation(void) {
  const char* names[2] = {test_fixture_name(0, NULL), "fixture.fatelf"};
  for (int n = 0; n < 2; ++n) {
    test_file_t file = test_read_fixture(names[n]);
    size_t step = file.size > 8192 ? 7 : 1, failures = 0, tries = 0;
    for (size_t len = 0; len < file.size; len += step, ++tries) {
      /* A fresh allocation per length lets ASan see any overread. */
      uint8_t* copy = (uint8_t*)malloc(len ? len : 1);
      memcpy(copy, file.data, len);
      graft_library_handle_t* handle = NULL;
      graft_status_t status = graft_library_open(copy, len, &handle);
      if (status) ++failures;
      graft_status_free(status);
      graft_library_close(handle);
      free(copy);
    }
    char what[128], detail[128];
    snprintf(what, sizeof(what), "truncate: every prefix of %s fails",
             names[n]);
    snprintf(detail, sizeof(detail), "%zu of %zu prefixes loaded", tries -
             failures, tries);
    test_check(failures == tries, what, detail);
    free(file.data);
  }
}

typedef struct patch_t {
  graft_elf_field_t field;
  uint64_t value;
  const char* expected;
} patch_t;

static void test_corrupt_elf_header(void) {
  test_file_t elf = test_read_fixture(test_fixture_name(0, NULL));
  const graft_elf_arch_t* host = graft_elf_arch_host();
  const graft_elf_layout_t* l = graft_elf_layout(elf.data[GRAFT_EI_CLASS]);
  const uint8_t other_class = host->elf_class == GRAFT_ELFCLASS64
                                  ? GRAFT_ELFCLASS32
                                  : GRAFT_ELFCLASS64;
  char wrong_class[96];
  snprintf(wrong_class, sizeof(wrong_class),
           "slice is %u-bit (ELF class %u) but %s slices are %u-bit",
           other_class == GRAFT_ELFCLASS64 ? 64u : 32u, other_class,
           host->name, host->elf_class == GRAFT_ELFCLASS64 ? 64u : 32u);
  const graft_elf_field_t ident_byte[] = {
      {0, 1}, {GRAFT_EI_CLASS, 1}, {GRAFT_EI_DATA, 1}, {GRAFT_EI_VERSION, 1}};
  const patch_t patches[] = {
      {ident_byte[0], 0x7e, "not an ELF file"},
      {ident_byte[1], 3, "ELF class 3 is not supported"},
      {ident_byte[1], other_class, wrong_class},
      {ident_byte[2], 2, "ELF data encoding 2"},
      {ident_byte[3], 0, "ELF version 0/1"},
      {l->ehdr.e_type, 2, "ELF type 2 is not supported (expected 3"},
      {l->ehdr.e_ehsize, 40, "ELF header size 40"},
      {l->ehdr.e_phentsize, 31, "program header size 31"},
      {l->ehdr.e_phnum, 0, "slice has 0 program headers"},
      {l->ehdr.e_phoff, 0xfffffffffffffff0ull, "program header table"},
      {l->ehdr.e_shoff, 0xffffffffffffff00ull, "section header table"},
      {l->ehdr.e_shentsize, 39, "section header size 39"},
  };
  for (size_t i = 0; i < sizeof(patches) / sizeof(patches[0]); ++i) {
    const patch_t* p = &patches[i];
    uint8_t* copy = (uint8_t*)malloc(elf.size);
    memcpy(copy, elf.data, elf.size);
    graft_elf_write_field(copy, p->field, p->value);
    graft_elf_image_t image;
    char what[160];
    snprintf(what, sizeof(what), "corrupt ELF header byte %u: %s",
             p->field.offset, p->expected);
    test_expect_error(graft_elf_image_load(copy, elf.size, &image), p->expected,
                      what);
    free(copy);
  }
  free(elf.data);
}

static void put_u64(uint8_t* p, uint64_t v) { memcpy(p, &v, 8); }

static void test_corrupt_fatelf(void) {
  test_file_t fat = test_read_fixture("fixture.fatelf");
  uint8_t* copy = (uint8_t*)malloc(fat.size);
  graft_fatelf_slice_t slice;
  struct {
    size_t offset;
    int width;
    uint64_t value;
    const char* expected;
  } const patches[] = {
      {0, 1, 0x00, "not a graft bundle"},
      {4, 2, 2, "FatELF version 2 is not supported"},
      {6, 1, 0, "FatELF bundle has no slices"},
      {8 + 8, 8, 16, "overlaps the header"},
      {8 + 8, 8, 4097, "is not aligned to 4096"},
      {8 + 16, 8, UINT64_MAX, "extends past the end of the file"},
      {8 + 8, 8, 0xfffffffffffff000ull, "extends past the end of the file"},
      {8 + 16, 8, 0, "is empty"},
      {8 + 24 + 8, 8, 4096, "overlap"},
      {7, 1, 1, "FatELF header's reserved byte is 1, expected 0"},
      {8 + 6, 1, 2, "has reserved bytes 2, 0, expected 0"},
      {8 + 24 + 7, 1, 2, "has reserved bytes 0, 2, expected 0"},
      {8 + 2, 1, 3, "does not match its ELF header"},
      {8 + 3, 1, 1, "does not match its ELF header"},
      {8 + 5, 1, 2, "does not match its ELF header"},
      {8 + 24, 2, 62, "FatELF slices 0 and 1 are both for x86_64"},
      {4096, 1, 0, "FatELF slice 0 (x86_64): not an ELF file"},
  };
  for (size_t i = 0; i < sizeof(patches) / sizeof(patches[0]); ++i) {
    memcpy(copy, fat.data, fat.size);
    if (patches[i].width == 8) {
      put_u64(copy + patches[i].offset, patches[i].value);
    } else {
      memcpy(copy + patches[i].offset, &patches[i].value, patches[i].width);
    }
    char what[128];
    snprintf(what, sizeof(what), "corrupt FatELF: %s", patches[i].expected);
    test_expect_error(graft_fatelf_select_host(copy, fat.size, &slice),
                      patches[i].expected, what);
  }
  memcpy(copy, fat.data, fat.size);
  char truncated[128];
  snprintf(truncated, sizeof(truncated),
           "truncated FatELF record table: %zu records need %zu bytes, file "
           "has 56",
           graft_elf_arch_count(), 8 + 24 * graft_elf_arch_count());
  test_expect_error(graft_fatelf_select_host(copy, 8 + 24 * 2, &slice),
                    truncated, "corrupt FatELF: truncated record table");
  /* A bundle without the host's slice lists what it has. */
  memcpy(copy, fat.data, fat.size);
  const graft_elf_arch_t* host = graft_elf_arch_host();
  size_t host_index = 0;
  for (size_t r = 0; r < graft_elf_arch_count(); ++r) {
    uint16_t machine;
    memcpy(&machine, copy + 8 + 24 * r, 2);
    if (machine == host->machine) host_index = r;
  }
  /* A slice of the word size the host's target does not use (record and
   * ELF header agree) is not for this CPU. */
  const uint8_t other_class =
      host->elf_class == GRAFT_ELFCLASS64 ? GRAFT_ELFCLASS32 : GRAFT_ELFCLASS64;
  uint64_t host_offset;
  memcpy(&host_offset, copy + 8 + 24 * host_index + 8, 8);
  copy[8 + 24 * host_index + 4] = other_class;
  copy[host_offset + GRAFT_EI_CLASS] = other_class;
  test_expect_error(graft_fatelf_select_host(copy, fat.size, &slice),
                    "no slice for this CPU (", "corrupt FatELF: no host slice");
  free(copy);
  free(fat.data);
}

/* Flips bytes all over a slice and loads it without running its code: the
 * loader and the validator must reject or accept, never crash. The header
 * is found where the unmodified slice had it, since calling a corrupted
 * query function would only test the CPU. */
static void test_byte_flips(void) {
  test_file_t elf = test_read_fixture(test_fixture_name(0, NULL));
  graft_elf_image_t image;
  graft_status_t status = graft_elf_image_load(elf.data, elf.size, &image);
  void* query = NULL;
  if (!status) {
    status = graft_elf_image_lookup_function(&image, GRAFT_QUERY_SYMBOL, &query);
  }
  if (!test_expect_ok(status, "flip: load pristine slice")) return;
  graft_library_query_fn_t fn;
  memcpy(&fn, &query, sizeof(fn));
  uintptr_t header_offset = (uintptr_t)fn(GRAFT_ABI_VERSION) - image.base;
  graft_elf_image_unload(&image);

  static const uint8_t kValues[] = {0x00, 0xff, 0x80, 0x01};
  size_t loads = 0, validated = 0, runs = 0;
  uint8_t* copy = (uint8_t*)malloc(elf.size);
  for (size_t offset = 0; offset < elf.size; ++offset) {
    for (size_t v = 0; v < sizeof(kValues); ++v) {
      memcpy(copy, elf.data, elf.size);
      /* Set to 0x00 / 0xff, flip the top / bottom bit. */
      copy[offset] = v < 2 ? kValues[v] : (uint8_t)(copy[offset] ^ kValues[v]);
      if (copy[offset] == elf.data[offset]) continue;
      ++runs;
      status = graft_elf_image_load(copy, elf.size, &image);
      if (!status) {
        ++loads;
        const graft_library_v1_t* header =
            (const graft_library_v1_t*)(image.base + header_offset);
        status = graft_library_validate(&image, header);
        if (!status) ++validated;
        graft_elf_image_unload(&image);
      }
      graft_status_free(status);
    }
  }
  free(copy);
  free(elf.data);
  char detail[128];
  snprintf(detail, sizeof(detail), "%zu mutations, %zu loaded, %zu validated",
           runs, loads, validated);
  /* Reaching here is the test; the counts show it exercised both paths. */
  test_check(loads > 0 && loads < runs, "flip: every byte mutated, no crash",
             detail);
  printf("     (%s)\n", detail);
}

int main(int argc, char** argv) {
  static char default_dir[4096];
  if (argc > 1) {
    g_fixture_dir = argv[1];
  } else {
    const char* src = getenv("GRAFT_SOURCE_DIR");
    snprintf(default_dir, sizeof(default_dir), "%s/tests/fixtures/abi",
             src ? src : ".");
    g_fixture_dir = default_dir;
  }
  test_fatelf_list();
  test_open_and_run();
  test_variants();
  test_refusals();
  test_wx_refused();
  test_corrupt_elf_header();
  test_corrupt_fatelf();
  test_elf_structure_cases();
  test_truncation();
  test_validate_cases();
  test_protection_cases();
  test_byte_flips();
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed > 0 ? 1 : 0;
}
