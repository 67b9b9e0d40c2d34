/* IREE's executable plugin API (version 0.1) for plugins served by graft.
 *
 * Plugin sources written for IREE include this header by the same path and
 * compile unmodified: every type, value, macro and helper of IREE's header
 * has its IREE name here. The definitions are graft's (graft/plugin.h); this
 * file only maps the names, so the layouts exist in one place and a plugin
 * built against either header is the same binary. graft does not support
 * FULL_STATUS plugins (they return IREE runtime objects); see
 * docs/plugins.md. */
#ifndef IREE_HAL_LOCAL_EXECUTABLE_PLUGIN_H_
#define IREE_HAL_LOCAL_EXECUTABLE_PLUGIN_H_

#include "graft/plugin.h"

/* Features. */
typedef graft_plugin_features_t iree_hal_executable_plugin_features_t;
#define IREE_HAL_EXECUTABLE_PLUGIN_FEATURE_NONE GRAFT_PLUGIN_FEATURE_NONE
#define IREE_HAL_EXECUTABLE_PLUGIN_FEATURE_STANDALONE \
  GRAFT_PLUGIN_FEATURE_STANDALONE
#define IREE_HAL_EXECUTABLE_PLUGIN_FEATURE_FULL_STATUS \
  GRAFT_PLUGIN_FEATURE_FULL_STATUS

/* Sanitizers. */
typedef graft_plugin_sanitizer_kind_t
    iree_hal_executable_plugin_sanitizer_kind_t;
#define IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_NONE GRAFT_PLUGIN_SANITIZER_NONE
#define IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_ADDRESS \
  GRAFT_PLUGIN_SANITIZER_ADDRESS
#define IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_MEMORY \
  GRAFT_PLUGIN_SANITIZER_MEMORY
#define IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_THREAD \
  GRAFT_PLUGIN_SANITIZER_THREAD
#define IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_UNDEFINED \
  GRAFT_PLUGIN_SANITIZER_UNDEFINED
#define IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_MAX_ENUM \
  GRAFT_PLUGIN_SANITIZER_MAX_ENUM_
#define IREE_HAL_EXECUTABLE_PLUGIN_SANITIZER_KIND GRAFT_PLUGIN_SANITIZER_KIND

/* Versions, the header and the query function. */
typedef graft_plugin_version_t iree_hal_executable_plugin_version_t;
#define IREE_HAL_EXECUTABLE_PLUGIN_VERSION_0_1 GRAFT_PLUGIN_VERSION_0_1
#define IREE_HAL_EXECUTABLE_PLUGIN_VERSION_LATEST GRAFT_PLUGIN_VERSION_LATEST
typedef graft_plugin_header_t iree_hal_executable_plugin_header_t;
typedef graft_plugin_query_fn_t iree_hal_executable_plugin_query_fn_t;
#define IREE_HAL_EXECUTABLE_PLUGIN_EXPORT_NAME GRAFT_PLUGIN_QUERY_SYMBOL
#define IREE_HAL_EXECUTABLE_PLUGIN_EXPORT GRAFT_PLUGIN_EXPORT

/* Status. */
typedef graft_plugin_status_code_t iree_hal_executable_plugin_status_code_t;
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_OK GRAFT_PLUGIN_STATUS_OK
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_CANCELLED GRAFT_PLUGIN_STATUS_CANCELLED
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_UNKNOWN GRAFT_PLUGIN_STATUS_UNKNOWN
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_INVALID_ARGUMENT \
  GRAFT_PLUGIN_STATUS_INVALID_ARGUMENT
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_DEADLINE_EXCEEDED \
  GRAFT_PLUGIN_STATUS_DEADLINE_EXCEEDED
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_NOT_FOUND GRAFT_PLUGIN_STATUS_NOT_FOUND
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_ALREADY_EXISTS \
  GRAFT_PLUGIN_STATUS_ALREADY_EXISTS
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_PERMISSION_DENIED \
  GRAFT_PLUGIN_STATUS_PERMISSION_DENIED
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_RESOURCE_EXHAUSTED \
  GRAFT_PLUGIN_STATUS_RESOURCE_EXHAUSTED
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_FAILED_PRECONDITION \
  GRAFT_PLUGIN_STATUS_FAILED_PRECONDITION
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_ABORTED GRAFT_PLUGIN_STATUS_ABORTED
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_OUT_OF_RANGE \
  GRAFT_PLUGIN_STATUS_OUT_OF_RANGE
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_UNIMPLEMENTED \
  GRAFT_PLUGIN_STATUS_UNIMPLEMENTED
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_INTERNAL GRAFT_PLUGIN_STATUS_INTERNAL
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_UNAVAILABLE \
  GRAFT_PLUGIN_STATUS_UNAVAILABLE
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_DATA_LOSS GRAFT_PLUGIN_STATUS_DATA_LOSS
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_UNAUTHENTICATED \
  GRAFT_PLUGIN_STATUS_UNAUTHENTICATED
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_DEFERRED GRAFT_PLUGIN_STATUS_DEFERRED
#define IREE_HAL_EXECUTABLE_PLUGIN_STATUS_CODE_MASK \
  GRAFT_PLUGIN_STATUS_CODE_MASK
