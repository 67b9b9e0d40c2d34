/* graft's public C API: open a bundle, list its functions, invoke them.
 *
 *   graft_runtime_options_t options;
 *   graft_runtime_options_initialize(&options);
 *   graft_module_t* module = NULL;
 *   graft_status_t status = graft_module_open_file("mlp.graft", &options,
 *                                                  &module);
 *   uint32_t mlp;
 *   if (!status) status = graft_module_function_lookup(module, "mlp", &mlp);
 *   graft_tensor_t inputs[2] = ..., outputs[1] = {0};
 *   if (!status) status = graft_module_function_invoke(module, mlp, inputs, 2,
 *                                                      outputs, 1);
 *   ... graft_tensor_release(&outputs[0]); graft_module_close(module);
 *
 * Every function returning graft_status_t returns NULL on success; a non-NULL
 * status is owned by the caller (graft_status_free). A module may be invoked
 * from several threads at once; dispatches of concurrent invocations share
 * the module's thread pool and take turns on it. A kernel or import must not
 * invoke a function of the module whose dispatch is running it: that call
 * would wait for the pool it is running on, for ever. */
#ifndef GRAFT_RUNTIME_H_
#define GRAFT_RUNTIME_H_

#include <stddef.h>
#include <stdint.h>

#include "graft/abi.h"
#include "graft/plugin.h"
#include "graft/status.h"
#include "graft/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of graft and of its C API (CMakeLists.txt takes the project
 * version from this line): the minor number grows when a public struct or
 * function is added or grows (0.2.0: graft_trace_event_t's start_ns and
 * profile fields, GRAFT_RUNTIME_FLAG_PROFILE, graft/profile.h). */
#define GRAFT_RUNTIME_VERSION "0.2.0"

/* Profiles (GRAFT_RUNTIME_FLAG_PROFILE): where a dispatch's wall time went,
 * per thread of the module's pool. Every time is in nanoseconds after the
 * dispatch's graft_trace_event_t.start_ns. */

/* One chunk of consecutive workgroups that one thread took from the
 * dispatch's grid and ran: the pool hands workgroups out in chunks, and a
 * profile reads the clock per chunk, never per workgroup. */
typedef struct graft_profile_chunk_t {
  uint64_t begin_ns;
  uint64_t end_ns;
  uint64_t first_workgroup; /* flat index x + X * (y + Y * z) */
  uint64_t workgroup_count; /* workgroups run, from first_workgroup on */
  uint32_t thread;          /* 0 = the invoking thread, else a pool worker */
  uint32_t reserved;        /* 0 */
} graft_profile_chunk_t;

/* One thread of the pool in one dispatch. A worker joins while the
 * dispatch is open, until the invoking thread runs out of work: one that
 * joined after the last chunk was handed out took none (joined = 1,
 * chunks = 0); one that woke up after the dispatch closed did not join
 * (joined = 0, times 0). */
typedef struct graft_profile_thread_t {
  /* When it joined the dispatch. For the invoking thread (thread 0) this
   * is when the dispatch was published to the pool (what came before is
   * the pool's setup: its lock, scratch); a worker's joined_ns minus
   * thread 0's is its wake-up latency. */
  uint64_t joined_ns;
  uint64_t left_ns;    /* when it found no workgroup left and left */
  uint64_t busy_ns;    /* its chunks' time added up */
  uint64_t workgroups; /* workgroups it ran */
  uint32_t chunks;     /* chunks it took */
  uint32_t joined;     /* 1 if it took part, 0 if not */
} graft_profile_thread_t;

/* One finished dispatch, reported to the trace callback. All strings and
 * arrays are owned by the module and valid only during the callback. */
typedef struct graft_trace_event_t {
  const char* function;        /* function being invoked */
  const char* dispatch;        /* dispatch name, e.g. "mlp_dispatch_0" */
  const char* source;          /* "file:line:col" or "" */
  uint32_t dispatch_ordinal;   /* index in the library's dispatch table */
  uint32_t workgroup_count[3];
  uint64_t duration_ns;        /* wall time of all workgroups */
  /* Since 0.2.0. When the dispatch began (CLOCK_MONOTONIC, ns); it ended
   * at start_ns + duration_ns. */
  uint64_t start_ns;
  /* With GRAFT_RUNTIME_FLAG_PROFILE, else 0 and NULL: threads[i] for each
   * thread i of the pool (a host command runs on the invoking thread
   * alone: thread_count 1), and every chunk run, by first_workgroup. */
  uint32_t thread_count;
  uint32_t chunk_count;
  const graft_profile_thread_t* threads;
  const graft_profile_chunk_t* chunks;
} graft_trace_event_t;

