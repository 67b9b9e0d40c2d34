/* Tests of the thread pool: every index runs exactly once, failures stop the
 * loop, scratch is per worker and aligned, a one-thread pool runs inline,
 * loops from several threads at once are serialized correctly, idle
 * workers spin their window, then sleep, and a pool of a thread per CPU
 * pins its workers.
 * Build with -DGRAFT_SANITIZE=thread to check for races. */
#define _GNU_SOURCE 1 /* sched_getaffinity */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exec/arena.h"
#include "exec/thread_pool.h"
#include "io/pages.h"
#include "io/test_harness.h"

#define MAX_INDICES 100000

typedef struct {
  _Atomic int hits[MAX_INDICES];
  _Atomic int bad_scratch;
  _Atomic uint32_t max_worker;
  pthread_t caller;
  _Atomic int off_caller;
  int fail_at; /* -1: never */
} count_ctx_t;

static int count_fn(void* context, uint64_t index, uint32_t worker_id,
                    void* scratch, uint64_t scratch_size) {
  count_ctx_t* c = context;
  atomic_fetch_add(&c->hits[index], 1);
  if (scratch_size && (((uintptr_t)scratch & 63) != 0 || scratch_size < 100))
    atomic_store(&c->bad_scratch, 1);
  if (scratch_size) ((volatile char*)scratch)[scratch_size - 1] = 1;
  uint32_t m = atomic_load(&c->max_worker);
  while (worker_id > m && !atomic_compare_exchange_weak(&c->max_worker, &m, worker_id)) {
  }
  if (!pthread_equal(pthread_self(), c->caller)) atomic_store(&c->off_caller, 1);
  return (int)index == c->fail_at ? 5 : 0;
}

static count_ctx_t* new_ctx(int fail_at) {
  count_ctx_t* c = calloc(1, sizeof(*c));
  c->caller = pthread_self();
  c->fail_at = fail_at;
  return c;
}

static void every_index_once(void) {
  graft_thread_pool_t* pool = NULL;
  EXPECT_OK(graft_thread_pool_create(4, 0, &pool));
  if (!pool) return;
  EXPECT(graft_thread_pool_size(pool) == 4);
  uint64_t counts[] = {0, 1, 3, 1000, MAX_INDICES};
  for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); ++k) {
    count_ctx_t* c = new_ctx(-1);
    graft_parallel_failure_t failure;
    EXPECT_OK(graft_thread_pool_parallel_for(pool, counts[k], 100, count_fn, c,
                                             &failure));
    EXPECT(failure.code == 0);
    int wrong = 0;
    for (uint64_t i = 0; i < MAX_INDICES; ++i)
      wrong += atomic_load(&c->hits[i]) != (i < counts[k] ? 1 : 0);
    EXPECT(wrong == 0);
    EXPECT(atomic_load(&c->bad_scratch) == 0);
    EXPECT(atomic_load(&c->max_worker) < 4);
    free(c);
  }
  graft_thread_pool_destroy(pool);
}

static void failure_stops_loop(void) {
  graft_thread_pool_t* pool = NULL;
  EXPECT_OK(graft_thread_pool_create(2, 0, &pool));
  if (!pool) return;
  count_ctx_t* c = new_ctx(10);
  graft_parallel_failure_t failure;
  EXPECT_OK(graft_thread_pool_parallel_for(pool, MAX_INDICES, 0, count_fn, c,
                                           &failure));
  EXPECT(failure.code == 5);
  EXPECT(failure.index == 10);
  int ran = 0;
  for (uint64_t i = 0; i < MAX_INDICES; ++i) ran += atomic_load(&c->hits[i]);
  EXPECT(ran < MAX_INDICES); /* no new work after the failure */
  free(c);
  /* The pool stays usable. */
  c = new_ctx(-1);
  EXPECT_OK(graft_thread_pool_parallel_for(pool, 50, 0, count_fn, c, &failure));
  EXPECT(failure.code == 0);
  free(c);
  graft_thread_pool_destroy(pool);
}

static void single_thread_inline(void) {
  graft_thread_pool_t* pool = NULL;
  EXPECT_OK(graft_thread_pool_create(1, 0, &pool));
  if (!pool) return;
  count_ctx_t* c = new_ctx(-1);
  graft_parallel_failure_t failure;
  EXPECT_OK(graft_thread_pool_parallel_for(pool, 1000, 4096, count_fn, c,
                                           &failure));
  EXPECT(atomic_load(&c->off_caller) == 0);
  EXPECT(atomic_load(&c->max_worker) == 0);
  free(c);
  graft_thread_pool_destroy(pool);
}

