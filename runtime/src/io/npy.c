/* NumPy .npy files, format versions 1.0, 2.0 and 3.0, C order, little-endian.
 *
 * Layout: "\x93NUMPY", major, minor, header length (u16 for 1.x, u32 for
 * 2.x/3.x), then a Python dict literal
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }
 * padded with spaces to a multiple of 64 bytes and ended by '\n', then the
 * raw elements. The header is validated strictly: exactly these three keys,
 * nothing after the dict but padding. Spec:
 * https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
 * The runtime only targets little-endian hosts, so '<' data is used as is. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

static const uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/* The longest header graft reads (numpy writes a few hundred bytes; its own
 * reader refuses more than 10000 by default), and so the longest prefix
 * (preamble + header) read before the data. */
#define GRAFT_NPY_MAX_HEADER 65536u
#define NPY_PREFIX_MAX (12u + GRAFT_NPY_MAX_HEADER)

static const struct {
  const char* descr;
  uint32_t dtype;
} kDescrs[] = {
    {"<f4", GRAFT_DTYPE_F32}, {"<f8", GRAFT_DTYPE_F64},
    {"<f2", GRAFT_DTYPE_F16}, {"<i4", GRAFT_DTYPE_I32},
    {"<i8", GRAFT_DTYPE_I64}, {"<i2", GRAFT_DTYPE_I16},
    {"|i1", GRAFT_DTYPE_I8},  {"|b1", GRAFT_DTYPE_I1},
};

typedef struct {
  const char* path;
  const char* p;   /* cursor in the header dict */
  const char* end;
  const char* begin;
} header_parser_t;

static graft_status_t header_error(const header_parser_t* hp, const char* what) {
  return graft_status_make(GRAFT_INVALID_ARGUMENT,
                           "'%s': malformed .npy header at offset %d: %s",
                           hp->path, (int)(hp->p - hp->begin), what);
}

static void skip_space(header_parser_t* hp) {
  while (hp->p < hp->end && (*hp->p == ' ' || *hp->p == '\t')) ++hp->p;
}

static int consume(header_parser_t* hp, char c) {
  skip_space(hp);
  if (hp->p < hp->end && *hp->p == c) {
    ++hp->p;
    return 1;
  }
  return 0;
}

/* A quoted Python string (no escapes: none of our keys or values need them). */
static graft_status_t parse_string(header_parser_t* hp, const char** out,
                                   size_t* out_len) {
  skip_space(hp);
  if (hp->p >= hp->end || (*hp->p != '\'' && *hp->p != '"'))
    return header_error(hp, "expected a quoted string");
  char quote = *hp->p++;
  const char* start = hp->p;
  while (hp->p < hp->end && *hp->p != quote) ++hp->p;
  if (hp->p >= hp->end) return header_error(hp, "unterminated string");
  *out = start;
  *out_len = (size_t)(hp->p - start);
  ++hp->p;
  return NULL;
}

static graft_status_t parse_shape(header_parser_t* hp, uint32_t* out_rank,
                                  int64_t* dims) {
  if (!consume(hp, '(')) return header_error(hp, "expected '(' for the shape");
  uint32_t rank = 0;
  skip_space(hp);
  while (!consume(hp, ')')) {
    skip_space(hp);
    if (hp->p >= hp->end || !isdigit((unsigned char)*hp->p))
      return header_error(hp, "expected a dimension");
    if (rank == GRAFT_MAX_RANK)
      return header_error(hp, "rank exceeds the maximum of 8");
    int64_t dim = 0;
    while (hp->p < hp->end && isdigit((unsigned char)*hp->p)) {
      if (__builtin_mul_overflow(dim, 10, &dim) ||
          __builtin_add_overflow(dim, *hp->p - '0', &dim))
        return header_error(hp, "dimension overflows 64 bits");
      ++hp->p;
    }
    dims[rank++] = dim;
    if (!consume(hp, ',')) {
      if (!consume(hp, ')')) return header_error(hp, "expected ',' or ')'");
      break;
    }
  }
  *out_rank = rank;
  return NULL;
}

