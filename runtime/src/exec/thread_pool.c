/* The worker pool behind every dispatch (see thread_pool.h).
 *
 * One loop runs at a time (run_lock). The loop's state is one atomic word,
 * |state|: the loop's generation (high 32 bits), a "closed" bit and the
 * number of workers that joined it. Publishing a loop writes the job and
 * then stores a new generation, open, with no worker joined; sleeping
 * workers are woken. A worker that sees the new generation joins it with a
 * compare-and-swap (only while it is open and still that generation),
 * reads the job, takes indices from the shared counter and leaves with one
 * atomic decrement. No lock is taken on this path, so 16 workers do not
 * queue on a mutex at every dispatch.
 *
 * The caller works as worker 0. When its counter runs out, every index has
 * been handed out: it closes the loop, so workers that wake up late do not
 * join (and the caller does not wait for them), and waits only for the
 * workers that joined, which still run indices they took. Only then may
 * the next loop reuse the job, the counter or the workers' scratch.
 *
 * A worker that has left a loop spins on |state| for a while (the pool's
 * spin window: SPIN_NS, measured on the clock) before it sleeps on a
 * condition variable, so back-to-back dispatches, and back-to-back calls of
 * a function, find it awake without a system call, and an idle pool costs
 * no CPU. The caller waiting for the workers of its loop spins the same
 * window. The window is long enough to span the gap between two calls (the
 * slowest worker of one call's last loop to the next call's first): a
 * worker woken from the futex is tens of microseconds late in a sandbox,
 * which is what an awake pool saves each call. A pool with more threads
 * than the CPUs it may run on spins only SPIN_NS_OVERSUBSCRIBED: there a
 * spinning worker takes the CPU of one with work to do.
 *
 * A pool with a thread for each CPU the process may use can pin its
 * workers, one CPU each, leaving the caller's CPU to the caller
 * (plan_pinning). Left to the scheduler, 16 workers on a 16-core machine
 * are moved between CPUs and at times two share one while another idles:
 * there the median 1024^3 matmul took 1.3-2.1x its pinned time, 2048^3
 * 1.2-1.3x, 128x768x768 1.4-2.2x (tests/bench/README.md).
 *
 * A profiled loop (graft_thread_pool_parallel_for_profiled) carries its
 * profile in the job: a worker reads the clock when it joins and leaves,
 * and around each chunk it takes, writing into records no other thread
 * writes (exec/loop_profile.h). run_job is compiled twice, with and
 * without the clock reads, so an unprofiled loop tests for the profile
 * once per loop and never per chunk or workgroup. */
#define _GNU_SOURCE 1 /* sched_getaffinity */
#include "exec/thread_pool.h"

#include "exec/arena.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The spin windows (see the top of the file), and how many pauses go by
 * between two reads of the clock (a pause is 10-50 ns). */
#define SPIN_NS 500000u
#define SPIN_NS_OVERSUBSCRIBED 20000u
#define SPIN_PAUSES_PER_CLOCK 64u

/* One polite pause of a spin loop. */
static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || (defined(__arm__) && __ARM_ARCH >= 7)
  __asm__ __volatile__("yield");
#else
  atomic_signal_fence(memory_order_seq_cst);
#endif
}
#define MAX_THREADS 256

/* One spin-wait: spin(&w) pauses once and returns 1 while the window that
 * began at the first call lasts, then 0 (the waiter sleeps). */
typedef struct spin_wait_s {
  uint64_t window_ns;
  uint64_t deadline_ns; /* 0 until the first clock read */
  uint32_t pauses;
} spin_wait_t;

static inline int spin(spin_wait_t* w) {
  if (w->pauses++ % SPIN_PAUSES_PER_CLOCK == 0) {
    uint64_t now = graft_loop_profile_now_ns();
    if (w->deadline_ns == 0) w->deadline_ns = now + w->window_ns;
    else if (now >= w->deadline_ns) return 0;
  }
  cpu_relax();
  return 1;
}

/* Per-worker state on its own cache line. */
typedef struct worker_s {
  graft_storage_t scratch;
  uint32_t id;
  int cpu; /* the CPU it is pinned to, or -1 */
  struct graft_thread_pool_s* pool;
} __attribute__((aligned(64))) worker_t;

