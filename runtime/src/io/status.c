/* The runtime's status type (graft/status.h).
 *
 * A status is a heap-allocated {code, message}; NULL means OK. When the
 * allocation itself fails we hand out one static out-of-memory status so
 * that error paths never need to handle a failed error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graft/status.h"

struct graft_status_s {
  graft_status_code_t code;
  char* message;
};

static struct graft_status_s oom_status = {
    GRAFT_RESOURCE_EXHAUSTED, (char*)"out of memory while reporting an error"};

/* vasprintf without relying on GNU extensions. */
static char* format_message(const char* fmt, va_list args) {
  va_list copy;
  va_copy(copy, args);
  int n = vsnprintf(NULL, 0, fmt, copy);
  va_end(copy);
  if (n < 0) return NULL;
  char* text = malloc((size_t)n + 1);
  if (!text) return NULL;
  vsnprintf(text, (size_t)n + 1, fmt, args);
  return text;
}

graft_status_t graft_status_make(graft_status_code_t code, const char* fmt,
                                 ...) {
  if (code == GRAFT_OK) return NULL;
  struct graft_status_s* status = malloc(sizeof(*status));
  if (!status) return &oom_status;
  va_list args;
  va_start(args, fmt);
  status->message = format_message(fmt, args);
  va_end(args);
  if (!status->message) {
    free(status);
    return &oom_status;
  }
  status->code = code;
  return status;
}

graft_status_code_t graft_status_code(graft_status_t status) {
  return status ? status->code : GRAFT_OK;
}

const char* graft_status_message(graft_status_t status) {
  return status ? status->message : "";
}

graft_status_t graft_status_annotate(graft_status_t status, const char* fmt,
                                     ...) {
  if (!status || status == &oom_status) return status;
  va_list args;
  va_start(args, fmt);
  char* prefix = format_message(fmt, args);
  va_end(args);
  if (!prefix) return status; /* keep the original message rather than lose it */
  size_t prefix_len = strlen(prefix);
  size_t message_len = strlen(status->message);
  char* joined = malloc(prefix_len + 2 + message_len + 1);
  if (joined) {
    memcpy(joined, prefix, prefix_len);
    memcpy(joined + prefix_len, ": ", 2);
    memcpy(joined + prefix_len + 2, status->message, message_len + 1);
    free(status->message);
    status->message = joined;
  }
  free(prefix);
  return status;
}

void graft_status_free(graft_status_t status) {
  if (!status || status == &oom_status) return;
  free(status->message);
  free(status);
}

const char* graft_status_code_name(graft_status_code_t code) {
  switch (code) {
    case GRAFT_OK: return "OK";
    case GRAFT_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case GRAFT_NOT_FOUND: return "NOT_FOUND";
    case GRAFT_DATA_LOSS: return "DATA_LOSS";
    case GRAFT_UNIMPLEMENTED: return "UNIMPLEMENTED";
    case GRAFT_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case GRAFT_INTERNAL: return "INTERNAL";
    case GRAFT_ABORTED: return "ABORTED";
    case GRAFT_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case GRAFT_DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
  }
  return "UNKNOWN";
}
