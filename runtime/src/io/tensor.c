/* Host tensors: dtype table, aligned allocation and element conversion
 * shared by the text and .npy forms. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"
#include "pages.h"

/* Buffers are 64-byte aligned: dispatches may use aligned vector loads. */
#define GRAFT_TENSOR_ALIGNMENT 64

/* A tensor of at least GRAFT_HUGE_PAGE_BYTES is mapped on its own in huge
 * pages (pages.h). graft allocates a result per call unless the caller
 * passes storage: with 4 KiB pages a 64 MiB result cost 16384 page faults
 * per call, most of a bandwidth-bound call's time, and clearing it with
 * memset wrote it once more before the dispatches did. Fresh anonymous
 * pages are zero already, so a mapped tensor is not cleared. Below this
 * size the padding would cost more memory than the faults cost time. */

/* graft_tensor_t.owned: how graft_tensor_release gives the storage back.
 * OWNED_HEAP: free(data) (also what the evaluator's malloc'd results use);
 * OWNED_SHIFTED: free() of the malloc'd block whose address is stored just
 * below |data| (small tensors, see allocate_storage). */
enum { OWNED_HEAP = 1, OWNED_MAPPED = 2, OWNED_SHIFTED = 3 };

/* Below this many bytes a tensor is carved out of a malloc'd block one
 * alignment larger (OWNED_SHIFTED): glibc serves such blocks from its
 * per-thread cache, where aligned_alloc takes the slow memalign path every
 * time (a third of a 2x2 MLP call's instructions with results the runtime
 * allocates). Above it the 64 bytes of padding are not worth it. */
#define GRAFT_TENSOR_SMALL ((uint64_t)1024)

/* Zeroed storage of |rounded| bytes; |*owned| says how to release it. */
static void* allocate_storage(uint64_t rounded, int* owned) {
  void* data = rounded >= GRAFT_HUGE_PAGE_BYTES ? graft_pages_map(rounded) : NULL;
  if (data) {
    *owned = OWNED_MAPPED;
    return data;
  }
  if (rounded <= GRAFT_TENSOR_SMALL) {
    /* malloc's blocks are at least 16-byte aligned, so the first 64-byte
     * boundary past the block's start leaves room for its address. */
    char* block = malloc((size_t)rounded + GRAFT_TENSOR_ALIGNMENT);
    if (!block) return NULL;
    data = (void*)(((uintptr_t)block + GRAFT_TENSOR_ALIGNMENT) &
                   ~(uintptr_t)(GRAFT_TENSOR_ALIGNMENT - 1));
    memcpy((char*)data - sizeof(block), &block, sizeof(block));
    *owned = OWNED_SHIFTED;
  } else {
    data = aligned_alloc(GRAFT_TENSOR_ALIGNMENT, (size_t)rounded);
    *owned = OWNED_HEAP;
  }
  if (data) memset(data, 0, (size_t)rounded);
  return data;
}

/* Clears every field of |t| one by one: GCC turns a memset of the struct
 * into a rep stos, whose start-up is a tenth of a small call's time (a
 * result is allocated and released on every call). */
static void clear_tensor(graft_tensor_t* t) {
  t->dtype = 0;
  t->rank = 0;
  for (uint32_t i = 0; i < GRAFT_MAX_RANK; ++i) t->dims[i] = 0;
  t->data = NULL;
  t->size = 0;
  t->owned = 0;
}

static const struct {
  const char* name;
  size_t size;
} kDtypes[GRAFT_DTYPE_COUNT_] = {
    [GRAFT_DTYPE_INVALID] = {"?", 0}, [GRAFT_DTYPE_I1] = {"i1", 1},
    [GRAFT_DTYPE_I8] = {"i8", 1},     [GRAFT_DTYPE_I16] = {"i16", 2},
    [GRAFT_DTYPE_I32] = {"i32", 4},   [GRAFT_DTYPE_I64] = {"i64", 8},
    [GRAFT_DTYPE_F16] = {"f16", 2},   [GRAFT_DTYPE_BF16] = {"bf16", 2},
    [GRAFT_DTYPE_F32] = {"f32", 4},   [GRAFT_DTYPE_F64] = {"f64", 8},
    [GRAFT_DTYPE_INDEX] = {"index", 8},
};

size_t graft_dtype_size(uint32_t dtype) {
  return dtype < GRAFT_DTYPE_COUNT_ ? kDtypes[dtype].size : 0;
}

const char* graft_dtype_name(uint32_t dtype) {
  return dtype < GRAFT_DTYPE_COUNT_ ? kDtypes[dtype].name : "?";
}

uint32_t graft_io_dtype_from_name(const char* name, size_t len) {
  for (uint32_t d = GRAFT_DTYPE_I1; d < GRAFT_DTYPE_COUNT_; ++d) {
    if (strlen(kDtypes[d].name) == len && memcmp(kDtypes[d].name, name, len) == 0)
      return d;
  }
  return GRAFT_DTYPE_INVALID;
}

int graft_io_dtype_is_float(uint32_t dtype) {
  return dtype == GRAFT_DTYPE_F16 || dtype == GRAFT_DTYPE_BF16 ||
         dtype == GRAFT_DTYPE_F32 || dtype == GRAFT_DTYPE_F64;
}

uint64_t graft_tensor_element_count(const graft_tensor_t* t) {
  uint64_t count = 1;
  for (uint32_t i = 0; i < t->rank && i < GRAFT_MAX_RANK; ++i) {
    if (t->dims[i] < 0) return 0;
    if (__builtin_mul_overflow(count, (uint64_t)t->dims[i], &count)) return 0;
  }
  return count;
}

