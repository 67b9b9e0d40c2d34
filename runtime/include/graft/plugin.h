/* graft's plugin API: what a plugin implements so that the runtime can load
 * it and resolve a bundle's imports from it (docs/plugins.md).
 *
 * The binary interface is IREE's executable plugin API, version 0.1, under
 * graft's names: the same structs, enum values, calling conventions and the
 * same exported query symbol, so one plugin binary loads in graft and in
 * IREE. <iree/hal/local/executable_plugin.h> maps IREE's names onto this
 * header, so IREE plugin sources compile unmodified; a plugin may use either
 * set of names.
 *
 * A plugin exports one function, GRAFT_PLUGIN_QUERY_FN. The runtime calls it
 * with the newest API version it supports and gets back a pointer to a
 * pointer to the plugin's header, which is the first member of the
 * version's interface struct (graft_plugin_v0_t for version 0.1):
 *
 *   query(max_version) -> load(environment, params) -> resolve()* -> unload()
 *
 * |load| runs once per registration and may allocate state (|out_self|);
 * |resolve| fills the import slots it can; |unload| is always paired with a
 * successful |load| and runs in reverse registration order when the last
 * module using the plugin is closed. Imports are called from every worker
 * thread at once: import functions must be thread-safe.
 *
 * Standalone: this header includes only graft/abi.h (itself pure C99 with
 * <stddef.h> and <stdint.h>) and <stdbool.h>, and nothing needs linking, so
 * bare-metal plugins without libc can use every helper below. */
#ifndef GRAFT_PLUGIN_H_
#define GRAFT_PLUGIN_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graft/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===
 * Versions, features, sanitizers
 *===----------------------------------------------------------------------===*/

/* A runtime loads plugins of its version or older, never newer ones. */
typedef uint32_t graft_plugin_version_t;
#define GRAFT_PLUGIN_VERSION_0_1 0x00000001u
#define GRAFT_PLUGIN_VERSION_LATEST GRAFT_PLUGIN_VERSION_0_1

/* What a plugin declares about itself (graft_plugin_header_t.features). */
typedef uint32_t graft_plugin_features_t;
enum graft_plugin_feature_bits_e {
  GRAFT_PLUGIN_FEATURE_NONE = 0u,
  /* Needs nothing but this API: no libc, syscalls, TLS or writable globals.
   * Such a plugin can be built bare-metal (`graft plugin`). */
  GRAFT_PLUGIN_FEATURE_STANDALONE = 1u << 0,
  /* Returns IREE's full iree_status_t objects instead of plain codes; graft
   * refuses such plugins (they need IREE's runtime). */
  GRAFT_PLUGIN_FEATURE_FULL_STATUS = 1u << 1,
};

/* The sanitizer a plugin was compiled with. A sanitized plugin only loads
 * into a runtime built with the same sanitizer. */
typedef enum graft_plugin_sanitizer_kind_e {
  GRAFT_PLUGIN_SANITIZER_NONE = 0,
  GRAFT_PLUGIN_SANITIZER_ADDRESS = 1,   /* -fsanitize=address */
  GRAFT_PLUGIN_SANITIZER_MEMORY = 2,    /* -fsanitize=memory */
  GRAFT_PLUGIN_SANITIZER_THREAD = 3,    /* -fsanitize=thread */
  GRAFT_PLUGIN_SANITIZER_UNDEFINED = 4, /* -fsanitize=undefined */
  GRAFT_PLUGIN_SANITIZER_MAX_ENUM_ = INT32_MAX, /* keeps the enum 32-bit */
} graft_plugin_sanitizer_kind_t;

