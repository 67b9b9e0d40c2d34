/* Tests that observe the loader's protections in force, not just its
 * checks: after loading the host fixture, a write to its RELRO data (the
 * library header) and a write to its text (the dispatch function) both
 * fault, each tried in a child process; and /proc/self/maps shows no page of
 * the image both writable and executable and neither the header's nor the
 * dispatch's page writable. Disabling the RELRO or the protection
 * step of elf_loader.c makes these fail. */
#define _DEFAULT_SOURCE 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elf_image.h"
#include "graft/abi.h"
#include "loader_test.h"

/* Writes to |address| in a child process. Returns 1 when the write
 * faulted: the child did not reach its exit(0). Any way of dying counts,
 * since a sanitizer runtime may turn SIGSEGV into its own exit code. */
static int write_faults(volatile uint8_t* address) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) return 0;
  if (pid == 0) {
    *address = (uint8_t)(*address ^ 1u);
    _exit(0);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return 0;
  return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

typedef struct maps_report_t {
  int lines;          /* mappings overlapping the image */
  int write_exec;     /* of those, writable and executable */
  char header[5];     /* permissions of the page holding the header */
  char code[5];       /* permissions of the page holding the dispatch */
} maps_report_t;

/* Reads /proc/self/maps for the mappings overlapping [begin, end). */
static int read_maps(uintptr_t begin, uintptr_t end, uintptr_t header,
                     uintptr_t code, maps_report_t* out) {
  memset(out, 0, sizeof(*out));
  FILE* f = fopen("/proc/self/maps", "r");
  if (!f) return 0;
  char line[512];
  while (fgets(line, sizeof(line), f)) {
    unsigned long lo = 0, hi = 0;
    char perms[5] = "";
    if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) != 3) continue;
    if (hi <= begin || lo >= end) continue;
    ++out->lines;
    if (perms[1] == 'w' && perms[2] == 'x') ++out->write_exec;
    if (header >= lo && header < hi) memcpy(out->header, perms, 5);
    if (code >= lo && code < hi) memcpy(out->code, perms, 5);
  }
  fclose(f);
  return 1;
}

void test_protection_cases(void) {
  test_file_t elf = test_read_fixture(test_fixture_name(0, NULL));
  graft_elf_image_t image;
  graft_status_t status = graft_elf_image_load(elf.data, elf.size, &image);
  free(elf.data);
  void* query = NULL;
  if (!status) {
    status =
        graft_elf_image_lookup_function(&image, GRAFT_QUERY_SYMBOL, &query);
  }
  if (!test_expect_ok(status, "protect: load host fixture")) return;
  graft_library_query_fn_t fn;
  memcpy(&fn, &query, sizeof(fn));
  const graft_library_v1_t* lib = fn(GRAFT_ABI_VERSION);
  uintptr_t code = (uintptr_t)lib->dispatches[0];

  /* fixture.c's header is in .data.rel.ro, which -z relro covers. */
  test_check(write_faults((volatile uint8_t*)(uintptr_t)&lib->magic),
             "protect: a write to RELRO data faults", "the write succeeded");
  test_check(write_faults((volatile uint8_t*)code),
             "protect: a write to text faults", "the write succeeded");

  maps_report_t maps;
  uintptr_t begin = (uintptr_t)image.mapping;
  if (test_check(read_maps(begin, begin + image.mapping_size,
                           (uintptr_t)lib, code, &maps),
                 "protect: /proc/self/maps is readable", "cannot open it")) {
    char detail[128];
    snprintf(detail, sizeof(detail), "%d of %d mappings are W+X",
             maps.write_exec, maps.lines);
    test_check(maps.lines > 0 && maps.write_exec == 0,
               "protect: no mapping of the image is W+X", detail);
    /* Only 'w' is compared: qemu-user prints one line per host mapping
     * with the guest flags of its first page, so an 'x' may be missing. */
    snprintf(detail, sizeof(detail), "header page '%s', dispatch page '%s'",
             maps.header, maps.code);
    test_check(maps.header[0] == 'r' && maps.header[1] == '-' &&
                   maps.code[0] == 'r' && maps.code[1] == '-',
               "protect: RELRO and text pages are mapped read-only", detail);
  }
  graft_elf_image_unload(&image);
}
