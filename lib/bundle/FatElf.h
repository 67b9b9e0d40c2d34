// FatELF: several ELF slices (one per architecture) in one file.
//
// Format (icculus.org/fatelf), all fields little-endian:
//   header  { uint32 magic = 0x1F0E70FA; uint16 version = 1;
//             uint8 num_records; uint8 reserved; }
//   records { uint16 machine; uint8 osabi; uint8 osabi_version;
//             uint8 word_size; uint8 byte_order; uint8 reserved0, reserved1;
//             uint64 offset; uint64 size; } x num_records
// followed by the slices, each at a 4096-aligned offset, gaps zero-filled.
// The runtime reads the same format (runtime/src/loader/loader.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace graft {

constexpr uint32_t kFatElfMagic = 0x1F0E70FA;
constexpr uint16_t kFatElfVersion = 1;
constexpr uint64_t kFatElfAlign = 4096;
constexpr size_t kFatElfHeaderSize = 8;
constexpr size_t kFatElfRecordSize = 24;

// One record: the key (machine, osabi, osabi_version, word_size, byte_order)
// identifies the slice; no two slices of a file share a key.
struct FatElfSlice {
  uint16_t machine = 0;     // e_machine
  uint8_t osabi = 0;        // e_ident[EI_OSABI]
  uint8_t osabiVersion = 0; // e_ident[EI_ABIVERSION]
  uint8_t wordSize = 0;     // e_ident[EI_CLASS]: 1 = 32-bit, 2 = 64-bit
  uint8_t byteOrder = 0;    // e_ident[EI_DATA]: 1 = little, 2 = big endian
  uint64_t offset = 0;      // of the slice's bytes in the file
  uint64_t size = 0;
};

// Packs |slices| (complete ELF files, in the given order) into |out|. The
// record of each slice is read from its ELF header. Fails with |error| when a
// slice is not ELF, when two slices share a key, or when there are none or
// more than 255. Same inputs give the same bytes.
bool writeFatElf(const std::vector<std::vector<uint8_t>> &slices,
                 std::vector<uint8_t> &out, std::string &error);

// Lists the slices of |data|: a FatELF file, or a plain ELF file (reported as
// one slice covering the whole file). Checks every record: bounds, overlap
// with the header, duplicate keys, and that each slice is an ELF file whose
// header agrees with its record. Fails with |error| saying which record is
// wrong and why.
bool readFatElf(const std::vector<uint8_t> &data,
                std::vector<FatElfSlice> &slices, std::string &error);

// The name of the registered target with e_machine |machine| ("x86_64"), or
// "machine 0x1234", for messages.
std::string elfMachineName(uint16_t machine);

} // namespace graft
