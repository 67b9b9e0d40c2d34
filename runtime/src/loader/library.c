/* graft_library_open: bundle bytes in, validated library header out.
 *
 * The steps form a chain that tears down whatever was built when a later
 * step fails: select the host slice, load it with graft's ELF loader, find
 * and call the single exported query symbol, validate what it returned,
 * choose the ISA variant that runs (variant.c).
 * Imports are resolved when a module is opened (exec/import_table.c).
 * After this the executor trusts the header completely. */
#include <stdlib.h>
#include <string.h>

#include "elf_format.h"
#include "elf_image.h"
#include "library_validate.h"
#include "loader.h"
#include "variant.h"

struct graft_library_handle_s {
  graft_elf_image_t image;
  const graft_library_v1_t* header; /* as the slice returned it */
  graft_library_v1_t view;          /* |header| with the chosen variant's tables */
  const char* level;                /* the chosen variant's level, or "" */
  uint16_t machine;
  /* GRAFT_UBSAN_INSTALL_SYMBOL when the slice exports it, else NULL. */
  graft_ubsan_install_fn_t ubsan_install;
};

/* An instrumented slice (--sanitize=undefined) exports the function the
 * runtime hands its UBSan reporter to; any other slice does not. */
static graft_status_t find_ubsan_install(graft_library_handle_t* handle) {
  void* address = NULL;
  graft_status_t status = graft_elf_image_lookup_function(
      &handle->image, GRAFT_UBSAN_INSTALL_SYMBOL, &address);
  if (status && graft_status_code(status) == GRAFT_NOT_FOUND) {
    graft_status_free(status);
    return NULL;
  }
  if (status) return status;
  memcpy(&handle->ubsan_install, &address, sizeof(handle->ubsan_install));
  return NULL;
}

/* Finds the query function and calls it. Calling it runs the slice's own
 * code: that is inherent to the ABI, and the symbol is at least checked to
 * point into an executable segment of this image. */
static graft_status_t query_library(const graft_elf_image_t* image,
                                    const graft_library_v1_t** out_header) {
  void* address = NULL;
  graft_status_t status =
      graft_elf_image_lookup_function(image, GRAFT_QUERY_SYMBOL, &address);
  if (status) return status;
  graft_library_query_fn_t query;
  /* Object-to-function pointer conversion, as dlsym users do. */
  memcpy(&query, &address, sizeof(query));
  const graft_library_v1_t* header = query(GRAFT_ABI_VERSION);
  if (!header) {
    return graft_status_make(GRAFT_UNIMPLEMENTED,
                             "slice cannot serve ABI version %u (its %s "
                             "returned null); rebuild it with this graft",
                             GRAFT_ABI_VERSION, GRAFT_QUERY_SYMBOL);
  }
  *out_header = header;
  return NULL;
}

graft_status_t graft_library_open(const uint8_t* data, size_t size,
                                  graft_library_handle_t** out_handle) {
  return graft_library_open_isa(data, size, NULL, out_handle);
}

graft_status_t graft_library_open_isa(const uint8_t* data, size_t size,
                                      const char* isa,
                                      graft_library_handle_t** out_handle) {
  *out_handle = NULL;
  graft_fatelf_slice_t slice;
  graft_status_t status = graft_fatelf_select_host(data, size, &slice);
  if (status) return status;
  graft_library_handle_t* handle =
      (graft_library_handle_t*)calloc(1, sizeof(*handle));
  if (!handle) {
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "out of memory opening a library");
  }
  handle->machine = slice.machine;
  status = graft_elf_image_load(data + slice.offset, (size_t)slice.size,
                                &handle->image);
  if (!status) status = query_library(&handle->image, &handle->header);
  if (!status) status = graft_library_validate(&handle->image, handle->header);
  if (!status) status = find_ubsan_install(handle);
  if (!status) {
    status = graft_library_select_variant(handle->header, isa, &handle->view,
                                          &handle->level);
  }
  if (status) {
    graft_library_close(handle);
    return graft_status_annotate(status, "%s slice",
                                 graft_elf_machine_name(slice.machine));
  }
  *out_handle = handle;
  return NULL;
}

const graft_library_v1_t* graft_library_header(
    const graft_library_handle_t* handle) {
  return handle ? &handle->view : NULL;
}

const char* graft_library_level(const graft_library_handle_t* handle) {
  return handle ? handle->level : "";
}

uint16_t graft_library_machine(const graft_library_handle_t* handle) {
  return handle ? handle->machine : 0;
}

graft_ubsan_install_fn_t graft_library_ubsan_install(
    const graft_library_handle_t* handle) {
  return handle ? handle->ubsan_install : NULL;
}

uintptr_t graft_library_base(const graft_library_handle_t* handle) {
  return handle ? handle->image.base : 0;
}

void graft_library_close(graft_library_handle_t* handle) {
  if (!handle) return;
  graft_elf_image_unload(&handle->image);
  free(handle);
}
