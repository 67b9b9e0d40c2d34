/* Plugin manager and import resolution through the public API, on the
 * hand-written probe library (tests/plugins/probe_slice.c, linked in) and
 * the test plugin (tests/plugins/tagger_plugin.c, linked in as a static
 * plugin; built as a system library too when the runtime can dlopen).
 *
 *   plugin_test [TAGGER_SO NOQUERY_SO]   (the system libraries, if any)
 *
 * Plain C so it also runs cross-built under qemu; the TSan build runs the
 * concurrency case with imports called from every worker at once. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/module.h"
#include "graft/plugin.h"
#include "graft/runtime.h"
#include "io/test_harness.h"
#include "loader/arch/arch.h"
#include "loader/loader.h"

/* From tests/plugins (compiled into this test). */
const graft_library_v1_t* graft_library_query(uint32_t max_abi_version);
const graft_plugin_header_t** tagger_query(graft_plugin_version_t max_version,
                                           void* reserved);

static const char* g_tagger_so;  /* system build of the tagger, or NULL */
static const char* g_noquery_so; /* a system library without the query */

/*===--- helpers -------------------------------------------------------------===*/

static graft_plugin_manager_t* new_manager(void) {
  graft_plugin_manager_t* m = NULL;
  EXPECT_OK(graft_plugin_manager_create(&m));
  return m;
}

/* Registers the linked-in tagger with "k=v,k=v" parameters. */
static graft_status_t add_tagger(graft_plugin_manager_t* m, const char* spec) {
  graft_plugin_param_t params[8];
  char text[256];
  size_t count = 0;
  snprintf(text, sizeof(text), "%s", spec);
  for (char* save = NULL, *pair = strtok_r(text, ",", &save);
       pair && count < 8; pair = strtok_r(NULL, ",", &save)) {
    char* eq = strchr(pair, '=');
    *eq = '\0';
    params[count].key = pair;
    params[count].value = eq + 1;
    ++count;
  }
  return graft_plugin_manager_register_query(m, "tagger_static", tagger_query,
                                             params, count);
}

static graft_status_t open_probe(graft_plugin_manager_t* plugins,
                                 uint32_t threads, graft_module_t** out) {
  graft_runtime_options_t options;
  graft_runtime_options_initialize(&options);
  options.threads = threads;
  options.plugins = plugins;
  return graft_module_create_from_library(graft_library_query(GRAFT_ABI_VERSION),
                                          &options, NULL, NULL, out);
}

/* Runs probe on |n| elements (element |negative| is -7 when < n) and checks
 * out[i] == want[i % 3]. */
static graft_status_t run_probe(graft_module_t* module, size_t n,
                                size_t negative, const float want[3]) {
  float* x = calloc(n, sizeof(float));
  if (negative < n) x[negative] = -7;
  graft_tensor_t input = {.dtype = GRAFT_DTYPE_F32, .rank = 1,
                          .dims = {(int64_t)n}, .data = x,
                          .size = n * sizeof(float)};
  graft_tensor_t output;
  memset(&output, 0, sizeof(output));
  graft_status_t st =
      graft_module_function_invoke(module, 0, &input, 1, &output, 1);
  if (!st) {
    const float* out = output.data;
    for (size_t i = 0; i < n; ++i)
      if (out[i] != want[i % 3]) {
        st = graft_status_make(GRAFT_INTERNAL,
                               "out[%zu] is %g, expected %g", i,
                               (double)out[i], (double)want[i % 3]);
        break;
      }
    graft_tensor_release(&output);
  }
  free(x);
  return st;
}

/*===--- resolution ----------------------------------------------------------===*/

static void required_import_without_plugins(void) {
  graft_module_t* module = NULL;
  EXPECT_ERROR(open_probe(NULL, 1, &module),
               "library 'probe' requires 1 import that nothing provides: "
               "'probe_a' (no plugins registered)");
  EXPECT(module == NULL);
}

static void required_import_nobody_provides(void) {
  graft_plugin_manager_t* m = new_manager();
  EXPECT_OK(add_tagger(m, "provide=b+c"));
  graft_module_t* module = NULL;
  EXPECT_ERROR(open_probe(m, 1, &module),
               "library 'probe' requires 1 import that nothing provides: "
               "'probe_a' (plugins searched: 'graft_test_tagger' "
               "(tagger_static))");
  graft_plugin_manager_release(m);
}

