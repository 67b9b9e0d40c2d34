/* A bare-metal test plugin written against graft's own names
 * (graft/plugin.h). It serves the probe imports (probe.h) and is steered by
 * its load parameters, so that one file can play every part in the tests:
 *
 *   tag=N          the value its imports write (default 1)
 *   provide=a+b+c  which of probe_a, probe_b, probe_c it resolves
 *                  (default a+b)
 *   fail_load=N    load fails with status code N
 *   fail_resolve=N resolve fails with status code N
 *   replace=1      resolve overwrites slots other plugins filled (a bug
 *                  the runtime must refuse)
 *
 * and, at compile time (graft plugin -D...), by the header it declares:
 *   TAGGER_VERSION, TAGGER_FEATURES, TAGGER_SANITIZER   header fields
 *   TAGGER_QUERY_NULL   the query returns NULL (needs a newer runtime)
 *   TAGGER_NO_RESOLVE   the interface has no resolve function
 *   TAGGER_QUERY_NAME   name of the query function (for linking it into a
 *                       test program as a static plugin)
 *
 * Its state comes from the host allocator; no libc, no writable globals. */
#include "graft/plugin.h"
#include "probe.h"

#ifndef TAGGER_VERSION
#define TAGGER_VERSION GRAFT_PLUGIN_VERSION_LATEST
#endif
#ifndef TAGGER_FEATURES
#define TAGGER_FEATURES GRAFT_PLUGIN_FEATURE_STANDALONE
#endif
#ifndef TAGGER_SANITIZER
#define TAGGER_SANITIZER GRAFT_PLUGIN_SANITIZER_KIND
#endif
#ifndef TAGGER_QUERY_NAME
#define TAGGER_QUERY_NAME GRAFT_PLUGIN_QUERY_FN
#endif

#define PROVIDES_A 1u
#define PROVIDES_B 2u
#define PROVIDES_C 4u

typedef struct tagger_t {
  graft_plugin_allocator_t allocator;
  float tag;
  uint32_t provides;
  uint32_t fail_resolve;
  int replace;
} tagger_t;

static int tagger_import(void* params_ptr, void* context, void* reserved) {
  (void)reserved;
  const tagger_t* tagger = (const tagger_t*)context;
  const probe_params_t* params = (const probe_params_t*)params_ptr;
  if (params->input < 0) return (int)-params->input;
  params->out[params->index] = tagger->tag;
  return 0;
}

/* A whole decimal number; *ok = 0 on anything else. */
static uint32_t parse_u32(graft_plugin_string_view_t text, int* ok) {
  uint32_t value = 0;
  *ok = text.size > 0 && text.size < 10;
  for (size_t i = 0; *ok && i < text.size; ++i) {
    char c = text.data[i];
    *ok = c >= '0' && c <= '9';
    value = value * 10 + (uint32_t)(c - '0');
  }
  return value;
}

/* "a+b+c" -> PROVIDES_* bits; *ok = 0 on an unknown letter. */
static uint32_t parse_provides(graft_plugin_string_view_t text, int* ok) {
  uint32_t bits = 0;
  *ok = 1;
  for (size_t i = 0; i < text.size; ++i) {
    char c = text.data[i];
    if (c == 'a') bits |= PROVIDES_A;
    else if (c == 'b') bits |= PROVIDES_B;
    else if (c == 'c') bits |= PROVIDES_C;
    else if (c != '+') *ok = 0;
  }
  return bits;
}

