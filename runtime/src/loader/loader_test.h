/* Shared harness of the loader tests (loader_test.c, loader_test_validate.c):
 * plain C with no test framework, so the same binary cross-builds and runs
 * under qemu-user. Each case prints one line; main prints "N passed, M
 * failed" and exits non-zero on any failure. */
#ifndef GRAFT_RUNTIME_LOADER_LOADER_TEST_H_
#define GRAFT_RUNTIME_LOADER_LOADER_TEST_H_

#include <stddef.h>
#include <stdint.h>

#include "graft/status.h"

typedef struct test_file_t {
  uint8_t* data;
  size_t size;
} test_file_t;

/* Reads |name| from the fixture directory; aborts the run when missing. */
test_file_t test_read_fixture(const char* name);
/* "fixture_<isa>.so" for the host, or for the first ISA that is not the
 * host when |other| is set. */
const char* test_fixture_name(int other, const char* variant);

/* Records one check; |detail| explains a failure. Returns |ok|. */
int test_check(int ok, const char* what, const char* detail);
/* Expects |status| to be an error whose message contains |needle|; frees
 * it. */
int test_expect_error(graft_status_t status, const char* needle,
                      const char* what);
/* Expects success; prints and frees the error otherwise. */
int test_expect_ok(graft_status_t status, const char* what);

void test_elf_structure_cases(void);
void test_validate_cases(void);
void test_protection_cases(void);

#endif /* GRAFT_RUNTIME_LOADER_LOADER_TEST_H_ */
