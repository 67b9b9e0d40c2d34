/* A module's resolved imports (see import_table.h).
 *
 * Plugins see the names sorted by strcmp (the plugin API promises sorted
 * names) and fill slots in that order; the library's own order is kept by
 * a map from library index to sorted slot. The slots are the plugins'
 * storage for as long as the module lives. */
#include "exec/import_table.h"

#include <stdlib.h>
#include <string.h>

#include "loader/library_validate.h"
#include "plugin/plugin_manager.h"

/* One library import as a dispatch reaches it: the context handed to the
 * trampoline. */
typedef struct import_slot_t {
  void* const* fn;      /* the plugin's function, read on every call */
  void* const* context; /* the plugin's context for it */
  const char* symbol;   /* without '?' */
  const graft_plugin_t* provider;
} import_slot_t;

struct graft_import_table_s {
  uint32_t count;
  graft_import_fn_t* functions; /* trampoline or NULL, library order */
  void** contexts;              /* &slots[i], library order */
  import_slot_t* slots;
  /* Sorted by name: what the plugins filled. */
  const char** names;
  void** fn_ptrs;
  void** fn_contexts;
  const graft_plugin_t** providers;
  graft_plugin_manager_t* manager;
};

static _Thread_local graft_import_failure_t last_failure;
static _Thread_local int has_failure;

void graft_import_failure_reset(void) { has_failure = 0; }

int graft_import_failure_take(graft_import_failure_t* out) {
  if (!has_failure) return 0;
  *out = last_failure;
  has_failure = 0;
  return 1;
}

/* What every resolved import entry of the dispatch state points to. */
static int call_import(void* params, void* context, void* reserved) {
  const import_slot_t* slot = context;
  void* address = __atomic_load_n((void**)slot->fn, __ATOMIC_ACQUIRE);
  void* fn_context = __atomic_load_n((void**)slot->context, __ATOMIC_ACQUIRE);
  graft_import_fn_t fn;
  memcpy(&fn, &address, sizeof(fn));
  int code = fn(params, fn_context, reserved);
  if (code != 0) {
    last_failure.symbol = slot->symbol;
    last_failure.plugin_name = slot->provider->name;
    last_failure.plugin_origin = slot->provider->origin;
    last_failure.code = code;
    has_failure = 1;
  }
  return code;
}

static int is_optional(const char* name) {
  return name[0] == GRAFT_IMPORT_OPTIONAL_PREFIX;
}

/* A library with unresolved required imports is refused here, after
 * resolution (graft_library_check_imports lists every missing name); the
 * message also says which plugins were asked. */
static graft_status_t check_required(const graft_library_v1_t* library,
                                     const graft_import_table_t* table) {
  graft_status_t st = graft_library_check_imports(library, table->functions);
  if (!st) return NULL;
  char* searched = graft_plugin_manager_describe(table->manager);
  graft_status_t annotated = graft_status_make(
      graft_status_code(st), "%s (%s%s)", graft_status_message(st),
      searched ? "plugins searched: " : "no plugins registered",
      searched ? searched : "");
  free(searched);
  graft_status_free(st);
  return annotated;
}

/* Whether a step of |library| calls import |index| as a host command. */
static int is_host_command(const graft_library_v1_t* library, uint32_t index) {
  for (uint32_t f = 0; f < library->function_count; ++f) {
    const graft_function_v1_t* fn = &library->functions[f];
    for (uint32_t s = 0; s < fn->step_count; ++s)
      if (fn->steps[s].kind == GRAFT_STEP_HOST_CALL &&
          fn->steps[s].import == index)
        return 1;
  }
  return 0;
}

/* A host command runs a vendor library on the invoking thread, next to its
 * own threads and libc: a bare-metal plugin has neither, and providing
 * one refuses the module. */