static graft_plugin_status_t tagger_load(
    const graft_plugin_environment_v0_t* environment, size_t param_count,
    const graft_plugin_string_pair_t* params, void** out_self) {
  tagger_t* tagger = 0;
  graft_plugin_status_t status = graft_plugin_allocator_malloc(
      environment->host_allocator, sizeof(*tagger), (void**)&tagger);
  if (!graft_plugin_status_is_ok(status)) return status;
  tagger->allocator = environment->host_allocator;
  tagger->tag = 1;
  tagger->provides = PROVIDES_A | PROVIDES_B;
  tagger->fail_resolve = 0;
  tagger->replace = 0;
  uint32_t fail_load = 0;
  int ok = 1;
  for (size_t i = 0; ok && i < param_count; ++i) {
    graft_plugin_string_view_t key = params[i].key, value = params[i].value;
    if (graft_plugin_string_view_equal(key, "tag"))
      tagger->tag = (float)parse_u32(value, &ok);
    else if (graft_plugin_string_view_equal(key, "provide"))
      tagger->provides = parse_provides(value, &ok);
    else if (graft_plugin_string_view_equal(key, "fail_load"))
      fail_load = parse_u32(value, &ok);
    else if (graft_plugin_string_view_equal(key, "fail_resolve"))
      tagger->fail_resolve = parse_u32(value, &ok);
    else if (graft_plugin_string_view_equal(key, "replace"))
      tagger->replace = (int)parse_u32(value, &ok);
    else
      ok = 0;
  }
  if (!ok) fail_load = GRAFT_PLUGIN_STATUS_INVALID_ARGUMENT;
  if (fail_load) {
    graft_plugin_allocator_free(environment->host_allocator, tagger);
    return graft_plugin_status_from_code(
        (graft_plugin_status_code_t)fail_load);
  }
  *out_self = tagger;
  return graft_plugin_ok_status();
}

static void tagger_unload(void* self) {
  tagger_t* tagger = (tagger_t*)self;
  graft_plugin_allocator_free(tagger->allocator, tagger);
}

static uint32_t provides_bit(const char* name) {
  if (graft_plugin_strcmp(name, PROBE_A) == 0) return PROVIDES_A;
  if (graft_plugin_strcmp(name, PROBE_B) == 0) return PROVIDES_B;
  if (graft_plugin_strcmp(name, PROBE_C) == 0) return PROVIDES_C;
  return 0;
}

static graft_plugin_status_t tagger_resolve(
    void* self, const graft_plugin_resolve_params_v0_t* params,
    graft_plugin_resolution_t* out_resolution) {
  tagger_t* tagger = (tagger_t*)self;
  *out_resolution = 0;
  if (tagger->fail_resolve)
    return graft_plugin_status_from_code(
        (graft_plugin_status_code_t)tagger->fail_resolve);
  bool required_missing = false;
  for (size_t i = 0; i < params->count; ++i) {
    if (params->out_fn_ptrs[i] && !tagger->replace) continue;
    const char* name = params->symbol_names[i];
    bool optional = graft_plugin_import_is_optional(name);
    if (optional) ++name;
    if (tagger->provides & provides_bit(name)) {
      params->out_fn_ptrs[i] = (void*)tagger_import;
      params->out_fn_contexts[i] = tagger;
    } else if (params->out_fn_ptrs[i]) {
      /* filled by someone else (replace mode) */
    } else if (optional) {
      *out_resolution |= GRAFT_PLUGIN_RESOLUTION_MISSING_OPTIONAL;
    } else {
      required_missing = true;
    }
  }
  return required_missing
             ? graft_plugin_status_from_code(GRAFT_PLUGIN_STATUS_NOT_FOUND)
             : graft_plugin_ok_status();
}

GRAFT_PLUGIN_EXPORT const graft_plugin_header_t** TAGGER_QUERY_NAME(
    graft_plugin_version_t max_version, void* reserved) {
  (void)reserved;
  static const graft_plugin_header_t header = {
      .version = TAGGER_VERSION,
      .name = "graft_test_tagger",
      .description = "graft's test plugin (tests/plugins/tagger_plugin.c)",
      .features = TAGGER_FEATURES,
      .sanitizer = (graft_plugin_sanitizer_kind_t)TAGGER_SANITIZER,
  };
  static const graft_plugin_v0_t plugin = {
      .header = &header,
      .load = tagger_load,
      .unload = tagger_unload,
#ifndef TAGGER_NO_RESOLVE
      .resolve = tagger_resolve,
#endif
  };
#ifdef TAGGER_QUERY_NULL
  (void)max_version;
  return 0;
#else
  if (max_version < GRAFT_PLUGIN_VERSION_0_1) return 0;
  return (const graft_plugin_header_t**)&plugin;
#endif
}
