/* Choosing the ISA variant of a loaded slice that runs on this CPU.
 * Internal to runtime/src/loader. */
#ifndef GRAFT_RUNTIME_LOADER_VARIANT_H_
#define GRAFT_RUNTIME_LOADER_VARIANT_H_

#include "graft/abi.h"
#include "graft/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Picks the variant of |lib| (validated) to run: the one whose level is
 * |requested| (NULL or "" = none), else the highest level whose CPU
 * features graft_cpu_data() reports. Fills |out_view| with |lib| whose
 * dispatch and function tables are that variant's, and |out_level| with
 * its level name ("" for a slice without variants). Errors: an unknown
 * level (the message lists the slice's levels), a level the CPU cannot run
 * (it names the missing features), no variant the CPU can run. */
graft_status_t graft_library_select_variant(const graft_library_v1_t* lib,
                                            const char* requested,
                                            graft_library_v1_t* out_view,
                                            const char** out_level);

/* |lib| as the executor sees it when |variant| runs: a copy whose dispatch
 * and function tables are the variant's. */
void graft_library_variant_view(const graft_library_v1_t* lib,
                                const graft_variant_v1_t* variant,
                                graft_library_v1_t* out_view);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_LOADER_VARIANT_H_ */