typedef struct job_s {
  graft_parallel_fn_t fn;
  void* context;
  uint64_t count;
  uint64_t chunk;
  graft_loop_profile_t* profile; /* NULL: not profiled */
} job_t;

struct graft_thread_pool_s {
  uint32_t size;
  uint64_t spin_ns; /* the spin window */
  uint32_t started; /* threads actually running (size - 1 once created) */
  pthread_t* threads;
  worker_t* workers;

  pthread_mutex_t run_lock; /* held for a whole loop: one loop at a time */
  pthread_mutex_t mutex;    /* for sleeping, waking and failures only */
  pthread_cond_t work_cv;
  pthread_cond_t done_cv;
  _Atomic uint64_t state;     /* generation << 32 | CLOSED | workers joined */
  _Atomic int shutdown;
  _Atomic uint32_t sleepers;  /* workers waiting (or about to) on work_cv */
  job_t job; /* written only while no worker has joined the current loop */
  /* Every worker's scratch holds at least this many bytes (written under
   * run_lock, like the scratch itself). */
  uint64_t scratch_all;
  graft_parallel_failure_t failure; /* written under |mutex| */

  _Atomic uint64_t next;
  _Atomic int stop;
};

#define LOOP_CLOSED (UINT64_C(1) << 31)
#define LOOP_JOINED_MASK (LOOP_CLOSED - 1)
static inline uint32_t loop_generation(uint64_t s) { return (uint32_t)(s >> 32); }
static inline uint64_t loop_joined(uint64_t s) { return s & LOOP_JOINED_MASK; }

/* Runs indices [start, end) of |job|; returns how many ran (the failing
 * one included) and whether the loop should go on. */
static inline int run_chunk(graft_thread_pool_t* pool, const job_t* job,
                            worker_t* worker, uint64_t start, uint64_t end,
                            uint64_t* out_ran) {
  for (uint64_t i = start; i < end; ++i) {
    /* After a failure elsewhere, stop within the chunk too (a chunk of a
     * large grid is thousands of workgroups). */
    if (i != start && atomic_load_explicit(&pool->stop, memory_order_relaxed)) {
      *out_ran = i - start;
      return 0;
    }
    int rc = job->fn(job->context, i, worker->id, worker->scratch.data,
                     worker->scratch.capacity);
    if (rc != 0) {
      pthread_mutex_lock(&pool->mutex);
      if (pool->failure.code == 0) {
        pool->failure.code = rc;
        pool->failure.index = i;
      }
      pthread_mutex_unlock(&pool->mutex);
      atomic_store_explicit(&pool->stop, 1, memory_order_relaxed);
      *out_ran = i - start + 1;
      return 0;
    }
  }
  *out_ran = end - start;
  return 1;
}

/* Takes chunks until none is left. |profiled| is a constant at each call
 * site below, so the unprofiled copy reads no clock. */
static inline __attribute__((always_inline)) void run_job_as(
    graft_thread_pool_t* pool, const job_t* job, worker_t* worker,
    const int profiled) {
  while (!atomic_load_explicit(&pool->stop, memory_order_relaxed)) {
    uint64_t start =
        atomic_fetch_add_explicit(&pool->next, job->chunk, memory_order_relaxed);
    if (start >= job->count) return;
    uint64_t end = job->count - start < job->chunk ? job->count
                                                   : start + job->chunk;
    uint64_t begin_ns = profiled ? graft_loop_profile_now_ns() : 0;
    uint64_t ran = 0;
    int more = run_chunk(pool, job, worker, start, end, &ran);
    if (profiled) {
      graft_loop_profile_t* p = job->profile;
      graft_profile_chunk_t* c = &p->chunks[start / job->chunk];
      c->begin_ns = begin_ns - p->origin_ns;
      c->end_ns = graft_loop_profile_now_ns() - p->origin_ns;
      c->first_workgroup = start;
      c->workgroup_count = ran;
      c->thread = worker->id;
    }
    if (!more) return;
  }
}

