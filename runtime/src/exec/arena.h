/* Arenas for the intermediate buffers a compiler planned (GRAFT_BUFFER_ARENA
 * in abi.h), kept by a module across calls.
 *
 * An invocation takes one arena for its whole run and gives it back at the
 * end; concurrent invocations take different ones, so the pool holds as
 * many arenas as calls ever overlapped, each as large as the largest
 * request it served. A steady-state call therefore reuses pages it already
 * touched: no allocation, no page faults. Arena bytes are not cleared
 * (abi.h: the compiler places a buffer there only when it is written
 * before it is read). Internal to graft_runtime. */
#ifndef GRAFT_RUNTIME_ARENA_H_
#define GRAFT_RUNTIME_ARENA_H_

#include <stdint.h>

#include "graft/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Storage kept and grown across calls: arenas and the thread pool's
 * per-worker scratch. 64-byte aligned; 2 MiB and more in huge pages
 * (io/pages.h: the packed operands of a large matmul; 1-3% faster at
 * 1024^3 on an Intel Xeon), the rest from the heap. All zero = empty. */
typedef struct graft_storage_t {
  void* data;        /* NULL while capacity is 0 */
  uint64_t capacity; /* bytes */
  int mapped;        /* from graft_pages_map, else the heap */
} graft_storage_t;

/* Grows |storage| (contents not kept) to at least |size| bytes; unchanged
 * when it is large enough or on failure. |what| names the storage in the
 * error ("an arena", "scratch"). */
graft_status_t graft_storage_reserve(graft_storage_t* storage, uint64_t size,
                                     const char* what);
/* Frees |storage| and leaves it empty. */
void graft_storage_release(graft_storage_t* storage);

typedef struct graft_arena_t {
  graft_storage_t storage;
  struct graft_arena_t* next; /* free list link, owned by the pool */
} graft_arena_t;

typedef struct graft_arena_pool_t graft_arena_pool_t;

graft_status_t graft_arena_pool_create(graft_arena_pool_t** out_pool);
/* Frees every arena; none may be taken. NULL is ignored. */
void graft_arena_pool_destroy(graft_arena_pool_t* pool);

/* An arena of at least |size| bytes, for the caller alone until it is
 * released. |pool| may be NULL: the arena is then allocated for this call
 * and freed by the release. */
graft_status_t graft_arena_acquire(graft_arena_pool_t* pool, uint64_t size,
                                   graft_arena_t** out_arena);
void graft_arena_release(graft_arena_pool_t* pool, graft_arena_t* arena);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_ARENA_H_ */
