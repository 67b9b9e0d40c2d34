/* graft-run's option table and parser (see options.h). */
#define _POSIX_C_SOURCE 200809L
#include "options.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graft/runtime.h"
#include "report.h"

typedef enum {
  OPT_FUNCTION, OPT_INPUT, OPT_OUTPUT, OPT_EXPECTED, OPT_TOLERANCE, OPT_ATOL, OPT_RTOL,
  OPT_THREADS, OPT_UNPINNED, OPT_BENCHMARK, OPT_GUARD, OPT_TIMEOUT, OPT_PLUGIN,
  OPT_PLUGIN_PARAM, OPT_ISA, OPT_LIST, OPT_TRACE, OPT_PROFILE, OPT_COLOR, OPT_HELP, OPT_VERSION,
} option_id_t;

static const struct {
  const char* name;
  option_id_t id;
  const char* value; /* NULL for a switch */
  const char* help;
  /* A value used when the option is given without "=value" (the next
   * argument is then not taken), or NULL when a value is required. */
  const char* implied;
} kOptions[] = {
    {"function", OPT_FUNCTION, "NAME",
     "function to run (default: the bundle's only function)", NULL},
    {"input", OPT_INPUT, "VALUE",
     "argument, in order: 2x2xf32=[[1 2][3 4]], f32=1.5, 4xi32=0 (splat), "
     "@file.npy, @file.pb, 2x2xf32=@raw.bin", NULL},
    {"output", OPT_OUTPUT, "-|@FILE.npy|@FILE.pb",
     "where result i goes (default: printed to stdout)", NULL},
    {"expected_output", OPT_EXPECTED, "VALUE",
     "expected result i; exit 1 on a mismatch", NULL},
    {"tolerance", OPT_TOLERANCE, "X",
     "allowed |got - expected| <= X + X*|expected| for floats (default 1e-5)",
     NULL},
    {"atol", OPT_ATOL, "X", "the absolute part of --tolerance alone", NULL},
    {"rtol", OPT_RTOL, "X", "the relative part of --tolerance alone", NULL},
    {"threads", OPT_THREADS, "N", "worker threads (default: the CPUs this process may use)", NULL},
    {"unpinned", OPT_UNPINNED, NULL,
     "leave the worker threads unpinned (by default, with a thread per CPU "
     "the process may use, each worker keeps one CPU)", NULL},
    {"benchmark", OPT_BENCHMARK, "N",
     "after one warm-up call, time N calls and print mean/min", NULL},
    {"guard", OPT_GUARD, "[=overflow|underflow]",
     "debugging: every buffer against a guard page after its end (overflow, "
     "the default) or before its start (underflow); an overrun names the "
     "dispatch, workgroup and buffer",
     "overflow"},
    {"timeout", OPT_TIMEOUT, "SECONDS",
     "end the process with an error naming the running dispatch when the "
     "call takes longer (e.g. 2.5)",
     NULL},
    {"plugin", OPT_PLUGIN, "PATH[:K=V,...]",
     "plugin providing the bundle's imports (repeatable, the last is asked "
     "first; .sos/FatELF: bare-metal, else a system library); K=V go to its "
     "load", NULL},
    {"executable_plugin", OPT_PLUGIN, "PATH[:K=V,...]",
     "same as --plugin (IREE's spelling)", NULL},
    {"plugin_param", OPT_PLUGIN_PARAM, "K=V",
     "one more parameter for the preceding --plugin (values may hold ',' "
     "and ':')", NULL},
    {"isa", OPT_ISA, "LEVEL",
     "run the slice's ISA variant for this feature level (x86-64-v3; "
     "default: $GRAFT_ISA, else the best the CPU supports)", NULL},
    {"list", OPT_LIST, NULL, "list the functions of the bundle and exit", NULL},
    {"trace", OPT_TRACE, NULL,
     "print each dispatch (name, source, grid, time) to stderr", NULL},
    {"profile", OPT_PROFILE, "FILE.json",
     "profile every call: write a Chrome trace (chrome://tracing, "
     "ui.perfetto.dev) of each thread's dispatches and workgroup chunks to "
     "FILE.json and print a per-dispatch summary to stderr", NULL},
    {"color", OPT_COLOR, "auto|always|never",
     "coloured errors (auto: when stderr is a terminal)", NULL},
    {"help", OPT_HELP, NULL, "show this help", NULL},
    {"version", OPT_VERSION, NULL, "show the version", NULL},
};
#define OPTION_COUNT (sizeof(kOptions) / sizeof(kOptions[0]))

void graft_run_print_help(void) {
  printf("usage: graft-run BUNDLE [--function NAME] [--input VALUE]... "
         "[options]\n\nRuns a function of a graft bundle on this CPU and "
         "prints its results.\n\noptions:\n");
  for (size_t i = 0; i < OPTION_COUNT; ++i) {
    char left[64];
    snprintf(left, sizeof(left), "--%s%s%s", kOptions[i].name,
             kOptions[i].value && !kOptions[i].implied ? " " : "",
             kOptions[i].value ? kOptions[i].value : "");
    printf("  %-30s %s\n", left, kOptions[i].help);
  }
}