static void optional_imports_resolve_to_null(void) {
  graft_plugin_manager_t* m = new_manager();
  EXPECT_OK(add_tagger(m, "tag=5,provide=a"));
  graft_module_t* module = NULL;
  EXPECT_OK(open_probe(m, 1, &module));
  graft_plugin_manager_release(m);
  static const float want[3] = {5, -1, -1}; /* -1: the dispatch's fallback */
  if (module) EXPECT_OK(run_probe(module, 9, 9, want));
  graft_module_close(module);
}

static void later_plugin_wins(void) {
  graft_plugin_manager_t* m = new_manager();
  EXPECT_OK(add_tagger(m, "tag=1,provide=a+b+c"));
  EXPECT_OK(add_tagger(m, "tag=2,provide=a+b+c"));
  EXPECT(graft_plugin_manager_count(m) == 2);
  graft_module_t* module = NULL;
  EXPECT_OK(open_probe(m, 1, &module));
  graft_plugin_manager_release(m);
  static const float want[3] = {2, 2, 2};
  if (module) EXPECT_OK(run_probe(module, 6, 6, want));
  graft_module_close(module);
}

static void reference_and_specialised_plugin(void) {
  graft_plugin_manager_t* m = new_manager();
  EXPECT_OK(add_tagger(m, "tag=1,provide=a+b")); /* reference */
  EXPECT_OK(add_tagger(m, "tag=2,provide=a"));   /* specialised */
  graft_module_t* module = NULL;
  EXPECT_OK(open_probe(m, 1, &module));
  graft_plugin_manager_release(m);
  static const float want[3] = {2, 1, -1};
  if (module) EXPECT_OK(run_probe(module, 6, 6, want));
  graft_module_close(module);
}

/* The earlier plugin would fail if asked; it is not, because the later one
 * provides everything. */
static void resolution_stops_when_complete(void) {
  graft_plugin_manager_t* m = new_manager();
  EXPECT_OK(add_tagger(m, "fail_resolve=13"));
  EXPECT_OK(add_tagger(m, "tag=3,provide=a+b+c"));
  graft_module_t* module = NULL;
  EXPECT_OK(open_probe(m, 1, &module));
  graft_module_close(module);
  /* With an optional import left open, the search goes on and reaches
   * it. */
  graft_plugin_manager_t* m2 = new_manager();
  EXPECT_OK(add_tagger(m2, "fail_resolve=13"));
  EXPECT_OK(add_tagger(m2, "tag=3,provide=a+b"));
  EXPECT_ERROR(open_probe(m2, 1, &module),
               "plugin 'tagger_static' ('graft_test_tagger'): resolving "
               "imports failed with INTERNAL (code 13)");
  graft_plugin_manager_release(m);
  graft_plugin_manager_release(m2);
}

static void plugin_replacing_a_slot_is_refused(void) {
  graft_plugin_manager_t* m = new_manager();
  EXPECT_OK(add_tagger(m, "replace=1,provide=a"));
  EXPECT_OK(add_tagger(m, "tag=2,provide=a"));
  graft_module_t* module = NULL;
  EXPECT_ERROR(open_probe(m, 1, &module),
               "plugin 'tagger_static' ('graft_test_tagger') replaced import "
               "'probe_a', which plugin 'tagger_static' registered after it "
               "provides");
  graft_plugin_manager_release(m);
}

/*===--- invocation ----------------------------------------------------------===*/

static void failing_import_names_plugin_symbol_and_value(void) {
  graft_plugin_manager_t* m = new_manager();
  EXPECT_OK(add_tagger(m, "tag=4"));
  graft_module_t* module = NULL;
  EXPECT_OK(open_probe(m, 2, &module));
  graft_plugin_manager_release(m);
  if (!module) return;
  static const float want[3] = {4, 4, -1};
  EXPECT_ERROR(run_probe(module, 6, 4, want),
               "dispatch 'probe_dispatch_0' (probe.graph:2:8) failed in "
               "workgroup (4,0,0): import 'probe_b' of plugin "
               "'graft_test_tagger' (tagger_static) returned 7");
  /* Nothing sticks: the next invocation works. */
  EXPECT_OK(run_probe(module, 6, 6, want));
  graft_module_close(module);
}