/* The sanitizer of the translation unit being compiled, for the header's
 * |sanitizer| field (clang's __has_feature, gcc's __SANITIZE_*__). The
 * runtime uses the same macro to know what it was built with. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GRAFT_PLUGIN_SANITIZER_KIND GRAFT_PLUGIN_SANITIZER_ADDRESS
#elif __has_feature(memory_sanitizer)
#define GRAFT_PLUGIN_SANITIZER_KIND GRAFT_PLUGIN_SANITIZER_MEMORY
#elif __has_feature(thread_sanitizer)
#define GRAFT_PLUGIN_SANITIZER_KIND GRAFT_PLUGIN_SANITIZER_THREAD
#endif
#endif
#if !defined(GRAFT_PLUGIN_SANITIZER_KIND) && defined(__SANITIZE_ADDRESS__)
#define GRAFT_PLUGIN_SANITIZER_KIND GRAFT_PLUGIN_SANITIZER_ADDRESS
#endif
#if !defined(GRAFT_PLUGIN_SANITIZER_KIND) && defined(__SANITIZE_THREAD__)
#define GRAFT_PLUGIN_SANITIZER_KIND GRAFT_PLUGIN_SANITIZER_THREAD
#endif
#if !defined(GRAFT_PLUGIN_SANITIZER_KIND)
#define GRAFT_PLUGIN_SANITIZER_KIND GRAFT_PLUGIN_SANITIZER_NONE
#endif

/* First member of every version's interface struct. 96 bytes on LP64. */
typedef struct graft_plugin_header_t {
  graft_plugin_version_t version; /* usually GRAFT_PLUGIN_VERSION_LATEST */
  const char* name;        /* short identifier, used in messages */
  const char* description; /* free text (build flavour, version, ...) */
  graft_plugin_features_t features;
  graft_plugin_sanitizer_kind_t sanitizer; /* GRAFT_PLUGIN_SANITIZER_KIND */
  uint64_t reserved[8];    /* zero */
} graft_plugin_header_t;

/* The exported query function. Returns NULL when the plugin's oldest
 * interface is newer than |max_version|; otherwise a pointer to the first
 * member (the header pointer) of its interface struct. |reserved| is NULL.
 * Called once per load; should be pure. */
typedef const graft_plugin_header_t** (*graft_plugin_query_fn_t)(
    graft_plugin_version_t max_version, void* reserved);

/* The symbol every plugin exports: IREE's, so that graft and IREE runtimes
 * load the same files. Define it with GRAFT_PLUGIN_QUERY_FN:
 *   GRAFT_PLUGIN_EXPORT const graft_plugin_header_t**
 *   GRAFT_PLUGIN_QUERY_FN(graft_plugin_version_t max_version, void* r) {..} */
#define GRAFT_PLUGIN_QUERY_FN iree_hal_executable_plugin_query
#define GRAFT_PLUGIN_QUERY_SYMBOL "iree_hal_executable_plugin_query"

#if defined(_WIN32) || defined(__CYGWIN__)
#define GRAFT_PLUGIN_EXPORT __declspec(dllexport)
#else
#define GRAFT_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/*===----------------------------------------------------------------------===
 * Status: a code in a pointer-sized value (NULL = OK)
 *===----------------------------------------------------------------------===*/

/* Values of IREE's (and absl's) status codes. */
typedef enum graft_plugin_status_code_e {
  GRAFT_PLUGIN_STATUS_OK = 0,
  GRAFT_PLUGIN_STATUS_CANCELLED = 1,
  GRAFT_PLUGIN_STATUS_UNKNOWN = 2,
  GRAFT_PLUGIN_STATUS_INVALID_ARGUMENT = 3,
  GRAFT_PLUGIN_STATUS_DEADLINE_EXCEEDED = 4,
  GRAFT_PLUGIN_STATUS_NOT_FOUND = 5,
  GRAFT_PLUGIN_STATUS_ALREADY_EXISTS = 6,
  GRAFT_PLUGIN_STATUS_PERMISSION_DENIED = 7,
  GRAFT_PLUGIN_STATUS_RESOURCE_EXHAUSTED = 8,
  GRAFT_PLUGIN_STATUS_FAILED_PRECONDITION = 9,
  GRAFT_PLUGIN_STATUS_ABORTED = 10,
  GRAFT_PLUGIN_STATUS_OUT_OF_RANGE = 11,
  GRAFT_PLUGIN_STATUS_UNIMPLEMENTED = 12,
  GRAFT_PLUGIN_STATUS_INTERNAL = 13,
  GRAFT_PLUGIN_STATUS_UNAVAILABLE = 14,
  GRAFT_PLUGIN_STATUS_DATA_LOSS = 15,
  GRAFT_PLUGIN_STATUS_UNAUTHENTICATED = 16,
  GRAFT_PLUGIN_STATUS_DEFERRED = 17,
  /* Any value in the mask is a valid code, named or not. */
  GRAFT_PLUGIN_STATUS_CODE_MASK = 0x1F,
} graft_plugin_status_code_t;

