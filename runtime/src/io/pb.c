/* ONNX TensorProto files (.pb, the ONNX backend tests' input_N.pb and
 * output_N.pb): a small bounded reader and writer for the fields a dense
 * tensor needs, without a protobuf library.
 *
 * Read: dims (1), data_type (2), float_data (4), int32_data (5),
 * int64_data (7), raw_data (9), double_data (10), data_location (14);
 * repeated numeric fields packed or not; name, doc_string, segment and
 * unknown fields are skipped by wire type. Refused: STRING and unsigned /
 * complex types (graft has none), external data, groups, and anything that
 * runs past the end of the file or disagrees with the shape. Write: dims,
 * data_type and raw_data (little-endian), which every ONNX reader accepts.
 * Wire format: https://protobuf.dev/programming-guides/encoding/ */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

/* The largest .pb file graft reads. */
#define GRAFT_PB_MAX_FILE (1ull << 32)

enum {
  kWireVarint = 0, kWire64 = 1, kWireLen = 2, kWire32 = 5,
};

/* ONNX TensorProto.DataType -> graft dtype. */
static const struct {
  int32_t onnx;
  uint32_t dtype;
  const char* name;
} kTypes[] = {
    {1, GRAFT_DTYPE_F32, "FLOAT"},   {11, GRAFT_DTYPE_F64, "DOUBLE"},
    {10, GRAFT_DTYPE_F16, "FLOAT16"}, {16, GRAFT_DTYPE_BF16, "BFLOAT16"},
    {3, GRAFT_DTYPE_I8, "INT8"},     {5, GRAFT_DTYPE_I16, "INT16"},
    {6, GRAFT_DTYPE_I32, "INT32"},   {7, GRAFT_DTYPE_I64, "INT64"},
    {9, GRAFT_DTYPE_I1, "BOOL"},
};

typedef struct {
  const char* path;
  const uint8_t* begin;
  const uint8_t* p;
  const uint8_t* end;
} reader_t;

static graft_status_t pb_error(const reader_t* r, const char* what) {
  return graft_status_make(GRAFT_INVALID_ARGUMENT,
                           "'%s': malformed TensorProto at offset %lld: %s",
                           r->path, (long long)(r->p - r->begin), what);
}

static int read_varint(reader_t* r, uint64_t* out) {
  uint64_t v = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (r->p >= r->end) return 0;
    uint8_t b = *r->p++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return 1;
    }
  }
  return 0;
}

/* A length-delimited payload: [*data, *data + *len). */
static int read_len(reader_t* r, const uint8_t** data, uint64_t* len) {
  if (!read_varint(r, len) || *len > (uint64_t)(r->end - r->p)) return 0;
  *data = r->p;
  r->p += *len;
  return 1;
}

static int skip_field(reader_t* r, uint32_t wire) {
  uint64_t v;
  const uint8_t* d;
  switch (wire) {
    case kWireVarint: return read_varint(r, &v);
    case kWire64:
      if (r->end - r->p < 8) return 0;
      r->p += 8;
      return 1;
    case kWire32:
      if (r->end - r->p < 4) return 0;
      r->p += 4;
      return 1;
    case kWireLen: return read_len(r, &d, &v);
    default: return 0; /* groups (3, 4) and invalid wire types */
  }
}

/* What the first pass finds: the header fields, and where the elements
 * are. */
typedef struct {
  uint32_t rank;
  int64_t dims[GRAFT_MAX_RANK];
  int32_t data_type;
  int has_type;
  const uint8_t* raw;
  uint64_t raw_len;
  int has_raw;
  uint64_t counts[11]; /* elements in float(4)/int32(5)/int64(7)/double(10)_data */
} header_t;

/* Calls |visit| for each element of a numeric repeated field (packed or
 * not) of wire element kind |elem_wire| (varint, 32 or 64 bit). */
typedef void (*visit_fn)(void* ctx, uint64_t bits);

static int each_element(reader_t* r, uint32_t wire, uint32_t elem_wire,
                        visit_fn visit, void* ctx) {
  const uint8_t* data;
  uint64_t len, v;
  if (wire == kWireLen) {
    if (!read_len(r, &data, &len)) return 0;
    reader_t sub = {r->path, r->begin, data, data + len};
    while (sub.p < sub.end) {
      if (elem_wire == kWireVarint) {
        if (!read_varint(&sub, &v)) return 0;
      } else {
        size_t n = elem_wire == kWire64 ? 8 : 4;
        if ((size_t)(sub.end - sub.p) < n) return 0;
        v = 0;
        memcpy(&v, sub.p, n); /* little-endian host */
        sub.p += n;
      }
      visit(ctx, v);
    }
    return 1;
  }
  if (wire != elem_wire) return 0;
  if (wire == kWireVarint) {
    if (!read_varint(r, &v)) return 0;
  } else {
    size_t n = wire == kWire64 ? 8 : 4;
    if ((size_t)(r->end - r->p) < n) return 0;
    v = 0;
    memcpy(&v, r->p, n);
    r->p += n;
  }
  visit(ctx, v);
  return 1;
}