static void run_job(graft_thread_pool_t* pool, const job_t* job,
                    worker_t* worker) {
  if (job->profile) {
    graft_loop_profile_t* p = job->profile;
    if (worker->id != 0) { /* the caller's is its publishing time */
      p->threads[worker->id].joined = 1;
      p->threads[worker->id].joined_ns =
          graft_loop_profile_now_ns() - p->origin_ns;
    }
    run_job_as(pool, job, worker, 1);
    p->threads[worker->id].left_ns = graft_loop_profile_now_ns() - p->origin_ns;
  } else {
    run_job_as(pool, job, worker, 0);
  }
}

/* Waits until |state| holds a generation other than |seen| (or shutdown):
 * spins first, then sleeps. Returns the state it saw. */
static uint64_t wait_for_loop(graft_thread_pool_t* pool, uint32_t seen) {
  uint64_t s = atomic_load_explicit(&pool->state, memory_order_acquire);
  spin_wait_t w = {pool->spin_ns, 0, 0};
  while (loop_generation(s) == seen &&
         !atomic_load_explicit(&pool->shutdown, memory_order_relaxed) &&
         spin(&w))
    s = atomic_load_explicit(&pool->state, memory_order_acquire);
  if (loop_generation(s) != seen || atomic_load(&pool->shutdown)) return s;
  pthread_mutex_lock(&pool->mutex);
  /* sleepers is raised before the generation is read again; the caller
   * stores the generation before it reads sleepers (both sequentially
   * consistent), so one of the two sees the other: no lost wake-up. */
  atomic_fetch_add(&pool->sleepers, 1);
  while (!atomic_load(&pool->shutdown) &&
         loop_generation(s = atomic_load(&pool->state)) == seen)
    pthread_cond_wait(&pool->work_cv, &pool->mutex);
  atomic_fetch_sub(&pool->sleepers, 1);
  pthread_mutex_unlock(&pool->mutex);
  return s;
}

static void* worker_main(void* arg) {
  worker_t* worker = arg;
  graft_thread_pool_t* pool = worker->pool;
#ifdef __linux__
  if (worker->cpu >= 0) { /* best effort: a CPU gone offline leaves it free */
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(worker->cpu, &one);
    pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
  }
#endif
  uint32_t seen = 0;
  for (;;) {
    uint64_t s = wait_for_loop(pool, seen);
    if (atomic_load(&pool->shutdown)) return NULL;
    seen = loop_generation(s);
    /* Join the loop while it is open; a loop closed before this worker
     * woke up has no index left for it. */
    int joined = 0;
    while (!(s & LOOP_CLOSED) && loop_generation(s) == seen) {
      if (atomic_compare_exchange_weak(&pool->state, &s, s + 1)) {
        joined = 1;
        break;
      }
    }
    if (!joined) continue;
    job_t job = pool->job;
    run_job(pool, &job, worker);
    uint64_t left = atomic_fetch_sub(&pool->state, 1) - 1;
    if (loop_joined(left) == 0 && (left & LOOP_CLOSED)) {
      pthread_mutex_lock(&pool->mutex);
      pthread_cond_signal(&pool->done_cv);
      pthread_mutex_unlock(&pool->mutex);
    }
  }
}

uint32_t graft_cpu_quota_cpus(const char* cpu_max) {
  unsigned long long quota = 0, period = 0;
  if (!cpu_max || sscanf(cpu_max, "%llu %llu", &quota, &period) != 2 ||
      quota == 0 || period == 0)
    return 0; /* "max PERIOD" (no limit) or not a quota */
  unsigned long long cpus = (quota + period - 1) / period;
  return cpus > MAX_THREADS ? MAX_THREADS : (uint32_t)cpus;
}

#ifdef __linux__
/* The CPU quota of this process's cgroup (v2: cpu.max of the cgroup that
 * /proc/self/cgroup names, else the root's, which is the container's own
 * in a cgroup namespace), in whole CPUs; 0 when there is none. */