typedef struct graft_plugin_status_s* graft_plugin_status_t;

static inline graft_plugin_status_t graft_plugin_status_from_code(
    graft_plugin_status_code_t code) {
  return (graft_plugin_status_t)(uintptr_t)((uint32_t)code &
                                            GRAFT_PLUGIN_STATUS_CODE_MASK);
}
static inline graft_plugin_status_code_t graft_plugin_status_code(
    graft_plugin_status_t status) {
  return (graft_plugin_status_code_t)((uintptr_t)status &
                                      GRAFT_PLUGIN_STATUS_CODE_MASK);
}
static inline graft_plugin_status_t graft_plugin_ok_status(void) {
  return graft_plugin_status_from_code(GRAFT_PLUGIN_STATUS_OK);
}
static inline bool graft_plugin_status_is_ok(graft_plugin_status_t status) {
  return (uintptr_t)status == GRAFT_PLUGIN_STATUS_OK;
}

/*===----------------------------------------------------------------------===
 * The host allocator (layout-compatible with iree_allocator_t)
 *===----------------------------------------------------------------------===*/

typedef enum graft_plugin_allocator_command_e {
  GRAFT_PLUGIN_ALLOCATOR_COMMAND_MALLOC = 0,
  GRAFT_PLUGIN_ALLOCATOR_COMMAND_CALLOC = 1, /* zero-filled */
  GRAFT_PLUGIN_ALLOCATOR_COMMAND_REALLOC = 2,
  GRAFT_PLUGIN_ALLOCATOR_COMMAND_FREE = 3,
} graft_plugin_allocator_command_t;

/* |params| of MALLOC, CALLOC and REALLOC. */
typedef struct graft_plugin_allocator_alloc_params_t {
  size_t byte_length;
} graft_plugin_allocator_alloc_params_t;

/* |inout_ptr|: receives the new block (MALLOC, CALLOC), holds the old and
 * receives the new one (REALLOC), holds the block to free (FREE). */
typedef graft_plugin_status_t (*graft_plugin_allocator_ctl_fn_t)(
    void* self, graft_plugin_allocator_command_t command, const void* params,
    void** inout_ptr);

typedef struct graft_plugin_allocator_t {
  void* self;
  graft_plugin_allocator_ctl_fn_t ctl;
} graft_plugin_allocator_t;

static inline graft_plugin_status_t graft_plugin_allocator_malloc(
    graft_plugin_allocator_t allocator, size_t byte_length, void** inout_ptr) {
  graft_plugin_allocator_alloc_params_t params = {byte_length};
  return allocator.ctl(allocator.self, GRAFT_PLUGIN_ALLOCATOR_COMMAND_MALLOC,
                       &params, inout_ptr);
}
static inline graft_plugin_status_t graft_plugin_allocator_free(
    graft_plugin_allocator_t allocator, void* ptr) {
  return allocator.ctl(allocator.self, GRAFT_PLUGIN_ALLOCATOR_COMMAND_FREE,
                       NULL, &ptr);
}

/*===----------------------------------------------------------------------===
 * Strings: load parameters are (key, value) views, not NUL-terminated
 *===----------------------------------------------------------------------===*/

typedef struct graft_plugin_string_view_t {
  const char* data;
  size_t size;
} graft_plugin_string_view_t;

