/* Where a profiled parallel loop records its threads and chunks
 * (GRAFT_RUNTIME_FLAG_PROFILE, graft_profile_*_t in graft/runtime.h).
 *
 * The storage is the caller's, sized once per invocation: a record per
 * pool thread, and a slot per chunk the loop can hand out. While the loop
 * runs, each chunk's record is written by the thread that took it into
 * slot start / chunk, which no other thread writes, and each thread writes
 * only its own thread record's joined_ns and left_ns: no lock, no shared
 * counter, no allocation. graft_loop_profile_finish then packs the chunks
 * and adds up each thread's share. Internal to graft_runtime. */
#ifndef GRAFT_RUNTIME_LOOP_PROFILE_H_
#define GRAFT_RUNTIME_LOOP_PROFILE_H_

#include <stdint.h>

#include "graft/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct graft_loop_profile_t {
  uint64_t origin_ns;               /* times are recorded after this */
  graft_profile_thread_t* threads;  /* one per pool thread */
  graft_profile_chunk_t* chunks;    /* chunk_capacity slots */
  uint32_t thread_count;
  uint32_t chunk_capacity;
  uint32_t chunk_count;             /* set by graft_loop_profile_finish */
} graft_loop_profile_t;

/* Storage for loops of |thread_count| threads and up to |chunk_capacity|
 * chunks, in one block (free()); NULL when out of memory. */
graft_loop_profile_t* graft_loop_profile_create(uint32_t thread_count,
                                                uint32_t chunk_capacity);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t graft_loop_profile_now_ns(void);

/* Clears the thread records and the first |slots| chunk slots before a
 * loop of that many chunks starts. */
void graft_loop_profile_reset(graft_loop_profile_t* profile, uint32_t slots);

/* After the loop: packs the written slots among the first |slots| (a loop
 * stopped by a failure leaves some unwritten) in workgroup order into
 * chunks[0, chunk_count), and fills each thread's busy_ns, workgroups and
 * chunks. */
void graft_loop_profile_finish(graft_loop_profile_t* profile, uint32_t slots);

/* A loop run inline on the calling thread (one index, one thread, a host
 * command): the whole profile is one chunk of |ran| workgroups on thread 0
 * from |begin_ns| to |end_ns| (clock values, not yet made relative). */
void graft_loop_profile_inline(graft_loop_profile_t* profile,
                               uint64_t begin_ns, uint64_t end_ns,
                               uint64_t ran);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_LOOP_PROFILE_H_ */
