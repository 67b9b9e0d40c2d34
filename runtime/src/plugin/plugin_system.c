/* System plugins: shared libraries opened with the system's dynamic loader
 * (dlopen), for plugins that need libc, syscalls or their own threads. The
 * library keeps everything the system loader gives it (its own
 * dependencies, TLS, constructors); graft only checks that it is an ELF
 * shared library for this CPU before handing it to dlopen, so a plugin for
 * another architecture gets a clear message instead of dlerror's.
 *
 * A statically linked runtime (the cross-built graft-run under qemu) has no
 * dynamic loader: GRAFT_SYSTEM_PLUGINS is 0 there and system plugins are
 * refused with a message saying to build the plugin bare-metal. */
#include <stdio.h>
#include <string.h>

#include "loader/arch/arch.h"
#include "loader/elf_format.h"
#include "loader/loader.h"
#include "plugin/plugin.h"

#if GRAFT_SYSTEM_PLUGINS
#include <dlfcn.h>
#endif

/* e_machine (little- or big-endian) of the ELF file starting at |header|. */
static uint16_t elf_machine(const uint8_t* header) {
  return header[GRAFT_EI_DATA] == GRAFT_ELFDATA2LSB
             ? (uint16_t)(header[18] | (header[19] << 8))
             : (uint16_t)((header[18] << 8) | header[19]);
}

static graft_status_t check_elf_header(const uint8_t* header, size_t size) {
  if (size < 20 || memcmp(header, "\x7f" "ELF", 4) != 0)
    return graft_status_make(GRAFT_DATA_LOSS,
                             "not an ELF shared library or a FatELF file");
  /* EM_RISCV covers 32- and 64-bit RISC-V: the class must match too. */
  uint16_t machine = elf_machine(header);
  const graft_elf_arch_t* host = graft_elf_arch_host();
  unsigned bits = header[GRAFT_EI_CLASS] == GRAFT_ELFCLASS64 ? 64u : 32u;
  unsigned host_bits = (unsigned)(sizeof(void*) * 8);
  if (!host || machine != host->machine ||
      header[GRAFT_EI_CLASS] != host->elf_class)
    return graft_status_make(GRAFT_NOT_FOUND,
                             "the library is for %s (%u-bit) but this CPU is "
                             "%s (%u-bit)",
                             graft_elf_machine_name(machine), bits,
                             host ? host->name : "unknown", host_bits);
  return NULL;
}

#if GRAFT_SYSTEM_PLUGINS

static void close_library(graft_plugin_t* plugin) {
  dlclose(plugin->backing);
  plugin->backing = NULL;
}

graft_status_t graft_plugin_open_system(graft_plugin_t* plugin,
                                        const char* path,
                                        const uint8_t* header, size_t size) {
  graft_status_t st = check_elf_header(header, size);
  if (st) return st;
  /* A name without a slash would make dlopen search the library path
   * instead of opening the file that was just read. */
  char local[4096];
  if (!strchr(path, '/')) {
    snprintf(local, sizeof(local), "./%s", path);
    path = local;
  }
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* why = dlerror();
    return graft_status_make(GRAFT_FAILED_PRECONDITION,
                             "the system loader cannot load it: %s",
                             why ? why : "unknown error");
  }
  plugin->backing = library;
  plugin->close = close_library;
  void* address = dlsym(library, GRAFT_PLUGIN_QUERY_SYMBOL);
  if (!address) return graft_plugin_missing_query("the library");
  /* Object-to-function pointer conversion, as POSIX allows for dlsym. */
  memcpy(&plugin->query, &address, sizeof(plugin->query));
  return NULL;
}

#else

graft_status_t graft_plugin_open_system(graft_plugin_t* plugin,
                                        const char* path,
                                        const uint8_t* header, size_t size) {
  (void)plugin;
  (void)path;
  graft_status_t st = check_elf_header(header, size);
  if (st) return st;
  return graft_status_make(GRAFT_UNIMPLEMENTED,
                           "this runtime is statically linked and cannot "
                           "load system libraries; build the plugin "
                           "bare-metal with `graft plugin` (a .sos file)");
}

#endif