typedef struct graft_plugin_string_pair_t {
  union {
    graft_plugin_string_view_t first;
    graft_plugin_string_view_t key;
  };
  union {
    graft_plugin_string_view_t second;
    graft_plugin_string_view_t value;
  };
} graft_plugin_string_pair_t;

/* True when |view| holds exactly the characters of |text|. */
static inline bool graft_plugin_string_view_equal(
    graft_plugin_string_view_t view, const char* text) {
  size_t i = 0;
  for (; i < view.size; ++i)
    if (text[i] == '\0' || text[i] != view.data[i]) return false;
  return text[i] == '\0';
}

/*===----------------------------------------------------------------------===
 * Import resolution
 *===----------------------------------------------------------------------===*/

/* Bits of |out_resolution|. */
typedef uint32_t graft_plugin_resolution_t;
enum graft_plugin_resolution_bits_e {
  /* One or more optional imports this plugin does not provide. */
  GRAFT_PLUGIN_RESOLUTION_MISSING_OPTIONAL = 1u << 0,
};

/* "?name" imports are optional (GRAFT_IMPORT_OPTIONAL_PREFIX, abi.h). */
static inline bool graft_plugin_import_is_optional(const char* symbol_name) {
  return symbol_name && symbol_name[0] == GRAFT_IMPORT_OPTIONAL_PREFIX;
}

/* strcmp for plugins without libc. */
static inline int graft_plugin_strcmp(const char* lhs, const char* rhs) {
  while (*lhs && *lhs == *rhs) {
    ++lhs;
    ++rhs;
  }
  return (int)(unsigned char)*lhs - (int)(unsigned char)*rhs;
}

/*===----------------------------------------------------------------------===
 * Version 0.1
 *===----------------------------------------------------------------------===*/

/* Given to |load|; valid until |unload|. */
typedef struct graft_plugin_environment_v0_t {
  /* For all of the plugin's allocations (standalone plugins have no
   * other). */
  graft_plugin_allocator_t host_allocator;
} graft_plugin_environment_v0_t;

/* |count| imports by name, sorted by strcmp ("?name" for optional ones),
 * and the runtime's storage for them. Slots already filled (by a plugin
 * registered later) must be left alone. Each import is called as
 * fn(params, context, reserved) with |context| = its out_fn_contexts entry
 * (graft_import_fn_t, abi.h). The slots stay the runtime's storage while
 * the module lives: a plugin may later swap its own entries atomically
 * (a JIT replacing a stub); the runtime reads them with acquire loads. */
typedef struct graft_plugin_resolve_params_v0_t {
  size_t count;
  const char* const* symbol_names;
  void** out_fn_ptrs;
  void** out_fn_contexts;
} graft_plugin_resolve_params_v0_t;

/* Fills what the plugin provides. Returns OK when every required import it
 * was asked for is now filled (setting MISSING_OPTIONAL when it lacks an
 * optional one), NOT_FOUND when a required one is still missing (the
 * runtime then asks the plugins registered before it), anything else to
 * fail the module open. */
typedef graft_plugin_status_t (*graft_plugin_resolve_fn_v0_t)(
    void* self, const graft_plugin_resolve_params_v0_t* params,
    graft_plugin_resolution_t* out_resolution);

/* The interface of version 0.1; may live in read-only data. |load|,
 * |resolve| and the imports must be thread-safe: several instances of one
 * plugin may be loaded at once, and imports run on every worker. */
typedef struct graft_plugin_v0_t {
  const graft_plugin_header_t* header;
  /* |params| are valid only during the call: copy what must be kept. Any
   * state goes into |*out_self| (may stay NULL), handed to the calls
   * below. */
  graft_plugin_status_t (*load)(
      const graft_plugin_environment_v0_t* environment, size_t param_count,
      const graft_plugin_string_pair_t* params, void** out_self);
  /* Frees everything |load| allocated; the runtime may unmap the plugin
   * right after. */
  void (*unload)(void* self);
  graft_plugin_resolve_fn_v0_t resolve;
} graft_plugin_v0_t;

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_PLUGIN_H_ */
