/* Helpers shared by graft_bench's modes (see bench.h). */
#include "bench.h"

#include <stdio.h>

graft_status_t bench_need_arguments(const bench_options_t* options, int count,
                                    const char* needs) {
  if (options->positional_count >= count)
    return NULL;
  return graft_status_make(GRAFT_INVALID_ARGUMENT,
                           "needs %s, found %d argument(s)", needs,
                           options->positional_count);
}

graft_status_t bench_read_inputs(const char* const* paths, int count,
                                 graft_tensor_t* out_tensors) {
  for (int i = 0; i < count; ++i) {
    graft_status_t st = graft_tensor_read_npy(paths[i], &out_tensors[i]);
    if (st)
      return graft_status_annotate(st, "input %d", i + 1);
  }
  return NULL;
}

graft_status_t bench_save_results(const char* prefix,
                                  const graft_tensor_t* results,
                                  uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    char path[4096];
    snprintf(path, sizeof(path), "%s%u.npy", prefix, i);
    graft_status_t st = graft_tensor_write_npy(path, &results[i]);
    if (st)
      return graft_status_annotate(st, "--save '%s'", path);
  }
  return NULL;
}

graft_status_t bench_measure(const bench_options_t* options,
                             bench_call_fn_t call, void* user, const char* impl,
                             uint32_t threads, const char* extra) {
  const char* sep = extra && *extra ? ", " : "";
  if (options->run_only) {
    printf("{\"impl\": \"%s\", \"threads\": %u%s%s}\n", impl, threads, sep,
           extra ? extra : "");
    return NULL;
  }
  bench_timing_t t = {0};
  bench_timing_options_t timing = options->timing;
  timing.threads = threads;
  graft_status_t st = bench_time_calls(call, user, &timing, &t);
  if (st)
    return st;
  printf("{\"impl\": \"%s\", \"threads\": %u%s%s, \"samples\": %u, "
         "\"calls_per_sample\": %u, \"min_ms\": %.9g, \"median_ms\": %.9g, "
         "\"max_ms\": %.9g, \"mean_ms\": %.9g, \"cpu_min_ms\": %.9g, "
         "\"cpu_clock\": \"%s\", \"process_cpu_min_ms\": %.9g}\n",
         impl, threads, sep, extra ? extra : "", t.samples, t.calls_per_sample,
         t.min_ms, t.median_ms, t.max_ms, t.mean_ms, t.cpu_min_ms,
         threads == 1 ? "thread" : "process", t.process_cpu_min_ms);
  return NULL;
}
