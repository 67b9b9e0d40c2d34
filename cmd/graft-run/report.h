/* graft-run's errors in graft's style: "graft-run: error: <message>", with
 * clang's colours when stderr is a terminal (or as --color says). */
#ifndef GRAFT_RUN_REPORT_H_
#define GRAFT_RUN_REPORT_H_

typedef enum {
  GRAFT_RUN_COLOR_AUTO,   /* when stderr is a terminal (the default) */
  GRAFT_RUN_COLOR_ALWAYS,
  GRAFT_RUN_COLOR_NEVER,
} graft_run_color_t;

void graft_run_set_color(graft_run_color_t mode);
/* Prints one error line to stderr (stdout is flushed first, so results
 * printed before it stay before it). */
void graft_run_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* GRAFT_RUN_REPORT_H_ */
