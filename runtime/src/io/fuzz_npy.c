/* libFuzzer target for the .npy reader: graft_io_npy_decode (what
 * graft_tensor_read_npy runs on a file's bytes) on arbitrary bytes. Every
 * array that decodes is written back with graft_tensor_write_npy and read
 * again, and must come back with the same dtype, shape and bytes.
 *
 * Build and run: cmake/fuzz.sh (seed corpus: tests/fuzz/corpus/fuzz_npy/). */
#include "fuzz_round_trip.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const graft_fuzz_format_t format = {
      "fuzz_npy", ".npy", graft_io_npy_decode, graft_tensor_write_npy,
      graft_tensor_read_npy};
  return graft_fuzz_round_trip(&format, data, size);
}
