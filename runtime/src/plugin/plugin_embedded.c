/* Bare-metal plugins: mapped by graft's own ELF loader, exactly like a
 * bundle's slice (FatELF slice selection for this CPU, W^X, RELRO, no
 * DT_NEEDED, no initializers, no TLS, every relocation against a symbol
 * the image defines: an undefined symbol refuses the plugin). The only
 * difference from a slice is the exported symbol: the plugin query function
 * instead of graft_library_query. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/elf_image.h"
#include "loader/loader.h"
#include "plugin/plugin.h"

static void close_image(graft_plugin_t* plugin) {
  graft_elf_image_t* image = plugin->backing;
  graft_elf_image_unload(image);
  free(image);
  plugin->backing = NULL;
}

graft_status_t graft_plugin_open_embedded(graft_plugin_t* plugin,
                                          const uint8_t* data, size_t size) {
  graft_fatelf_slice_t slice;
  graft_status_t st = graft_fatelf_select_host(data, size, &slice);
  if (st) return st;
  graft_elf_image_t* image = calloc(1, sizeof(*image));
  if (!image)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "out of memory loading a plugin");
  st = graft_elf_image_load(data + slice.offset, (size_t)slice.size, image);
  if (st) {
    free(image);
    return graft_status_annotate(st, "%s slice",
                                 graft_elf_machine_name(slice.machine));
  }
  plugin->backing = image;
  plugin->close = close_image;
  plugin->bare_metal = 1;
  void* address = NULL;
  st = graft_elf_image_lookup_function(image, GRAFT_PLUGIN_QUERY_SYMBOL,
                                       &address);
  if (st && graft_status_code(st) == GRAFT_NOT_FOUND) {
    graft_status_free(st);
    char what[64];
    snprintf(what, sizeof(what), "its %s slice",
             graft_elf_machine_name(slice.machine));
    return graft_plugin_missing_query(what);
  }
  if (st)
    return graft_status_annotate(st, "%s slice",
                                 graft_elf_machine_name(slice.machine));
  /* Object-to-function pointer conversion, as dlsym users do. */
  memcpy(&plugin->query, &address, sizeof(plugin->query));
  return NULL;
}
