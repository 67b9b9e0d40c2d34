/* Type and signature printing (see signature.h and graft/runtime.h). */
#include "exec/signature.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* snprintf that advances *pos but never past |capacity|. */
static void put(char* buffer, size_t capacity, size_t* pos, const char* fmt,
                long long value, const char* text) {
  size_t room = *pos < capacity ? capacity - *pos : 0;
  int n = text ? snprintf(room ? buffer + *pos : NULL, room, fmt, text)
               : snprintf(room ? buffer + *pos : NULL, room, fmt, value);
  if (n > 0) *pos += (size_t)n;
}

size_t graft_value_type_format(const graft_value_type_v1_t* type, char* buffer,
                               size_t capacity) {
  size_t pos = 0;
  if (capacity) buffer[0] = 0;
  if (type->rank == 0) {
    put(buffer, capacity, &pos, "%s", 0, graft_dtype_name(type->dtype));
    return pos;
  }
  put(buffer, capacity, &pos, "%s", 0, "tensor<");
  for (uint32_t i = 0; i < type->rank; ++i) {
    if (type->dims[i] == GRAFT_DIM_DYNAMIC)
      put(buffer, capacity, &pos, "%s", 0, "?x");
    else
      put(buffer, capacity, &pos, "%lldx", (long long)type->dims[i], NULL);
  }
  put(buffer, capacity, &pos, "%s>", 0, graft_dtype_name(type->dtype));
  return pos;
}

size_t graft_tensor_type_format(const graft_tensor_t* t, char* buffer,
                                size_t capacity) {
  size_t pos = 0;
  if (capacity) buffer[0] = 0;
  for (uint32_t i = 0; i < t->rank && i < GRAFT_MAX_RANK; ++i)
    put(buffer, capacity, &pos, "%lldx", (long long)t->dims[i], NULL);
  put(buffer, capacity, &pos, "%s", 0, graft_dtype_name(t->dtype));
  return pos;
}

/* Appends "a, b" (or "(a, b)" when |parens|) of |count| types. */
static void put_types(char* buffer, size_t capacity, size_t* pos,
                      const graft_value_type_v1_t* types, uint32_t count,
                      int parens) {
  if (parens) put(buffer, capacity, pos, "%s", 0, "(");
  for (uint32_t i = 0; i < count; ++i) {
    if (i) put(buffer, capacity, pos, "%s", 0, ", ");
    size_t room = *pos < capacity ? capacity - *pos : 0;
    *pos += graft_value_type_format(&types[i], room ? buffer + *pos : NULL, room);
  }
  if (parens) put(buffer, capacity, pos, "%s", 0, ")");
}

static size_t format_signature(const graft_function_v1_t* f, char* buffer,
                               size_t capacity) {
  size_t pos = 0;
  if (capacity) buffer[0] = 0;
  put(buffer, capacity, &pos, "%s", 0, f->name);
  put_types(buffer, capacity, &pos, f->args, f->arg_count, 1);
  put(buffer, capacity, &pos, "%s", 0, " -> ");
  put_types(buffer, capacity, &pos, f->results, f->result_count,
            f->result_count != 1);
  return pos;
}

graft_status_t graft_function_format_signature(const graft_function_v1_t* f,
                                               char** out_text) {
  size_t length = format_signature(f, NULL, 0);
  char* text = malloc(length + 1);
  if (!text)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "out of memory formatting a signature");
  format_signature(f, text, length + 1);
  *out_text = text;
  return NULL;
}
