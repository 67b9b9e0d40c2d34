/* libFuzzer entry point for plugins: the bare-metal plugin loader and the
 * query/load/resolve/unload protocol, on arbitrary bytes. An input is one
 * of two kinds:
 *
 *  - A plugin image (it starts with the ELF or FatELF magic): the real
 *    embedded opener (graft_plugin_open_embedded: FatELF slice selection,
 *    graft's ELF loader with W^X and RELRO, the query symbol's lookup),
 *    then release. Calling the query would run the input's own code, so a
 *    mutated .text would crash in the fuzzed code rather than in graft (as
 *    for fuzz_loader); with GRAFT_FUZZ_CALL_QUERY=1 the image goes through
 *    the public path instead (graft_plugin_manager_load_memory: query,
 *    header checks, load) and its imports are resolved for a library that
 *    asks for the probe imports (tests/plugins/probe.h). CI's replay of the
 *    seeds (fuzz-replay/fuzz_plugin) sets it: the seeds are graft-built
 *    plugins whose code is sound.
 *
 *  - Anything else is a script for up to three plugins written here whose
 *    behaviour the bytes decide (header version, features, sanitizer and
 *    name; which interface functions exist; what load allocates through the
 *    host allocator and returns; which slots resolve fills or overwrites
 *    and what it returns), registered through the public
 *    graft_plugin_manager_register_query, and a library's imports resolved
 *    against them by the real import table. The harness checks what the
 *    runtime promises: a successful resolution leaves every slot as its
 *    recorded provider wrote it, no plugin's slot is overwritten by
 *    another, every required import is filled, and every plugin whose load
 *    succeeded is unloaded exactly once (ASan reports what load allocated
 *    and unload did not free).
 *
 * Build and run: cmake/fuzz.sh (seed corpus: tests/fuzz/corpus/fuzz_plugin/,
 * graft-built .sos plugins and scripts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/import_table.h"
#include "graft/plugin.h"
#include "graft/runtime.h"
#include "plugin/plugin.h"
#include "plugin/plugin_manager.h"

#define MAX_PLUGINS 3
#define MAX_IMPORTS 6

/* An invariant the runtime broke: abort so that libFuzzer keeps the input. */
#define CHECK(cond)                                                       \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "fuzz_plugin: %s:%d: check failed: %s\n", __FILE__, \
              __LINE__, #cond);                                           \
      abort();                                                            \
    }                                                                     \
  } while (0)

/*===--- reading the script -------------------------------------------===*/

typedef struct reader_t {
  const uint8_t* data;
  size_t size;
} reader_t;

/* The next byte, or 0 once the input is used up. */
static uint8_t next(reader_t* r) {
  if (r->size == 0) return 0;
  --r->size;
  return *r->data++;
}

static uint32_t next_u32(reader_t* r) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= (uint32_t)next(r) << (8 * i);
  return v;
}

/*===--- a scripted plugin ---------------------------------------------===*/

typedef struct script_t {
  graft_plugin_header_t header;
  graft_plugin_v0_t api;
  char name[16];
  uint8_t alloc_command; /* what load asks the host allocator for */
  uint16_t alloc_bytes;
  uint8_t load_code;    /* status code load returns */
  uint8_t resolve_code; /* status code resolve returns */
  uint8_t fill;         /* bit i: fill slot i when it is empty */
  uint8_t overwrite;    /* bit i: write slot i even when it is filled */
  int loads, unloads;   /* protocol calls seen */
} script_t;

static script_t g_scripts[MAX_PLUGINS];
/* What a plugin writes into slot i: its own marker, so that the harness
 * can tell who wrote a slot. */
static char g_markers[MAX_PLUGINS][MAX_IMPORTS];

typedef struct loaded_t {
  script_t* script;
  void* block; /* from the host allocator, freed by unload */
  graft_plugin_allocator_t allocator;
} loaded_t;

