/* The runtime's one status type.
 *
 * A graft_status_t is NULL for success; otherwise it owns a code and a
 * message and must be freed with graft_status_free (or passed on). */
#ifndef GRAFT_STATUS_H_
#define GRAFT_STATUS_H_

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum graft_status_code_e {
  GRAFT_OK = 0,
  GRAFT_INVALID_ARGUMENT = 1, /* bad input from the caller */
  GRAFT_NOT_FOUND = 2,        /* no such function, slice, symbol, file */
  GRAFT_DATA_LOSS = 3,        /* truncated or corrupt bundle */
  GRAFT_UNIMPLEMENTED = 4,    /* e.g. ABI version not supported */
  GRAFT_RESOURCE_EXHAUSTED = 5,
  GRAFT_INTERNAL = 6,
  GRAFT_ABORTED = 7,          /* a dispatch returned non-zero */
  GRAFT_FAILED_PRECONDITION = 8, /* runtime check failed (shape mismatch) */
  GRAFT_DEADLINE_EXCEEDED = 9,   /* ran past graft_runtime_options_t.timeout_ms */
} graft_status_code_t;

typedef struct graft_status_s* graft_status_t;

/* Creates a status with a printf-style message. Never returns NULL for a
 * non-OK code (falls back to a static out-of-memory status). */
graft_status_t graft_status_make(graft_status_code_t code, const char* fmt,
                                 ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
graft_status_code_t graft_status_code(graft_status_t status);
/* The message; "" for OK. Valid until the status is freed. */
const char* graft_status_message(graft_status_t status);
/* Prepends "prefix: " to the message and returns the same status. */
graft_status_t graft_status_annotate(graft_status_t status, const char* fmt,
                                     ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void graft_status_free(graft_status_t status);
const char* graft_status_code_name(graft_status_code_t code);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_STATUS_H_ */
