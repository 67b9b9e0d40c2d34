/* The body the file-format fuzzers share (fuzz_npy.c, fuzz_pb.c): decode
 * arbitrary bytes; every tensor that decodes is written back with the
 * format's writer and read again, and must come back with the same dtype,
 * shape and bytes. A failed decode must leave its output empty. */
#ifndef GRAFT_IO_FUZZ_ROUND_TRIP_H_
#define GRAFT_IO_FUZZ_ROUND_TRIP_H_

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_internal.h"

typedef struct {
  const char* name;      /* "fuzz_npy": in messages and the scratch file */
  const char* extension; /* ".npy" */
  graft_status_t (*decode)(const char* path, const uint8_t* bytes,
                           size_t size, graft_tensor_t* out);
  graft_status_t (*write)(const char* path, const graft_tensor_t* t);
  graft_status_t (*read)(const char* path, graft_tensor_t* out);
} graft_fuzz_format_t;

static void graft_fuzz_fail(const graft_fuzz_format_t* f, const char* what) {
  fprintf(stderr, "%s: %s\n", f->name, what);
  abort();
}

static int graft_fuzz_round_trip(const graft_fuzz_format_t* f,
                                 const uint8_t* data, size_t size) {
  char input_name[32]; /* "fuzz.npy": what messages call the input */
  snprintf(input_name, sizeof(input_name), "fuzz%s", f->extension);
  graft_tensor_t t;
  graft_status_t status = f->decode(input_name, data, size, &t);
  if (status) {
    graft_status_free(status);
    if (t.data || t.size || t.rank)
      graft_fuzz_fail(f, "a failed decode left |out| set");
    return 0;
  }
  /* One scratch file per fuzzing process, removed after every use. */
  char path[96];
  snprintf(path, sizeof(path), "/tmp/graft_%s_%d%s", f->name, (int)getpid(),
           f->extension);
  status = f->write(path, &t);
  if (status) graft_fuzz_fail(f, graft_status_message(status));
  graft_tensor_t again;
  status = f->read(path, &again);
  if (status) graft_fuzz_fail(f, graft_status_message(status));
  unlink(path);
  if (again.dtype != t.dtype || again.rank != t.rank ||
      memcmp(again.dims, t.dims, sizeof(t.dims)) != 0 ||
      again.size != t.size ||
      (t.size && memcmp(again.data, t.data, (size_t)t.size) != 0))
    graft_fuzz_fail(f, "a written file reads back differently");
  graft_tensor_release(&again);
  graft_tensor_release(&t);
  return 0;
}

#endif /* GRAFT_IO_FUZZ_ROUND_TRIP_H_ */
