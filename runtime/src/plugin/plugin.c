/* What every plugin goes through whatever loaded its code (see plugin.h):
 * query, header checks, load with the host allocator, unload, release.
 *
 * The checks refuse what graft cannot honour rather than letting it fail
 * later in a worker thread: an interface newer than this runtime, IREE's
 * full status objects, a sanitizer the runtime was not built with. */
#include "plugin/plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

graft_plugin_t* graft_plugin_allocate(const char* origin) {
  graft_plugin_t* plugin = calloc(1, sizeof(*plugin));
  if (!plugin) return NULL;
  size_t length = strlen(origin) + 1;
  plugin->origin = malloc(length);
  if (!plugin->origin) {
    free(plugin);
    return NULL;
  }
  memcpy(plugin->origin, origin, length);
  plugin->name = "";
  return plugin;
}

const char* graft_plugin_status_code_name(uint32_t code) {
  static const char* const kNames[] = {
      "OK",        "CANCELLED",           "UNKNOWN",
      "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
      "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
      "FAILED_PRECONDITION", "ABORTED",   "OUT_OF_RANGE",
      "UNIMPLEMENTED", "INTERNAL",         "UNAVAILABLE",
      "DATA_LOSS",  "UNAUTHENTICATED",     "DEFERRED"};
  return code < sizeof(kNames) / sizeof(kNames[0]) ? kNames[code] : NULL;
}

graft_status_t graft_plugin_check_status(graft_plugin_status_t status,
                                         const char* what) {
  if (graft_plugin_status_is_ok(status)) return NULL;
  uint32_t code = (uint32_t)graft_plugin_status_code(status);
  const char* name = graft_plugin_status_code_name(code);
  return graft_status_make(GRAFT_ABORTED, "%s failed with %s (code %u)", what,
                           name ? name : "an unnamed status", code);
}

graft_status_t graft_plugin_missing_query(const char* what) {
  return graft_status_make(GRAFT_NOT_FOUND,
                           "%s does not export %s; plugins define it with "
                           "GRAFT_PLUGIN_EXPORT (graft/plugin.h) or "
                           "IREE_HAL_EXECUTABLE_PLUGIN_EXPORT",
                           what, GRAFT_PLUGIN_QUERY_SYMBOL);
}

/*===--- the host allocator handed to load ----------------------------------===*/

static graft_plugin_status_t host_allocator_ctl(
    void* self, graft_plugin_allocator_command_t command, const void* params,
    void** inout_ptr) {
  (void)self;
  size_t length = 0;
  if (command != GRAFT_PLUGIN_ALLOCATOR_COMMAND_FREE) {
    if (!params || !inout_ptr)
      return graft_plugin_status_from_code(
          GRAFT_PLUGIN_STATUS_INVALID_ARGUMENT);
    length = ((const graft_plugin_allocator_alloc_params_t*)params)->byte_length;
  }
  void* block = NULL;
  switch (command) {
    case GRAFT_PLUGIN_ALLOCATOR_COMMAND_MALLOC:
      block = malloc(length ? length : 1);
      break;
    case GRAFT_PLUGIN_ALLOCATOR_COMMAND_CALLOC:
      block = calloc(1, length ? length : 1);
      break;
    case GRAFT_PLUGIN_ALLOCATOR_COMMAND_REALLOC:
      block = realloc(*inout_ptr, length ? length : 1);
      break;
    case GRAFT_PLUGIN_ALLOCATOR_COMMAND_FREE:
      if (inout_ptr) free(*inout_ptr);
      return graft_plugin_ok_status();
    default:
      return graft_plugin_status_from_code(GRAFT_PLUGIN_STATUS_UNIMPLEMENTED);
  }
  if (!block)
    return graft_plugin_status_from_code(
        GRAFT_PLUGIN_STATUS_RESOURCE_EXHAUSTED);
  *inout_ptr = block;
  return graft_plugin_ok_status();
}

/*===--- start: query, checks, load ------------------------------------------===*/

static const char* sanitizer_name(uint32_t kind) {
  switch (kind) {
    case GRAFT_PLUGIN_SANITIZER_ADDRESS: return "AddressSanitizer";
    case GRAFT_PLUGIN_SANITIZER_MEMORY: return "MemorySanitizer";
    case GRAFT_PLUGIN_SANITIZER_THREAD: return "ThreadSanitizer";
    case GRAFT_PLUGIN_SANITIZER_UNDEFINED: return "UndefinedBehaviorSanitizer";
    default: return NULL;
  }
}