/* Prints "graft-run: error: <message>" and a hint, as graft does; returns
 * the usage exit code. */
static int usage_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char* fmt, ...) {
  char message[1024];
  va_list args;
  va_start(args, fmt);
  vsnprintf(message, sizeof(message), fmt, args);
  va_end(args);
  graft_run_error("%s", message);
  fprintf(stderr, "(see graft-run --help)\n");
  return 2;
}

static int push(const char*** list, size_t* count, const char* value) {
  const char** grown = realloc(*list, (*count + 1) * sizeof(char*));
  if (!grown) return 0;
  grown[(*count)++] = value;
  *list = grown;
  return 1;
}

/* Parses a whole decimal number in [min, max]. */
static int parse_u32(const char* text, uint32_t min, uint32_t* out) {
  char* end = NULL;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (!*text || *text == '-' || *end || errno || v < min || v > UINT32_MAX)
    return 0;
  *out = (uint32_t)v;
  return 1;
}

/* Appends a copy of "KEY=VALUE" (|length| chars of |pair|) to |plugin|;
 * the copy is the parameter's key and value (freed with the options). */
static int add_plugin_param(graft_run_plugin_t* plugin, const char* pair,
                            size_t length, const char* flag, const char* arg) {
  const char* eq = memchr(pair, '=', length);
  if (!eq || eq == pair)
    return usage_error("%s '%s': parameter '%.*s' is not KEY=VALUE", flag, arg,
                       (int)length, pair);
  graft_plugin_param_t* grown = realloc(
      plugin->params, (plugin->param_count + 1) * sizeof(*plugin->params));
  if (!grown) return usage_error("out of memory parsing '%s'", flag);
  plugin->params = grown;
  char* copy = malloc(length + 1);
  if (!copy) return usage_error("out of memory parsing '%s'", flag);
  memcpy(copy, pair, length);
  copy[length] = '\0';
  copy[eq - pair] = '\0';
  grown[plugin->param_count].key = copy;
  grown[plugin->param_count].value = copy + (eq - pair) + 1;
  ++plugin->param_count;
  return 0;
}

/* The parameters start after the last ':' when what follows has a '=' and
 * no '/': "a/b.sos:k=v,k2=v2". A path with such a colon of its own takes its
 * parameters through --plugin_param instead. */
static const char* find_params(const char* text) {
  const char* colon = strrchr(text, ':');
  if (!colon || !strchr(colon, '=') || strchr(colon, '/')) return NULL;
  return colon;
}

static int add_plugin(graft_run_options_t* o, const char* flag,
                      const char* value) {
  graft_run_plugin_t* grown =
      realloc(o->plugins, (o->plugin_count + 1) * sizeof(*o->plugins));
  if (!grown) return usage_error("out of memory parsing '%s'", flag);
  o->plugins = grown;
  graft_run_plugin_t* plugin = &o->plugins[o->plugin_count++];
  memset(plugin, 0, sizeof(*plugin));
  const char* params = find_params(value);
  size_t path_length = params ? (size_t)(params - value) : strlen(value);
  plugin->path = plugin->path_storage = strndup(value, path_length);
  if (!plugin->path) return usage_error("out of memory parsing '%s'", flag);
  if (!plugin->path[0])
    return usage_error("%s '%s': expected a plugin file", flag, value);
  while (params) {
    const char* pair = params + 1;
    params = strchr(pair, ',');
    size_t length = params ? (size_t)(params - pair) : strlen(pair);
    int rc = add_plugin_param(plugin, pair, length, flag, value);
    if (rc) return rc;
  }
  return 0;
}

static int add_plugin_param_flag(graft_run_options_t* o, const char* flag,
                                 const char* value) {
  if (o->plugin_count == 0)
    return usage_error("%s '%s' must follow a --plugin", flag, value);
  return add_plugin_param(&o->plugins[o->plugin_count - 1], value,
                          strlen(value), flag, value);
}