/* Parses the header dict into dtype/rank/dims. */
static graft_status_t parse_header(header_parser_t* hp, uint32_t* out_dtype,
                                   uint32_t* out_rank, int64_t* dims) {
  int have_descr = 0, have_order = 0, have_shape = 0;
  graft_status_t status = NULL;
  if (!consume(hp, '{')) return header_error(hp, "expected '{'");
  while (!consume(hp, '}')) {
    const char* key;
    size_t key_len;
    if ((status = parse_string(hp, &key, &key_len))) return status;
    if (!consume(hp, ':')) return header_error(hp, "expected ':'");
    if (key_len == 5 && memcmp(key, "descr", 5) == 0 && !have_descr) {
      const char* descr;
      size_t len;
      if ((status = parse_string(hp, &descr, &len))) return status;
      *out_dtype = GRAFT_DTYPE_INVALID;
      for (size_t i = 0; i < sizeof(kDescrs) / sizeof(kDescrs[0]); ++i)
        if (strlen(kDescrs[i].descr) == len &&
            memcmp(kDescrs[i].descr, descr, len) == 0)
          *out_dtype = kDescrs[i].dtype;
      if (*out_dtype == GRAFT_DTYPE_INVALID)
        return graft_status_make(
            GRAFT_UNIMPLEMENTED,
            "'%s': unsupported .npy dtype '%.*s' (supported: <f2 <f4 <f8 |i1 "
            "<i2 <i4 <i8 |b1, little-endian)",
            hp->path, (int)len, descr);
      have_descr = 1;
    } else if (key_len == 13 && memcmp(key, "fortran_order", 13) == 0 &&
               !have_order) {
      skip_space(hp);
      if ((size_t)(hp->end - hp->p) >= 4 && memcmp(hp->p, "True", 4) == 0)
        return graft_status_make(GRAFT_UNIMPLEMENTED,
                                 "'%s': fortran_order arrays are not "
                                 "supported; save a C-order array "
                                 "(numpy.ascontiguousarray)",
                                 hp->path);
      if ((size_t)(hp->end - hp->p) < 5 || memcmp(hp->p, "False", 5) != 0)
        return header_error(hp, "expected True or False");
      hp->p += 5;
      have_order = 1;
    } else if (key_len == 5 && memcmp(key, "shape", 5) == 0 && !have_shape) {
      if ((status = parse_shape(hp, out_rank, dims))) return status;
      have_shape = 1;
    } else {
      return graft_status_make(GRAFT_INVALID_ARGUMENT,
                               "'%s': unexpected or repeated .npy header key "
                               "'%.*s'",
                               hp->path, (int)key_len, key);
    }
    if (!consume(hp, ',')) {
      if (!consume(hp, '}')) return header_error(hp, "expected ',' or '}'");
      break;
    }
  }
  if (!have_descr || !have_order || !have_shape)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "'%s': .npy header lacks '%s'", hp->path,
                             !have_descr ? "descr"
                             : !have_order ? "fortran_order"
                                           : "shape");
  while (hp->p < hp->end && *hp->p == ' ') ++hp->p;
  if (hp->p + 1 != hp->end || *hp->p != '\n')
    return header_error(hp, "expected space padding and a final newline");
  return NULL;
}

/* Where a .npy file's elements are and what they are. */
typedef struct npy_layout_t {
  uint32_t dtype;
  uint32_t rank;
  int64_t dims[GRAFT_MAX_RANK];
  uint64_t data_offset; /* preamble + header */
} npy_layout_t;

/* Parses the preamble and header dict from |bytes|, the first |size| bytes
 * of the file (at least NPY_PREFIX_MAX of them when the file has that
 * many). */
