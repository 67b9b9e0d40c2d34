/* FatELF bundles: several ELF slices, one per architecture, in one file.
 *
 * Format (https://icculus.org/fatelf/, all little-endian):
 *   header  u32 magic 0x1F0E70FA, u16 version (1), u8 num_records, u8 pad
 *   record  u16 machine, u8 osabi, u8 osabi_version, u8 word_size,
 *           u8 byte_order, u8 pad[2], u64 offset, u64 size      (24 bytes)
 * Slices start on 4096-byte boundaries after the record table and do not
 * overlap. A plain ELF file is accepted as a bundle of one slice so that
 * `graft build --target <one>` output and hand-built slices load the same
 * way. Every field is bounds-checked and, as the FatELF spec asks, reserved
 * fields must be zero and each record must agree with its slice's own ELF
 * header: the file is untrusted input. lib/bundle/FatElf.cpp is the
 * compiler's reader of the same format, equally strict. */
#include <stdio.h>
#include <string.h>

#include "arch/arch.h"
#include "elf_format.h"
#include "loader.h"

#define FATELF_MAGIC 0x1F0E70FAu
#define FATELF_VERSION 1u
#define FATELF_HEADER_SIZE 8u
#define FATELF_RECORD_SIZE 24u
#define FATELF_ALIGNMENT 4096u

#define OSABI_NONE 0u
#define OSABI_LINUX 3u
#define OSABI_STANDALONE 255u

static uint16_t read_u16(const uint8_t* p) {
  return (uint16_t)(p[0] | (p[1] << 8));
}
static uint32_t read_u32(const uint8_t* p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
         ((uint32_t)p[3] << 24);
}
static uint64_t read_u64(const uint8_t* p) {
  return (uint64_t)read_u32(p) | ((uint64_t)read_u32(p + 4) << 32);
}

const char* graft_elf_machine_name(uint16_t machine) {
  const graft_elf_arch_t* arch = graft_elf_arch_lookup(machine);
  if (arch) return arch->name;
  /* Unknown machines get a stable per-thread buffer so the caller can
   * format several names into one message. */
  static _Thread_local char buffers[4][24];
  static _Thread_local unsigned next;
  char* buffer = buffers[next++ % 4];
  snprintf(buffer, sizeof(buffers[0]), "machine 0x%x", machine);
  return buffer;
}

/* The FatELF record key of the ELF file at |data|: machine, OS ABI and its
 * version, class and byte order, as its own header says. */
static graft_status_t read_elf_key(const uint8_t* data, uint64_t size,
                                   graft_fatelf_slice_t* out_key) {
  if (size < 20 || memcmp(data, "\x7f" "ELF", 4) != 0) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             size < 20 ? "truncated ELF header: %llu bytes"
                                       : "not an ELF file (no \\x7fELF magic, "
                                         "%llu bytes)",
                             (unsigned long long)size);
  }
  uint8_t byte_order = data[GRAFT_EI_DATA];
  out_key->machine = byte_order == GRAFT_ELFDATA2LSB
                         ? read_u16(data + 18)
                         : (uint16_t)((data[18] << 8) | data[19]);
  out_key->osabi = data[GRAFT_EI_OSABI];
  out_key->osabi_version = data[GRAFT_EI_ABIVERSION];
  out_key->word_size = data[GRAFT_EI_CLASS];
  out_key->byte_order = byte_order;
  return NULL;
}

static int same_key(const graft_fatelf_slice_t* a,
                    const graft_fatelf_slice_t* b) {
  return a->machine == b->machine && a->osabi == b->osabi &&
         a->osabi_version == b->osabi_version &&
         a->word_size == b->word_size && a->byte_order == b->byte_order;
}

