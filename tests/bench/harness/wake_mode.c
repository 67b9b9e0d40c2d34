/* graft_bench wake: how long graft's thread pool takes to get every worker
 * into a dispatch (issue 8's executor bar: < 5 us from parked).
 *
 * Each sample is one parallel loop of |threads| indices over the pool that
 * runs every dispatch (runtime/src/exec/thread_pool.h; the one internal
 * header graft_bench uses: the public API has no empty dispatch to time).
 * Every index records when it started and waits until all have started,
 * so each worker runs exactly one; a sample's latency is the time from
 * just before the loop is published to the start of the last worker, what
 * a dispatch waits for before all its threads work. Two cases:
 *   parked:   the loop starts after the pool has been idle for 2 ms, past
 *             the workers' spin window, so they sleep on the futex and
 *             must be woken by the kernel;
 *   spinning: the loop starts right after the previous one, while the
 *             workers still spin (back-to-back dispatches).
 * Prints {"impl": "graft wake", "threads": N, "samples": S,
 *         "parked_us": {"min", "median", "max"}, "spinning_us": {...}}. */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "exec/thread_pool.h"
#include "modes.h"

/* A worker that has not arrived after this long is reported, not waited
 * for forever. */
#define ARRIVAL_TIMEOUT_NS 1000000000ull
#define IDLE_BEFORE_PARKED_NS 2000000L

typedef struct wake_loop_t {
  uint64_t published_ns;
  uint32_t count;
  _Atomic uint32_t arrived;
  _Atomic uint64_t last_start_ns;
} wake_loop_t;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int arrive(void* context, uint64_t index, uint32_t worker_id,
                  void* scratch, uint64_t scratch_size) {
  (void)index, (void)worker_id, (void)scratch, (void)scratch_size;
  wake_loop_t* loop = context;
  uint64_t start = now_ns();
  uint64_t last = atomic_load(&loop->last_start_ns);
  while (start > last &&
         !atomic_compare_exchange_weak(&loop->last_start_ns, &last, start)) {
  }
  atomic_fetch_add(&loop->arrived, 1);
  while (atomic_load(&loop->arrived) < loop->count)
    if (now_ns() - start > ARRIVAL_TIMEOUT_NS) return 1;
  return 0;
}

/* One loop; *out_us: publish to the last worker's start. */
static graft_status_t one_loop(graft_thread_pool_t* pool, uint32_t threads,
                               double* out_us) {
  wake_loop_t loop = {0, threads, 0, 0};
  loop.published_ns = now_ns();
  graft_parallel_failure_t failure;
  graft_status_t st =
      graft_thread_pool_parallel_for(pool, threads, 0, arrive, &loop, &failure);
  if (st) return st;
  if (failure.code)
    return graft_status_make(GRAFT_DEADLINE_EXCEEDED,
                             "only %u of %u workers started within 1 s",
                             atomic_load(&loop.arrived), threads);
  *out_us = (double)(atomic_load(&loop.last_start_ns) - loop.published_ns) / 1e3;
  return NULL;
}

static int compare_doubles(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static void print_summary(const char* name, double* us, uint32_t n) {
  qsort(us, n, sizeof(*us), compare_doubles);
  printf("\"%s\": {\"min\": %.3f, \"median\": %.3f, \"max\": %.3f}", name,
         us[0], us[n / 2], us[n - 1]);
}

graft_status_t bench_run_wake(const bench_options_t* o) {
  if (o->positional_count)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "takes no inputs, found '%s'", o->positional[0]);
  if (o->threads < 2)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "needs at least 2 threads (a pool of one wakes "
                             "nobody), found --threads %u",
                             o->threads);
  uint32_t samples = o->timing.samples ? o->timing.samples : 1;
  graft_thread_pool_t* pool = NULL;
  graft_status_t st = graft_thread_pool_create(o->threads, !o->unpinned, &pool);
  if (st) return st;
  double* parked = calloc(samples, sizeof(double));
  double* spinning = calloc(samples, sizeof(double));
  if (!parked || !spinning) {
    st = graft_status_make(GRAFT_RESOURCE_EXHAUSTED, "out of memory");
  } else {
    double warm;
    st = one_loop(pool, o->threads, &warm); /* starts the workers */
    struct timespec idle = {0, IDLE_BEFORE_PARKED_NS};
    for (uint32_t i = 0; i < samples && !st; ++i) {
      nanosleep(&idle, NULL);
      st = one_loop(pool, o->threads, &parked[i]);
      if (!st) st = one_loop(pool, o->threads, &spinning[i]);
    }
  }
  if (!st) {
    printf("{\"impl\": \"graft wake\", \"threads\": %u, \"samples\": %u, ",
           graft_thread_pool_size(pool), samples);
    print_summary("parked_us", parked, samples);
    printf(", ");
    print_summary("spinning_us", spinning, samples);
    printf("}\n");
  }
  free(parked);
  free(spinning);
  graft_thread_pool_destroy(pool);
  return st;
}
