/* libFuzzer target for the .pb reader: graft_io_pb_decode (what
 * graft_tensor_read_pb runs on a file's bytes) on arbitrary bytes. Every
 * array that decodes is written back with graft_tensor_write_pb and read
 * again, and must come back with the same dtype, shape and bytes.
 *
 * Build and run: cmake/fuzz.sh (seed corpus: tests/fuzz/corpus/fuzz_pb/). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_internal.h"

static void fail(const char* what) {
  fprintf(stderr, "fuzz_pb: %s\n", what);
  abort();
}

/* One scratch file per fuzzing process for the write/read round trip,
 * removed after every use. */
static const char* scratch_path(void) {
  static char path[64];
  if (!path[0])
    snprintf(path, sizeof(path), "/tmp/graft_fuzz_pb_%d.pb", (int)getpid());
  return path;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  graft_tensor_t t;
  graft_status_t status = graft_io_pb_decode("fuzz.pb", data, size, &t);
  if (status) {
    graft_status_free(status);
    if (t.data || t.size || t.rank) fail("a failed decode left |out| set");
    return 0;
  }
  const char* path = scratch_path();
  status = graft_tensor_write_pb(path, &t);
  if (status) fail(graft_status_message(status));
  graft_tensor_t again;
  status = graft_tensor_read_pb(path, &again);
  if (status) fail(graft_status_message(status));
  unlink(path);
  if (again.dtype != t.dtype || again.rank != t.rank ||
      memcmp(again.dims, t.dims, sizeof(t.dims)) != 0 ||
      again.size != t.size ||
      (t.size && memcmp(again.data, t.data, (size_t)t.size) != 0))
    fail("a written .pb file reads back differently");
  graft_tensor_release(&again);
  graft_tensor_release(&t);
  return 0;
}
