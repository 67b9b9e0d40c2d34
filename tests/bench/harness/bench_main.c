/* graft_bench: times graft bundles and the peer libraries they are compared
 * with, in-process, on the same .npy inputs, and prints each measurement as
 * one line of JSON. tests/bench/run_bench.py drives it; README.md explains
 * the modes and how they are timed.
 *
 *   graft_bench graft BUNDLE FUNCTION [options] INPUT.npy...
 *   graft_bench graft-ab A.graft B.graft FUNCTION [options] INPUT.npy...
 *   graft_bench onednn-sgemm|onednn-matmul|openblas-sgemm [options] A.npy B.npy
 *   graft_bench onednn-gemm-s8 [options] A.npy B.npy   (i8 operands, i32 result)
 *   graft_bench stream-copy X.npy | stream-triad X.npy Y.npy [options]
 *   graft_bench wake [--threads N] [--reps N]   (thread pool wake latency)
 *   graft_bench info            (which peers are linked, their versions)
 *
 * Every mode makes one untimed warm-up call, whose results --save writes,
 * then times (timing.h). Each mode runs in its own process: the peers' own
 * thread pools (OpenMP, OpenBLAS's pthreads, graft's pool) would otherwise
 * spin against each other. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modes.h"

static const char kUsage[] =
    "usage: graft_bench graft BUNDLE FUNCTION [options] INPUT.npy...\n"
    "       graft_bench graft-ab A.graft B.graft FUNCTION [options] "
    "INPUT.npy...\n"
    "                  (two builds timed in alternation: B/A per pair)\n"
    "       graft_bench onednn-sgemm|onednn-matmul|openblas-sgemm [options] "
    "A.npy B.npy\n"
    "       graft_bench onednn-gemm-s8 [options] A.npy B.npy   (i8 inputs)\n"
    "       graft_bench stream-copy X.npy | stream-triad X.npy Y.npy "
    "[options]\n"
    "       graft_bench wake [options]   (graft's worker wake-up latency)\n"
    "       graft_bench info   (the peers linked in, their versions)\n"
    "options:\n"
    "  --threads N        threads (0 = all online CPUs; default 0)\n"
    "  --reps N           timed samples (graft-ab: pairs; default 10); 0 = only\n"
    "                     the warm-up call (with --save: results to check)\n"
    "  --budget-ms MS     stop sampling once the samples add up to MS\n"
    "  --min-sample-ms MS batch calls so one sample lasts at least MS\n"
    "                     (default 1)\n"
    "  --save PREFIX      write result i of the warm-up call to PREFIX<i>.npy\n"
    "  --post-ops LIST    matmul peers: steps after the product, e.g. "
    "relu,neg\n"
    "  --outputs WHERE    graft: 'runtime' (allocated per call, default) or\n"
    "                     'caller' (storage allocated once)\n"
    "  --profile          graft: profile every call after the warm-up and\n"
    "                     print the per-dispatch summary after the row\n"
    "                     (graft/profile.h; docs/runtime-profile.md)\n"
    "  --unpinned         graft, wake: leave the pool's workers unpinned\n"
    "                     (GRAFT_RUNTIME_FLAG_UNPINNED)\n";

static graft_status_t run_stream_copy(const bench_options_t* o) {
  return bench_run_stream(o, 0);
}
static graft_status_t run_stream_triad(const bench_options_t* o) {
  return bench_run_stream(o, 1);
}

typedef struct bench_peer_t {
  const char* name;
  void (*describe)(void); /* NULL: not linked into this build */
  const char* missing;    /* why not, for the report */
} bench_peer_t;

static const bench_peer_t kPeers[] = {
#ifdef GRAFT_BENCH_HAVE_ONEDNN
    {"onednn", bench_describe_onednn, NULL},
#else
    {"onednn", NULL,
     "libdnnl-dev (with OpenMP) was not found when graft_bench was configured"},
#endif
#ifdef GRAFT_BENCH_HAVE_OPENBLAS
    {"openblas", bench_describe_openblas, NULL},
#else
    {"openblas", NULL,
     "libopenblas-dev was not found when graft_bench was configured"},
#endif
};

typedef struct bench_mode_t {
  const char* name;
  const char* peer; /* kPeers entry the mode needs; NULL: none */
  graft_status_t (*run)(const bench_options_t* options); /* NULL: missing */
} bench_mode_t;

