/* libFuzzer target for the .pb reader: graft_io_pb_decode (what
 * graft_tensor_read_pb runs on a file's bytes) on arbitrary bytes. Every
 * array that decodes is written back with graft_tensor_write_pb and read
 * again, and must come back with the same dtype, shape and bytes.
 *
 * Build and run: cmake/fuzz.sh (seed corpus: tests/fuzz/corpus/fuzz_pb/). */
#include "fuzz_round_trip.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const graft_fuzz_format_t format = {
      "fuzz_pb", ".pb", graft_io_pb_decode, graft_tensor_write_pb,
      graft_tensor_read_pb};
  return graft_fuzz_round_trip(&format, data, size);
}
