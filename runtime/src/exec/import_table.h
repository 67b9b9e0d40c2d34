/* A module's resolved imports: what every dispatch receives as
 * graft_dispatch_state_v1_t.imports / import_contexts (abi.h), and how a
 * failing import is reported. Internal to graft_runtime.
 *
 * Creating the table is where a library's imports are resolved (by the
 * plugin manager, in reverse registration order) and where a library whose
 * required imports nobody provides is refused, every missing name listed:
 * a dispatch never runs with an unresolved required import.
 *
 * Each resolved import reaches the dispatch through a small trampoline (the
 * function) and its slot (the context). The trampoline reads the plugin's
 * current function and context from the slot (so a plugin may swap its own
 * entries, as IREE's API allows), calls it, and when it returns non-zero
 * records on the calling thread which import of which plugin failed with
 * which value, so the invocation can say so. A missing optional import is a
 * NULL function, as abi.h promises. */
#ifndef GRAFT_RUNTIME_EXEC_IMPORT_TABLE_H_
#define GRAFT_RUNTIME_EXEC_IMPORT_TABLE_H_

#include <stdint.h>

#include "graft/abi.h"
#include "graft/runtime.h"
#include "graft/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct graft_import_table_s graft_import_table_t;

/* Resolves the imports of |library| (validated) with |manager| (NULL: no
 * plugins). On success the table holds a reference to |manager| until
 * freed; |library| must outlive it. */
graft_status_t graft_import_table_create(const graft_library_v1_t* library,
                                         graft_plugin_manager_t* manager,
                                         graft_import_table_t** out_table);
void graft_import_table_free(graft_import_table_t* table);

/* The arrays for the dispatch state, in the library's import order. */
uint32_t graft_import_table_count(const graft_import_table_t* table);
const graft_import_fn_t* graft_import_table_functions(
    const graft_import_table_t* table);
void* const* graft_import_table_contexts(const graft_import_table_t* table);

/* An import that returned non-zero on this thread. The strings live as long
 * as the table. */
typedef struct graft_import_failure_t {
  const char* symbol;        /* without the '?' */
  const char* plugin_name;   /* the plugin header's name */
  const char* plugin_origin; /* its file */
  int code;
} graft_import_failure_t;

/* Forgets this thread's last import failure (before running a workgroup). */
void graft_import_failure_reset(void);
/* Moves this thread's last import failure into |out|; 0 when there was
 * none since the reset. */
int graft_import_failure_take(graft_import_failure_t* out);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_EXEC_IMPORT_TABLE_H_ */