static int apply(graft_run_options_t* o, option_id_t id, const char* name,
                 const char* value) {
  int ok = 1;
  switch (id) {
    case OPT_FUNCTION: o->function = value; break;
    case OPT_INPUT: ok = push(&o->inputs, &o->input_count, value); break;
    case OPT_OUTPUT:
      if (strcmp(value, "-") != 0 && value[0] != '@')
        return usage_error("--output '%s': expected '-', '@FILE.npy' or '@FILE.pb'", value);
      ok = push(&o->outputs, &o->output_count, value);
      break;
    case OPT_EXPECTED: ok = push(&o->expected, &o->expected_count, value); break;
    case OPT_TOLERANCE:
    case OPT_ATOL:
    case OPT_RTOL: {
      char* end = NULL;
      double x = strtod(value, &end);
      if (!*value || *end || !(x >= 0))
        return usage_error("%s '%s': expected a number >= 0",
                           id == OPT_ATOL   ? "--atol"
                           : id == OPT_RTOL ? "--rtol"
                                            : "--tolerance",
                           value);
      if (id != OPT_RTOL) o->atol = x;
      if (id != OPT_ATOL) o->rtol = x;
      break;
    }
    case OPT_ISA: o->isa = value; break;
    case OPT_THREADS:
      if (!parse_u32(value, 0, &o->threads))
        return usage_error("--threads '%s': expected a whole number", value);
      break;
    case OPT_UNPINNED: o->unpinned = 1; break;
    case OPT_BENCHMARK:
      if (!parse_u32(value, 1, &o->benchmark_runs))
        return usage_error("--benchmark '%s': expected a count >= 1", value);
      break;
    case OPT_GUARD:
      if (strcmp(value, "overflow") == 0) {
        o->guard = GRAFT_RUNTIME_GUARD_OVERFLOW;
      } else if (strcmp(value, "underflow") == 0) {
        o->guard = GRAFT_RUNTIME_GUARD_UNDERFLOW;
      } else {
        return usage_error("--guard '%s': expected 'overflow' or 'underflow'",
                           value);
      }
      break;
    case OPT_TIMEOUT: {
      char* end = NULL;
      double seconds = strtod(value, &end);
      /* At least 1 ms; at most what uint32 milliseconds hold (49 days). */
      if (!*value || *end || !(seconds >= 0.001 && seconds <= 4294967.0))
        return usage_error("--timeout '%s': expected seconds between 0.001 "
                           "and 4294967",
                           value);
      o->timeout_ms = (uint32_t)(seconds * 1000.0 + 0.5);
      break;
    }
    case OPT_PLUGIN: return add_plugin(o, name, value);
    case OPT_PLUGIN_PARAM: return add_plugin_param_flag(o, name, value);
    case OPT_LIST: o->list = 1; break;
    case OPT_TRACE: o->trace = 1; break;
    case OPT_PROFILE:
      if (!value[0]) return usage_error("--profile '': expected a file name");
      o->profile = value;
      break;
    case OPT_COLOR:
      if (strcmp(value, "auto") == 0) {
        graft_run_set_color(GRAFT_RUN_COLOR_AUTO);
      } else if (strcmp(value, "always") == 0) {
        graft_run_set_color(GRAFT_RUN_COLOR_ALWAYS);
      } else if (strcmp(value, "never") == 0) {
        graft_run_set_color(GRAFT_RUN_COLOR_NEVER);
      } else {
        return usage_error("--color '%s': expected 'auto', 'always' or 'never'", value);
      }
      break;
    case OPT_HELP: o->help = 1; break;
    case OPT_VERSION: o->version = 1; break;
  }
  if (!ok) return usage_error("out of memory parsing '%s'", name);
  return 0;
}

int graft_run_options_parse(int argc, char** argv, graft_run_options_t* o) {
  memset(o, 0, sizeof(*o));
  o->atol = o->rtol = 1e-5;
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    if (arg[0] != '-' || arg[1] == 0) {
      if (o->bundle)
        return usage_error("unexpected argument '%s' (the bundle is '%s')",
                           arg, o->bundle);
      o->bundle = arg;
      continue;
    }
    /* Accept "-flag" too, as IREE's tools do. */
    const char* name = arg + (arg[1] == '-' ? 2 : 1);
    const char* eq = strchr(name, '=');
    size_t name_len = eq ? (size_t)(eq - name) : strlen(name);
    size_t k = 0;
    while (k < OPTION_COUNT && !(strlen(kOptions[k].name) == name_len &&
                                 memcmp(kOptions[k].name, name, name_len) == 0))
      ++k;
    if (k == OPTION_COUNT) return usage_error("unknown option '%s'", arg);
    const char* value = NULL;
    if (kOptions[k].value) {
      if (eq) {
        value = eq + 1;
      } else if (kOptions[k].implied) {
        value = kOptions[k].implied;
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        return usage_error("option '%s' needs a value (%s)", arg,
                           kOptions[k].value);
      }
    } else if (eq) {
      return usage_error("option '--%s' takes no value", kOptions[k].name);
    }
    int rc = apply(o, kOptions[k].id, arg, value);
    if (rc) return rc;
  }
  if (o->help || o->version) return 0;
  if (!o->bundle) return usage_error("no bundle given");
  if (o->profile && o->trace)
    return usage_error("--trace and --profile '%s' cannot be combined (the "
                       "profile's summary lists every dispatch)",
                       o->profile);
  return 0;
}

void graft_run_options_free(graft_run_options_t* o) {
  for (size_t i = 0; i < o->plugin_count; ++i) {
    graft_run_plugin_t* plugin = &o->plugins[i];
    for (size_t k = 0; k < plugin->param_count; ++k)
      free((char*)plugin->params[k].key);
    free(plugin->params);
    free(plugin->path_storage);
  }
  free(o->plugins);
  free(o->inputs);
  free(o->outputs);
  free(o->expected);
  memset(o, 0, sizeof(*o));
}