/* Called on the invoking thread after each dispatch. */
typedef void (*graft_trace_fn_t)(const graft_trace_event_t* event,
                                 void* user_data);

/*===--- plugins (docs/plugins.md) ----------------------------------------===
 *
 * A bundle may import functions that plugins provide at load time. Plugins
 * are registered on a plugin manager, which is handed to every module opened
 * with it (graft_runtime_options_t.plugins). Opening a module resolves its
 * imports: the plugins are asked in reverse registration order (the last
 * one registered first), the search stops as soon as every import is filled,
 * and the open fails, naming every missing one, when a required import is
 * left unresolved; optional imports ("?name") may stay NULL.
 *
 * Ownership: the manager is reference counted. create returns one
 * reference; every module opened with the manager holds another until it is
 * closed. Plugins are loaded when registered and unloaded (in reverse
 * registration order, each `unload` paired with its `load`) when the last
 * reference goes. Registering after a module was opened does not change
 * that module's imports. All functions are thread-safe. */
typedef struct graft_plugin_manager_s graft_plugin_manager_t;

/* A parameter handed to a plugin's load function, e.g. {"threshold", "4"}.
 * Copied during the call. */
typedef struct graft_plugin_param_t {
  const char* key;
  const char* value;
} graft_plugin_param_t;

graft_status_t graft_plugin_manager_create(graft_plugin_manager_t** out_manager);
void graft_plugin_manager_retain(graft_plugin_manager_t* manager);
/* Drops a reference; NULL is ignored. */
void graft_plugin_manager_release(graft_plugin_manager_t* manager);

/* Loads the plugin at |path| and registers it. Which loader is used:
 *   - graft's own ELF loader (bare-metal plugins, no libc; see `graft
 *     plugin`) for a FatELF file (the slice for this CPU is picked), a path
 *     ending in ".sos", or a path written "embedded:PATH";
 *   - the system's dynamic loader (dlopen) otherwise, or for "system:PATH".
 * A plugin for another architecture, without the query symbol, of a newer
 * plugin API version, or whose load fails is refused with a message naming
 * |path|. */
graft_status_t graft_plugin_manager_load_file(
    graft_plugin_manager_t* manager, const char* path,
    const graft_plugin_param_t* params, size_t param_count);
/* The same for a bare-metal plugin (FatELF or ELF) in memory; |data| is not
 * retained. |name| stands for the file in messages. */
graft_status_t graft_plugin_manager_load_memory(
    graft_plugin_manager_t* manager, const char* name, const void* data,
    size_t size, const graft_plugin_param_t* params, size_t param_count);
/* Registers a plugin linked into the program: |query| is its query
 * function (any name). |name| stands for the plugin in messages. */
graft_status_t graft_plugin_manager_register_query(
    graft_plugin_manager_t* manager, const char* name,
    graft_plugin_query_fn_t query, const graft_plugin_param_t* params,
    size_t param_count);
/* Plugins registered so far. */
size_t graft_plugin_manager_count(const graft_plugin_manager_t* manager);

/* Print one line per dispatch to stderr (when no callback is given):
 * "[trace] mlp: mlp_dispatch_0 (mlp.graph:7:9) grid 2x1x1 0.012 ms". */
#define GRAFT_RUNTIME_FLAG_TRACE_STDERR 1u

/* Record a profile of every dispatch for the trace callback
 * (graft_trace_event_t.threads and .chunks): two clock reads per chunk of
 * workgroups a thread takes, into storage allocated once per invocation.
 * Results are the same with or without it. Without the flag no clock is
 * read in the workgroup loop. Needs a trace callback (or TRACE_STDERR);
 * graft/profile.h collects events into a summary table and a Chrome
 * trace-event file. */
#define GRAFT_RUNTIME_FLAG_PROFILE 2u