/* A pool of 0 threads has one per CPU the process may use: restricted to
 * one CPU (as `taskset -c` does), one thread. */
static void default_size_is_cpus(void) {
  graft_thread_pool_t* pool = NULL;
  EXPECT_OK(graft_thread_pool_create(0, 0, &pool));
  if (!pool) return;
  uint32_t cpus = graft_thread_pool_usable_cpus();
  EXPECT(graft_thread_pool_size(pool) == (cpus > 256 ? 256 : cpus));
  graft_thread_pool_destroy(pool);
#if defined(__linux__)
  cpu_set_t saved, one;
  if (sched_getaffinity(0, sizeof(saved), &saved) != 0) return;
  int first = 0;
  while (first < CPU_SETSIZE && !CPU_ISSET(first, &saved)) ++first;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  if (sched_setaffinity(0, sizeof(one), &one) != 0) return;
  pool = NULL;
  EXPECT(graft_thread_pool_usable_cpus() == 1);
  EXPECT_OK(graft_thread_pool_create(0, 0, &pool));
  if (pool) EXPECT(graft_thread_pool_size(pool) == 1);
  graft_thread_pool_destroy(pool);
  sched_setaffinity(0, sizeof(saved), &saved);
#endif
}

typedef struct {
  graft_thread_pool_t* pool;
  int ok;
} race_arg_t;

static void* racer(void* arg) {
  race_arg_t* r = arg;
  r->ok = 1;
  for (int round = 0; round < 20; ++round) {
    count_ctx_t* c = new_ctx(-1);
    c->caller = pthread_self();
    graft_parallel_failure_t failure;
    graft_status_t s = graft_thread_pool_parallel_for(r->pool, 2000, 64 * round,
                                                      count_fn, c, &failure);
    if (s || failure.code) r->ok = 0;
    graft_status_free(s);
    for (int i = 0; i < 2000; ++i)
      if (atomic_load(&c->hits[i]) != 1) r->ok = 0;
    free(c);
  }
  return NULL;
}

static void concurrent_loops(void) {
  graft_thread_pool_t* pool = NULL;
  EXPECT_OK(graft_thread_pool_create(3, 0, &pool));
  if (!pool) return;
  race_arg_t args[3] = {{pool, 0}, {pool, 0}, {pool, 0}};
  pthread_t threads[3];
  for (int i = 0; i < 3; ++i) pthread_create(&threads[i], NULL, racer, &args[i]);
  for (int i = 0; i < 3; ++i) pthread_join(threads[i], NULL);
  for (int i = 0; i < 3; ++i) EXPECT(args[i].ok);
  graft_thread_pool_destroy(pool);
}

/* Storage below 2 MiB comes from the heap, 2 MiB and more from a huge-page
 * mapping on a 2 MiB boundary (Linux); either is 64-byte aligned, writable
 * to its last byte, kept while large enough and freed by the release. */
static void storage_heap_and_pages(void) {
  graft_storage_t s = {NULL, 0, 0};
  EXPECT_OK(graft_storage_reserve(&s, 100, "scratch"));
  EXPECT(s.data && !s.mapped && s.capacity >= 100);
  EXPECT(((uintptr_t)s.data & 63) == 0);
  void* small = s.data;
  EXPECT_OK(graft_storage_reserve(&s, 64, "scratch"));
  EXPECT(s.data == small);
  EXPECT_OK(graft_storage_reserve(&s, 3u << 20, "scratch"));
#if defined(__linux__)
  EXPECT(s.mapped);
  EXPECT(s.capacity == 4u << 20);
  EXPECT(((uintptr_t)s.data & (GRAFT_HUGE_PAGE_BYTES - 1)) == 0);
#endif
  EXPECT(s.capacity >= 3u << 20);
  ((volatile char*)s.data)[0] = 1;
  ((volatile char*)s.data)[s.capacity - 1] = 1;
  void* big = s.data;
  EXPECT_OK(graft_storage_reserve(&s, 1u << 20, "scratch"));
  EXPECT(s.data == big);
  graft_storage_release(&s);
  EXPECT(!s.data && s.capacity == 0 && !s.mapped);
  graft_storage_release(&s); /* empty: nothing to free */
}