static uint32_t cgroup_quota_cpus(void) {
  char path[512] = "/sys/fs/cgroup/cpu.max", line[480];
  FILE* f = fopen("/proc/self/cgroup", "r");
  if (f) {
    while (fgets(line, sizeof(line), f))
      if (strncmp(line, "0::/", 4) == 0) {
        line[strcspn(line, "\n")] = '\0';
        if (strcmp(line + 3, "/") != 0)
          snprintf(path, sizeof(path), "/sys/fs/cgroup%s/cpu.max", line + 3);
        break;
      }
    fclose(f);
  }
  f = fopen(path, "r");
  if (!f) f = fopen("/sys/fs/cgroup/cpu.max", "r");
  if (!f) return 0;
  char text[64] = "";
  char* got = fgets(text, sizeof(text), f);
  fclose(f);
  return got ? graft_cpu_quota_cpus(text) : 0;
}
#endif

uint32_t graft_thread_pool_usable_cpus(void) {
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  uint32_t cpus = online > 0 ? (uint32_t)online : 1;
#ifdef __linux__
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
    cpus = (uint32_t)CPU_COUNT(&set);
  uint32_t quota = cgroup_quota_cpus();
  if (quota > 0 && quota < cpus) cpus = quota;
#endif
  return cpus;
}

/* Gives workers 1..size-1 a CPU each: the CPUs of this thread's affinity
 * mask in order, less the one the caller runs on now, which stays the
 * caller's. Only a pool of exactly |usable| threads (the process's
 * graft_thread_pool_usable_cpus()) is pinned: a smaller one pinned the
 * same way in two processes would share CPUs while others idle, and a
 * larger one has no CPU per thread. */
static void plan_pinning(graft_thread_pool_t* pool, uint32_t usable) {
#ifdef __linux__
  cpu_set_t set;
  if (pool->size < 2 || pool->size != usable ||
      sched_getaffinity(0, sizeof(set), &set) != 0)
    return;
  int caller = sched_getcpu();
  uint32_t next = 1;
  for (int c = 0; c < CPU_SETSIZE && next < pool->size; ++c)
    if (CPU_ISSET(c, &set) && c != caller) pool->workers[next++].cpu = c;
  if (next < pool->size) /* fewer CPUs than threads: the mask changed */
    for (uint32_t i = 0; i < pool->size; ++i) pool->workers[i].cpu = -1;
#else
  (void)pool, (void)usable;
#endif
}

graft_status_t graft_thread_pool_create(uint32_t thread_count, int pin,
                                        graft_thread_pool_t** out_pool) {
  *out_pool = NULL;
  /* (Read once: it opens the cgroup's files.) */
  const uint32_t usable = graft_thread_pool_usable_cpus();
  if (thread_count == 0) thread_count = usable;
  if (thread_count > MAX_THREADS) thread_count = MAX_THREADS;
  graft_thread_pool_t* pool = calloc(1, sizeof(*pool));
  if (!pool) goto oom;
  pool->size = thread_count;
  pool->spin_ns = thread_count > usable ? SPIN_NS_OVERSUBSCRIBED : SPIN_NS;
  pool->workers = aligned_alloc(64, sizeof(worker_t) * thread_count);
  pool->threads = calloc(thread_count, sizeof(pthread_t));
  if (!pool->workers || !pool->threads) goto oom;
  memset(pool->workers, 0, sizeof(worker_t) * thread_count);
  for (uint32_t i = 0; i < thread_count; ++i) {
    pool->workers[i].id = i;
    pool->workers[i].pool = pool;
    pool->workers[i].cpu = -1;
  }
  if (pin) plan_pinning(pool, usable);
  pthread_mutex_init(&pool->run_lock, NULL);
  pthread_mutex_init(&pool->mutex, NULL);
  pthread_cond_init(&pool->work_cv, NULL);
  pthread_cond_init(&pool->done_cv, NULL);
  for (uint32_t i = 1; i < thread_count; ++i) {
    int rc = pthread_create(&pool->threads[i], NULL, worker_main,
                            &pool->workers[i]);
    if (rc != 0) {
      graft_thread_pool_destroy(pool);
      return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                               "cannot start worker thread %u of %u: %s", i,
                               thread_count, strerror(rc));
    }
    pool->started = i;
  }
  *out_pool = pool;
  return NULL;