/* Leave the worker threads unpinned. By default a module whose pool has as
 * many threads as the CPUs the process may use (threads = 0, or that
 * number) pins each worker thread to one of those CPUs, leaving the one the
 * opening thread runs on to it (Linux; elsewhere nothing is pinned): the
 * scheduler then neither moves a worker away from the caches that hold its
 * last workgroups' data nor stacks two workers on one CPU while another
 * idles. A pool of any other size is never pinned. Results are the same
 * either way. */
#define GRAFT_RUNTIME_FLAG_UNPINNED 4u

/* Guarded buffers, a debugging mode (graft-run --guard): every buffer of an
 * invocation gets its own mapping against an inaccessible guard page, so a
 * kernel that runs past the end (OVERFLOW) or before the start (UNDERFLOW)
 * of a buffer faults at once; arguments and constants are read-only while
 * dispatches run. A fault prints the dispatch, workgroup and buffer to
 * stderr and the process then ends with SIGSEGV as it would without graft;
 * a small overrun into the alignment padding is found after the dispatch
 * and fails the invocation instead. Slow: every buffer is mapped and
 * copied. Limits are listed in docs/threat-model.md. */
typedef enum graft_runtime_guard_e {
  GRAFT_RUNTIME_GUARD_NONE = 0,
  GRAFT_RUNTIME_GUARD_OVERFLOW = 1,
  GRAFT_RUNTIME_GUARD_UNDERFLOW = 2,
  GRAFT_RUNTIME_GUARD_COUNT_ = 3,
} graft_runtime_guard_t;

/* An invocation still running at its deadline (see timeout_ms below). The
 * strings are owned by the module. */
typedef struct graft_timeout_event_t {
  const char* function;
  const char* dispatch; /* the dispatch running at the deadline, or "" */
  const char* source;   /* its "file:line:col", or "" */
  uint32_t timeout_ms;
  /* The invocation's error message: "function 'f' ran past its deadline of
   * 100 ms in dispatch 'f_dispatch_0' (f.graph:2:8)". */
  const char* message;
} graft_timeout_event_t;

/* Called once, from the watchdog's own thread, when an invocation reaches
 * its deadline; it should return promptly or end the process. */
typedef void (*graft_timeout_fn_t)(const graft_timeout_event_t* event,
                                   void* user_data);

typedef struct graft_runtime_options_t {
  uint32_t threads;      /* workers incl. the caller; 0 = the CPUs the
                          * process may use: its affinity mask, at most
                          * its cgroup's CPU quota */
  uint32_t flags;        /* GRAFT_RUNTIME_FLAG_* */
  graft_trace_fn_t trace; /* optional; NULL = no callback */
  void* trace_user_data;
  uint32_t guard;        /* graft_runtime_guard_t */
  /* A deadline for every invocation, in milliseconds from its start; 0 =
   * none. At the deadline a watchdog thread stops the running dispatch from
   * starting further workgroups, calls |on_timeout| (if set) and the
   * invocation fails with GRAFT_DEADLINE_EXCEEDED naming the dispatch
   * ("function 'f' ran past its deadline of 100 ms in dispatch 'f_dispatch_0'
   * (f.graph:2:8)") once its running workgroups return. A workgroup stuck
   * in a kernel cannot be reclaimed: the invocation then never returns and
   * |on_timeout| is the only way out (graft-run's ends the process). */
  uint32_t timeout_ms;
  graft_timeout_fn_t on_timeout;
  void* timeout_user_data;
  /* Resolves the module's imports; NULL = no plugins. Borrowed: the module
   * takes its own reference. */
  graft_plugin_manager_t* plugins;
  /* The ISA variant to run, by feature level name ("x86-64-v3"; `graft
   * targets` lists them); NULL = the GRAFT_ISA environment variable if it
   * is set and not empty, else the highest level the CPU supports. A level
   * the slice does not have fails with the levels it has; one the CPU
   * lacks features for fails naming them. Borrowed for the open call. */
  const char* isa;
} graft_runtime_options_t;

/* Fills |out_options| with the defaults (all CPUs, no tracing). */
void graft_runtime_options_initialize(graft_runtime_options_t* out_options);

/* A loaded bundle slice plus the thread pool that runs it. */
typedef struct graft_module_s graft_module_t;

/* The largest bundle file graft_module_open_file reads (4 GiB); a slice's
 * image is at most 1 GiB. */
#define GRAFT_MAX_BUNDLE_FILE_SIZE (4ull << 30)