graft_status_t graft_tensor_allocate(uint32_t dtype, uint32_t rank,
                                     const int64_t* dims, graft_tensor_t* out) {
  clear_tensor(out);
  size_t element_size = graft_dtype_size(dtype);
  if (element_size == 0)
    return graft_status_make(GRAFT_INVALID_ARGUMENT, "invalid element type %u",
                             dtype);
  if (rank > GRAFT_MAX_RANK)
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "rank %u exceeds the maximum of %u", rank,
                             GRAFT_MAX_RANK);
  uint64_t bytes = element_size;
  int empty = 0;
  for (uint32_t i = 0; i < rank; ++i) {
    if (dims[i] < 0)
      return graft_status_make(GRAFT_INVALID_ARGUMENT,
                               "dimension %u is negative (%lld)", i,
                               (long long)dims[i]);
    empty |= dims[i] == 0;
  }
  /* A zero dim makes the tensor empty however large the other dims are. */
  for (uint32_t i = 0; i < rank && !empty; ++i) {
    if (__builtin_mul_overflow(bytes, (uint64_t)dims[i], &bytes))
      return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                               "tensor size overflows 64 bits");
  }
  if (empty) bytes = 0;
  /* aligned_alloc wants a multiple of the alignment and a nonzero size. */
  uint64_t rounded = (bytes + GRAFT_TENSOR_ALIGNMENT - 1) &
                     ~(uint64_t)(GRAFT_TENSOR_ALIGNMENT - 1);
  if (rounded == 0) rounded = GRAFT_TENSOR_ALIGNMENT;
  if (rounded < bytes || rounded > SIZE_MAX)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "tensor of %llu bytes is too large",
                             (unsigned long long)bytes);
  int owned = 0;
  void* data = allocate_storage(rounded, &owned);
  if (!data)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "cannot allocate %llu bytes",
                             (unsigned long long)bytes);
  out->dtype = dtype;
  out->rank = rank;
  for (uint32_t i = 0; i < rank; ++i) out->dims[i] = dims[i];
  out->data = data;
  out->size = bytes;
  out->owned = owned;
  return NULL;
}

void graft_tensor_release(graft_tensor_t* t) {
  if (!t) return;
  if (t->owned == OWNED_MAPPED) {
    graft_pages_unmap(t->data, (t->size + GRAFT_TENSOR_ALIGNMENT - 1) &
                                   ~(uint64_t)(GRAFT_TENSOR_ALIGNMENT - 1));
  } else if (t->owned == OWNED_SHIFTED) {
    char* block;
    memcpy(&block, (char*)t->data - sizeof(block), sizeof(block));
    free(block);
  } else if (t->owned) {
    free(t->data);
  }
  clear_tensor(t);
}

/*===--- f16 / bf16 ---------------------------------------------------===*/

static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static float f32_from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

float graft_io_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  if (exp == 0x1f) return f32_from_bits(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    /* Subnormal (or zero): value = mant * 2^-24, exact in float. */
    float v = (float)mant * 0x1p-24f;
    return sign ? -v : v;
  }
  return f32_from_bits(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t graft_io_f32_to_f16(float f) {
  uint32_t u = f32_bits(f);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
  uint32_t abs = u & 0x7fffffffu;
  if (abs >= 0x7f800000u) /* inf or nan (keep nan quiet) */
    return sign | 0x7c00 | (abs > 0x7f800000u ? 0x200 : 0);
  if (abs >= 0x477ff000u) return sign | 0x7c00; /* rounds to >= 65520 */
  if (abs < 0x38800000u) {
    /* Result is subnormal in f16: scale so the rounding happens in float. */
    float v = f32_from_bits(abs) * 0x1p24f; /* now in units of 2^-24 */
    return sign | (uint16_t)lrintf(v);
  }
  uint32_t mant = abs & 0x7fffff;
  uint32_t exp = (abs >> 23) - 112;
  uint32_t half = (exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;
  return sign | (uint16_t)half;
}

float graft_io_bf16_to_f32(uint16_t h) {
  return f32_from_bits((uint32_t)h << 16);
}

uint16_t graft_io_f32_to_bf16(float f) {
  uint32_t u = f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
  u += 0x7fff + ((u >> 16) & 1);
  return (uint16_t)(u >> 16);
}

double graft_tensor_element_as_double(const graft_tensor_t* t, uint64_t i) {
  const uint8_t* p = (const uint8_t*)t->data + i * graft_dtype_size(t->dtype);
  switch (t->dtype) {
    case GRAFT_DTYPE_I1: return *p ? 1.0 : 0.0;
    case GRAFT_DTYPE_I8: return *(const int8_t*)p;
    case GRAFT_DTYPE_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case GRAFT_DTYPE_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case GRAFT_DTYPE_I64:
    case GRAFT_DTYPE_INDEX: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    case GRAFT_DTYPE_F16: { uint16_t v; memcpy(&v, p, 2); return graft_io_f16_to_f32(v); }
    case GRAFT_DTYPE_BF16: { uint16_t v; memcpy(&v, p, 2); return graft_io_bf16_to_f32(v); }
    case GRAFT_DTYPE_F32: { float v; memcpy(&v, p, 4); return v; }
    case GRAFT_DTYPE_F64: { double v; memcpy(&v, p, 8); return v; }
  }
  return NAN;
}
