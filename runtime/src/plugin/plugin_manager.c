/* The plugin manager (graft/runtime.h): a reference-counted, ordered list of
 * loaded plugins, and the resolution of import names against them.
 *
 * Resolution asks the plugins in reverse registration order, so a reference
 * plugin registered first serves whatever a specialised plugin registered
 * after it leaves out, and the later of two plugins providing one symbol
 * wins. Each plugin fills only empty slots; the search stops once every
 * slot is filled. A plugin that overwrites a slot another plugin filled, or
 * that fails with anything but NOT_FOUND, fails the resolution. */
#define _POSIX_C_SOURCE 200809L
#include "plugin/plugin_manager.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io_internal.h"
#include "plugin/plugin.h"

#define FATELF_MAGIC "\xFA\x70\x0E\x1F" /* 0x1F0E70FA little-endian */

struct graft_plugin_manager_s {
  atomic_uint refs;
  pthread_mutex_t mutex; /* guards the list */
  graft_plugin_t** plugins;
  size_t count;
  size_t capacity;
};

graft_status_t graft_plugin_manager_create(
    graft_plugin_manager_t** out_manager) {
  *out_manager = NULL;
  graft_plugin_manager_t* m = calloc(1, sizeof(*m));
  if (!m)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "out of memory creating a plugin manager");
  atomic_init(&m->refs, 1);
  pthread_mutex_init(&m->mutex, NULL);
  *out_manager = m;
  return NULL;
}

void graft_plugin_manager_retain(graft_plugin_manager_t* manager) {
  if (manager) atomic_fetch_add(&manager->refs, 1);
}

void graft_plugin_manager_release(graft_plugin_manager_t* manager) {
  if (!manager || atomic_fetch_sub(&manager->refs, 1) != 1) return;
  /* Last registered, first unloaded: a plugin may rely on one loaded
   * before it. */
  for (size_t i = manager->count; i-- > 0;)
    graft_plugin_destroy(manager->plugins[i]);
  free(manager->plugins);
  pthread_mutex_destroy(&manager->mutex);
  free(manager);
}

size_t graft_plugin_manager_count(const graft_plugin_manager_t* manager) {
  graft_plugin_manager_t* m = (graft_plugin_manager_t*)manager;
  pthread_mutex_lock(&m->mutex);
  size_t count = m->count;
  pthread_mutex_unlock(&m->mutex);
  return count;
}

/* Starts |plugin| (its opener already ran with |opened|) and appends it;
 * on failure destroys it and names its origin in the error. */
static graft_status_t add_plugin(graft_plugin_manager_t* m,
                                 graft_plugin_t* plugin, graft_status_t opened,
                                 const graft_plugin_param_t* params,
                                 size_t param_count) {
  graft_status_t st = opened;
  if (!st) st = graft_plugin_start(plugin, params, param_count);
  if (!st) {
    pthread_mutex_lock(&m->mutex);
    if (m->count == m->capacity) {
      size_t capacity = m->capacity ? 2 * m->capacity : 4;
      graft_plugin_t** grown =
          realloc(m->plugins, capacity * sizeof(*grown));
      if (grown) {
        m->plugins = grown;
        m->capacity = capacity;
      }
    }
    if (m->count < m->capacity)
      m->plugins[m->count++] = plugin;
    else
      st = graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "out of memory registering a plugin");
    pthread_mutex_unlock(&m->mutex);
  }
  if (st) {
    st = graft_status_annotate(st, "plugin '%s'", plugin->origin);
    graft_plugin_destroy(plugin);
  }
  return st;
}

static graft_status_t out_of_memory(void) {
  return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                           "out of memory loading a plugin");
}

static int has_suffix(const char* text, const char* suffix) {
  size_t n = strlen(text), k = strlen(suffix);
  return n >= k && strcmp(text + n - k, suffix) == 0;
}

graft_status_t graft_plugin_manager_load_file(
    graft_plugin_manager_t* manager, const char* path,
    const graft_plugin_param_t* params, size_t param_count) {
  /* "embedded:" and "system:" force a loader; IREE spells the first the
   * same way. */
  int force_embedded = strncmp(path, "embedded:", 9) == 0;
  int force_system = strncmp(path, "system:", 7) == 0;
  const char* file = path + (force_embedded ? 9 : force_system ? 7 : 0);
  uint8_t* data = NULL;
  size_t size = 0;
  graft_status_t st =
      graft_io_read_file(file, GRAFT_MAX_BUNDLE_FILE_SIZE, &data, &size);
  if (st) return graft_status_annotate(st, "plugin");
  graft_plugin_t* plugin = graft_plugin_allocate(file);
  if (!plugin) {
    free(data);
    return out_of_memory();
  }
  int fatelf = size >= 4 && memcmp(data, FATELF_MAGIC, 4) == 0;
  int embedded = force_embedded ||
                 (!force_system && (fatelf || has_suffix(file, ".sos")));
  graft_status_t opened =
      embedded ? graft_plugin_open_embedded(plugin, data, size)
               : graft_plugin_open_system(plugin, file, data, size);
  free(data);
  return add_plugin(manager, plugin, opened, params, param_count);
}