/* Imports called from every worker at once (the TSan build checks it). */
static void imports_on_all_workers(void) {
  graft_plugin_manager_t* m = new_manager();
  EXPECT_OK(add_tagger(m, "tag=1,provide=a+b+c"));
  EXPECT_OK(add_tagger(m, "tag=2,provide=b"));
  graft_module_t* module = NULL;
  EXPECT_OK(open_probe(m, 8, &module));
  graft_plugin_manager_release(m);
  if (!module) return;
  EXPECT(graft_module_thread_count(module) == 8);
  static const float want[3] = {1, 2, 1};
  for (int round = 0; round < 3; ++round)
    EXPECT_OK(run_probe(module, 20000, 20000, want));
  graft_module_close(module);
}

/*===--- lifetime: load/unload pairs, reverse order, allocator --------------===*/

static char g_events[64];

static void record(char what, graft_plugin_string_view_t id) {
  size_t n = strlen(g_events);
  if (n + 2 < sizeof(g_events) && id.size == 1) {
    g_events[n] = what;
    g_events[n + 1] = id.data[0];
  }
}

static graft_plugin_status_t counter_load(
    const graft_plugin_environment_v0_t* env, size_t param_count,
    const graft_plugin_string_pair_t* params, void** out_self) {
  /* Every allocator command: calloc, realloc, free, malloc. */
  graft_plugin_allocator_t a = env->host_allocator;
  graft_plugin_allocator_alloc_params_t size = {8};
  void* block = NULL;
  graft_plugin_status_t st =
      a.ctl(a.self, GRAFT_PLUGIN_ALLOCATOR_COMMAND_CALLOC, &size, &block);
  if (st) return st;
  if (((char*)block)[7] != 0)
    return graft_plugin_status_from_code(GRAFT_PLUGIN_STATUS_INTERNAL);
  size.byte_length = 64;
  st = a.ctl(a.self, GRAFT_PLUGIN_ALLOCATOR_COMMAND_REALLOC, &size, &block);
  if (st) return st;
  graft_plugin_allocator_free(a, block);
  graft_plugin_string_view_t* id = NULL;
  st = graft_plugin_allocator_malloc(a, sizeof(*id) + sizeof(a), (void**)&id);
  if (st) return st;
  *id = param_count == 1 ? params[0].value : (graft_plugin_string_view_t){0};
  memcpy(id + 1, &a, sizeof(a));
  record('L', *id);
  *out_self = id;
  return graft_plugin_ok_status();
}

static void counter_unload(void* self) {
  graft_plugin_string_view_t* id = self;
  record('U', *id);
  graft_plugin_allocator_t a;
  memcpy(&a, id + 1, sizeof(a));
  graft_plugin_allocator_free(a, id);
}

static graft_plugin_status_t counter_resolve(
    void* self, const graft_plugin_resolve_params_v0_t* params,
    graft_plugin_resolution_t* out_resolution) {
  (void)self;
  (void)params;
  *out_resolution = GRAFT_PLUGIN_RESOLUTION_MISSING_OPTIONAL;
  return graft_plugin_status_from_code(GRAFT_PLUGIN_STATUS_NOT_FOUND);
}

static const graft_plugin_header_t** counter_query(
    graft_plugin_version_t max_version, void* reserved) {
  (void)max_version;
  (void)reserved;
  static const graft_plugin_header_t header = {
      .version = GRAFT_PLUGIN_VERSION_LATEST, .name = "counter"};
  static const graft_plugin_v0_t plugin = {&header, counter_load,
                                           counter_unload, counter_resolve};
  return (const graft_plugin_header_t**)&plugin;
}

static void unload_pairs_load_in_reverse_order(void) {
  g_events[0] = '\0';
  graft_plugin_manager_t* m = new_manager();
  graft_plugin_param_t one = {"id", "1"}, two = {"id", "2"};
  EXPECT_OK(graft_plugin_manager_register_query(m, "c1", counter_query, &one, 1));
  EXPECT_OK(graft_plugin_manager_register_query(m, "c2", counter_query, &two, 1));
  EXPECT_OK(add_tagger(m, "tag=1"));
  graft_module_t* module = NULL;
  EXPECT_OK(open_probe(m, 1, &module));
  /* The module holds the plugins: releasing the manager unloads nothing. */
  graft_plugin_manager_release(m);
  EXPECT_STR(g_events, "L1L2");
  static const float want[3] = {1, 1, -1};
  if (module) EXPECT_OK(run_probe(module, 3, 3, want));
  graft_module_close(module);
  EXPECT_STR(g_events, "L1L2U2U1");
}

