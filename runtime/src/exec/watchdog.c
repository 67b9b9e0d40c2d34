/* The per-invocation watchdog (see watchdog.h).
 *
 * One thread per invocation that asked for a deadline: it waits on a
 * condition variable against CLOCK_MONOTONIC (immune to wall-clock jumps)
 * and is woken early when the invocation finishes. The dispatch running is
 * published with an atomic pointer store, so the executor pays two relaxed
 * stores per dispatch and one load per workgroup. */
#define _GNU_SOURCE 1
#include "exec/watchdog.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct graft_watchdog_s {
  const graft_function_v1_t* function;
  uint32_t timeout_ms;
  graft_timeout_fn_t on_timeout;
  void* user_data;

  pthread_t thread;
  pthread_mutex_t mutex;
  pthread_cond_t wake;
  int finished; /* under |mutex|: the invocation is over */

  _Atomic(const graft_dispatch_attrs_v1_t*) running;
  /* Written by the watchdog thread before |expired| (release). */
  char message[512];
  _Atomic int expired;
};

static void deadline_after(uint32_t ms, struct timespec* out) {
  clock_gettime(CLOCK_MONOTONIC, out);
  out->tv_sec += ms / 1000;
  out->tv_nsec += (long)(ms % 1000) * 1000000L;
  if (out->tv_nsec >= 1000000000L) {
    out->tv_sec += 1;
    out->tv_nsec -= 1000000000L;
  }
}

static void* watch(void* arg) {
  graft_watchdog_t* w = arg;
  struct timespec deadline;
  deadline_after(w->timeout_ms, &deadline);
  pthread_mutex_lock(&w->mutex);
  int timed_out = 0;
  while (!w->finished && !timed_out)
    timed_out = pthread_cond_timedwait(&w->wake, &w->mutex, &deadline) ==
                ETIMEDOUT;
  int finished = w->finished;
  pthread_mutex_unlock(&w->mutex);
  if (finished) return NULL;

  const graft_dispatch_attrs_v1_t* d =
      atomic_load_explicit(&w->running, memory_order_relaxed);
  if (d) {
    snprintf(w->message, sizeof(w->message),
             "function '%s' ran past its deadline of %u ms in dispatch "
             "'%s'%s%s%s",
             w->function->name, w->timeout_ms, d->name,
             d->source[0] ? " (" : "", d->source, d->source[0] ? ")" : "");
  } else {
    snprintf(w->message, sizeof(w->message),
             "function '%s' ran past its deadline of %u ms between "
             "dispatches",
             w->function->name, w->timeout_ms);
  }
  atomic_store_explicit(&w->expired, 1, memory_order_release);
  if (w->on_timeout) {
    graft_timeout_event_t event = {w->function->name, d ? d->name : "",
                                   d ? d->source : "", w->timeout_ms,
                                   w->message};
    w->on_timeout(&event, w->user_data);
  }
  return NULL;
}

graft_status_t graft_watchdog_start(const graft_function_v1_t* function,
                                    uint32_t timeout_ms,
                                    graft_timeout_fn_t on_timeout,
                                    void* user_data,
                                    graft_watchdog_t** out_watchdog) {
  *out_watchdog = NULL;
  graft_watchdog_t* w = calloc(1, sizeof(*w));
  if (!w)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "out of memory starting a watchdog");
  w->function = function;
  w->timeout_ms = timeout_ms;
  w->on_timeout = on_timeout;
  w->user_data = user_data;
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&w->wake, &attr);
  pthread_condattr_destroy(&attr);
  pthread_mutex_init(&w->mutex, NULL);
  int rc = pthread_create(&w->thread, NULL, watch, w);
  if (rc != 0) {
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->mutex);
    free(w);
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "cannot start the watchdog thread: %s",
                             strerror(rc));
  }
  *out_watchdog = w;
  return NULL;
}

void graft_watchdog_enter(graft_watchdog_t* w,
                          const graft_dispatch_attrs_v1_t* dispatch) {
  atomic_store_explicit(&w->running, dispatch, memory_order_relaxed);
}

int graft_watchdog_expired(const graft_watchdog_t* w) {
  return atomic_load_explicit(&w->expired, memory_order_relaxed);
}

graft_status_t graft_watchdog_status(const graft_watchdog_t* w) {
  if (!atomic_load_explicit(&w->expired, memory_order_acquire)) return NULL;
  return graft_status_make(GRAFT_DEADLINE_EXCEEDED, "%s", w->message);
}

void graft_watchdog_stop(graft_watchdog_t* w) {
  if (!w) return;
  pthread_mutex_lock(&w->mutex);
  w->finished = 1;
  pthread_cond_signal(&w->wake);
  pthread_mutex_unlock(&w->mutex);
  pthread_join(w->thread, NULL);
  pthread_cond_destroy(&w->wake);
  pthread_mutex_destroy(&w->mutex);
  free(w);
}