/* The spec says not to trust a record: its key must be its slice's. */
static graft_status_t check_record_key(const uint8_t* data, size_t index,
                                       const graft_fatelf_slice_t* record) {
  graft_fatelf_slice_t elf;
  graft_status_t status =
      read_elf_key(data + record->offset, record->size, &elf);
  if (status) {
    return graft_status_annotate(status, "FatELF slice %zu (%s)", index,
                                 graft_elf_machine_name(record->machine));
  }
  if (same_key(record, &elf)) return NULL;
  return graft_status_make(
      GRAFT_DATA_LOSS,
      "FatELF slice %zu's record (%s, OS ABI %u version %u, class %u, data "
      "%u) does not match its ELF header (%s, OS ABI %u version %u, class %u, "
      "data %u)",
      index, graft_elf_machine_name(record->machine), record->osabi,
      record->osabi_version, record->word_size, record->byte_order,
      graft_elf_machine_name(elf.machine), elf.osabi, elf.osabi_version,
      elf.word_size, elf.byte_order);
}

static void read_record(const uint8_t* p, graft_fatelf_slice_t* out) {
  out->machine = read_u16(p);
  out->osabi = p[2];
  out->osabi_version = p[3];
  out->word_size = p[4];
  out->byte_order = p[5];
  out->offset = read_u64(p + 8);
  out->size = read_u64(p + 16);
}

graft_status_t graft_fatelf_list(const uint8_t* data, size_t size,
                                 graft_fatelf_slice_t* out_slices,
                                 size_t capacity, size_t* out_count) {
  *out_count = 0;
  if (!data || size < 4) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "not a graft bundle: %zu bytes is too short for "
                             "a FatELF or ELF header",
                             size);
  }
  if (memcmp(data, "\x7f" "ELF", 4) == 0) {
    graft_fatelf_slice_t slice;
    graft_status_t status = read_elf_key(data, size, &slice);
    if (status) return status;
    slice.offset = 0;
    slice.size = size;
    if (capacity > 0) out_slices[0] = slice;
    *out_count = 1;
    return NULL;
  }
  uint32_t magic = read_u32(data);
  if (magic != FATELF_MAGIC) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "not a graft bundle: expected FatELF magic "
                             "0x1f0e70fa or an ELF header, found 0x%08x",
                             magic);
  }
  if (size < FATELF_HEADER_SIZE) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "truncated FatELF header: %zu bytes, expected 8",
                             size);
  }
  uint16_t version = read_u16(data + 4);
  if (version != FATELF_VERSION) {
    return graft_status_make(GRAFT_UNIMPLEMENTED,
                             "FatELF version %u is not supported (expected 1)",
                             version);
  }
  size_t count = data[6];
  if (count == 0) {
    return graft_status_make(GRAFT_DATA_LOSS, "FatELF bundle has no slices");
  }
  if (data[7] != 0) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "FatELF header's reserved byte is %u, expected 0",
                             data[7]);
  }
  size_t table_end = FATELF_HEADER_SIZE + count * FATELF_RECORD_SIZE;
  if (size < table_end) {
    return graft_status_make(GRAFT_DATA_LOSS,
                             "truncated FatELF record table: %zu records need "
                             "%zu bytes, file has %zu",
                             count, table_end, size);
  }
  for (size_t i = 0; i < count; ++i) {
    graft_fatelf_slice_t slice;
    const uint8_t* record = data + FATELF_HEADER_SIZE + i * FATELF_RECORD_SIZE;
    read_record(record, &slice);
    const char* name = graft_elf_machine_name(slice.machine);
    if (record[6] != 0 || record[7] != 0) {
      return graft_status_make(GRAFT_DATA_LOSS,
                               "FatELF slice %zu (%s) has reserved bytes %u, "
                               "%u, expected 0",
                               i, name, record[6], record[7]);
    }
    if (slice.size == 0) {
      return graft_status_make(GRAFT_DATA_LOSS,
                               "FatELF slice %zu (%s) is empty", i, name);
    }
    if (slice.offset < table_end) {
      return graft_status_make(GRAFT_DATA_LOSS,
                               "FatELF slice %zu (%s) at offset %llu overlaps "
                               "the header, which ends at %zu",
                               i, name, (unsigned long long)slice.offset,
                               table_end);
    }
    if (slice.offset % FATELF_ALIGNMENT != 0) {
      return graft_status_make(GRAFT_DATA_LOSS,
                               "FatELF slice %zu (%s) offset 0x%llx is not "
                               "aligned to 4096",
                               i, name, (unsigned long long)slice.offset);
    }
    if (slice.size > size || slice.offset > size - slice.size) {
      return graft_status_make(GRAFT_DATA_LOSS,
                               "FatELF slice %zu (%s) [%llu, +%llu) extends "
                               "past the end of the file (%zu bytes)",
                               i, name, (unsigned long long)slice.offset,
                               (unsigned long long)slice.size, size);
    }
    /* Both ranges are inside the file now, so the sums cannot overflow. */
    for (size_t j = 0; j < i; ++j) {
      graft_fatelf_slice_t other;
      read_record(data + FATELF_HEADER_SIZE + j * FATELF_RECORD_SIZE, &other);
      if (slice.offset < other.offset + other.size &&
          other.offset < slice.offset + slice.size) {
        return graft_status_make(GRAFT_DATA_LOSS,
                                 "FatELF slices %zu and %zu overlap", j, i);
      }
      if (same_key(&slice, &other)) {
        return graft_status_make(GRAFT_DATA_LOSS,
                                 "FatELF slices %zu and %zu are both for %s",
                                 j, i, name);
      }
    }
    graft_status_t status = check_record_key(data, i, &slice);
    if (status) return status;
    if (i < capacity) out_slices[i] = slice;
  }
  *out_count = count;
  return NULL;
}

