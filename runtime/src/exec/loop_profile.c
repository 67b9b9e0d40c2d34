/* Recording and packing a parallel loop's profile (see loop_profile.h). */
#define _POSIX_C_SOURCE 200809L
#include "exec/loop_profile.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

graft_loop_profile_t* graft_loop_profile_create(uint32_t thread_count,
                                                uint32_t chunk_capacity) {
  graft_loop_profile_t* p =
      calloc(1, sizeof(*p) + sizeof(graft_profile_thread_t) * thread_count +
                    sizeof(graft_profile_chunk_t) * chunk_capacity);
  if (!p) return NULL;
  p->threads = (graft_profile_thread_t*)(p + 1);
  p->chunks = (graft_profile_chunk_t*)(p->threads + thread_count);
  p->thread_count = thread_count;
  p->chunk_capacity = chunk_capacity;
  return p;
}

uint64_t graft_loop_profile_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void graft_loop_profile_reset(graft_loop_profile_t* profile, uint32_t slots) {
  memset(profile->threads, 0,
         sizeof(*profile->threads) * profile->thread_count);
  /* workgroup_count 0 marks a slot no thread wrote. */
  memset(profile->chunks, 0, sizeof(*profile->chunks) * slots);
  profile->chunk_count = 0;
}

void graft_loop_profile_finish(graft_loop_profile_t* profile, uint32_t slots) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < slots; ++i) {
    const graft_profile_chunk_t c = profile->chunks[i];
    if (c.workgroup_count == 0) continue;
    graft_profile_thread_t* t = &profile->threads[c.thread];
    t->busy_ns += c.end_ns - c.begin_ns;
    t->workgroups += c.workgroup_count;
    t->chunks += 1;
    profile->chunks[n++] = c; /* n <= i: packing in place is safe */
  }
  profile->chunk_count = n;
}

void graft_loop_profile_inline(graft_loop_profile_t* profile,
                               uint64_t begin_ns, uint64_t end_ns,
                               uint64_t ran) {
  graft_loop_profile_reset(profile, 1);
  uint64_t begin = begin_ns - profile->origin_ns;
  uint64_t end = end_ns - profile->origin_ns;
  profile->threads[0] = (graft_profile_thread_t){begin, end, 0, 0, 0, 1};
  profile->chunks[0] = (graft_profile_chunk_t){begin, end, 0, ran, 0, 0};
  graft_loop_profile_finish(profile, 1);
}
