/* See report.h. */
#define _POSIX_C_SOURCE 200809L
#include "report.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static graft_run_color_t g_color = GRAFT_RUN_COLOR_AUTO;

void graft_run_set_color(graft_run_color_t mode) { g_color = mode; }

void graft_run_error(const char* fmt, ...) {
  int color = g_color == GRAFT_RUN_COLOR_ALWAYS ||
              (g_color == GRAFT_RUN_COLOR_AUTO && isatty(STDERR_FILENO));
  /* The same colours as graft's diagnostics (clang's): bold tool name, bold
   * red "error:", bold message. */
  const char* bold = color ? "\033[1m" : "";
  const char* red = color ? "\033[1;31m" : "";
  const char* reset = color ? "\033[0m" : "";
  fflush(stdout);
  fprintf(stderr, "%sgraft-run:%s %serror:%s %s", bold, reset, red, reset, bold);
  va_list args;
  va_start(args, fmt);
  vfprintf(stderr, fmt, args);
  va_end(args);
  fprintf(stderr, "%s\n", reset);
}
