/* Validation of a library header returned by a slice's query function: after
 * it succeeds, the executor may follow every pointer and index without
 * further checks. Internal to runtime/src/loader. */
#ifndef GRAFT_RUNTIME_LOADER_LIBRARY_VALIDATE_H_
#define GRAFT_RUNTIME_LOADER_LIBRARY_VALIDATE_H_

#include "elf_image.h"
#include "graft/abi.h"
#include "graft/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Upper bound on every count in the header (functions, exprs, steps, ...). */
#define GRAFT_LIBRARY_MAX_COUNT (1u << 20)

/* Checks |header| (as returned by the query function of |image|): magic,
 * ABI version, and that every pointer reachable from it lies inside |image|
 * with its full length, strings are terminated inside the image, counts are
 * bounded and every index refers to something that exists. */
graft_status_t graft_library_validate(const graft_elf_image_t* image,
                                      const graft_library_v1_t* header);

/* Every required import of |lib| (a name without the '?' prefix) must have
 * a non-NULL function in |resolved| (lib->import_count entries, or NULL
 * when nothing was resolved) before a module opens; optional imports may
 * stay NULL. The error lists every missing name. Import resolution
 * (plugins) plugs in here: resolve, then check the table the dispatches
 * will see. |lib| must have passed graft_library_validate. */
graft_status_t graft_library_check_imports(const graft_library_v1_t* lib,
                                           const graft_import_fn_t* resolved);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_LOADER_LIBRARY_VALIDATE_H_ */