/*===--- refusals ------------------------------------------------------------===*/

/* A query returning |header| in a v0 interface with |resolve| (or none). */
#define BAD_PLUGIN(fn, ...)                                                 \
  static const graft_plugin_header_t** fn(graft_plugin_version_t max,       \
                                          void* reserved) {                 \
    (void)max;                                                              \
    (void)reserved;                                                         \
    static const graft_plugin_header_t header = {__VA_ARGS__};              \
    static const graft_plugin_v0_t plugin = {&header, counter_load,         \
                                             counter_unload,                \
                                             counter_resolve};              \
    return (const graft_plugin_header_t**)&plugin;                          \
  }
BAD_PLUGIN(newer_query, .version = 2, .name = "newer")
BAD_PLUGIN(version0_query, .version = 0, .name = "zero")
BAD_PLUGIN(full_status_query, .version = 1, .name = "full",
           .features = GRAFT_PLUGIN_FEATURE_FULL_STATUS)
BAD_PLUGIN(msan_query, .version = 1, .name = "msan",
           .sanitizer = GRAFT_PLUGIN_SANITIZER_MEMORY)

static const graft_plugin_header_t** null_query(graft_plugin_version_t max,
                                                void* reserved) {
  (void)max;
  (void)reserved;
  return NULL;
}

static const graft_plugin_header_t** no_resolve_query(
    graft_plugin_version_t max, void* reserved) {
  (void)max;
  (void)reserved;
  static const graft_plugin_header_t header = {.version = 1, .name = "half"};
  static const graft_plugin_v0_t plugin = {&header, counter_load,
                                           counter_unload, NULL};
  return (const graft_plugin_header_t**)&plugin;
}

static void refused_plugins(void) {
  graft_plugin_manager_t* m = new_manager();
  EXPECT_ERROR(graft_plugin_manager_register_query(m, "p", newer_query, NULL, 0),
               "plugin 'p': 'newer' is built for plugin API version 2, newer "
               "than this runtime's 1");
  EXPECT_ERROR(graft_plugin_manager_register_query(m, "p", version0_query, NULL, 0),
               "plugin 'p': 'zero' declares plugin API version 0, which does "
               "not exist (expected 1)");
  EXPECT_ERROR(graft_plugin_manager_register_query(m, "p", full_status_query, NULL, 0),
               "plugin 'p': 'full' returns IREE's full status objects");
  EXPECT_ERROR(graft_plugin_manager_register_query(m, "p", msan_query, NULL, 0),
               "plugin 'p': 'msan' is built with MemorySanitizer but this "
               "runtime is ");
  EXPECT_ERROR(graft_plugin_manager_register_query(m, "p", null_query, NULL, 0),
               "plugin 'p': its iree_hal_executable_plugin_query returned null "
               "for plugin API version 1: the plugin needs a newer graft "
               "runtime");
  EXPECT_ERROR(graft_plugin_manager_register_query(m, "p", no_resolve_query, NULL, 0),
               "plugin 'p': 'half' has no resolve function in its interface");
  EXPECT_ERROR(add_tagger(m, "fail_load=9"),
               "plugin 'tagger_static': 'graft_test_tagger': load failed with "
               "FAILED_PRECONDITION (code 9)");
  EXPECT_ERROR(add_tagger(m, "colour=red"),
               "plugin 'tagger_static': 'graft_test_tagger': load failed with "
               "INVALID_ARGUMENT (code 3)");
  /* Nothing of the refused plugins stays registered. */
  EXPECT(graft_plugin_manager_count(m) == 0);
  graft_plugin_manager_release(m);
}

/*===--- files ---------------------------------------------------------------===*/

/* Writes a 64-byte ELF header for |machine| to a temporary file. */
static void write_elf_header(const char* path, uint16_t machine) {
  uint8_t header[64] = {0x7f, 'E', 'L', 'F', sizeof(void*) == 8 ? 2 : 1, 1, 1};
  header[16] = 3; /* e_type ET_DYN */
  header[18] = (uint8_t)machine;
  header[19] = (uint8_t)(machine >> 8);
  header[20] = 1;  /* e_version */
  header[52] = 64; /* e_ehsize */
  header[54] = 56; /* e_phentsize; e_phnum stays 0 */
  FILE* f = fopen(path, "wb");
  fwrite(header, 1, sizeof(header), f);
  fclose(f);
}