static const bench_mode_t kModes[] = {
    {"graft", NULL, bench_run_graft},
    {"graft-ab", NULL, bench_run_graft_ab},
    {"stream-copy", NULL, run_stream_copy},
    {"stream-triad", NULL, run_stream_triad},
    {"wake", NULL, bench_run_wake},
#ifdef GRAFT_BENCH_HAVE_ONEDNN
    {"onednn-sgemm", "onednn", bench_run_onednn_sgemm},
    {"onednn-matmul", "onednn", bench_run_onednn_matmul},
    {"onednn-gemm-s8", "onednn", bench_run_onednn_gemm_s8},
#else
    {"onednn-sgemm", "onednn", NULL},
    {"onednn-matmul", "onednn", NULL},
    {"onednn-gemm-s8", "onednn", NULL},
#endif
#ifdef GRAFT_BENCH_HAVE_OPENBLAS
    {"openblas-sgemm", "openblas", bench_run_openblas_sgemm},
#else
    {"openblas-sgemm", "openblas", NULL},
#endif
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static const bench_peer_t* find_peer(const char* name) {
  for (size_t i = 0; i < COUNT_OF(kPeers); ++i)
    if (!strcmp(kPeers[i].name, name))
      return &kPeers[i];
  return NULL;
}

/* {"cpus_online": N, "openmp": ..., "peers": {"onednn": {...}, ...},
 *  "modes": [...]} on one line. */
static void print_info(void) {
  printf("{\"cpus_online\": %ld, ", sysconf(_SC_NPROCESSORS_ONLN));
#ifdef _OPENMP
  printf("\"openmp\": %d, \"peers\": {", _OPENMP);
#else
  printf("\"openmp\": null, \"peers\": {");
#endif
  for (size_t i = 0; i < COUNT_OF(kPeers); ++i) {
    printf("%s\"%s\": {\"available\": %s, ", i ? ", " : "", kPeers[i].name,
           kPeers[i].describe ? "true" : "false");
    if (kPeers[i].describe)
      kPeers[i].describe();
    else
      printf("\"missing\": \"%s\"", kPeers[i].missing);
    printf("}");
  }
  printf("}, \"modes\": [");
  for (size_t i = 0; i < COUNT_OF(kModes); ++i)
    printf("%s\"%s\"", i ? ", " : "", kModes[i].name);
  printf("]}\n");
}

static int parse_number(const char* flag, const char* text, double max,
                        double* out) {
  char* end = NULL;
  double value = strtod(text, &end);
  if (!*text || *end || !(value >= 0 && value <= max)) {
    fprintf(
        stderr,
        "graft_bench: error: %s expects a number from 0 to %g, found '%s'\n",
        flag, max, text);
    return 1;
  }
  *out = value;
  return 0;
}

static int parse_options(int argc, char** argv, bench_options_t* o) {
  memset(o, 0, sizeof(*o));
  o->timing.samples = 10;
  o->timing.budget_ms = 1e12;
  o->timing.min_sample_ms = 1.0;
  o->mode = argv[1];
  for (int i = 2; i < argc; ++i) {
    const char* arg = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : NULL;
    double number = 0;
    /* The switches without a value. */
    if (!strcmp(arg, "--profile")) {
      o->profile = 1;
      continue;
    }
    if (!strcmp(arg, "--unpinned")) {
      o->unpinned = 1;
      continue;
    }
    if (!strncmp(arg, "--", 2) && !value) {
      fprintf(stderr, "graft_bench: error: %s: missing value\n", arg);
      return 1;
    }
    if (!strcmp(arg, "--threads")) {
      if (parse_number(arg, value, 4096, &number))
        return 1;
      o->threads = (uint32_t)number;
    } else if (!strcmp(arg, "--reps")) {
      if (parse_number(arg, value, 1e6, &number))
        return 1;
      o->timing.samples = (uint32_t)number;
      o->run_only = number == 0;
    } else if (!strcmp(arg, "--budget-ms")) {
      if (parse_number(arg, value, 1e12, &o->timing.budget_ms))
        return 1;
    } else if (!strcmp(arg, "--min-sample-ms")) {
      if (parse_number(arg, value, 1e6, &o->timing.min_sample_ms))
        return 1;
    } else if (!strcmp(arg, "--save")) {
      o->save = value;
    } else if (!strcmp(arg, "--post-ops")) {
      o->post_ops = value;
    } else if (!strcmp(arg, "--outputs")) {
      if (!strcmp(value, "runtime")) {
        o->outputs = BENCH_OUTPUTS_RUNTIME;
      } else if (!strcmp(value, "caller")) {
        o->outputs = BENCH_OUTPUTS_CALLER;
      } else {
        fprintf(stderr,
                "graft_bench: error: --outputs expects 'runtime' or 'caller', "
                "found '%s'\n",
                value);
        return 1;
      }
    } else if (!strncmp(arg, "--", 2)) {
      fprintf(stderr, "graft_bench: error: unknown option '%s'\n", arg);
      return 1;
    } else {
      if (o->positional_count == (int)COUNT_OF(o->positional)) {
        fprintf(stderr, "graft_bench: error: more than %d inputs\n",
                BENCH_MAX_VALUES);
        return 1;
      }
      o->positional[o->positional_count++] = arg;
      continue;
    }
    ++i; /* the option's value */
  }
  if (o->threads == 0)
    o->threads = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2 || !strcmp(argv[1], "--help")) {
    fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  bench_options_t options;
  if (parse_options(argc, argv, &options))
    return 2;
  if (!strcmp(options.mode, "info")) {
    print_info();
    return 0;
  }
  const bench_mode_t* mode = NULL;
  for (size_t i = 0; i < COUNT_OF(kModes); ++i)
    if (!strcmp(kModes[i].name, options.mode))
      mode = &kModes[i];
  if (!mode) {
    fprintf(stderr,
            "graft_bench: error: unknown mode '%s' (graft_bench "
            "--help lists them)\n",
            options.mode);
    return 2;
  }
  if (options.profile && strcmp(mode->name, "graft") != 0) {
    fprintf(stderr,
            "graft_bench: error: --profile: only the graft mode records a "
            "runtime profile, not '%s'\n",
            mode->name);
    return 2;
  }
  if (!mode->run) {
    const bench_peer_t* peer = find_peer(mode->peer);
    const char* why = peer && peer->missing ? peer->missing : "not linked";
    fprintf(stderr,
            "graft_bench: error: %s: peer '%s' is missing: %s (install it with "
            "tests/bench/install-peers.sh and reconfigure)\n",
            mode->name, mode->peer, why);
    return 3;
  }
  graft_status_t st = mode->run(&options);
  if (st) {
    fprintf(stderr, "graft_bench: error: %s: %s\n", mode->name,
            graft_status_message(st));
    graft_status_free(st);
    return 1;
  }
  return 0;
}
