// Unit tests of the FatELF writer and reader: round trip, layout,
// determinism and every kind of malformed input the reader rejects.
#include "bundle/FatElf.h"

#include <gtest/gtest.h>

namespace graft {
namespace {

// A minimal ELF64 little-endian "file": just a header with the fields FatELF
// reads, padded with a recognisable byte.
std::vector<uint8_t> fakeElf(uint16_t machine, size_t size = 100,
                             uint8_t fill = 0xAB, uint8_t osabi = 0) {
  std::vector<uint8_t> e(size, fill);
  const uint8_t ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, osabi, 0};
  std::copy(std::begin(ident), std::end(ident), e.begin());
  e[18] = uint8_t(machine);
  e[19] = uint8_t(machine >> 8);
  return e;
}

void putLE(std::vector<uint8_t> &d, size_t at, uint64_t v, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i)
    d[at + i] = uint8_t(v >> (8 * i));
}

std::vector<uint8_t> threeSlices() {
  std::vector<uint8_t> out;
  std::string error;
  EXPECT_TRUE(writeFatElf(
      {fakeElf(62, 5000, 1), fakeElf(183, 100, 2), fakeElf(243, 4096, 3)}, out,
      error))
      << error;
  return out;
}

TEST(FatElf, RoundTrip) {
  std::vector<std::vector<uint8_t>> in = {
      fakeElf(62, 5000, 1), fakeElf(183, 100, 2), fakeElf(243, 4096, 3)};
  std::vector<uint8_t> out;
  std::string error;
  ASSERT_TRUE(writeFatElf(in, out, error)) << error;
  std::vector<FatElfSlice> slices;
  ASSERT_TRUE(readFatElf(out, slices, error)) << error;
  ASSERT_EQ(slices.size(), 3u);
  const uint16_t machines[] = {62, 183, 243};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(slices[i].machine, machines[i]);
    EXPECT_EQ(slices[i].wordSize, 2);
    EXPECT_EQ(slices[i].byteOrder, 1);
    EXPECT_EQ(slices[i].offset % kFatElfAlign, 0u);
    ASSERT_EQ(slices[i].size, in[i].size());
    EXPECT_TRUE(
        std::equal(in[i].begin(), in[i].end(), out.begin() + slices[i].offset));
  }
  EXPECT_EQ(slices[0].offset, 4096u);
  EXPECT_EQ(slices[1].offset, 4096u + 8192u); // 5000 bytes round up to 8192
  EXPECT_EQ(slices[2].offset, 4096u * 4);
  EXPECT_EQ(out.size(), 4096u * 5);
}

TEST(FatElf, HeaderBytesAndZeroPadding) {
  std::vector<uint8_t> out = threeSlices();
  const uint8_t header[] = {0xFA, 0x70, 0x0E, 0x1F, 1, 0, 3, 0};
  EXPECT_TRUE(std::equal(std::begin(header), std::end(header), out.begin()));
  // First record: machine 62, osabi 0, abiversion 0, class 2, data 1, 2
  // reserved bytes, offset 4096, size 5000.
  const uint8_t record0[] = {62, 0, 0, 0, 2,    1,    0, 0, 0, 0x10, 0, 0,
                             0,  0, 0, 0, 0x88, 0x13, 0, 0, 0, 0,    0, 0};
  EXPECT_TRUE(
      std::equal(std::begin(record0), std::end(record0), out.begin() + 8));
  for (size_t i = 8 + 3 * kFatElfRecordSize; i < 4096; ++i)
    ASSERT_EQ(out[i], 0) << "at " << i;
  for (size_t i = 4096 + 5000; i < 4096 + 8192; ++i)
    ASSERT_EQ(out[i], 0) << "at " << i;
}

TEST(FatElf, Deterministic) { EXPECT_EQ(threeSlices(), threeSlices()); }

TEST(FatElf, WriterRejectsDuplicateKey) {
  std::vector<uint8_t> out;
  std::string error;
  EXPECT_FALSE(
      writeFatElf({fakeElf(62), fakeElf(183), fakeElf(62)}, out, error));
  EXPECT_EQ(error,
            "slices 0 and 2 are both for x86_64 (same machine, OS ABI, word "
            "size and byte order)");
  // A different OS ABI is a different key.
  EXPECT_TRUE(writeFatElf({fakeElf(62), fakeElf(62, 100, 0, 3)}, out, error))
      << error;
}

TEST(FatElf, WriterRejectsBadSlices) {
  std::vector<uint8_t> out;
  std::string error;
  EXPECT_FALSE(writeFatElf({}, out, error));
  EXPECT_EQ(error, "a FatELF file needs at least one slice, got none");
  EXPECT_FALSE(
      writeFatElf({fakeElf(62), std::vector<uint8_t>(100, 0)}, out, error));
  EXPECT_EQ(error, "slice 1 is not an ELF file (no \\x7fELF magic)");
  EXPECT_FALSE(writeFatElf({fakeElf(62, 20)}, out, error));
  EXPECT_EQ(error, "slice 0 is too small for an ELF header: 20 bytes, expected at least 52");
  EXPECT_FALSE(writeFatElf({fakeElf(62, 60)}, out, error));
  EXPECT_EQ(error, "slice 0 is too small for an ELF64 header: 60 bytes, expected at least 64");
  std::vector<uint8_t> badClass = fakeElf(62);
  badClass[4] = 7;
  EXPECT_FALSE(writeFatElf({badClass}, out, error));
  EXPECT_EQ(error,
            "slice 0 has ELF class 7, expected 1 (32-bit) or 2 (64-bit)");
}

