/* libFuzzer target for the .npy reader: graft_io_npy_decode (what
 * graft_tensor_read_npy runs on a file's bytes) on arbitrary bytes. Every
 * array that decodes is written back with graft_tensor_write_npy and read
 * again, and must come back with the same dtype, shape and bytes.
 *
 * Build and run: cmake/fuzz.sh (seed corpus: tests/fuzz/corpus/fuzz_npy/). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_internal.h"

static void fail(const char* what) {
  fprintf(stderr, "fuzz_npy: %s\n", what);
  abort();
}

/* One scratch file per fuzzing process for the write/read round trip,
 * removed after every use. */
static const char* scratch_path(void) {
  static char path[64];
  if (!path[0])
    snprintf(path, sizeof(path), "/tmp/graft_fuzz_npy_%d.npy", (int)getpid());
  return path;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  graft_tensor_t t;
  graft_status_t status = graft_io_npy_decode("fuzz.npy", data, size, &t);
  if (status) {
    graft_status_free(status);
    if (t.data || t.size || t.rank) fail("a failed decode left |out| set");
    return 0;
  }
  const char* path = scratch_path();
  status = graft_tensor_write_npy(path, &t);
  if (status) fail(graft_status_message(status));
  graft_tensor_t again;
  status = graft_tensor_read_npy(path, &again);
  if (status) fail(graft_status_message(status));
  unlink(path);
  if (again.dtype != t.dtype || again.rank != t.rank ||
      memcmp(again.dims, t.dims, sizeof(t.dims)) != 0 ||
      again.size != t.size ||
      (t.size && memcmp(again.data, t.data, (size_t)t.size) != 0))
    fail("a written .npy file reads back differently");
  graft_tensor_release(&again);
  graft_tensor_release(&t);
  return 0;
}