static void count_element(void* ctx, uint64_t bits) {
  (void)bits;
  ++*(uint64_t*)ctx;
}

typedef struct {
  header_t* h;
  int too_many;
} dims_ctx_t;

static void add_dim(void* ctx, uint64_t bits) {
  dims_ctx_t* d = ctx;
  if (d->h->rank >= GRAFT_MAX_RANK) {
    d->too_many = 1;
    return;
  }
  d->h->dims[d->h->rank++] = (int64_t)bits;
}

/* Element storage for the second pass. */
typedef struct {
  graft_tensor_t* t;
  uint64_t next;
  int field; /* which field this pass takes */
} fill_ctx_t;

static void store_element(void* ctx, uint64_t bits) {
  fill_ctx_t* f = ctx;
  graft_tensor_t* t = f->t;
  uint64_t i = f->next++;
  if (i >= graft_tensor_element_count(t)) return; /* counted before: cannot happen */
  switch (t->dtype) {
    case GRAFT_DTYPE_F32: {
      uint32_t b = (uint32_t)bits;
      memcpy((uint8_t*)t->data + 4 * i, &b, 4);
      break;
    }
    case GRAFT_DTYPE_F64: memcpy((uint8_t*)t->data + 8 * i, &bits, 8); break;
    case GRAFT_DTYPE_I64: ((int64_t*)t->data)[i] = (int64_t)bits; break;
    case GRAFT_DTYPE_I32: ((int32_t*)t->data)[i] = (int32_t)bits; break;
    case GRAFT_DTYPE_I16: ((int16_t*)t->data)[i] = (int16_t)bits; break;
    case GRAFT_DTYPE_F16:
    case GRAFT_DTYPE_BF16: ((uint16_t*)t->data)[i] = (uint16_t)bits; break;
    case GRAFT_DTYPE_I8: ((int8_t*)t->data)[i] = (int8_t)bits; break;
    case GRAFT_DTYPE_I1: ((uint8_t*)t->data)[i] = (uint32_t)bits != 0; break;
  }
}

/* The field that holds elements of ONNX type |onnx| (onnx.proto), and its
 * element wire kind. */
static int typed_field(int32_t onnx, uint32_t* elem_wire) {
  switch (onnx) {
    case 1: *elem_wire = kWire32; return 4;     /* float_data */
    case 11: *elem_wire = kWire64; return 10;   /* double_data */
    case 7: *elem_wire = kWireVarint; return 7; /* int64_data */
    default: *elem_wire = kWireVarint; return 5; /* int32_data */
  }
}

/* Pass over every field; |fill| null: the header pass. */
static graft_status_t scan(reader_t* r, header_t* h, fill_ctx_t* fill) {
  uint32_t elem_wire = kWireVarint;
  int data_field = h->has_type ? typed_field(h->data_type, &elem_wire) : 0;
  while (r->p < r->end) {
    uint64_t key;
    if (!read_varint(r, &key)) return pb_error(r, "truncated field key");
    uint64_t field = key >> 3;
    uint32_t wire = (uint32_t)(key & 7);
    int ok = 1;
    if (field == 0) return pb_error(r, "field number 0");
    if (fill) {
      if ((int)field == data_field)
        ok = each_element(r, wire, elem_wire, store_element, fill);
      else
        ok = skip_field(r, wire);
    } else if (field == 1) {
      dims_ctx_t d = {h, 0};
      ok = each_element(r, wire, kWireVarint, add_dim, &d);
      if (d.too_many)
        return graft_status_make(GRAFT_INVALID_ARGUMENT,
                                 "'%s': the tensor has more than %u dims",
                                 r->path, GRAFT_MAX_RANK);
    } else if (field == 2 && wire == kWireVarint) {
      uint64_t v = 0;
      ok = read_varint(r, &v);
      h->data_type = (int32_t)v;
      h->has_type = 1;
    } else if (field == 9 && wire == kWireLen) {
      ok = read_len(r, &h->raw, &h->raw_len);
      h->has_raw = 1;
    } else if (field == 13) {
      return graft_status_make(GRAFT_UNIMPLEMENTED,
                               "'%s': external tensor data is not supported",
                               r->path);
    } else if (field == 14 && wire == kWireVarint) {
      uint64_t v = 0;
      ok = read_varint(r, &v);
      if (ok && v != 0) /* EXTERNAL */
        return graft_status_make(GRAFT_UNIMPLEMENTED,
                                 "'%s': external tensor data is not supported",
                                 r->path);
    } else if (field == 4 || field == 5 || field == 7 || field == 10) {
      /* Each field counted on its own: the data type, which says which one
       * holds the elements, may come later. */
      uint32_t ew = field == 4 ? kWire32 : field == 10 ? kWire64 : kWireVarint;
      ok = each_element(r, wire, ew, count_element, &h->counts[field]);
    } else if (field == 6) {
      return graft_status_make(GRAFT_UNIMPLEMENTED,
                               "'%s': string_data is not supported (graft "
                               "tensors are numeric)",
                               r->path);
    } else {
      ok = skip_field(r, wire);
    }
    if (!ok) return pb_error(r, "field runs past the end of the data or has a bad wire type");
  }
  return NULL;
}

