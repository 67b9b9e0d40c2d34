/* graft-run's command line: one table of options with help text, parsed into
 * a plain struct. Both "--flag value" and "--flag=value" are accepted. */
#ifndef GRAFT_RUN_OPTIONS_H_
#define GRAFT_RUN_OPTIONS_H_

#include <stddef.h>
#include <stdint.h>

#include "graft/runtime.h"

/* One --plugin, with the parameters given inline (PATH:key=value,...) and
 * by the --plugin_param flags that follow it. */
typedef struct graft_run_plugin_t {
  const char* path;             /* may start with embedded: or system: */
  graft_plugin_param_t* params; /* each key owns its "key\0value" block */
  size_t param_count;
  char* path_storage;           /* owned copy of |path| */
} graft_run_plugin_t;

typedef struct graft_run_options_t {
  const char* bundle;
  const char* function;
  const char** inputs;          /* --input, in order */
  size_t input_count;
  const char** outputs;         /* --output: "-" or "@file.npy" */
  size_t output_count;
  const char** expected;        /* --expected_output */
  size_t expected_count;
  double atol, rtol;            /* --tolerance sets both */
  uint32_t threads;             /* 0 = all CPUs */
  int unpinned;                 /* --unpinned: GRAFT_RUNTIME_FLAG_UNPINNED */
  const char* isa;              /* --isa level, or NULL */
  uint32_t benchmark_runs;      /* 0 = no benchmark */
  uint32_t guard;               /* graft_runtime_guard_t */
  uint32_t timeout_ms;          /* 0 = no deadline */
  graft_run_plugin_t* plugins;  /* --plugin, in registration order */
  size_t plugin_count;
  int list;
  int trace;
  const char* profile;          /* --profile FILE: Chrome trace JSON, or NULL */
  int help;
  int version;
} graft_run_options_t;

/* Parses argv (--color takes effect at once: report.h). On a usage error
 * prints "graft-run: error: <why>" and a hint to stderr and returns nonzero. The arrays point into argv; free them with
 * graft_run_options_free. */
int graft_run_options_parse(int argc, char** argv, graft_run_options_t* out);
void graft_run_options_free(graft_run_options_t* options);
void graft_run_print_help(void);

#endif /* GRAFT_RUN_OPTIONS_H_ */
