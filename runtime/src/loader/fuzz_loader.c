/* libFuzzer entry point for the loader: FatELF selection, the ELF loader
 * (headers, segments, dynamic tables, relocations, protection) and library
 * validation, on arbitrary bytes.
 *
 * graft_library_open calls the slice's query function, i.e. runs code from
 * the input; a mutated .text would then crash in the fuzzed code itself, not
 * in the loader. So by default this harness runs every step of
 * graft_library_open except that call, and instead validates each library
 * header candidate it finds in the image (fuzz_candidates.h). Set
 * GRAFT_FUZZ_CALL_QUERY=1 to fuzz graft_library_open itself (useful with
 * corpora that only vary data).
 *
 * Build and run: cmake/fuzz.sh (seed corpus: tests/fuzz/corpus/fuzz_loader/,
 * the x86_64 ABI fixtures and graft-built bundles). */
#include <stdlib.h>
#include <string.h>

#include "elf_image.h"
#include "fuzz_candidates.h"
#include "loader.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static int call_query = -1;
  if (call_query < 0) {
    const char* env = getenv("GRAFT_FUZZ_CALL_QUERY");
    call_query = env && env[0] == '1';
  }
  if (call_query) {
    graft_library_handle_t* handle = NULL;
    graft_status_free(graft_library_open(data, size, &handle));
    graft_library_close(handle);
    return 0;
  }
  graft_fatelf_slice_t slice;
  graft_status_t status = graft_fatelf_select_host(data, size, &slice);
  if (status) {
    graft_status_free(status);
    return 0;
  }
  graft_elf_image_t image;
  status = graft_elf_image_load(data + slice.offset, (size_t)slice.size,
                                &image);
  if (status) {
    graft_status_free(status);
    return 0;
  }
  void* query = NULL;
  graft_status_free(
      graft_elf_image_lookup_function(&image, GRAFT_QUERY_SYMBOL, &query));
  const graft_library_v1_t* valid[GRAFT_FUZZ_MAX_CANDIDATES];
  graft_fuzz_valid_libraries(&image, (size_t)slice.size, valid);
  graft_elf_image_unload(&image);
  return 0;
}