/* Scratch requests that shrink, grow, and run inline or over the pool:
 * every worker's scratch holds each loop's request (the pool remembers
 * what every worker holds and skips the workers when a request is no
 * larger). */
typedef struct {
  uint64_t need;
  _Atomic int short_scratch;
} need_ctx_t;

static int need_fn(void* context, uint64_t index, uint32_t worker_id,
                   void* scratch, uint64_t scratch_size) {
  need_ctx_t* c = context;
  (void)index, (void)worker_id;
  if (scratch_size < c->need) atomic_store(&c->short_scratch, 1);
  else if (c->need) memset(scratch, 1, (size_t)c->need);
  return 0;
}

static void scratch_requests_vary(void) {
  graft_thread_pool_t* pool = NULL;
  EXPECT_OK(graft_thread_pool_create(4, 0, &pool));
  if (!pool) return;
  const uint64_t steps[][2] = {{100, 1},    {50, 1000},   {5000, 1000}, {5000, 1},
                               {20000, 1},  {20000, 1000}, {0, 1000},   {70000, 1000}};
  for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); ++k) {
    need_ctx_t c = {steps[k][0], 0};
    graft_parallel_failure_t failure;
    EXPECT_OK(graft_thread_pool_parallel_for(pool, steps[k][1], steps[k][0], need_fn, &c,
                                             &failure));
    EXPECT(failure.code == 0);
    EXPECT(atomic_load(&c.short_scratch) == 0);
  }
  graft_thread_pool_destroy(pool);
}

/* Every worker's scratch of 2 MiB and more is mapped and usable. */
static void big_scratch(void) {
  graft_thread_pool_t* pool = NULL;
  EXPECT_OK(graft_thread_pool_create(3, 0, &pool));
  if (!pool) return;
  count_ctx_t* c = new_ctx(-1);
  graft_parallel_failure_t failure;
  EXPECT_OK(graft_thread_pool_parallel_for(pool, 64, (5u << 20) + 8, count_fn,
                                           c, &failure));
  EXPECT(failure.code == 0);
  EXPECT(!atomic_load(&c->bad_scratch));
  for (int i = 0; i < 64; ++i) EXPECT(atomic_load(&c->hits[i]) == 1);
  free(c);
  graft_thread_pool_destroy(pool);
}

/* cpu.max texts: a quota rounds up to whole CPUs; no limit is 0. */
static void cpu_quota_parse(void) {
  EXPECT(graft_cpu_quota_cpus("200000 100000\n") == 2);
  EXPECT(graft_cpu_quota_cpus("150000 100000") == 2);
  EXPECT(graft_cpu_quota_cpus("50000 100000") == 1);
  EXPECT(graft_cpu_quota_cpus("max 100000\n") == 0);
  EXPECT(graft_cpu_quota_cpus("") == 0);
  EXPECT(graft_cpu_quota_cpus(NULL) == 0);
  EXPECT(graft_cpu_quota_cpus("100000000 1") == 256);
  uint32_t cpus = graft_thread_pool_usable_cpus();
  EXPECT(cpus >= 1);
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  EXPECT(online < 1 || cpus <= (uint32_t)online);
}

/* A pool spins 500 us after a loop where each thread has a CPU, 20 us where
 * it has more threads than CPUs; either way an idle pool's workers all end
 * up asleep (an idle pool costs no CPU). */
static void idle_workers_spin_then_sleep(void) {
  uint32_t cpus = graft_thread_pool_usable_cpus();
  uint32_t sizes[2] = {cpus < 2 ? 2 : cpus, cpus + 1};
  /* (A pool has at most 256 threads: no oversubscribed case beyond.) */
  for (int k = 0; k < (cpus + 1 <= 256 ? 2 : 1); ++k) {
    graft_thread_pool_t* pool = NULL;
    EXPECT_OK(graft_thread_pool_create(sizes[k], 0, &pool));
    if (!pool) return;
    EXPECT(graft_thread_pool_spin_ns(pool) ==
           (sizes[k] > cpus ? 20000u : 500000u));
    count_ctx_t* c = new_ctx(-1);
    graft_parallel_failure_t failure;
    EXPECT_OK(graft_thread_pool_parallel_for(pool, 1000, 0, count_fn, c,
                                             &failure));
    free(c);
    struct timespec tick = {0, 1000000}; /* 1 ms, up to 5 s */
    for (int i = 0; i < 5000 && graft_thread_pool_sleepers(pool) < sizes[k] - 1; ++i)
      nanosleep(&tick, NULL);
    EXPECT(graft_thread_pool_sleepers(pool) == sizes[k] - 1);
    graft_thread_pool_destroy(pool);
  }
}