static graft_status_t parse_prefix(const char* path, const uint8_t* bytes,
                                   size_t size, npy_layout_t* out) {
  memset(out, 0, sizeof(*out));
  if (size < 10 || memcmp(bytes, kMagic, 6) != 0)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "'%s' is not a .npy file (bad magic)", path);
  uint8_t major = bytes[6], minor = bytes[7];
  size_t header_len, data_start;
  if (major == 1) {
    header_len = (size_t)bytes[8] | (size_t)bytes[9] << 8;
    data_start = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12)
      return graft_status_make(GRAFT_DATA_LOSS, "'%s': truncated .npy header",
                               path);
    header_len = (size_t)bytes[8] | (size_t)bytes[9] << 8 |
                 (size_t)bytes[10] << 16 | (size_t)bytes[11] << 24;
    data_start = 12;
  } else {
    return graft_status_make(GRAFT_UNIMPLEMENTED,
                             "'%s': unsupported .npy version %u.%u", path,
                             major, minor);
  }
  if (minor != 0)
    return graft_status_make(GRAFT_UNIMPLEMENTED,
                             "'%s': unsupported .npy version %u.%u", path,
                             major, minor);
  if (header_len > GRAFT_NPY_MAX_HEADER)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "'%s': .npy header of %zu bytes is larger than "
                             "the maximum of %u",
                             path, header_len, GRAFT_NPY_MAX_HEADER);
  if (header_len > size - data_start)
    return graft_status_make(GRAFT_DATA_LOSS, "'%s': truncated .npy header",
                             path);
  header_parser_t hp = {path, (const char*)bytes + data_start,
                        (const char*)bytes + data_start + header_len,
                        (const char*)bytes + data_start};
  out->data_offset = data_start + header_len;
  return parse_header(&hp, &out->dtype, &out->rank, out->dims);
}

/* The file's |data_size| bytes after the header must be exactly what the
 * shape needs; checked before allocating, so a tiny file cannot make us
 * allocate and zero gigabytes only to reject it. A zero dim makes the
 * tensor empty whatever the other dims are. */
static graft_status_t check_data_size(const char* path,
                                      const npy_layout_t* layout,
                                      uint64_t data_size) {
  uint64_t expected = graft_dtype_size(layout->dtype);
  int empty = 0, overflow = 0;
  for (uint32_t i = 0; i < layout->rank; ++i) {
    empty |= layout->dims[i] == 0;
    overflow |=
        __builtin_mul_overflow(expected, (uint64_t)layout->dims[i], &expected);
  }
  if (empty) expected = 0;
  if ((overflow && !empty) || expected != data_size) {
    char shape[32] = "more than 2^64";
    if (!overflow || empty)
      snprintf(shape, sizeof(shape), "%llu", (unsigned long long)expected);
    return graft_status_make(GRAFT_DATA_LOSS,
                             "'%s': expected %s data bytes, found %llu", path,
                             shape, (unsigned long long)data_size);
  }
  return NULL;
}

/* numpy bools are 0/1 already; normalise anything else defensively. */
static void normalize_bools(graft_tensor_t* t) {
  if (t->dtype != GRAFT_DTYPE_I1) return;
  uint8_t* b = t->data;
  for (uint64_t i = 0; i < t->size; ++i) b[i] = b[i] != 0;
}

graft_status_t graft_io_npy_decode(const char* path, const uint8_t* bytes,
                                   size_t size, graft_tensor_t* out) {
  memset(out, 0, sizeof(*out));
  npy_layout_t layout;
  graft_status_t status = parse_prefix(path, bytes, size, &layout);
  if (!status) status = check_data_size(path, &layout, size - layout.data_offset);
  if (status) return status;
  status = graft_tensor_allocate(layout.dtype, layout.rank, layout.dims, out);
  if (status) return graft_status_annotate(status, "'%s'", path);
  if (out->size) memcpy(out->data, bytes + layout.data_offset, out->size);
  normalize_bools(out);
  return NULL;
}

/* Reads the header, then exactly the bytes its shape needs: the file's
 * size must match before anything else is read or allocated. */