/* Reads the bundle at |path| (FatELF or plain ELF), loads the slice for this
 * CPU and starts the pool. |options| may be NULL for the defaults. The caller
 * owns *out_module (graft_module_close). A missing file fails with
 * "cannot open 'x.graft': No such file or directory". Only a regular file of
 * at most GRAFT_MAX_BUNDLE_FILE_SIZE bytes is read (not a FIFO or device:
 * "cannot read '/dev/zero': it is a character device; ..."). */
graft_status_t graft_module_open_file(const char* path,
                                      const graft_runtime_options_t* options,
                                      graft_module_t** out_module);
/* Same from memory; |data| is not retained and may be freed on return. */
graft_status_t graft_module_open_memory(const void* data, size_t size,
                                        const graft_runtime_options_t* options,
                                        graft_module_t** out_module);
/* Unloads the module. No invocation may be running. NULL is ignored. */
void graft_module_close(graft_module_t* module);

/* Module name from the library header; owned by the module. */
const char* graft_module_name(const graft_module_t* module);
/* The feature level of the ISA variant the module runs ("x86-64-v4"), or ""
 * for a library without variants; owned by the module. */
const char* graft_module_isa(const graft_module_t* module);
/* Worker threads of the module's pool (the invoking thread included). */
uint32_t graft_module_thread_count(const graft_module_t* module);
/* How many of them are pinned to a CPU of their own: thread_count - 1
 * where the pool has a thread per CPU the process may use (the invoking
 * thread is never pinned), else 0 (GRAFT_RUNTIME_FLAG_UNPINNED). */
uint32_t graft_module_pinned_workers(const graft_module_t* module);

/* A function's name and signature. Everything points into the module and
 * stays valid until graft_module_close. */
typedef struct graft_function_info_t {
  const char* name;
  uint32_t arg_count;
  uint32_t result_count;
  const graft_value_type_v1_t* args;    /* |arg_count| entries */
  const graft_value_type_v1_t* results; /* |result_count| entries */
} graft_function_info_t;

uint32_t graft_module_function_count(const graft_module_t* module);
/* Fills |out_info| for function |ordinal| (< graft_module_function_count). */
graft_status_t graft_module_function_info(const graft_module_t* module,
                                          uint32_t ordinal,
                                          graft_function_info_t* out_info);
/* Finds a function by name; NOT_FOUND lists the available names. */
graft_status_t graft_module_function_lookup(const graft_module_t* module,
                                            const char* name,
                                            uint32_t* out_ordinal);
/* "mlp(tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>" in a malloc'd
 * string owned by the caller (free()). Several results print as "-> (a, b)",
 * none as "-> ()". */
graft_status_t graft_module_function_format_signature(
    const graft_module_t* module, uint32_t ordinal, char** out_text);
/* Formats one value type: "tensor<?x4xf32>", or "f32" for a scalar, into
 * |buffer| (always NUL-terminated). Returns the length it needed. */
size_t graft_value_type_format(const graft_value_type_v1_t* type, char* buffer,
                               size_t capacity);

/* Runs function |ordinal| on |inputs| (borrowed, read-only; a scalar argument
 * is a rank-0 tensor). For each output: if outputs[i].data is NULL the
 * runtime allocates the result per call (zeroed, as graft_tensor_allocate
 * does; large results are fresh huge-page mappings) and the caller owns it
 * (graft_tensor_release); otherwise outputs[i].data/.size is caller storage that must be exactly the
 * result's size and receives the result (dtype, rank and dims are filled in,
 * .owned is left unchanged): written there directly by the dispatches when
 * it is 64-byte aligned (graft_tensor_allocate's storage is) and overlaps
 * no input nor another output, else computed aside and copied in. On failure runtime-allocated outputs are
 * released and caller storage holds unspecified bytes. Thread-safe.
 * For a bundle built with `graft build --sanitize=undefined`, a UBSan check
 * that fires in a C kernel fails the call with GRAFT_ABORTED naming the
 * check, its offset in the slice, the dispatch and the workgroup
 * (docs/threat-model.md). */
graft_status_t graft_module_function_invoke(graft_module_t* module,
                                            uint32_t ordinal,
                                            const graft_tensor_t* inputs,
                                            size_t input_count,
                                            graft_tensor_t* outputs,
                                            size_t output_count);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_H_ */