/* Version, features and sanitizer of the header the query returned. */
static graft_status_t check_header(const graft_plugin_header_t* header) {
  const char* name = header->name ? header->name : "";
  if (header->version > GRAFT_PLUGIN_VERSION_LATEST)
    return graft_status_make(GRAFT_UNIMPLEMENTED,
                             "'%s' is built for plugin API version %u, newer "
                             "than this runtime's %u; use a newer graft "
                             "runtime or rebuild the plugin",
                             name, header->version,
                             GRAFT_PLUGIN_VERSION_LATEST);
  if (header->version < GRAFT_PLUGIN_VERSION_0_1)
    return graft_status_make(GRAFT_DATA_LOSS,
                             "'%s' declares plugin API version %u, which does "
                             "not exist (expected %u)",
                             name, header->version, GRAFT_PLUGIN_VERSION_0_1);
  if (header->features & GRAFT_PLUGIN_FEATURE_FULL_STATUS)
    return graft_status_make(GRAFT_UNIMPLEMENTED,
                             "'%s' returns IREE's full status objects "
                             "(FEATURE_FULL_STATUS), which graft does not "
                             "support; build it to return status codes",
                             name);
  uint32_t sanitizer = (uint32_t)header->sanitizer;
  if (sanitizer != GRAFT_PLUGIN_SANITIZER_NONE &&
      sanitizer != (uint32_t)GRAFT_PLUGIN_SANITIZER_KIND) {
    const char* wanted = sanitizer_name(sanitizer);
    const char* have = sanitizer_name(GRAFT_PLUGIN_SANITIZER_KIND);
    char unknown[32];
    snprintf(unknown, sizeof(unknown), "sanitizer kind %u", sanitizer);
    return graft_status_make(GRAFT_FAILED_PRECONDITION,
                             "'%s' is built with %s but this runtime is %s%s",
                             name, wanted ? wanted : unknown,
                             have ? "built with " : "not sanitized",
                             have ? have : "");
  }
  return NULL;
}

/* Calls load with |params| as string views; the copies live for the call
 * only, as the API promises. */
static graft_status_t load(graft_plugin_t* plugin,
                           const graft_plugin_param_t* params,
                           size_t param_count) {
  graft_plugin_string_pair_t* pairs =
      calloc(param_count ? param_count : 1, sizeof(*pairs));
  if (!pairs)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "out of memory loading a plugin");
  for (size_t i = 0; i < param_count; ++i) {
    pairs[i].key.data = params[i].key;
    pairs[i].key.size = strlen(params[i].key);
    pairs[i].value.data = params[i].value;
    pairs[i].value.size = strlen(params[i].value);
  }
  graft_plugin_environment_v0_t environment;
  memset(&environment, 0, sizeof(environment));
  environment.host_allocator.ctl = host_allocator_ctl;
  void* self = NULL;
  graft_plugin_status_t status =
      plugin->api->load(&environment, param_count, pairs, &self);
  free(pairs);
  char what[160];
  snprintf(what, sizeof(what), "'%s': load", plugin->name);
  graft_status_t st = graft_plugin_check_status(status, what);
  if (st) return st;
  plugin->self = self;
  plugin->loaded = 1;
  return NULL;
}

graft_status_t graft_plugin_start(graft_plugin_t* plugin,
                                  const graft_plugin_param_t* params,
                                  size_t param_count) {
  const graft_plugin_header_t** interface =
      plugin->query(GRAFT_PLUGIN_VERSION_LATEST, NULL);
  if (!interface || !*interface)
    return graft_status_make(GRAFT_UNIMPLEMENTED,
                             "its %s returned null for plugin API version %u: "
                             "the plugin needs a newer graft runtime",
                             GRAFT_PLUGIN_QUERY_SYMBOL,
                             GRAFT_PLUGIN_VERSION_LATEST);
  const graft_plugin_header_t* header = *interface;
  plugin->name = header->name ? header->name : "";
  graft_status_t st = check_header(header);
  if (st) return st;
  /* Version 0.1 is the only interface: the header pointer is its first
   * member. */
  plugin->api = (const graft_plugin_v0_t*)interface;
  if (!plugin->api->load || !plugin->api->resolve)
    return graft_status_make(GRAFT_DATA_LOSS,
                             "'%s' has no %s function in its interface",
                             plugin->name,
                             plugin->api->load ? "resolve" : "load");
  return load(plugin, params, param_count);
}

void graft_plugin_destroy(graft_plugin_t* plugin) {
  if (!plugin) return;
  if (plugin->loaded && plugin->api->unload) plugin->api->unload(plugin->self);
  plugin->loaded = 0;
  if (plugin->close) plugin->close(plugin);
  free(plugin->origin);
  free(plugin);
}