/* A pool of one thread per usable CPU, asked to pin, gives each worker
 * but the caller a CPU of its own from the process's mask, and the workers
 * run there; a pool of any other size, or not asked, pins nothing. */
typedef struct {
  const graft_thread_pool_t* pool;
  _Atomic int ran_off_caller;
  _Atomic int misplaced;
} pin_ctx_t;

static int pin_fn(void* context, uint64_t index, uint32_t worker_id,
                  void* scratch, uint64_t scratch_size) {
  (void)index, (void)scratch, (void)scratch_size;
  pin_ctx_t* c = context;
  struct timespec pause = {0, 20000}; /* every index, so that workers join */
  nanosleep(&pause, NULL);
  if (worker_id == 0) return 0;
  atomic_store(&c->ran_off_caller, 1);
#if defined(__linux__)
  int want = graft_thread_pool_worker_cpu(c->pool, worker_id);
  cpu_set_t mine;
  if (want < 0 || pthread_getaffinity_np(pthread_self(), sizeof(mine), &mine) != 0 ||
      CPU_COUNT(&mine) != 1 || !CPU_ISSET(want, &mine) || sched_getcpu() != want)
    atomic_store(&c->misplaced, 1);
#endif
  return 0;
}

static void workers_pinned(void) {
  uint32_t cpus = graft_thread_pool_usable_cpus();
  if (cpus > 256) cpus = 256;
  graft_thread_pool_t* pool = NULL;
  EXPECT_OK(graft_thread_pool_create(0, 1, &pool));
  if (!pool) return;
  EXPECT(graft_thread_pool_worker_cpu(pool, 0) == -1);
  EXPECT(graft_thread_pool_worker_cpu(pool, cpus) == -1);
#if defined(__linux__)
  cpu_set_t mask, seen;
  CPU_ZERO(&seen);
  EXPECT(sched_getaffinity(0, sizeof(mask), &mask) == 0);
  for (uint32_t w = 1; w < cpus; ++w) {
    int cpu = graft_thread_pool_worker_cpu(pool, w);
    EXPECT(cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &mask));
    EXPECT(cpu < 0 || !CPU_ISSET(cpu, &seen)); /* one worker per CPU */
    if (cpu >= 0) CPU_SET(cpu, &seen);
  }
  if (cpus > 1) {
    pin_ctx_t c = {pool, 0, 0};
    graft_parallel_failure_t failure;
    for (int tries = 0; tries < 100 && !atomic_load(&c.ran_off_caller); ++tries)
      EXPECT_OK(graft_thread_pool_parallel_for(pool, 64, 0, pin_fn, &c, &failure));
    EXPECT(atomic_load(&c.ran_off_caller));
    EXPECT(!atomic_load(&c.misplaced));
  }
#endif
  graft_thread_pool_destroy(pool);
  /* Not asked, or one thread fewer than the CPUs: nothing pinned. */
  uint32_t sizes[2][2] = {{cpus, 0}, {cpus - 1, 1}};
  for (int k = 0; k < 2; ++k) {
    if (sizes[k][0] < 2) continue;
    pool = NULL;
    EXPECT_OK(graft_thread_pool_create(sizes[k][0], (int)sizes[k][1], &pool));
    if (!pool) return;
    for (uint32_t w = 0; w < sizes[k][0]; ++w)
      EXPECT(graft_thread_pool_worker_cpu(pool, w) == -1);
    graft_thread_pool_destroy(pool);
  }
}

int main(void) {
  TEST_CASE(storage_heap_and_pages);
  TEST_CASE(big_scratch);
  TEST_CASE(scratch_requests_vary);
  TEST_CASE(every_index_once);
  TEST_CASE(failure_stops_loop);
  TEST_CASE(single_thread_inline);
  TEST_CASE(default_size_is_cpus);
  TEST_CASE(concurrent_loops);
  TEST_CASE(cpu_quota_parse);
  TEST_CASE(idle_workers_spin_then_sleep);
  TEST_CASE(workers_pinned);
  return graft_test_finish();
}