static graft_status_t check_host_commands(const graft_library_v1_t* library,
                                          const graft_import_table_t* table) {
  for (uint32_t i = 0; i < table->count; ++i) {
    const import_slot_t* slot = &table->slots[i];
    if (!table->functions[i] || !slot->provider->bare_metal ||
        !is_host_command(library, i))
      continue;
    return graft_status_make(
        GRAFT_FAILED_PRECONDITION,
        "library '%s': import '%s' is a host command, but plugin '%s' ('%s') "
        "that provides it is bare-metal; host commands run on the calling "
        "thread and need a system plugin (a shared library)",
        library->name ? library->name : "", slot->symbol,
        slot->provider->origin, slot->provider->name);
  }
  return NULL;
}

/* A library import and its index, sorted by name. */
typedef struct named_import_t {
  const char* name;
  uint32_t index;
} named_import_t;

static int compare_names(const void* a, const void* b) {
  return strcmp(((const named_import_t*)a)->name,
                ((const named_import_t*)b)->name);
}

static graft_status_t allocate(graft_import_table_t* t, uint32_t count) {
  size_t n = count ? count : 1;
  t->functions = calloc(n, sizeof(*t->functions));
  t->contexts = calloc(n, sizeof(*t->contexts));
  t->slots = calloc(n, sizeof(*t->slots));
  t->names = calloc(n, sizeof(*t->names));
  t->fn_ptrs = calloc(n, sizeof(*t->fn_ptrs));
  t->fn_contexts = calloc(n, sizeof(*t->fn_contexts));
  t->providers = calloc(n, sizeof(*t->providers));
  if (!t->functions || !t->contexts || !t->slots || !t->names ||
      !t->fn_ptrs || !t->fn_contexts || !t->providers)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "out of memory resolving %u imports", count);
  return NULL;
}

graft_status_t graft_import_table_create(const graft_library_v1_t* library,
                                         graft_plugin_manager_t* manager,
                                         graft_import_table_t** out_table) {
  *out_table = NULL;
  graft_import_table_t* t = calloc(1, sizeof(*t));
  if (!t)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "out of memory resolving imports");
  t->count = library->import_count;
  graft_plugin_manager_retain(manager);
  t->manager = manager;
  named_import_t* order = calloc(t->count ? t->count : 1, sizeof(*order));
  graft_status_t st = order ? allocate(t, t->count)
                            : graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                                                "out of memory resolving "
                                                "imports");
  if (!st) {
    for (uint32_t i = 0; i < t->count; ++i)
      order[i] = (named_import_t){library->imports[i], i};
    qsort(order, t->count, sizeof(*order), compare_names);
    for (uint32_t k = 0; k < t->count; ++k) t->names[k] = order[k].name;
    graft_import_request_t request = {t->count, t->names, t->fn_ptrs,
                                      t->fn_contexts, t->providers};
    st = graft_plugin_manager_resolve(manager, &request);
  }
  for (uint32_t k = 0; !st && k < t->count; ++k) {
    uint32_t i = order[k].index;
    import_slot_t* slot = &t->slots[i];
    slot->fn = &t->fn_ptrs[k];
    slot->context = &t->fn_contexts[k];
    slot->symbol = order[k].name + is_optional(order[k].name);
    slot->provider = t->providers[k];
    t->functions[i] = t->fn_ptrs[k] ? call_import : NULL;
    t->contexts[i] = slot;
  }
  free(order);
  if (!st) st = check_required(library, t);
  if (!st) st = check_host_commands(library, t);
  if (st) {
    graft_import_table_free(t);
    return st;
  }
  *out_table = t;
  return NULL;
}

void graft_import_table_free(graft_import_table_t* table) {
  if (!table) return;
  free(table->functions);
  free(table->contexts);
  free(table->slots);
  free(table->names);
  free(table->fn_ptrs);
  free(table->fn_contexts);
  free(table->providers);
  graft_plugin_manager_release(table->manager);
  free(table);
}

uint32_t graft_import_table_count(const graft_import_table_t* table) {
  return table ? table->count : 0;
}

const graft_import_fn_t* graft_import_table_functions(
    const graft_import_table_t* table) {
  return table ? table->functions : NULL;
}

void* const* graft_import_table_contexts(const graft_import_table_t* table) {
  return table ? table->contexts : NULL;
}
