/* A fixed pool of worker threads running one parallel loop at a time.
 *
 * graft_thread_pool_parallel_for(count, fn) calls fn for every index in
 * [0, count) on the pool's workers and the calling thread (worker 0).
 * Indices are handed out in chunks from an atomic counter. A pool of one
 * thread runs everything inline and starts no threads. Each worker owns a
 * scratch area, 64-byte aligned and grown on demand, that is passed to fn.
 * Loops from different threads are serialized: the pool runs one at a time.
 * Internal to graft_runtime. */
#ifndef GRAFT_RUNTIME_THREAD_POOL_H_
#define GRAFT_RUNTIME_THREAD_POOL_H_

#include <stddef.h>
#include <stdint.h>

#include "exec/loop_profile.h"
#include "graft/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct graft_thread_pool_s graft_thread_pool_t;

/* Runs one index. A nonzero return stops the loop: no new indices are handed
 * out and the first failure is reported. */
typedef int (*graft_parallel_fn_t)(void* context, uint64_t index,
                                   uint32_t worker_id, void* scratch,
                                   uint64_t scratch_size);

/* Creates a pool of |thread_count| workers in total, the caller included
 * (0 = graft_thread_pool_usable_cpus()). The caller owns *out_pool.
 * With |pin|, a pool of as many threads as the CPUs the process may use
 * pins each worker thread to one of them, all but the CPU the caller runs
 * on (Linux): a worker is not moved off the CPU whose caches hold its last
 * workgroups' data, nor two workers put on one CPU while another idles. A
 * pool of any other size is never pinned. */
graft_status_t graft_thread_pool_create(uint32_t thread_count, int pin,
                                        graft_thread_pool_t** out_pool);
/* Joins the workers. No loop may be running. */
void graft_thread_pool_destroy(graft_thread_pool_t* pool);
uint32_t graft_thread_pool_size(const graft_thread_pool_t* pool);

/* Outcome of a loop that stopped on a failing index. */
typedef struct graft_parallel_failure_t {
  int code;       /* fn's nonzero return; 0 if every index succeeded */
  uint64_t index; /* the index that returned |code| */
} graft_parallel_failure_t;

/* Runs fn(context, i, worker, scratch, scratch_size) for i in [0, count).
 * Every worker's scratch holds at least |scratch_size| bytes. Returns an
 * error only if the scratch cannot be allocated; a failing index is reported
 * through |out_failure| (the first one recorded). */
graft_status_t graft_thread_pool_parallel_for(graft_thread_pool_t* pool,
                                              uint64_t count,
                                              uint64_t scratch_size,
                                              graft_parallel_fn_t fn,
                                              void* context,
                                              graft_parallel_failure_t* out_failure);

/* How long a worker of |pool| spins after a loop before it sleeps, in
 * nanoseconds (thread_pool.c: shorter where the pool has more threads than
 * graft_thread_pool_usable_cpus), and how many workers sleep now. For
 * tests. */
uint64_t graft_thread_pool_spin_ns(const graft_thread_pool_t* pool);
/* The CPU worker |worker| is pinned to, or -1 (unpinned, or no such
 * worker; the caller, worker 0, is never pinned). */
int graft_thread_pool_worker_cpu(const graft_thread_pool_t* pool,
                                 uint32_t worker);
/* How many workers are pinned: size - 1, or 0. */
uint32_t graft_thread_pool_pinned_workers(const graft_thread_pool_t* pool);
uint32_t graft_thread_pool_sleepers(const graft_thread_pool_t* pool);

/* The CPUs this process may use: its affinity mask (a `taskset -c 1` run
 * has one), at most its cgroup's CPU quota rounded up (a container run with
 * --cpus=2 has two), else the online CPUs. */
uint32_t graft_thread_pool_usable_cpus(void);
/* Whole CPUs of a cgroup v2 cpu.max text ("QUOTA PERIOD", rounded up);
 * 0 for "max PERIOD" (no limit) or anything else. */
uint32_t graft_cpu_quota_cpus(const char* cpu_max);

/* The most chunks one loop of |pool| hands out, whatever its count: the
 * chunk slots a profile needs. */
uint32_t graft_thread_pool_chunk_capacity(const graft_thread_pool_t* pool);

/* graft_thread_pool_parallel_for that also records, when |profile| is not
 * NULL, each thread's join and leave times and each chunk it ran
 * (exec/loop_profile.h): |profile| holds graft_thread_pool_size() thread
 * records and graft_thread_pool_chunk_capacity() chunk slots, and its
 * origin_ns is set. On return it is finished (chunks packed, threads
 * added up). */
graft_status_t graft_thread_pool_parallel_for_profiled(
    graft_thread_pool_t* pool, uint64_t count, uint64_t scratch_size,
    graft_parallel_fn_t fn, void* context,
    graft_parallel_failure_t* out_failure, graft_loop_profile_t* profile);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_THREAD_POOL_H_ */
