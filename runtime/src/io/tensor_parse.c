/* Parsing IREE's tensor text form:
 *   "2x2xf32=[[2 2][-2 -2]]"   nested or flat brackets, spaces or commas
 *   "8xf32=2"                  splat
 *   "f32=1.5", "i1=true"       scalars
 *   "@file.npy"                a NumPy file
 *   "@file.pb"                 an ONNX TensorProto
 *   "2x2xf32=@file.bin"        raw little-endian bytes, size must match
 * Errors carry the 1-based column of the offending character; callers
 * prefix the whole input ("--input '...': ..."). */
#define _POSIX_C_SOURCE 200809L /* strndup */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

typedef struct {
  const char* text; /* start of the whole input, for columns */
} parse_ctx_t;

static int column(const parse_ctx_t* ctx, const char* p) {
  return (int)(p - ctx->text) + 1;
}

/* Parses one integer token into |out| with the range of |dtype|. */
static graft_status_t parse_int(const parse_ctx_t* ctx, const char* tok,
                                size_t len, uint32_t dtype, int64_t* out) {
  char buf[64];
  if (dtype == GRAFT_DTYPE_I1) {
    if (len == 4 && memcmp(tok, "true", 4) == 0) { *out = 1; return NULL; }
    if (len == 5 && memcmp(tok, "false", 5) == 0) { *out = 0; return NULL; }
  }
  if (len >= sizeof(buf)) goto invalid;
  memcpy(buf, tok, len);
  buf[len] = 0;
  if (!(isdigit((unsigned char)buf[0]) ||
        ((buf[0] == '-' || buf[0] == '+') && isdigit((unsigned char)buf[1]))))
    goto invalid;
  char* end = NULL;
  errno = 0;
  long long v = strtoll(buf, &end, 10);
  if (*end != 0) goto invalid;
  int64_t lo, hi;
  switch (dtype) {
    case GRAFT_DTYPE_I1: lo = 0; hi = 1; break;
    case GRAFT_DTYPE_I8: lo = INT8_MIN; hi = INT8_MAX; break;
    case GRAFT_DTYPE_I16: lo = INT16_MIN; hi = INT16_MAX; break;
    case GRAFT_DTYPE_I32: lo = INT32_MIN; hi = INT32_MAX; break;
    default: lo = INT64_MIN; hi = INT64_MAX; break;
  }
  if (errno == ERANGE || v < lo || v > hi)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "value '%.*s' at column %d is out of range for %s",
                             (int)len, tok, column(ctx, tok),
                             graft_dtype_name(dtype));
  *out = v;
  return NULL;
invalid:
  return graft_status_make(GRAFT_INVALID_ARGUMENT,
                           "invalid %s value '%.*s' at column %d",
                           graft_dtype_name(dtype), (int)len, tok,
                           column(ctx, tok));
}

static graft_status_t parse_float(const parse_ctx_t* ctx, const char* tok,
                                  size_t len, uint32_t dtype, double* out) {
  char buf[128];
  if (len >= sizeof(buf) || memchr(tok, 'x', len) || memchr(tok, 'X', len))
    goto invalid; /* strtod would take hex floats; the text form has none */
  memcpy(buf, tok, len);
  buf[len] = 0;
  char* end = NULL;
  double v = strtod(buf, &end);
  if (end == buf || *end != 0) goto invalid;
  /* strtod also accepts "infinity" and "nan(...)"; allow only the forms
   * we print ("inf", "nan") and ordinary numbers. */
  const char* body = buf + (buf[0] == '-' || buf[0] == '+');
  if (isalpha((unsigned char)body[0]) && strcmp(body, "inf") != 0 &&
      strcmp(body, "nan") != 0)
    goto invalid;
  *out = v;
  return NULL;
invalid:
  return graft_status_make(GRAFT_INVALID_ARGUMENT,
                           "invalid %s value '%.*s' at column %d",
                           graft_dtype_name(dtype), (int)len, tok,
                           column(ctx, tok));
}

/* Stores the token as element |i| of |t|. */
static graft_status_t store_element(const parse_ctx_t* ctx, const char* tok,
                                    size_t len, graft_tensor_t* t, uint64_t i) {
  uint8_t* p = (uint8_t*)t->data + i * graft_dtype_size(t->dtype);
  if (graft_io_dtype_is_float(t->dtype)) {
    double v = 0;
    graft_status_t status = parse_float(ctx, tok, len, t->dtype, &v);
    if (status) return status;
    if (t->dtype == GRAFT_DTYPE_F64) {
      memcpy(p, &v, 8);
    } else if (t->dtype == GRAFT_DTYPE_F32) {
      float f = (float)v;
      memcpy(p, &f, 4);
    } else {
      uint16_t h = t->dtype == GRAFT_DTYPE_F16 ? graft_io_f32_to_f16((float)v)
                                               : graft_io_f32_to_bf16((float)v);
      memcpy(p, &h, 2);
    }
    return NULL;
  }
  int64_t v = 0;
  graft_status_t status = parse_int(ctx, tok, len, t->dtype, &v);
  if (status) return status;
  switch (graft_dtype_size(t->dtype)) {
    case 1: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
    case 2: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
    case 4: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 8); break;
  }
  return NULL;
}