static int slice_fits_host(const graft_fatelf_slice_t* slice,
                           const graft_elf_arch_t* host) {
  return host && slice->machine == host->machine &&
         slice->word_size == host->elf_class &&
         slice->byte_order == GRAFT_ELFDATA2LSB &&
         (slice->osabi == OSABI_NONE || slice->osabi == OSABI_LINUX ||
          slice->osabi == OSABI_STANDALONE);
}

/* Appends ", name" for the error listing; qualifies slices that have the
 * word size or byte order their machine's target does not use, or a foreign
 * OS ABI. */
static void append_slice_name(char* buffer, size_t capacity,
                              const graft_fatelf_slice_t* slice, int first) {
  size_t used = strlen(buffer);
  if (used >= capacity) return;
  const graft_elf_arch_t* arch = graft_elf_arch_lookup(slice->machine);
  const char* qualifier = "";
  char osabi[24] = "";
  if (arch && slice->word_size != arch->elf_class) {
    qualifier = arch->elf_class == GRAFT_ELFCLASS64 ? " (not 64-bit)"
                                                    : " (not 32-bit)";
  } else if (slice->byte_order != GRAFT_ELFDATA2LSB) {
    qualifier = " (big-endian)";
  } else if (slice->osabi != OSABI_NONE && slice->osabi != OSABI_LINUX &&
             slice->osabi != OSABI_STANDALONE) {
    snprintf(osabi, sizeof(osabi), " (OS ABI %u)", slice->osabi);
    qualifier = osabi;
  }
  snprintf(buffer + used, capacity - used, "%s%s%s", first ? "" : ", ",
           graft_elf_machine_name(slice->machine), qualifier);
}

graft_status_t graft_fatelf_select_host(const uint8_t* data, size_t size,
                                        graft_fatelf_slice_t* out_slice) {
  memset(out_slice, 0, sizeof(*out_slice));
  graft_fatelf_slice_t slices[256];
  size_t count = 0;
  graft_status_t status =
      graft_fatelf_list(data, size, slices, sizeof(slices) / sizeof(slices[0]),
                        &count);
  if (status) return status;
  const graft_elf_arch_t* host = graft_elf_arch_host();
  for (size_t i = 0; i < count; ++i) {
    if (slice_fits_host(&slices[i], host)) {
      *out_slice = slices[i];
      return NULL;
    }
  }
  char names[512] = "";
  for (size_t i = 0; i < count; ++i) {
    append_slice_name(names, sizeof(names), &slices[i], i == 0);
  }
  return graft_status_make(GRAFT_NOT_FOUND,
                           "no slice for this CPU (%s); the file has: %s",
                           host ? host->name : "unknown", names);
}