oom:
  if (pool) {
    free(pool->workers);
    free(pool->threads);
    free(pool);
  }
  return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                           "cannot allocate a pool of %u threads", thread_count);
}

void graft_thread_pool_destroy(graft_thread_pool_t* pool) {
  if (!pool) return;
  pthread_mutex_lock(&pool->mutex);
  atomic_store(&pool->shutdown, 1);
  pthread_cond_broadcast(&pool->work_cv);
  pthread_mutex_unlock(&pool->mutex);
  for (uint32_t i = 1; i <= pool->started; ++i)
    pthread_join(pool->threads[i], NULL);
  for (uint32_t i = 0; i < pool->size; ++i)
    graft_storage_release(&pool->workers[i].scratch);
  pthread_cond_destroy(&pool->done_cv);
  pthread_cond_destroy(&pool->work_cv);
  pthread_mutex_destroy(&pool->mutex);
  pthread_mutex_destroy(&pool->run_lock);
  free(pool->threads);
  free(pool->workers);
  free(pool);
}

uint32_t graft_thread_pool_size(const graft_thread_pool_t* pool) {
  return pool->size;
}

int graft_thread_pool_worker_cpu(const graft_thread_pool_t* pool,
                                  uint32_t worker) {
  return worker < pool->size ? pool->workers[worker].cpu : -1;
}

uint32_t graft_thread_pool_pinned_workers(const graft_thread_pool_t* pool) {
  uint32_t pinned = 0;
  for (uint32_t i = 0; i < pool->size; ++i) pinned += pool->workers[i].cpu >= 0;
  return pinned;
}

uint64_t graft_thread_pool_spin_ns(const graft_thread_pool_t* pool) {
  return pool->spin_ns;
}

uint32_t graft_thread_pool_sleepers(const graft_thread_pool_t* pool) {
  return atomic_load(&((graft_thread_pool_t*)pool)->sleepers);
}

/* Grows every worker's scratch to |size|. Workers are idle (run_lock held
 * and no loop published), so their scratch fields can be written. Scratch
 * only grows: once every worker holds |size|, a dispatch asking for no more
 * reads no worker's line (each its own, 16 of them at 16 threads). */
static graft_status_t reserve_scratch(graft_thread_pool_t* pool,
                                      uint64_t size) {
  if (size <= pool->scratch_all) return NULL;
  for (uint32_t i = 0; i < pool->size; ++i) {
    worker_t* w = &pool->workers[i];
    graft_status_t st = graft_storage_reserve(&w->scratch, size, "scratch");
    if (st) return st;
  }
  pool->scratch_all = size;
  return NULL;
}

/* Enough chunks per worker to balance uneven workgroups, few enough to
 * keep the counter cold. At most 16 * size chunks: below 8 * size indices
 * a chunk is one index, and from there on a chunk is at least
 * count / (16 * size) indices. */
static uint64_t loop_chunk(const graft_thread_pool_t* pool, uint64_t count) {
  uint64_t chunk = count / ((uint64_t)pool->size * 8);
  return chunk == 0 ? 1 : chunk;
}

uint32_t graft_thread_pool_chunk_capacity(const graft_thread_pool_t* pool) {
  return pool->size * 16;
}

/* A single index or a single worker: run inline as worker 0, wake nobody,
 * and share no counter (run_lock keeps worker 0's scratch and id to this
 * loop). A profile gets one chunk. */
static inline __attribute__((always_inline)) void run_inline(
    graft_thread_pool_t* pool, uint64_t count, graft_parallel_fn_t fn,
    void* context, graft_parallel_failure_t* out_failure,
    graft_loop_profile_t* profile) {
  worker_t* w = &pool->workers[0];
  uint64_t begin_ns = profile ? graft_loop_profile_now_ns() : 0;
  uint64_t i = 0;
  for (; i < count; ++i) {
    int rc = fn(context, i, 0, w->scratch.data, w->scratch.capacity);
    if (rc != 0) {
      out_failure->code = rc;
      out_failure->index = i;
      ++i; /* the failing index ran */
      break;
    }
  }
  if (profile)
    graft_loop_profile_inline(profile, begin_ns, graft_loop_profile_now_ns(),
                              i);
}