static graft_plugin_status_t scripted_load(
    const graft_plugin_environment_v0_t* environment, size_t param_count,
    const graft_plugin_string_pair_t* params, void** out_self) {
  CHECK(param_count == 1 && params[0].key.size == 6 &&
        memcmp(params[0].key.data, "script", 6) == 0 &&
        params[0].value.size == 1);
  script_t* s = &g_scripts[params[0].value.data[0] - '0'];
  ++s->loads;
  if (s->load_code != GRAFT_PLUGIN_STATUS_OK)
    return graft_plugin_status_from_code(s->load_code);
  if (!s->api.unload) {
    /* Nothing may be allocated that no unload would free. */
    static loaded_t unowned[MAX_PLUGINS];
    loaded_t* loaded = &unowned[s - g_scripts];
    memset(loaded, 0, sizeof(*loaded));
    loaded->script = s;
    *out_self = loaded;
    return graft_plugin_ok_status();
  }
  graft_plugin_allocator_t allocator = environment->host_allocator;
  void* self = NULL;
  graft_plugin_status_t st = graft_plugin_allocator_malloc(
      allocator, sizeof(loaded_t), &self);
  if (!graft_plugin_status_is_ok(st)) return st;
  loaded_t* loaded = self;
  loaded->script = s;
  loaded->allocator = allocator;
  loaded->block = NULL;
  /* Any command, fuzzed sizes: the host allocator must answer each. */
  graft_plugin_allocator_alloc_params_t alloc = {s->alloc_bytes};
  st = allocator.ctl(allocator.self,
                     (graft_plugin_allocator_command_t)s->alloc_command,
                     &alloc, &loaded->block);
  if (!graft_plugin_status_is_ok(st)) loaded->block = NULL;
  *out_self = loaded;
  return graft_plugin_ok_status();
}

static void scripted_unload(void* self) {
  loaded_t* loaded = self;
  ++loaded->script->unloads;
  if (loaded->block)
    graft_plugin_allocator_free(loaded->allocator, loaded->block);
  graft_plugin_allocator_free(loaded->allocator, loaded);
}

static graft_plugin_status_t scripted_resolve(
    void* self, const graft_plugin_resolve_params_v0_t* params,
    graft_plugin_resolution_t* out_resolution) {
  const script_t* s = ((loaded_t*)self)->script;
  size_t which = (size_t)(s - g_scripts);
  CHECK(params->count <= MAX_IMPORTS);
  for (size_t i = 1; i < params->count; ++i)
    CHECK(strcmp(params->symbol_names[i - 1], params->symbol_names[i]) <= 0);
  for (size_t i = 0; i < params->count; ++i) {
    int empty = params->out_fn_ptrs[i] == NULL;
    if ((empty && (s->fill >> i & 1)) || (s->overwrite >> i & 1)) {
      params->out_fn_ptrs[i] = &g_markers[which][i];
      params->out_fn_contexts[i] = self;
    }
  }
  *out_resolution = 0;
  return graft_plugin_status_from_code(s->resolve_code);
}

static const graft_plugin_header_t** query_for(size_t which) {
  script_t* s = &g_scripts[which];
  s->api.header = &s->header;
  /* The interface's first member is the header pointer (version 0.1). */
  return &s->api.header;
}
static const graft_plugin_header_t** query0(graft_plugin_version_t v, void* r) {
  (void)v, (void)r;
  return query_for(0);
}
static const graft_plugin_header_t** query1(graft_plugin_version_t v, void* r) {
  (void)v, (void)r;
  return query_for(1);
}
static const graft_plugin_header_t** query2(graft_plugin_version_t v, void* r) {
  (void)v, (void)r;
  return query_for(2);
}
static const graft_plugin_query_fn_t kQueries[MAX_PLUGINS] = {query0, query1,
                                                              query2};