static int is_separator(char c) {
  return isspace((unsigned char)c) || c == ',' || c == '[' || c == ']';
}

/* Parses the elements after '=' into |t| (already allocated). */
static graft_status_t parse_elements(const parse_ctx_t* ctx, const char* p,
                                     const char* end, graft_tensor_t* t) {
  uint64_t count = graft_tensor_element_count(t);
  uint64_t found = 0;
  int depth = 0;
  const char* first_open = NULL;
  while (p < end) {
    char c = *p;
    if (c == '[') {
      if (depth++ == 0 && !first_open) first_open = p;
      ++p;
    } else if (c == ']') {
      if (--depth < 0)
        return graft_status_make(GRAFT_INVALID_ARGUMENT,
                                 "unbalanced ']' at column %d", column(ctx, p));
      ++p;
    } else if (is_separator(c)) {
      ++p;
    } else {
      const char* tok = p;
      while (p < end && !is_separator(*p)) ++p;
      /* Elements past |count| are only counted, for the error message. */
      if (found < count) {
        graft_status_t status =
            store_element(ctx, tok, (size_t)(p - tok), t, found);
        if (status) return status;
      }
      ++found;
    }
  }
  if (depth > 0)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "missing ']' for the '[' at column %d",
                             column(ctx, first_open));
  /* A splat of an empty tensor ("0x3xf32=0") is empty. */
  if (found == 1 && count == 0 && !first_open) return NULL;
  if (found == 1 && count > 1) {
    size_t element_size = graft_dtype_size(t->dtype);
    for (uint64_t i = 1; i < count; ++i)
      memcpy((uint8_t*)t->data + i * element_size, t->data, element_size);
    return NULL;
  }
  if (found != count)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "expected %llu element%s, found %llu",
                             (unsigned long long)count, count == 1 ? "" : "s",
                             (unsigned long long)found);
  return NULL;
}

/* Reads raw little-endian element bytes from |path| into a new tensor of
 * the given shape. The file must hold exactly the bytes the shape needs,
 * compared before allocating and reading: nothing more is ever read. */
static graft_status_t parse_raw_file(const char* path, uint32_t dtype,
                                     uint32_t rank, const int64_t* dims,
                                     graft_tensor_t* out) {
  graft_io_file_t file;
  graft_status_t status = graft_io_file_open(path, &file);
  if (status) return status;
  uint64_t needed = graft_dtype_size(dtype);
  int empty = 0, overflow = 0;
  for (uint32_t i = 0; i < rank; ++i) {
    empty |= dims[i] == 0;
    overflow |= __builtin_mul_overflow(needed, (uint64_t)dims[i], &needed);
  }
  if (empty) needed = 0;
  /* (An overflowing shape is left to the allocation to report.) */
  if ((!overflow || empty) && file.size != needed) {
    /* A .npy file given a type is read as raw bytes; say how to read it. */
    char magic[6];
    int is_npy = 0;
    if (file.size >= sizeof(magic)) {
      graft_status_t read = graft_io_file_read(&file, 0, magic, sizeof(magic));
      is_npy = !read && memcmp(magic, "\x93NUMPY", sizeof(magic)) == 0;
      graft_status_free(read);
    }
    status = graft_status_make(
        GRAFT_INVALID_ARGUMENT, "'%s' has %llu bytes, expected %llu%s", path,
        (unsigned long long)file.size, (unsigned long long)needed,
        is_npy ? " (it is a .npy file: pass it as @FILE, without a type)"
               : "");
  }
  if (!status) status = graft_tensor_allocate(dtype, rank, dims, out);
  if (!status && out->size)
    status = graft_io_file_read(&file, 0, out->data, (size_t)out->size);
  graft_io_file_close(&file);
  if (status) graft_tensor_release(out);
  return status;
}

