/* Helpers shared by the tensor text and .npy code: element conversion
 * (including f16/bf16, which C has no portable type for), dtype names and
 * whole-file reads. Internal to graft_runtime_io. */
#ifndef GRAFT_RUNTIME_IO_INTERNAL_H_
#define GRAFT_RUNTIME_IO_INTERNAL_H_

#include <stddef.h>
#include <stdint.h>

#include "graft/status.h"
#include "graft/tensor.h"

/* The dtype named |name| (|len| chars), or GRAFT_DTYPE_INVALID. "index" is
 * accepted too (graft-run --input index=3 for an index argument). */
uint32_t graft_io_dtype_from_name(const char* name, size_t len);

int graft_io_dtype_is_float(uint32_t dtype);

/* IEEE half and bfloat16 <-> float, round to nearest even. */
float graft_io_f16_to_f32(uint16_t h);
uint16_t graft_io_f32_to_f16(float f);
float graft_io_bf16_to_f32(uint16_t h);
uint16_t graft_io_f32_to_bf16(float f);

/* A regular file opened for bounded reads (file.c). */
typedef struct graft_io_file_t {
  int fd;
  uint64_t size;    /* from fstat, before anything is read */
  const char* path; /* borrowed, for messages */
} graft_io_file_t;

/* Opens |path| for reading. Only regular files are accepted: a FIFO,
 * device, socket or directory is refused ("cannot read '/dev/zero': it is
 * a character device; graft reads only regular files"), since nothing
 * bounds how much it yields. A missing file reads "cannot open 'path': No
 * such file or directory". */
graft_status_t graft_io_file_open(const char* path, graft_io_file_t* out);
/* Reads exactly |size| bytes at |offset|; a file that ends early is an
 * error. */
graft_status_t graft_io_file_read(const graft_io_file_t* file, uint64_t offset,
                                  void* dst, size_t size);
void graft_io_file_close(graft_io_file_t* file);

/* Reads the whole regular file |path| if it has at most |max_size| bytes;
 * *out_data is malloc'd (free()). */
graft_status_t graft_io_read_file(const char* path, uint64_t max_size,
                                  uint8_t** out_data, size_t* out_size);

/* Decodes the bytes of a whole .npy file (graft_tensor_read_npy without the
 * file read; the fuzzer's entry point). |path| only names the input in
 * errors. On success |out| owns its data; on failure it is left zeroed. */
graft_status_t graft_io_npy_decode(const char* path, const uint8_t* bytes,
                                   size_t size, graft_tensor_t* out);

/* Decodes the bytes of a whole ONNX TensorProto file (graft_tensor_read_pb
 * without the file read; the fuzzer's entry point). Same contract as
 * graft_io_npy_decode. */
graft_status_t graft_io_pb_decode(const char* path, const uint8_t* bytes,
                                  size_t size, graft_tensor_t* out);

#endif /* GRAFT_RUNTIME_IO_INTERNAL_H_ */
