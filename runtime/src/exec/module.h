/* A module: a validated library plus the pool and trace settings that run
 * it. This header lets tests (and api.c) build a module around any
 * graft_library_v1_t, e.g. one written by hand in C, without the loader.
 * Internal to graft_runtime. */
#ifndef GRAFT_RUNTIME_MODULE_H_
#define GRAFT_RUNTIME_MODULE_H_

#include <stdint.h>

#include "graft/abi.h"
#include "graft/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Wraps |library| (borrowed; must stay valid until close), which must have
 * passed graft_library_validate: the executor trusts it. On success the
 * module owns |release_arg| and calls release(release_arg) when closed; on
 * failure the caller still owns it. |release| may be NULL. */
graft_status_t graft_module_create_from_library(
    const graft_library_v1_t* library, const graft_runtime_options_t* options,
    void (*release)(void* arg), void* release_arg,
    graft_module_t** out_module);

/* Records the level of the ISA variant |module|'s library is (the loader
 * chose it); |level| must live as long as the module. Default "". */
void graft_module_set_isa(graft_module_t* module, const char* level);

/* Records the CPU feature words (graft_cpu_data) every dispatch of |module|
 * receives as graft_dispatch_state_v1_t.processor_data. Default: zeros. */
void graft_module_set_processor_data(
    graft_module_t* module,
    const uint64_t words[GRAFT_PROCESSOR_DATA_WORD_COUNT]);

/* Marks |module|'s library as built with --sanitize=undefined: its slice
 * starts at |base| and is called |slice_name| ("x86_64", must live as long
 * as the module) in messages; the caller has installed graft_ubsan_report
 * in it (exec/ubsan.h). Default: not instrumented. */
void graft_module_set_ubsan(graft_module_t* module, uintptr_t base,
                            const char* slice_name);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_MODULE_H_ */