/* Fills g_scripts[which] from the input. */
static void read_script(reader_t* r, size_t which) {
  script_t* s = &g_scripts[which];
  memset(s, 0, sizeof(*s));
  uint8_t shape = next(r);
  /* Mostly valid headers, so that load and resolve are reached. */
  s->header.version = (shape & 1) ? next_u32(r) : GRAFT_PLUGIN_VERSION_LATEST;
  s->header.features = (shape & 2) ? next_u32(r) : 0;
  s->header.sanitizer = (graft_plugin_sanitizer_kind_t)(
      (shape & 4) ? next_u32(r) % 6 : GRAFT_PLUGIN_SANITIZER_KIND);
  size_t length = next(r) % sizeof(s->name);
  for (size_t i = 0; i < length; ++i) s->name[i] = (char)next(r);
  s->name[sizeof(s->name) - 1] = '\0';
  s->header.name = (shape & 8) ? NULL : s->name;
  s->api.load = (shape & 16) ? NULL : scripted_load;
  s->api.resolve = (shape & 32) ? NULL : scripted_resolve;
  s->api.unload = (shape & 64) ? NULL : scripted_unload;
  s->alloc_command = next(r) % 5;
  s->alloc_bytes = next(r);
  s->alloc_bytes = (uint16_t)(s->alloc_bytes | next(r) << 8);
  s->load_code = next(r) % 4 == 0 ? next(r) % 18 : 0;
  s->resolve_code = next(r) % 3 == 0 ? next(r) % 18 : 0;
  s->fill = next(r);
  s->overwrite = next(r) % 4 == 0 ? next(r) : 0;
}

/* A library that asks for |count| imports named by the input (a few fixed
 * names, some optional, repeats allowed). */
static void read_imports(reader_t* r, const char* names[MAX_IMPORTS],
                         uint32_t* count) {
  static const char* const kNames[] = {"a", "b", "?c", "?a", "probe_a", ""};
  *count = next(r) % (MAX_IMPORTS + 1);
  for (uint32_t i = 0; i < *count; ++i)
    names[i] = kNames[next(r) % (sizeof(kNames) / sizeof(kNames[0]))];
}

static int compare_strings(const void* a, const void* b) {
  return strcmp(*(const char* const*)a, *(const char* const*)b);
}

/* Checks a resolved table against what the scripts wrote. */
static void check_resolution(const graft_import_table_t* table,
                             const char* const* names, uint32_t count) {
  CHECK(graft_import_table_count(table) == count);
  const graft_import_fn_t* functions = graft_import_table_functions(table);
  for (uint32_t i = 0; i < count; ++i)
    if (names[i][0] != GRAFT_IMPORT_OPTIONAL_PREFIX) CHECK(functions[i]);
}

/* Which script a registered plugin plays. */
static size_t script_of(const graft_plugin_t* plugin) {
  for (size_t p = 0; p < MAX_PLUGINS; ++p)
    if (plugin->query == kQueries[p]) return p;
  CHECK(!"a provider that is no registered plugin");
  return 0;
}

/* The manager's resolution on its own: on success every filled slot holds
 * what its recorded provider wrote there, and nothing else is recorded. */
static void resolve_directly(graft_plugin_manager_t* manager,
                             const char* const* names, uint32_t count) {
  const char* sorted[MAX_IMPORTS];
  memcpy(sorted, names, count * sizeof(*names));
  qsort(sorted, count, sizeof(*sorted), compare_strings);
  void* fn_ptrs[MAX_IMPORTS] = {0};
  void* fn_contexts[MAX_IMPORTS] = {0};
  const graft_plugin_t* providers[MAX_IMPORTS] = {0};
  graft_import_request_t request = {count, sorted, fn_ptrs, fn_contexts,
                                    providers};
  graft_status_t st = graft_plugin_manager_resolve(manager, &request);
  if (st) {
    CHECK(graft_status_message(st)[0] != '\0');
    graft_status_free(st);
    return;
  }
  for (uint32_t i = 0; i < count; ++i) {
    CHECK(!fn_ptrs[i] == !providers[i]);
    if (fn_ptrs[i])
      CHECK(fn_ptrs[i] == &g_markers[script_of(providers[i])][i]);
  }
}

