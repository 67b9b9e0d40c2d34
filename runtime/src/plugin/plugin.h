/* One loaded plugin: its code (a system library, a bare-metal image mapped
 * by graft's ELF loader, or a function linked into the program), the
 * interface its query function returned, and the state its load produced.
 * Internal to runtime/src/plugin.
 *
 * Lifecycle: an opener (plugin_system.c, plugin_embedded.c) fills the
 * backing and the query function; graft_plugin_start checks the header and
 * calls load; graft_plugin_destroy calls unload when load succeeded, then
 * releases the backing. Every failure leaves a plugin that destroy cleans
 * up. */
#ifndef GRAFT_RUNTIME_PLUGIN_PLUGIN_H_
#define GRAFT_RUNTIME_PLUGIN_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#include "graft/plugin.h"
#include "graft/runtime.h"
#include "graft/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct graft_plugin_t {
  char* origin;     /* the file, or the name a static plugin was given */
  const char* name; /* the header's name (or "") once started */
  graft_plugin_query_fn_t query;
  const graft_plugin_v0_t* api;
  void* self;       /* what load returned */
  int loaded;       /* load succeeded: unload is owed */
  /* Mapped by graft's ELF loader: no libc, no threads of its own; it may
   * not serve host commands (abi.h, GRAFT_STEP_HOST_CALL). */
  int bare_metal;
  /* Backing, released by destroy after unload. */
  void (*close)(struct graft_plugin_t* plugin);
  void* backing;
} graft_plugin_t;

/* A zeroed plugin with a copy of |origin|; NULL when out of memory. */
graft_plugin_t* graft_plugin_allocate(const char* origin);

/* Queries |plugin->query|, checks version, features and sanitizer, and
 * calls load with |params|. Errors are not yet annotated with the origin. */
graft_status_t graft_plugin_start(graft_plugin_t* plugin,
                                  const graft_plugin_param_t* params,
                                  size_t param_count);

/* unload (if load succeeded), then the backing, then the struct. NULL is
 * ignored. */
void graft_plugin_destroy(graft_plugin_t* plugin);

/* Maps the bare-metal plugin in |data| (FatELF or ELF; the slice for this
 * CPU) with graft's ELF loader and finds its query function. |data| is not
 * retained. */
graft_status_t graft_plugin_open_embedded(graft_plugin_t* plugin,
                                          const uint8_t* data, size_t size);

/* Opens |path| with the system's dynamic loader and finds its query
 * function. |header| (|size| bytes: the file's start) is checked first so
 * that a library for another CPU is refused with a clear message. */
graft_status_t graft_plugin_open_system(graft_plugin_t* plugin,
                                        const char* path,
                                        const uint8_t* header, size_t size);

/* "<what> does not export the query function; ..." with how to define it:
 * the one message for a system library or a slice without the query. */
graft_status_t graft_plugin_missing_query(const char* what);

/* "NOT_FOUND" etc. for a plugin status code; "code N" style is up to the
 * caller for unnamed ones (returns NULL). */
const char* graft_plugin_status_code_name(uint32_t code);

/* Fails with "<what> failed with NAME (code N)" when |status| is not OK. */
graft_status_t graft_plugin_check_status(graft_plugin_status_t status,
                                         const char* what);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_PLUGIN_PLUGIN_H_ */