typedef graft_plugin_status_t iree_hal_executable_plugin_status_t;
/* IREE's macros take any integer code and yield a status value; so do
 * these (status_code keeps IREE's meaning: the masked value as a status). */
#define iree_hal_executable_plugin_status_from_code(code) \
  graft_plugin_status_from_code((graft_plugin_status_code_t)(code))
#define iree_hal_executable_plugin_status_code(value) \
  graft_plugin_status_from_code(graft_plugin_status_code(value))
#define iree_hal_executable_plugin_ok_status() graft_plugin_ok_status()
#define iree_hal_executable_plugin_status_is_ok(value) \
  graft_plugin_status_is_ok(value)

/* Allocator. */
typedef graft_plugin_allocator_command_t
    iree_hal_executable_plugin_allocator_command_t;
#define IREE_HAL_EXECUTABLE_PLUGIN_ALLOCATOR_COMMAND_MALLOC \
  GRAFT_PLUGIN_ALLOCATOR_COMMAND_MALLOC
#define IREE_HAL_EXECUTABLE_PLUGIN_ALLOCATOR_COMMAND_CALLOC \
  GRAFT_PLUGIN_ALLOCATOR_COMMAND_CALLOC
#define IREE_HAL_EXECUTABLE_PLUGIN_ALLOCATOR_COMMAND_REALLOC \
  GRAFT_PLUGIN_ALLOCATOR_COMMAND_REALLOC
#define IREE_HAL_EXECUTABLE_PLUGIN_ALLOCATOR_COMMAND_FREE \
  GRAFT_PLUGIN_ALLOCATOR_COMMAND_FREE
typedef graft_plugin_allocator_alloc_params_t
    iree_hal_executable_plugin_allocator_alloc_params_t;
typedef graft_plugin_allocator_ctl_fn_t
    iree_hal_executable_plugin_allocator_ctl_fn_t;
typedef graft_plugin_allocator_t iree_hal_executable_plugin_allocator_t;
#define iree_hal_executable_plugin_allocator_malloc \
  graft_plugin_allocator_malloc
#define iree_hal_executable_plugin_allocator_free graft_plugin_allocator_free

/* Strings. */
typedef graft_plugin_string_view_t iree_hal_executable_plugin_string_view_t;
typedef graft_plugin_string_pair_t iree_hal_executable_plugin_string_pair_t;

/* Resolution and helpers. */
typedef graft_plugin_resolution_t iree_hal_executable_plugin_resolution_t;
#define IREE_HAL_EXECUTABLE_PLUGIN_RESOLUTION_MISSING_OPTIONAL \
  GRAFT_PLUGIN_RESOLUTION_MISSING_OPTIONAL
#define iree_hal_executable_plugin_import_is_optional \
  graft_plugin_import_is_optional
#define iree_hal_executable_plugin_strcmp graft_plugin_strcmp

/* Version 0.1. */
typedef graft_plugin_environment_v0_t
    iree_hal_executable_plugin_environment_v0_t;
typedef graft_plugin_resolve_params_v0_t
    iree_hal_executable_plugin_resolve_params_v0_t;
typedef graft_plugin_resolve_fn_v0_t iree_hal_executable_plugin_resolve_fn_v0_t;
typedef graft_plugin_v0_t iree_hal_executable_plugin_v0_t;

#endif /* IREE_HAL_LOCAL_EXECUTABLE_PLUGIN_H_ */