static void run_script(const uint8_t* data, size_t size) {
  reader_t r = {data, size};
  size_t plugins = 1 + next(&r) % MAX_PLUGINS;
  graft_plugin_manager_t* manager = NULL;
  graft_status_t st = graft_plugin_manager_create(&manager);
  if (st) {
    graft_status_free(st);
    return;
  }
  for (size_t p = 0; p < plugins; ++p) {
    read_script(&r, p);
    char value[2] = {(char)('0' + p), '\0'};
    graft_plugin_param_t param = {"script", value};
    st = graft_plugin_manager_register_query(manager, "scripted", kQueries[p],
                                             &param, 1);
    if (st) {
      CHECK(graft_status_message(st)[0] != '\0');
      graft_status_free(st);
    }
  }
  const char* names[MAX_IMPORTS];
  uint32_t count = 0;
  read_imports(&r, names, &count);
  resolve_directly(manager, names, count);
  graft_library_v1_t library;
  memset(&library, 0, sizeof(library));
  library.magic = GRAFT_LIBRARY_MAGIC;
  library.abi_version = GRAFT_ABI_VERSION;
  library.name = "fuzz";
  library.import_count = count;
  library.imports = names;
  graft_import_table_t* table = NULL;
  st = graft_import_table_create(&library, manager, &table);
  if (st) {
    CHECK(table == NULL && graft_status_message(st)[0] != '\0');
    graft_status_free(st);
  } else {
    check_resolution(table, names, count);
    graft_import_table_free(table);
  }
  graft_plugin_manager_release(manager);
  for (size_t p = 0; p < plugins; ++p) {
    /* unload is owed exactly when load succeeded and the interface has
     * one. */
    const script_t* s = &g_scripts[p];
    int owed = s->loads == 1 && s->load_code == GRAFT_PLUGIN_STATUS_OK &&
               s->api.unload;
    CHECK(s->loads <= 1);
    CHECK(s->unloads == (owed ? 1 : 0));
  }
}

/*===--- a plugin image -------------------------------------------------===*/

static void run_image(const uint8_t* data, size_t size, int call_query) {
  if (!call_query) {
    graft_plugin_t* plugin = graft_plugin_allocate("fuzz.sos");
    if (!plugin) return;
    graft_status_free(graft_plugin_open_embedded(plugin, data, size));
    graft_plugin_destroy(plugin);
    return;
  }
  graft_plugin_manager_t* manager = NULL;
  graft_status_t st = graft_plugin_manager_create(&manager);
  if (st) {
    graft_status_free(st);
    return;
  }
  graft_plugin_param_t param = {"provide", "a+b+c"};
  graft_status_free(graft_plugin_manager_load_memory(manager, "fuzz.sos", data,
                                                     size, &param, 1));
  static const char* const kProbe[] = {"probe_a", "probe_b", "?probe_c"};
  graft_library_v1_t library;
  memset(&library, 0, sizeof(library));
  library.magic = GRAFT_LIBRARY_MAGIC;
  library.abi_version = GRAFT_ABI_VERSION;
  library.name = "probe";
  library.import_count = 3;
  library.imports = kProbe;
  graft_import_table_t* table = NULL;
  graft_status_free(graft_import_table_create(&library, manager, &table));
  graft_import_table_free(table);
  graft_plugin_manager_release(manager);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static int call_query = -1;
  if (call_query < 0) {
    const char* env = getenv("GRAFT_FUZZ_CALL_QUERY");
    call_query = env && env[0] == '1';
  }
  static const uint8_t kElf[4] = {0x7F, 'E', 'L', 'F'};
  static const uint8_t kFatElf[4] = {0xFA, 0x70, 0x0E, 0x1F};
  if (size >= 4 &&
      (memcmp(data, kElf, 4) == 0 || memcmp(data, kFatElf, 4) == 0))
    run_image(data, size, call_query);
  else
    run_script(data, size);
  return 0;
}
