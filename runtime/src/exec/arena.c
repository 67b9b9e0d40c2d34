/* Arenas kept across calls (see arena.h). A mutex-guarded free list: a call
 * takes and returns one arena, so the lock is held twice per invocation for
 * a few instructions. */
#include "exec/arena.h"

#include <pthread.h>
#include <stdlib.h>

#include "io/pages.h"

#define ARENA_ALIGNMENT 64

struct graft_arena_pool_t {
  pthread_mutex_t mutex;
  graft_arena_t* free_list;
};

graft_status_t graft_storage_reserve(graft_storage_t* storage, uint64_t size,
                                     const char* what) {
  if (storage->capacity >= size) return NULL;
  graft_storage_t grown = {NULL, 0, 0};
  if (size >= GRAFT_HUGE_PAGE_BYTES) {
    grown.data = graft_pages_map(size);
    grown.capacity = graft_pages_length(size);
    grown.mapped = grown.data != NULL;
  }
  if (!grown.data) {
    grown.capacity = (size + ARENA_ALIGNMENT - 1) & ~(uint64_t)(ARENA_ALIGNMENT - 1);
    grown.data = grown.capacity >= size && grown.capacity <= SIZE_MAX
                     ? aligned_alloc(ARENA_ALIGNMENT, (size_t)grown.capacity)
                     : NULL;
  }
  if (!grown.data)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "cannot allocate %s of %llu bytes", what,
                             (unsigned long long)size);
  graft_storage_release(storage);
  *storage = grown;
  return NULL;
}

void graft_storage_release(graft_storage_t* storage) {
  if (storage->mapped)
    graft_pages_unmap(storage->data, storage->capacity);
  else
    free(storage->data);
  storage->data = NULL;
  storage->capacity = 0;
  storage->mapped = 0;
}

graft_status_t graft_arena_pool_create(graft_arena_pool_t** out_pool) {
  *out_pool = calloc(1, sizeof(**out_pool));
  if (!*out_pool)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "cannot allocate an arena pool");
  pthread_mutex_init(&(*out_pool)->mutex, NULL);
  return NULL;
}

static void arena_free(graft_arena_t* arena) {
  graft_storage_release(&arena->storage);
  free(arena);
}

void graft_arena_pool_destroy(graft_arena_pool_t* pool) {
  if (!pool) return;
  while (pool->free_list) {
    graft_arena_t* a = pool->free_list;
    pool->free_list = a->next;
    arena_free(a);
  }
  pthread_mutex_destroy(&pool->mutex);
  free(pool);
}

/* Takes the free arena that best fits |size|: the smallest large enough,
 * else the largest (grown by the caller), so arenas do not all grow to the
 * size of the biggest function. */
static graft_arena_t* take(graft_arena_pool_t* pool, uint64_t size) {
  graft_arena_t **best = NULL, **largest = NULL;
  for (graft_arena_t** a = &pool->free_list; *a; a = &(*a)->next) {
    uint64_t capacity = (*a)->storage.capacity;
    if (capacity >= size && (!best || capacity < (*best)->storage.capacity))
      best = a;
    if (!largest || capacity > (*largest)->storage.capacity) largest = a;
  }
  graft_arena_t** pick = best ? best : largest;
  if (!pick) return NULL;
  graft_arena_t* arena = *pick;
  *pick = arena->next;
  arena->next = NULL;
  return arena;
}

graft_status_t graft_arena_acquire(graft_arena_pool_t* pool, uint64_t size,
                                   graft_arena_t** out_arena) {
  *out_arena = NULL;
  graft_arena_t* arena = NULL;
  if (pool) {
    pthread_mutex_lock(&pool->mutex);
    arena = take(pool, size);
    pthread_mutex_unlock(&pool->mutex);
  }
  if (!arena) arena = calloc(1, sizeof(*arena));
  if (!arena)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "cannot allocate an arena");
  graft_status_t st =
      graft_storage_reserve(&arena->storage, size, "an arena");
  if (st) {
    graft_arena_release(pool, arena);
    return st;
  }
  *out_arena = arena;
  return NULL;
}

void graft_arena_release(graft_arena_pool_t* pool, graft_arena_t* arena) {
  if (!arena) return;
  if (!pool) {
    arena_free(arena);
    return;
  }
  pthread_mutex_lock(&pool->mutex);
  arena->next = pool->free_list;
  pool->free_list = arena;
  pthread_mutex_unlock(&pool->mutex);
}
