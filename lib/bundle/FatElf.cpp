// FatELF writer and reader (see FatElf.h).
#include "bundle/FatElf.h"

#include <cstdio>

#include "targets/Target.h"

namespace graft {

namespace {

// e_ident offsets and the ELF header fields FatELF records copy.
constexpr size_t kEiClass = 4, kEiData = 5, kEiOsabi = 7, kEiAbiVersion = 8;
constexpr size_t kEMachineOffset = 18;
constexpr size_t kElf32Header = 52, kElf64Header = 64;
constexpr size_t kMaxRecords = 255;

uint64_t readLE(const uint8_t *p, unsigned bytes) {
  uint64_t v = 0;
  for (unsigned i = 0; i < bytes; ++i)
    v |= uint64_t(p[i]) << (8 * i);
  return v;
}

void writeLE(std::vector<uint8_t> &out, uint64_t v, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i)
    out.push_back(uint8_t(v >> (8 * i)));
}

bool isElf(const uint8_t *p, uint64_t size) {
  return size >= 4 && p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F';
}

// Fills the key fields of |slice| from the ELF header at |p|.
bool sliceKey(const uint8_t *p, uint64_t size, FatElfSlice &slice,
              std::string &error) {
  if (!isElf(p, size)) {
    error = "is not an ELF file (no \\x7fELF magic)";
    return false;
  }
  // The smaller header first: what is read below lies in any ELF header.
  if (size < kElf32Header) {
    error = "is too small for an ELF header: " + std::to_string(size) +
            " bytes, expected at least " + std::to_string(kElf32Header);
    return false;
  }
  slice.wordSize = p[kEiClass];
  slice.byteOrder = p[kEiData];
  slice.osabi = p[kEiOsabi];
  slice.osabiVersion = p[kEiAbiVersion];
  if (slice.wordSize != 1 && slice.wordSize != 2) {
    error = "has ELF class " + std::to_string(slice.wordSize) +
            ", expected 1 (32-bit) or 2 (64-bit)";
    return false;
  }
  if (slice.wordSize == 2 && size < kElf64Header) {
    error = "is too small for an ELF64 header: " + std::to_string(size) +
            " bytes, expected at least " + std::to_string(kElf64Header);
    return false;
  }
  if (slice.byteOrder == 1) {
    slice.machine = uint16_t(readLE(p + kEMachineOffset, 2));
  } else if (slice.byteOrder == 2) {
    slice.machine = uint16_t(p[kEMachineOffset] << 8 | p[kEMachineOffset + 1]);
  } else {
    error = "has ELF data encoding " + std::to_string(slice.byteOrder) +
            ", expected 1 (little endian) or 2 (big endian)";
    return false;
  }
  return true;
}

bool sameKey(const FatElfSlice &a, const FatElfSlice &b) {
  return a.machine == b.machine && a.osabi == b.osabi &&
         a.osabiVersion == b.osabiVersion && a.wordSize == b.wordSize &&
         a.byteOrder == b.byteOrder;
}

// Index of an earlier slice with the key of slices[i], or -1.
int findDuplicate(const std::vector<FatElfSlice> &slices, size_t i) {
  for (size_t j = 0; j < i; ++j)
    if (sameKey(slices[j], slices[i]))
      return int(j);
  return -1;
}

uint64_t alignUp(uint64_t v) {
  return (v + kFatElfAlign - 1) / kFatElfAlign * kFatElfAlign;
}

} // namespace

std::string elfMachineName(uint16_t machine) {
  if (const TargetInfo *t = lookupTargetByMachine(machine))
    return t->name;
  char buf[32];
  std::snprintf(buf, sizeof buf, "machine 0x%x", machine);
  return buf;
}

bool writeFatElf(const std::vector<std::vector<uint8_t>> &slices,
                 std::vector<uint8_t> &out, std::string &error) {
  if (slices.empty()) {
    error = "a FatELF file needs at least one slice, got none";
    return false;
  }
  if (slices.size() > kMaxRecords) {
    error = "a FatELF file holds at most 255 slices, got " +
            std::to_string(slices.size());
    return false;
  }
  std::vector<FatElfSlice> records(slices.size());
  uint64_t offset =
      alignUp(kFatElfHeaderSize + kFatElfRecordSize * slices.size());
  for (size_t i = 0; i < slices.size(); ++i) {
    std::string why;
    if (!sliceKey(slices[i].data(), slices[i].size(), records[i], why)) {
      error = "slice " + std::to_string(i) + " " + why;
      return false;
    }
    int dup = findDuplicate(records, i);
    if (dup >= 0) {
      error = "slices " + std::to_string(dup) + " and " + std::to_string(i) +
              " are both for " + elfMachineName(records[i].machine) +
              " (same machine, OS ABI, word size and byte order)";
      return false;
    }
    records[i].offset = offset;
    records[i].size = slices[i].size();
    offset = alignUp(offset + slices[i].size());
  }

  out.clear();
  writeLE(out, kFatElfMagic, 4);
  writeLE(out, kFatElfVersion, 2);
  writeLE(out, slices.size(), 1);
  writeLE(out, 0, 1);
  for (const FatElfSlice &r : records) {
    writeLE(out, r.machine, 2);
    writeLE(out, r.osabi, 1);
    writeLE(out, r.osabiVersion, 1);
    writeLE(out, r.wordSize, 1);
    writeLE(out, r.byteOrder, 1);
    writeLE(out, 0, 2);
    writeLE(out, r.offset, 8);
    writeLE(out, r.size, 8);
  }
  for (size_t i = 0; i < slices.size(); ++i) {
    out.resize(records[i].offset, 0);
    out.insert(out.end(), slices[i].begin(), slices[i].end());
  }
  return true;
}

