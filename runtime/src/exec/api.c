/* Opening a module from a bundle (graft/runtime.h): read the file, let the
 * loader select, map and validate the slice for this CPU and choose its ISA
 * variant, then wrap the library header in a module that closes the loader
 * handle with it. */
#include <stdlib.h>

#include "exec/module.h"
#include "exec/ubsan.h"
#include "io/io_internal.h"
#include "loader/loader.h"

static void close_library(void* handle) { graft_library_close(handle); }

graft_status_t graft_module_open_memory(const void* data, size_t size,
                                        const graft_runtime_options_t* options,
                                        graft_module_t** out_module) {
  *out_module = NULL;
  graft_library_handle_t* handle = NULL;
  /* The option wins over the environment: a program that asks for a level
   * means it; GRAFT_ISA is for running a program under test as it is. */
  int from_env = !(options && options->isa);
  const char* isa = from_env ? getenv("GRAFT_ISA") : options->isa;
  graft_status_t st = graft_library_open_isa(data, size, isa, &handle);
  if (st && from_env && isa && isa[0]) st = graft_status_annotate(st, "GRAFT_ISA");
  if (st) return st;
  st = graft_module_create_from_library(graft_library_header(handle), options,
                                        close_library, handle, out_module);
  if (st) {
    graft_library_close(handle);
    return st;
  }
  graft_module_set_isa(*out_module, graft_library_level(handle));
  /* The words the variant was chosen by, for kernels that read them
   * (processor_data() in specs, IREE plugins' processor_data). */
  uint64_t cpu[GRAFT_CPU_DATA_FIELD_COUNT];
  graft_cpu_data(cpu);
  graft_module_set_processor_data(*out_module, cpu);
  /* --sanitize=undefined: the slice's checks report to this runtime. */
  graft_ubsan_install_fn_t install = graft_library_ubsan_install(handle);
  if (install) {
    install(graft_ubsan_report);
    graft_module_set_ubsan(*out_module, graft_library_base(handle),
                           graft_elf_machine_name(graft_library_machine(handle)));
  }
  return NULL;
}

graft_status_t graft_module_open_file(const char* path,
                                      const graft_runtime_options_t* options,
                                      graft_module_t** out_module) {
  *out_module = NULL;
  uint8_t* data = NULL;
  size_t size = 0;
  graft_status_t st =
      graft_io_read_file(path, GRAFT_MAX_BUNDLE_FILE_SIZE, &data, &size);
  if (st) return st;
  st = graft_module_open_memory(data, size, options, out_module);
  free(data);
  if (st) st = graft_status_annotate(st, "%s", path);
  return st;
}