graft_status_t graft_tensor_read_npy(const char* path, graft_tensor_t* out) {
  memset(out, 0, sizeof(*out));
  graft_io_file_t file;
  graft_status_t status = graft_io_file_open(path, &file);
  if (status) return status;
  size_t prefix_size = file.size < NPY_PREFIX_MAX ? (size_t)file.size
                                                 : NPY_PREFIX_MAX;
  uint8_t* prefix = malloc(prefix_size ? prefix_size : 1);
  npy_layout_t layout;
  status = prefix ? graft_io_file_read(&file, 0, prefix, prefix_size)
                  : graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                                      "out of memory reading '%s'", path);
  if (!status) status = parse_prefix(path, prefix, prefix_size, &layout);
  if (!status)
    status = check_data_size(path, &layout, file.size - layout.data_offset);
  if (!status) {
    status = graft_tensor_allocate(layout.dtype, layout.rank, layout.dims, out);
    if (status) status = graft_status_annotate(status, "'%s'", path);
  }
  if (!status && out->size)
    status = graft_io_file_read(&file, layout.data_offset, out->data,
                                (size_t)out->size);
  graft_io_file_close(&file);
  free(prefix);
  if (status) {
    graft_tensor_release(out);
    return status;
  }
  normalize_bools(out);
  return NULL;
}

graft_status_t graft_tensor_write_npy(const char* path,
                                      const graft_tensor_t* t) {
  const char* descr = NULL;
  uint32_t dtype = t->dtype == GRAFT_DTYPE_INDEX ? GRAFT_DTYPE_I64 : t->dtype;
  for (size_t i = 0; i < sizeof(kDescrs) / sizeof(kDescrs[0]); ++i)
    if (kDescrs[i].dtype == dtype) descr = kDescrs[i].descr;
  if (!descr)
    return graft_status_make(GRAFT_UNIMPLEMENTED,
                             "cannot write '%s': %s has no .npy dtype", path,
                             graft_dtype_name(t->dtype));
  if (t->rank > GRAFT_MAX_RANK)
    return graft_status_make(GRAFT_INVALID_ARGUMENT, "rank %u is too large",
                             t->rank);
  uint64_t bytes = graft_tensor_element_count(t) * graft_dtype_size(t->dtype);
  if (bytes > t->size)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "cannot write '%s': tensor holds %llu bytes, its "
                             "shape needs %llu",
                             path, (unsigned long long)t->size,
                             (unsigned long long)bytes);
  /* Header: 10 fixed bytes + dict + padding + '\n', a multiple of 64. */
  char header[512];
  int n = snprintf(header, sizeof(header),
                   "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (uint32_t i = 0; i < t->rank; ++i)
    n += snprintf(header + n, sizeof(header) - (size_t)n, "%s%lld",
                  i ? ", " : "", (long long)t->dims[i]);
  n += snprintf(header + n, sizeof(header) - (size_t)n, "%s), }",
                t->rank == 1 ? "," : "");
  size_t total = ((size_t)n + 10 + 1 + 63) / 64 * 64;
  size_t header_len = total - 10;
  memset(header + n, ' ', header_len - 1 - (size_t)n);
  header[header_len - 1] = '\n';

  FILE* f = fopen(path, "wb");
  if (!f)
    return graft_status_make(GRAFT_NOT_FOUND, "cannot open '%s': %s", path,
                             strerror(errno));
  uint8_t prefix[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                        (uint8_t)(header_len & 0xff), (uint8_t)(header_len >> 8)};
  int ok = fwrite(prefix, 1, 10, f) == 10 &&
           fwrite(header, 1, header_len, f) == header_len &&
           (bytes == 0 || fwrite(t->data, 1, (size_t)bytes, f) == bytes);
  int saved_errno = errno;
  if (fclose(f) != 0 && ok) {
    ok = 0;
    saved_errno = errno;
  }
  if (!ok)
    return graft_status_make(GRAFT_DATA_LOSS, "cannot write '%s': %s", path,
                             strerror(saved_errno));
  return NULL;
}