/* Both entry points: inlined into each, so the unprofiled one, with
 * |profile| a constant NULL, has no profile code left at all. */
static inline __attribute__((always_inline)) graft_status_t parallel_for(
    graft_thread_pool_t* pool, uint64_t count, uint64_t scratch_size,
    graft_parallel_fn_t fn, void* context,
    graft_parallel_failure_t* out_failure, graft_loop_profile_t* profile) {
  out_failure->code = 0;
  out_failure->index = 0;
  if (count == 0) {
    /* No chunk and no thread, not the records of the last loop. */
    if (profile) graft_loop_profile_reset(profile, 0);
    return NULL;
  }
  pthread_mutex_lock(&pool->run_lock);
  graft_status_t status = reserve_scratch(pool, scratch_size);
  if (status) {
    pthread_mutex_unlock(&pool->run_lock);
    return status;
  }
  if (pool->size == 1 || count == 1) {
    run_inline(pool, count, fn, context, out_failure, profile);
    pthread_mutex_unlock(&pool->run_lock);
    return NULL;
  }
  uint64_t chunk = loop_chunk(pool, count);
  uint32_t slots = (uint32_t)(count / chunk + (count % chunk != 0));
  job_t job = {fn, context, count, chunk, profile};
  if (profile) {
    graft_loop_profile_reset(profile, slots);
    profile->threads[0].joined = 1;
    profile->threads[0].joined_ns =
        graft_loop_profile_now_ns() - profile->origin_ns;
  }
  atomic_store(&pool->next, 0);
  atomic_store(&pool->stop, 0);
  pool->failure.code = 0;
  pool->failure.index = 0;
  /* No worker is inside a loop (the last one closed with none joined), so
   * the job and the counter are this thread's to write. */
  pool->job = job;
  uint32_t generation =
      loop_generation(atomic_load_explicit(&pool->state, memory_order_relaxed)) + 1;
  atomic_store(&pool->state, (uint64_t)generation << 32);
  if (atomic_load(&pool->sleepers)) {
    pthread_mutex_lock(&pool->mutex);
    pthread_cond_broadcast(&pool->work_cv);
    pthread_mutex_unlock(&pool->mutex);
  }
  run_job(pool, &job, &pool->workers[0]);
  /* Every index is handed out: close the loop and wait for the workers
   * that joined it. */
  uint64_t s = atomic_fetch_or(&pool->state, LOOP_CLOSED) | LOOP_CLOSED;
  spin_wait_t w = {pool->spin_ns, 0, 0};
  while (loop_joined(s) > 0 && spin(&w))
    s = atomic_load_explicit(&pool->state, memory_order_acquire);
  if (loop_joined(s) > 0) {
    pthread_mutex_lock(&pool->mutex);
    while (loop_joined(atomic_load(&pool->state)) > 0)
      pthread_cond_wait(&pool->done_cv, &pool->mutex);
    pthread_mutex_unlock(&pool->mutex);
  }
  pthread_mutex_lock(&pool->mutex);
  *out_failure = pool->failure;
  pthread_mutex_unlock(&pool->mutex);
  /* Every worker that joined has left: their records are written. */
  if (profile) graft_loop_profile_finish(profile, slots);
  pthread_mutex_unlock(&pool->run_lock);
  return NULL;
}

graft_status_t graft_thread_pool_parallel_for(
    graft_thread_pool_t* pool, uint64_t count, uint64_t scratch_size,
    graft_parallel_fn_t fn, void* context,
    graft_parallel_failure_t* out_failure) {
  return parallel_for(pool, count, scratch_size, fn, context, out_failure,
                      NULL);
}

graft_status_t graft_thread_pool_parallel_for_profiled(
    graft_thread_pool_t* pool, uint64_t count, uint64_t scratch_size,
    graft_parallel_fn_t fn, void* context,
    graft_parallel_failure_t* out_failure, graft_loop_profile_t* profile) {
  return parallel_for(pool, count, scratch_size, fn, context, out_failure,
                      profile);
}
