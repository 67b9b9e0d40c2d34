/* Printing tensors in IREE's text form: "2x2xf32=[-12 0][0 -12]".
 *
 * Layout follows IREE's iree_hal_format_buffer_elements: the outermost
 * dimension is not bracketed (rank 1 prints "4xf32=1 2 3 4"), every inner
 * row is ("[a b][c d]", "[[a b][c d]][[e f][g h]]"), scalars print as
 * "f32=1.5". Floats use %g (IREE uses %G; we print lowercase "nan", "inf",
 * "1e+10"), integers decimal, i1 as 0 or 1. Negative zero prints as "0", as
 * in IREE's outputs (the seed MLP's neg(relu(x)) prints
 * "2x2xf32=[-12 0][0 -12]"); .npy output keeps the exact bits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

typedef struct {
  char* data;
  size_t length;
  size_t capacity;
  int failed; /* allocation failed; further appends are dropped */
} strbuf_t;

static void append(strbuf_t* sb, const char* s, size_t n) {
  if (sb->failed) return;
  if (sb->length + n + 1 > sb->capacity) {
    size_t capacity = sb->capacity ? sb->capacity : 64;
    while (capacity < sb->length + n + 1) capacity *= 2;
    char* grown = realloc(sb->data, capacity);
    if (!grown) {
      sb->failed = 1;
      return;
    }
    sb->data = grown;
    sb->capacity = capacity;
  }
  memcpy(sb->data + sb->length, s, n);
  sb->length += n;
  sb->data[sb->length] = 0;
}

static void append_str(strbuf_t* sb, const char* s) { append(sb, s, strlen(s)); }

static void append_float(strbuf_t* sb, double v) {
  char buf[40];
  if (isnan(v)) {
    append_str(sb, "nan"); /* glibc prints "-nan" for a negative nan */
    return;
  }
  if (v == 0.0)
    v = 0.0; /* drop the sign of -0 */
  snprintf(buf, sizeof(buf), "%g", v);
  append_str(sb, buf);
}

static void append_element(strbuf_t* sb, const graft_tensor_t* t, uint64_t i) {
  char buf[32];
  const uint8_t* p = (const uint8_t*)t->data + i * graft_dtype_size(t->dtype);
  switch (t->dtype) {
    case GRAFT_DTYPE_F16:
    case GRAFT_DTYPE_BF16:
    case GRAFT_DTYPE_F32:
    case GRAFT_DTYPE_F64:
      append_float(sb, graft_tensor_element_as_double(t, i));
      return;
    case GRAFT_DTYPE_I1:
      append_str(sb, *p ? "1" : "0");
      return;
    default: {
      /* Integers go through int64 directly: doubles lose i64 precision. */
      int64_t v = 0;
      switch (graft_dtype_size(t->dtype)) {
        case 1: v = *(const int8_t*)p; break;
        case 2: { int16_t x; memcpy(&x, p, 2); v = x; break; }
        case 4: { int32_t x; memcpy(&x, p, 4); v = x; break; }
        default: memcpy(&v, p, 8); break;
      }
      snprintf(buf, sizeof(buf), "%lld", (long long)v);
      append_str(sb, buf);
      return;
    }
  }
}

/* Appends dims[0..rank) of the sub-tensor starting at element |base|.
 * |stride| is the element count of one step at |level|; the caller
 * brackets every level but the outermost. */
static void append_level(strbuf_t* sb, const graft_tensor_t* t, uint32_t level,
                         uint64_t base, uint64_t stride) {
  int64_t n = t->dims[level];
  if (level + 1 == t->rank) {
    for (int64_t i = 0; i < n; ++i) {
      if (i) append(sb, " ", 1);
      append_element(sb, t, base + (uint64_t)i);
    }
    return;
  }
  uint64_t inner = stride / (uint64_t)(t->dims[level + 1] ? t->dims[level + 1] : 1);
  for (int64_t i = 0; i < n; ++i) {
    append(sb, "[", 1);
    append_level(sb, t, level + 1, base + (uint64_t)i * stride, inner);
    append(sb, "]", 1);
  }
}

/* A zero-element tensor prints one "[]" per row of its non-empty outer
 * levels. Unlike elements, rows of an empty tensor cost no memory, so
 * "1000000000000x0xf32" would print terabytes of brackets: past this many
 * rows the brackets are left out ("1000000000000x0xf32="), which parses
 * back to the same tensor. */
static const uint64_t kMaxEmptyRows = 1u << 16;

/* Rows printed for a zero-element |t|: the product of the dims before the
 * first zero one, saturating just above kMaxEmptyRows. */
static uint64_t empty_rows(const graft_tensor_t* t) {
  uint64_t rows = 1;
  for (uint32_t i = 0; i + 1 < t->rank && t->dims[i] != 0; ++i)
    if (__builtin_mul_overflow(rows, (uint64_t)t->dims[i], &rows) ||
        rows > kMaxEmptyRows)
      return kMaxEmptyRows + 1;
  return rows;
}

graft_status_t graft_tensor_format(const graft_tensor_t* t, char** out_text) {
  *out_text = NULL;
  if (graft_dtype_size(t->dtype) == 0)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "cannot print element type %u", t->dtype);
  if (t->rank > GRAFT_MAX_RANK)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "rank %u exceeds the maximum of %u", t->rank,
                             GRAFT_MAX_RANK);
  uint64_t count = graft_tensor_element_count(t);
  for (uint32_t i = 0; i < t->rank; ++i)
    if (t->dims[i] < 0)
      return graft_status_make(GRAFT_INVALID_ARGUMENT,
                               "dimension %u is negative (%lld)", i,
                               (long long)t->dims[i]);
  if (count * graft_dtype_size(t->dtype) > t->size || (count && !t->data))
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "tensor holds %llu bytes, its shape needs %llu",
                             (unsigned long long)t->size,
                             (unsigned long long)(count *
                                                  graft_dtype_size(t->dtype)));
  strbuf_t sb = {0};
  char buf[32];
  for (uint32_t i = 0; i < t->rank; ++i) {
    snprintf(buf, sizeof(buf), "%lldx", (long long)t->dims[i]);
    append_str(&sb, buf);
  }
  append_str(&sb, graft_dtype_name(t->dtype));
  append(&sb, "=", 1);
  if (t->rank == 0) {
    append_element(&sb, t, 0);
  } else if (count > 0) {
    /* Elements per step of the outermost dimension. */
    uint64_t stride = count / (uint64_t)t->dims[0];
    append_level(&sb, t, 0, 0, stride);
  } else if (empty_rows(t) <= kMaxEmptyRows) {
    /* Still print the brackets of the non-empty outer levels, as IREE does. */
    uint64_t stride = 0;
    append_level(&sb, t, 0, 0, stride);
  }
  if (sb.failed) {
    free(sb.data);
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "out of memory printing a tensor");
  }
  *out_text = sb.data;
  return NULL;
}