static void refused_files(void) {
  graft_plugin_manager_t* m = new_manager();
  EXPECT_ERROR(graft_plugin_manager_load_file(m, "/nonexistent/p.so", NULL, 0),
               "plugin: cannot open '/nonexistent/p.so'");
  char path[64];
  snprintf(path, sizeof(path), "/tmp/graft-plugin-test-%d.so", (int)getpid());
  FILE* f = fopen(path, "wb");
  fputs("not a library\n", f);
  fclose(f);
  char want[160];
  snprintf(want, sizeof(want),
           "plugin '%s': not an ELF shared library or a FatELF file", path);
  EXPECT_ERROR(graft_plugin_manager_load_file(m, path, NULL, 0), want);
  /* Another architecture's library: refused before the system loader. */
  uint16_t host = graft_elf_arch_host()->machine;
  uint16_t other = host == 62 ? 183 : 62; /* aarch64 or x86_64 */
  write_elf_header(path, other);
  snprintf(want, sizeof(want), "plugin '%s': the library is for %s", path,
           other == 62 ? "x86_64" : "aarch64");
  EXPECT_ERROR(graft_plugin_manager_load_file(m, path, NULL, 0), want);
  /* A .sos (or embedded:) file goes to graft's own loader. */
  snprintf(want, sizeof(want), "plugin '%s': ", path);
  write_elf_header(path, host);
#if GRAFT_SYSTEM_PLUGINS
  EXPECT_ERROR(graft_plugin_manager_load_file(m, path, NULL, 0),
               "the system loader cannot load it");
#else
  EXPECT_ERROR(graft_plugin_manager_load_file(m, path, NULL, 0),
               "this runtime is statically linked and cannot load system "
               "libraries; build the plugin bare-metal with `graft plugin`");
#endif
  char embedded[80];
  snprintf(embedded, sizeof(embedded), "embedded:%s", path);
  EXPECT_ERROR(graft_plugin_manager_load_file(m, embedded, NULL, 0),
               "program header");
  remove(path);
  EXPECT(graft_plugin_manager_count(m) == 0);
  graft_plugin_manager_release(m);
}

/* The tagger and a library without the query, as system libraries. */
static void system_plugins(void) {
  if (!g_tagger_so) return;
  graft_plugin_manager_t* m = new_manager();
  graft_plugin_param_t params[] = {{"tag", "6"}, {"provide", "a+b+c"}};
  EXPECT_OK(graft_plugin_manager_load_file(m, g_tagger_so, params, 2));
  graft_module_t* module = NULL;
  EXPECT_OK(open_probe(m, 4, &module));
  static const float want[3] = {6, 6, 6};
  if (module) EXPECT_OK(run_probe(module, 3000, 3000, want));
  graft_module_close(module);
  char want_error[512];
  snprintf(want_error, sizeof(want_error),
           "plugin '%s': the library does not export "
           "iree_hal_executable_plugin_query",
           g_noquery_so);
  EXPECT_ERROR(graft_plugin_manager_load_file(m, g_noquery_so, NULL, 0),
               want_error);
  /* Forced onto graft's loader, a system library is refused: it needs
   * libc. */
  char embedded[512];
  snprintf(embedded, sizeof(embedded), "embedded:%s", g_tagger_so);
  snprintf(want_error, sizeof(want_error), "plugin '%s': %s slice: slice ",
           g_tagger_so, graft_elf_arch_host()->name);
  EXPECT_ERROR(graft_plugin_manager_load_file(m, embedded, NULL, 0),
               want_error);
  graft_plugin_manager_release(m);
}

int main(int argc, char** argv) {
  if (argc == 3) {
    g_tagger_so = argv[1];
    g_noquery_so = argv[2];
  }
  TEST_CASE(required_import_without_plugins);
  TEST_CASE(required_import_nobody_provides);
  TEST_CASE(optional_imports_resolve_to_null);
  TEST_CASE(later_plugin_wins);
  TEST_CASE(reference_and_specialised_plugin);
  TEST_CASE(resolution_stops_when_complete);
  TEST_CASE(plugin_replacing_a_slot_is_refused);
  TEST_CASE(failing_import_names_plugin_symbol_and_value);
  TEST_CASE(imports_on_all_workers);
  TEST_CASE(unload_pairs_load_in_reverse_order);
  TEST_CASE(refused_plugins);
  TEST_CASE(refused_files);
  TEST_CASE(system_plugins);
  return graft_test_finish();
}