/* The elements of |h|'s shape; UINT64_MAX for a negative dim or a count
 * that overflows (graft_tensor_allocate then says which). */
static uint64_t shape_elements(const header_t* h) {
  for (uint32_t i = 0; i < h->rank; ++i) {
    if (h->dims[i] < 0) return UINT64_MAX;
    if (h->dims[i] == 0) return 0; /* even after dims whose product overflows */
  }
  uint64_t n = 1;
  for (uint32_t i = 0; i < h->rank; ++i) {
    uint64_t d = (uint64_t)h->dims[i];
    if (d != 0 && n > (UINT64_MAX - 1) / d) return UINT64_MAX;
    n *= d;
  }
  return n;
}

static graft_status_t check_raw_length(const char* path, const header_t* h,
                                       uint32_t dtype, uint64_t count) {
  uint64_t elem = graft_dtype_size(dtype);
  if (count > UINT64_MAX / elem) return NULL; /* allocate refuses it */
  if (h->raw_len == count * elem) return NULL;
  return graft_status_make(GRAFT_INVALID_ARGUMENT,
                           "'%s': raw_data holds %llu bytes, the shape needs %llu",
                           path, (unsigned long long)h->raw_len,
                           (unsigned long long)(count * elem));
}

static graft_status_t check_typed_count(const char* path, const header_t* h,
                                        uint64_t count) {
  uint32_t elem_wire;
  int field = typed_field(h->data_type, &elem_wire);
  uint64_t others = h->counts[4] + h->counts[5] + h->counts[7] +
                    h->counts[10] - h->counts[field];
  if (h->counts[field] == count && !others) return NULL;
  return graft_status_make(GRAFT_INVALID_ARGUMENT,
                           "'%s': the TensorProto holds %llu elements for "
                           "its data type (and %llu in other fields), its "
                           "shape needs %llu",
                           path, (unsigned long long)h->counts[field],
                           (unsigned long long)others,
                           (unsigned long long)count);
}