TEST(FatElf, ReadsPlainElfAsOneSlice) {
  std::vector<uint8_t> elf = fakeElf(183, 300);
  std::vector<FatElfSlice> slices;
  std::string error;
  ASSERT_TRUE(readFatElf(elf, slices, error)) << error;
  ASSERT_EQ(slices.size(), 1u);
  EXPECT_EQ(slices[0].machine, 183);
  EXPECT_EQ(slices[0].offset, 0u);
  EXPECT_EQ(slices[0].size, 300u);
}

// Reads |data|, expecting failure with exactly |message| and no slices.
void expectReadError(const std::vector<uint8_t> &data,
                     const std::string &message) {
  std::vector<FatElfSlice> slices;
  std::string error;
  EXPECT_FALSE(readFatElf(data, slices, error));
  EXPECT_EQ(error, message);
  EXPECT_TRUE(slices.empty());
}

TEST(FatElf, ReaderRejectsMalformed) {
  expectReadError(
      {}, "not a FatELF or ELF file: expected magic 0x1f0e70fa or \\x7fELF");
  expectReadError(
      {1, 2, 3, 4, 5, 6, 7, 8, 9},
      "not a FatELF or ELF file: expected magic 0x1f0e70fa or \\x7fELF");

  std::vector<uint8_t> d = threeSlices();
  d[4] = 2;
  expectReadError(d, "FatELF version 2 is not supported, expected 1");

  d = threeSlices();
  d[6] = 0;
  expectReadError(d, "FatELF file has no slices");

  d = threeSlices();
  d.resize(20);
  expectReadError(
      d, "FatELF file is truncated: 3 records need 80 bytes, the file has 20");

  // Record 1's size runs past the end of the file.
  d = threeSlices();
  putLE(d, 8 + 24 + 16, 1u << 20, 8);
  expectReadError(
      d, "FatELF record 1 (aarch64) covers bytes [12288, +1048576) outside "
         "the slice area [80, 20480)");

  // An offset chosen so that offset + size wraps around.
  d = threeSlices();
  putLE(d, 8 + 8, ~uint64_t(0) - 10, 8);
  expectReadError(
      d, "FatELF record 0 (x86_64) covers bytes [18446744073709551605, "
         "+5000) outside the slice area [80, 20480)");

  // A slice overlapping the record table.
  d = threeSlices();
  putLE(d, 8 + 8, 16, 8);
  expectReadError(
      d, "FatELF record 0 (x86_64) covers bytes [16, +5000) outside the "
         "slice area [80, 20480)");

  // The record says riscv64, the slice is x86_64.
  d = threeSlices();
  putLE(d, 8, 243, 2);
  expectReadError(d, "FatELF record 0 (riscv64) says machine riscv64, but its "
                     "slice's ELF header says x86_64");
  d = threeSlices();
  putLE(d, 8, 8, 2); // EM_MIPS: no graft target
  expectReadError(d, "FatELF record 0 (machine 0x8) says machine machine "
                     "0x8, but its slice's ELF header says x86_64");

  // Every other field of the key is checked too.
  d = threeSlices();
  d[8 + 24 + 2] = 3; // OS ABI
  expectReadError(d, "FatELF record 1 (aarch64) says OS ABI 3, but its "
                     "slice's ELF header says 0");
  d = threeSlices();
  d[8 + 24 + 3] = 1; // OS ABI version
  expectReadError(d, "FatELF record 1 (aarch64) says OS ABI version 1, but "
                     "its slice's ELF header says 0");
  d = threeSlices();
  d[8 + 4] = 1; // word size
  expectReadError(d, "FatELF record 0 (x86_64) says word size (ELF class) 1, "
                     "but its slice's ELF header says 2");
  d = threeSlices();
  d[8 + 5] = 2; // byte order
  expectReadError(d, "FatELF record 0 (x86_64) says byte order (ELF data) 2, "
                     "but its slice's ELF header says 1");

  // Reserved fields must be zero.
  d = threeSlices();
  d[7] = 1;
  expectReadError(d, "FatELF header's reserved byte (offset 7) is 1, "
                     "expected 0");
  d = threeSlices();
  d[8 + 48 + 7] = 9;
  expectReadError(d, "FatELF record 2 (riscv64): reserved bytes are 0, 9, "
                     "expected 0");

  // A slice that is not ELF at all.
  d = threeSlices();
  d[4096 * 3] = 0;
  expectReadError(d,
                  "FatELF record 1 (aarch64): the slice is not an ELF file (no "
                  "\\x7fELF magic)");

  // Two records pointing at the same slice.
  d = threeSlices();
  std::copy(d.begin() + 8, d.begin() + 32, d.begin() + 32);
  expectReadError(d, "FatELF record 1 (x86_64) overlaps record 0 (x86_64)");

  // Two distinct slices for the same machine (the writer never makes this).
  d = threeSlices();
  putLE(d, 8 + 24, 62, 2);        // record 1 says x86_64 ...
  putLE(d, 4096 * 3 + 18, 62, 2); // ... and so does its slice
  expectReadError(d, "FatELF records 0 and 1 are both for x86_64");

  // A slice that does not start on a page boundary.
  d = threeSlices();
  putLE(d, 8 + 24 + 8, 4096 * 3 + 8, 8);
  expectReadError(
      d, "FatELF record 1 (aarch64) starts at offset 12296, which is not a "
         "multiple of 4096");
}

} // namespace
} // namespace graft