static bool readRecords(const std::vector<uint8_t> &data,
                        std::vector<FatElfSlice> &slices, std::string &error) {
  const uint8_t *p = data.data();
  const uint64_t size = data.size();
  if (isElf(p, size)) {
    FatElfSlice whole;
    std::string why;
    if (!sliceKey(p, size, whole, why)) {
      error = "the ELF file " + why;
      return false;
    }
    whole.offset = 0;
    whole.size = size;
    slices.push_back(whole);
    return true;
  }
  if (size < kFatElfHeaderSize || readLE(p, 4) != kFatElfMagic) {
    error = "not a FatELF or ELF file: expected magic 0x1f0e70fa or \\x7fELF";
    return false;
  }
  uint64_t version = readLE(p + 4, 2);
  if (version != kFatElfVersion) {
    error = "FatELF version " + std::to_string(version) +
            " is not supported, expected 1";
    return false;
  }
  size_t count = p[6];
  if (count == 0) {
    error = "FatELF file has no slices";
    return false;
  }
  if (p[7] != 0) {
    error = "FatELF header's reserved byte (offset 7) is " +
            std::to_string(p[7]) + ", expected 0";
    return false;
  }
  const uint64_t tableEnd = kFatElfHeaderSize + kFatElfRecordSize * count;
  if (tableEnd > size) {
    error = "FatELF file is truncated: " + std::to_string(count) +
            " records need " + std::to_string(tableEnd) +
            " bytes, the file has " + std::to_string(size);
    return false;
  }
  for (size_t i = 0; i < count; ++i) {
    const uint8_t *r = p + kFatElfHeaderSize + kFatElfRecordSize * i;
    FatElfSlice s;
    s.machine = uint16_t(readLE(r, 2));
    s.osabi = r[2];
    s.osabiVersion = r[3];
    s.wordSize = r[4];
    s.byteOrder = r[5];
    s.offset = readLE(r + 8, 8);
    s.size = readLE(r + 16, 8);
    const std::string which = "FatELF record " + std::to_string(i) + " (" +
                              elfMachineName(s.machine) + ")";
    if (r[6] != 0 || r[7] != 0) {
      error = which + ": reserved bytes are " + std::to_string(r[6]) + ", " +
              std::to_string(r[7]) + ", expected 0";
      return false;
    }
    // Written to avoid overflow: offset + size may wrap for hostile input.
    if (s.offset < tableEnd || s.offset > size || s.size > size - s.offset) {
      error = which + " covers bytes [" + std::to_string(s.offset) + ", +" +
              std::to_string(s.size) + ") outside the slice area [" +
              std::to_string(tableEnd) + ", " + std::to_string(size) + ")";
      return false;
    }
    // The runtime maps slices from page boundaries; the writer aligns them.
    if (s.offset % kFatElfAlign != 0) {
      error = which + " starts at offset " + std::to_string(s.offset) +
              ", which is not a multiple of 4096";
      return false;
    }
    for (size_t j = 0; j < slices.size(); ++j) {
      const FatElfSlice &o = slices[j];
      if (s.offset < o.offset + o.size && o.offset < s.offset + s.size) {
        error = which + " overlaps record " + std::to_string(j) + " (" +
                elfMachineName(o.machine) + ")";
        return false;
      }
    }
    FatElfSlice fromElf;
    std::string why;
    if (!sliceKey(p + s.offset, s.size, fromElf, why)) {
      error = which + ": the slice " + why;
      return false;
    }
    // The spec: never trust the record, check it against the real header.
    const struct {
      const char *field;
      std::string record, elf;
    } fields[] = {
        {"machine", elfMachineName(s.machine), elfMachineName(fromElf.machine)},
        {"OS ABI", std::to_string(s.osabi), std::to_string(fromElf.osabi)},
        {"OS ABI version", std::to_string(s.osabiVersion),
         std::to_string(fromElf.osabiVersion)},
        {"word size (ELF class)", std::to_string(s.wordSize),
         std::to_string(fromElf.wordSize)},
        {"byte order (ELF data)", std::to_string(s.byteOrder),
         std::to_string(fromElf.byteOrder)}};
    for (const auto &f : fields)
      if (f.record != f.elf) {
        error = which + " says " + f.field + " " + f.record +
                ", but its slice's ELF header says " + f.elf;
        return false;
      }
    slices.push_back(s);
    int dup = findDuplicate(slices, i);
    if (dup >= 0) {
      error = "FatELF records " + std::to_string(dup) + " and " +
              std::to_string(i) + " are both for " + elfMachineName(s.machine);
      return false;
    }
  }
  return true;
}

bool readFatElf(const std::vector<uint8_t> &data,
                std::vector<FatElfSlice> &slices, std::string &error) {
  slices.clear();
  if (readRecords(data, slices, error))
    return true;
  slices.clear(); // never hand out a half-read list
  return false;
}

} // namespace graft
