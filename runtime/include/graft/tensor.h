/* Host tensors and their text / .npy forms, shared by graft-run, `graft eval`
 * and applications.
 *
 * Text form (IREE's): "2x2xf32=[[2 2][-2 -2]]" (nesting optional, numbers
 * separated by spaces or commas), splat "8xf32=2", scalar "f32=1.5",
 * "@file.npy", an ONNX TensorProto "@file.pb", raw bytes "2x2xf32=@file.bin".
 * Printed form: "2x2xf32=[-12 0][0 -12]" (innermost rows bracketed, as IREE
 * prints), scalars "f32=1.5".
 */
#ifndef GRAFT_TENSOR_H_
#define GRAFT_TENSOR_H_

#include "graft/abi.h"
#include "graft/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct graft_tensor_t {
  uint32_t dtype; /* graft_dtype_t */
  uint32_t rank;  /* 0 = scalar */
  int64_t dims[GRAFT_MAX_RANK];
  void* data;     /* element storage, row-major, packed */
  uint64_t size;  /* bytes of |data| */
  int owned;      /* nonzero: |data| was allocated by graft; give it back with
                     graft_tensor_release, never free() (large tensors are
                     mapped pages, small ones start inside a larger heap
                     block) */
} graft_tensor_t;

/* Bytes of one element (i1 = 1); 0 for an invalid dtype. */
size_t graft_dtype_size(uint32_t dtype);
/* "f32"; "?" for an invalid dtype. */
const char* graft_dtype_name(uint32_t dtype);
/* Product of dims; 0 for a negative dim or when the product overflows. */
uint64_t graft_tensor_element_count(const graft_tensor_t* t);

/* Element |index| of |t| widened to double, for any dtype (i64 values beyond
 * 2^53 round). |index| must be below the element count. */
double graft_tensor_element_as_double(const graft_tensor_t* t, uint64_t index);

/* Allocates 64-byte-aligned zeroed storage for |rank|/|dims|. */
graft_status_t graft_tensor_allocate(uint32_t dtype, uint32_t rank,
                                     const int64_t* dims, graft_tensor_t* out);
/* Frees owned storage and clears |t|. Safe on a zeroed tensor. */
void graft_tensor_release(graft_tensor_t* t);

/* Parses the text form (including @file forms). |out| is owned by caller. */
graft_status_t graft_tensor_parse(const char* text, graft_tensor_t* out);
/* Prints the text form into a malloc'd NUL-terminated string (free()). */
graft_status_t graft_tensor_format(const graft_tensor_t* t, char** out_text);

graft_status_t graft_tensor_read_npy(const char* path, graft_tensor_t* out);
graft_status_t graft_tensor_write_npy(const char* path, const graft_tensor_t* t);

/* ONNX TensorProto files (the ONNX backend tests' input_0.pb): dims,
 * data_type and the elements (raw_data or the typed fields); external data
 * and types graft lacks (STRING, unsigned, complex) are refused. Written
 * with raw_data. */
graft_status_t graft_tensor_read_pb(const char* path, graft_tensor_t* out);
graft_status_t graft_tensor_write_pb(const char* path, const graft_tensor_t* t);

/* By the file name: ".pb" is a TensorProto, anything else .npy. */
graft_status_t graft_tensor_read_file(const char* path, graft_tensor_t* out);
graft_status_t graft_tensor_write_file(const char* path, const graft_tensor_t* t);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_TENSOR_H_ */