/* Parses "2x3xf32" (or "f32") in [p, end) into rank/dims/dtype. */
static graft_status_t parse_type(const parse_ctx_t* ctx, const char* p,
                                 const char* end, uint32_t* out_dtype,
                                 uint32_t* out_rank, int64_t* dims) {
  uint32_t rank = 0;
  for (;;) {
    const char* x = memchr(p, 'x', (size_t)(end - p));
    /* A segment that starts with a digit and is followed by 'x' is a dim. */
    if (!x || !isdigit((unsigned char)*p)) break;
    if (rank == GRAFT_MAX_RANK)
      return graft_status_make(GRAFT_INVALID_ARGUMENT,
                               "rank exceeds the maximum of %u at column %d",
                               GRAFT_MAX_RANK, column(ctx, p));
    int64_t dim = 0;
    for (const char* d = p; d < x; ++d) {
      if (!isdigit((unsigned char)*d) ||
          __builtin_mul_overflow(dim, 10, &dim) ||
          __builtin_add_overflow(dim, *d - '0', &dim))
        return graft_status_make(GRAFT_INVALID_ARGUMENT,
                                 "invalid dimension '%.*s' at column %d",
                                 (int)(x - p), p, column(ctx, p));
    }
    dims[rank++] = dim;
    p = x + 1;
  }
  uint32_t dtype = graft_io_dtype_from_name(p, (size_t)(end - p));
  if (dtype == GRAFT_DTYPE_INVALID) {
    if (p == end)
      return graft_status_make(GRAFT_INVALID_ARGUMENT,
                               "missing element type at column %d",
                               column(ctx, p));
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "unknown element type '%.*s' at column %d",
                             (int)(end - p), p, column(ctx, p));
  }
  *out_dtype = dtype;
  *out_rank = rank;
  return NULL;
}

graft_status_t graft_tensor_parse(const char* text, graft_tensor_t* out) {
  memset(out, 0, sizeof(*out));
  if (!text) return graft_status_make(GRAFT_INVALID_ARGUMENT, "no tensor text");
  parse_ctx_t ctx = {text};
  const char* p = text;
  const char* end = text + strlen(text);
  while (p < end && isspace((unsigned char)*p)) ++p;
  while (end > p && isspace((unsigned char)end[-1])) --end;
  if (p == end)
    return graft_status_make(GRAFT_INVALID_ARGUMENT, "empty tensor text");
  if (*p == '@') {
    char* path = strndup(p + 1, (size_t)(end - p - 1));
    if (!path) return graft_status_make(GRAFT_RESOURCE_EXHAUSTED, "out of memory");
    graft_status_t status = graft_tensor_read_file(path, out);
    free(path);
    return status;
  }
  const char* eq = memchr(p, '=', (size_t)(end - p));
  if (!eq)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "expected '=' followed by elements after '%.*s'",
                             (int)(end - p), p);
  uint32_t dtype = 0, rank = 0;
  int64_t dims[GRAFT_MAX_RANK] = {0};
  graft_status_t status = parse_type(&ctx, p, eq, &dtype, &rank, dims);
  if (status) return status;
  const char* data = eq + 1;
  while (data < end && isspace((unsigned char)*data)) ++data;
  /* A mistyped shape must not allocate first: count the elements written
   * out (a single element is a splat) before allocating. */
  if (data < end && *data != '@') {
    uint64_t written = 0;
    for (const char* q = data; q < end;) {
      if (is_separator(*q)) {
        ++q;
        continue;
      }
      ++written;
      while (q < end && !is_separator(*q)) ++q;
    }
    graft_tensor_t shape_only;
    memset(&shape_only, 0, sizeof(shape_only));
    shape_only.rank = rank;
    for (uint32_t i = 0; i < rank; ++i) shape_only.dims[i] = dims[i];
    uint64_t count = graft_tensor_element_count(&shape_only);
    int has_zero_dim = 0;
    for (uint32_t i = 0; i < rank; ++i) has_zero_dim |= dims[i] == 0;
    /* (count 0 without a zero dim is an overflow: allocation reports it.) */
    if (written > 1 && written != count && (count != 0 || has_zero_dim))
      return graft_status_make(GRAFT_INVALID_ARGUMENT,
                               "expected %llu element%s, found %llu",
                               (unsigned long long)count, count == 1 ? "" : "s",
                               (unsigned long long)written);
  }
  if (data < end && *data == '@') {
    char* path = strndup(data + 1, (size_t)(end - data - 1));
    status = path ? parse_raw_file(path, dtype, rank, dims, out)
                  : graft_status_make(GRAFT_RESOURCE_EXHAUSTED, "out of memory");
    free(path);
    return status;
  }
  status = graft_tensor_allocate(dtype, rank, dims, out);
  if (status) return status;
  status = parse_elements(&ctx, data, end, out);
  if (status) graft_tensor_release(out);
  return status;
}
