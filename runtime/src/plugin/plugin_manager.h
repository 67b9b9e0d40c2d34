/* The plugin manager's side of import resolution, used by the import table
 * (import_table.c). The public half is in graft/runtime.h. Internal to
 * runtime/src/plugin. */
#ifndef GRAFT_RUNTIME_PLUGIN_PLUGIN_MANAGER_H_
#define GRAFT_RUNTIME_PLUGIN_PLUGIN_MANAGER_H_

#include <stddef.h>

#include "graft/runtime.h"
#include "graft/status.h"
#include "plugin/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Imports to resolve: |count| names sorted by strcmp ("?name" = optional)
 * and the slots the plugins fill, all |count| long and owned by the caller.
 * Empty slots are NULL; |providers| receives the plugin that filled each. */
typedef struct graft_import_request_t {
  size_t count;
  const char* const* names;
  void** fn_ptrs;
  void** fn_contexts;
  const graft_plugin_t** providers;
} graft_import_request_t;

/* Asks the plugins of |manager| (may be NULL: nothing to ask) in reverse
 * registration order until every slot is filled or none is left. Missing
 * imports are not an error here (the caller decides which are required);
 * a plugin failing, or replacing a slot another plugin filled, is. */
graft_status_t graft_plugin_manager_resolve(graft_plugin_manager_t* manager,
                                            graft_import_request_t* request);

/* "'name' (origin), ..." for every registered plugin, malloc'd (free());
 * NULL when there are none. */
char* graft_plugin_manager_describe(graft_plugin_manager_t* manager);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_PLUGIN_PLUGIN_MANAGER_H_ */