graft_status_t graft_io_pb_decode(const char* path, const uint8_t* bytes,
                                  size_t size, graft_tensor_t* out) {
  memset(out, 0, sizeof(*out));
  header_t h;
  memset(&h, 0, sizeof(h));
  reader_t r = {path, bytes, bytes, bytes + size};
  graft_status_t st = scan(&r, &h, NULL);
  if (st) return st;
  if (!h.has_type)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "'%s': the TensorProto has no data_type", path);
  uint32_t dtype = GRAFT_DTYPE_INVALID;
  for (size_t i = 0; i < sizeof(kTypes) / sizeof(kTypes[0]); ++i)
    if (kTypes[i].onnx == h.data_type) dtype = kTypes[i].dtype;
  if (dtype == GRAFT_DTYPE_INVALID)
    return graft_status_make(GRAFT_UNIMPLEMENTED,
                             "'%s': TensorProto data_type %d is not supported "
                             "(graft reads FLOAT, DOUBLE, FLOAT16, BFLOAT16, "
                             "INT8, INT16, INT32, INT64, BOOL)",
                             path, (int)h.data_type);
  /* The data present must fill the shape before anything is allocated: an
   * 18-byte file must not make graft zero a gigabyte only to refuse it. */
  uint64_t count = shape_elements(&h);
  int checked = count != UINT64_MAX;
  if (checked) {
    st = h.has_raw ? check_raw_length(path, &h, dtype, count)
                   : check_typed_count(path, &h, count);
    if (st) return st;
  }
  graft_tensor_t t;
  st = graft_tensor_allocate(dtype, h.rank, h.dims, &t);
  if (st) return graft_status_annotate(st, "'%s'", path);
  count = graft_tensor_element_count(&t);
  if (!checked) {
    /* A shape the pre-check could not count but allocate accepted. */
    st = h.has_raw ? check_raw_length(path, &h, dtype, count)
                   : check_typed_count(path, &h, count);
    if (st) {
      graft_tensor_release(&t);
      return st;
    }
  }
  if (h.has_raw) {
    if (t.size) memcpy(t.data, h.raw, (size_t)t.size);
    if (dtype == GRAFT_DTYPE_I1)
      for (uint64_t i = 0; i < count; ++i)
        ((uint8_t*)t.data)[i] = ((uint8_t*)t.data)[i] != 0;
  } else {
    fill_ctx_t f = {&t, 0, 0};
    reader_t again = {path, bytes, bytes, bytes + size};
    st = scan(&again, &h, &f);
    if (st) {
      graft_tensor_release(&t);
      return st;
    }
  }
  *out = t;
  return NULL;
}

graft_status_t graft_tensor_read_pb(const char* path, graft_tensor_t* out) {
  memset(out, 0, sizeof(*out));
  uint8_t* bytes = NULL;
  size_t size = 0;
  graft_status_t st = graft_io_read_file(path, GRAFT_PB_MAX_FILE, &bytes, &size);
  if (st) return st;
  st = graft_io_pb_decode(path, bytes, size, out);
  free(bytes);
  return st;
}

static size_t put_varint(uint8_t* p, uint64_t v) {
  size_t n = 0;
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    p[n++] = (uint8_t)(b | (v ? 0x80 : 0));
  } while (v);
  return n;
}

graft_status_t graft_tensor_write_pb(const char* path, const graft_tensor_t* t) {
  uint32_t dtype = t->dtype == GRAFT_DTYPE_INDEX ? GRAFT_DTYPE_I64 : t->dtype;
  int32_t onnx = 0;
  for (size_t i = 0; i < sizeof(kTypes) / sizeof(kTypes[0]); ++i)
    if (kTypes[i].dtype == dtype) onnx = kTypes[i].onnx;
  if (!onnx)
    return graft_status_make(GRAFT_UNIMPLEMENTED,
                             "cannot write '%s': %s has no ONNX data type", path,
                             graft_dtype_name(t->dtype));
  if (t->rank > GRAFT_MAX_RANK)
    return graft_status_make(GRAFT_INVALID_ARGUMENT, "rank %u is too large", t->rank);
  uint64_t bytes = graft_tensor_element_count(t) * graft_dtype_size(t->dtype);
  if (bytes > t->size)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "cannot write '%s': tensor holds %llu bytes, its "
                             "shape needs %llu",
                             path, (unsigned long long)t->size,
                             (unsigned long long)bytes);
  /* Header: each dim (key + up to 10 bytes), data_type, raw_data's key and
   * length. */
  uint8_t head[GRAFT_MAX_RANK * 11 + 32];
  size_t n = 0;
  for (uint32_t i = 0; i < t->rank; ++i) {
    head[n++] = (1 << 3) | kWireVarint;
    n += put_varint(head + n, (uint64_t)t->dims[i]);
  }
  head[n++] = (2 << 3) | kWireVarint;
  n += put_varint(head + n, (uint64_t)onnx);
  head[n++] = (9 << 3) | kWireLen;
  n += put_varint(head + n, bytes);
  FILE* f = fopen(path, "wb");
  if (!f)
    return graft_status_make(GRAFT_NOT_FOUND, "cannot open '%s': %s", path,
                             strerror(errno));
  int ok = fwrite(head, 1, n, f) == n &&
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

static int has_suffix(const char* s, const char* suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

graft_status_t graft_tensor_read_file(const char* path, graft_tensor_t* out) {
  return has_suffix(path, ".pb") ? graft_tensor_read_pb(path, out)
                                 : graft_tensor_read_npy(path, out);
}

graft_status_t graft_tensor_write_file(const char* path, const graft_tensor_t* t) {
  return has_suffix(path, ".pb") ? graft_tensor_write_pb(path, t)
                                 : graft_tensor_write_npy(path, t);
}
