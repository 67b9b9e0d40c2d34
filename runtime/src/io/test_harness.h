/* A tiny test harness for the runtime's plain-C tests. Plain C (no gtest)
 * so the same tests cross-build for aarch64/riscv64 and run under qemu.
 * Each case prints one line; graft_test_finish() prints "N passed, M failed"
 * and returns the process exit code. */
#ifndef GRAFT_RUNTIME_TEST_HARNESS_H_
#define GRAFT_RUNTIME_TEST_HARNESS_H_

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graft/status.h"

static int graft_test_passed_, graft_test_failed_;
static int graft_test_case_failed_;

/* Runs |fn| as one case named by its identifier. */
#define TEST_CASE(fn)                                              \
  do {                                                             \
    graft_test_case_failed_ = 0;                                   \
    fn();                                                          \
    if (graft_test_case_failed_) {                                 \
      ++graft_test_failed_;                                        \
      printf("FAIL %s\n", #fn);                                    \
    } else {                                                       \
      ++graft_test_passed_;                                        \
      printf("ok   %s\n", #fn);                                    \
    }                                                              \
    fflush(stdout);                                                \
  } while (0)

#define EXPECT(cond)                                                      \
  do {                                                                    \
    if (!(cond)) {                                                        \
      printf("  %s:%d: expected %s\n", __FILE__, __LINE__, #cond);        \
      graft_test_case_failed_ = 1;                                        \
    }                                                                     \
  } while (0)

/* Expects two C strings to be equal (either may be NULL). */
#define EXPECT_STR(actual, expected)                                      \
  do {                                                                    \
    const char* a_ = (actual);                                            \
    const char* e_ = (expected);                                          \
    if (!a_ || !e_ || strcmp(a_, e_) != 0) {                              \
      printf("  %s:%d: expected \"%s\", got \"%s\"\n", __FILE__, __LINE__, \
             e_ ? e_ : "(null)", a_ ? a_ : "(null)");                     \
      graft_test_case_failed_ = 1;                                        \
    }                                                                     \
  } while (0)

/* Expects |status| to be OK; frees it either way. */
#define EXPECT_OK(expr)                                                   \
  do {                                                                    \
    graft_status_t s_ = (expr);                                           \
    if (s_) {                                                             \
      printf("  %s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr,       \
             graft_status_message(s_));                                   \
      graft_test_case_failed_ = 1;                                        \
      graft_status_free(s_);                                              \
    }                                                                     \
  } while (0)

/* Expects |expr| to fail with a message containing |needle|; frees it. */
#define EXPECT_ERROR(expr, needle)                                        \
  do {                                                                    \
    graft_status_t s_ = (expr);                                           \
    if (!s_) {                                                            \
      printf("  %s:%d: %s succeeded, expected error containing \"%s\"\n", \
             __FILE__, __LINE__, #expr, (needle));                        \
      graft_test_case_failed_ = 1;                                        \
    } else if (!strstr(graft_status_message(s_), (needle))) {             \
      printf("  %s:%d: error \"%s\" lacks \"%s\"\n", __FILE__, __LINE__,  \
             graft_status_message(s_), (needle));                         \
      graft_test_case_failed_ = 1;                                        \
    }                                                                     \
    graft_status_free(s_);                                                \
  } while (0)

static inline int graft_test_finish(void) {
  printf("%d passed, %d failed\n", graft_test_passed_, graft_test_failed_);
  return graft_test_failed_ ? 1 : 0;
}

#endif /* GRAFT_RUNTIME_TEST_HARNESS_H_ */