graft_status_t graft_plugin_manager_load_memory(
    graft_plugin_manager_t* manager, const char* name, const void* data,
    size_t size, const graft_plugin_param_t* params, size_t param_count) {
  graft_plugin_t* plugin = graft_plugin_allocate(name);
  if (!plugin) return out_of_memory();
  graft_status_t opened = graft_plugin_open_embedded(plugin, data, size);
  return add_plugin(manager, plugin, opened, params, param_count);
}

graft_status_t graft_plugin_manager_register_query(
    graft_plugin_manager_t* manager, const char* name,
    graft_plugin_query_fn_t query, const graft_plugin_param_t* params,
    size_t param_count) {
  graft_plugin_t* plugin = graft_plugin_allocate(name);
  if (!plugin) return out_of_memory();
  plugin->query = query;
  return add_plugin(manager, plugin, NULL, params, param_count);
}

/*===--- resolution ----------------------------------------------------------===*/

static int all_filled(const graft_import_request_t* r) {
  for (size_t i = 0; i < r->count; ++i)
    if (!r->fn_ptrs[i]) return 0;
  return 1;
}

/* Lets |plugin| fill what it can; records it as the provider of every slot
 * it filled and refuses a changed slot (function or context) someone else
 * filled. |before| has room for 2 * count entries. */
static graft_status_t ask(const graft_plugin_t* plugin,
                          graft_import_request_t* r, void** before) {
  void** before_contexts = before + r->count;
  memcpy(before, r->fn_ptrs, r->count * sizeof(void*));
  memcpy(before_contexts, r->fn_contexts, r->count * sizeof(void*));
  graft_plugin_resolve_params_v0_t params = {r->count, r->names, r->fn_ptrs,
                                             r->fn_contexts};
  graft_plugin_resolution_t resolution = 0;
  graft_plugin_status_t status =
      plugin->api->resolve(plugin->self, &params, &resolution);
  for (size_t i = 0; i < r->count; ++i) {
    if (before[i] && (r->fn_ptrs[i] != before[i] ||
                      r->fn_contexts[i] != before_contexts[i]))
      return graft_status_make(GRAFT_FAILED_PRECONDITION,
                               "plugin '%s' ('%s') replaced import '%s', "
                               "which plugin '%s' registered after it "
                               "provides; a plugin must only fill empty slots",
                               plugin->origin, plugin->name, r->names[i],
                               r->providers[i]->origin);
    if (!before[i] && r->fn_ptrs[i]) r->providers[i] = plugin;
  }
  if (graft_plugin_status_code(status) == GRAFT_PLUGIN_STATUS_NOT_FOUND)
    return NULL; /* some required import is still missing: ask on */
  char what[256];
  snprintf(what, sizeof(what), "plugin '%s' ('%s'): resolving imports",
           plugin->origin, plugin->name);
  return graft_plugin_check_status(status, what);
}

graft_status_t graft_plugin_manager_resolve(graft_plugin_manager_t* manager,
                                            graft_import_request_t* request) {
  if (!manager || request->count == 0 || all_filled(request)) return NULL;
  void** before = malloc(2 * request->count * sizeof(void*));
  if (!before)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "out of memory resolving imports");
  graft_status_t st = NULL;
  pthread_mutex_lock(&manager->mutex);
  for (size_t i = manager->count; i-- > 0 && !st && !all_filled(request);)
    st = ask(manager->plugins[i], request, before);
  pthread_mutex_unlock(&manager->mutex);
  free(before);
  return st;
}

char* graft_plugin_manager_describe(graft_plugin_manager_t* manager) {
  if (!manager) return NULL;
  pthread_mutex_lock(&manager->mutex);
  size_t length = 1;
  for (size_t i = 0; i < manager->count; ++i)
    length += strlen(manager->plugins[i]->name) +
              strlen(manager->plugins[i]->origin) + 8; /* ", '' ()" */
  char* text = manager->count ? malloc(length) : NULL;
  size_t used = 0;
  for (size_t i = 0; text && i < manager->count; ++i) {
    const graft_plugin_t* p = manager->plugins[i];
    used += (size_t)snprintf(text + used, length - used, "%s'%s' (%s)",
                             i ? ", " : "", p->name, p->origin);
  }
  pthread_mutex_unlock(&manager->mutex);
  return text;
}
