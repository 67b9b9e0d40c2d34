/* Result comparison for --expected_output (see compare.h). */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void format_type(const graft_tensor_t* t, char* buffer, size_t size) {
  size_t pos = 0;
  buffer[0] = 0;
  for (uint32_t i = 0; i < t->rank && pos < size; ++i)
    pos += (size_t)snprintf(buffer + pos, size - pos, "%lldx",
                            (long long)t->dims[i]);
  if (pos < size) snprintf(buffer + pos, size - pos, "%s", graft_dtype_name(t->dtype));
}

/* "[1, 0]": the multi-index of flat element |index|. */
static void format_index(const graft_tensor_t* t, uint64_t index, char* buffer,
                         size_t size) {
  uint64_t coords[GRAFT_MAX_RANK];
  for (uint32_t i = t->rank; i-- > 0;) {
    uint64_t d = (uint64_t)t->dims[i];
    coords[i] = index % d;
    index /= d;
  }
  size_t pos = (size_t)snprintf(buffer, size, "[");
  for (uint32_t i = 0; i < t->rank && pos < size; ++i)
    pos += (size_t)snprintf(buffer + pos, size - pos, "%s%llu", i ? ", " : "",
                            (unsigned long long)coords[i]);
  if (pos < size) snprintf(buffer + pos, size - pos, "]");
}

static int is_float(uint32_t dtype) {
  return dtype == GRAFT_DTYPE_F16 || dtype == GRAFT_DTYPE_BF16 ||
         dtype == GRAFT_DTYPE_F32 || dtype == GRAFT_DTYPE_F64;
}

static int close_enough(double got, double expected, double atol, double rtol) {
  if (isnan(expected)) return isnan(got);
  if (isinf(expected) || isinf(got)) return got == expected;
  return fabs(got - expected) <= atol + rtol * fabs(expected);
}

graft_status_t graft_run_compare(const graft_tensor_t* got,
                                 const graft_tensor_t* expected, double atol,
                                 double rtol) {
  int same_shape = got->dtype == expected->dtype && got->rank == expected->rank;
  for (uint32_t i = 0; same_shape && i < got->rank; ++i)
    same_shape = got->dims[i] == expected->dims[i];
  if (!same_shape) {
    char a[128], b[128];
    format_type(got, a, sizeof(a));
    format_type(expected, b, sizeof(b));
    return graft_status_make(GRAFT_FAILED_PRECONDITION,
                             "got %s, expected %s", a, b);
  }
  uint64_t count = graft_tensor_element_count(got);
  size_t element_size = graft_dtype_size(got->dtype);
  for (uint64_t i = 0; i < count; ++i) {
    int equal;
    if (is_float(got->dtype)) {
      equal = close_enough(graft_tensor_element_as_double(got, i),
                           graft_tensor_element_as_double(expected, i),
                           atol, rtol);
    } else {
      equal = memcmp((const char*)got->data + i * element_size,
                     (const char*)expected->data + i * element_size,
                     element_size) == 0;
    }
    if (equal) continue;
    char where[160];
    format_index(got, i, where, sizeof(where));
    if (is_float(got->dtype) && atol == rtol)
      return graft_status_make(GRAFT_FAILED_PRECONDITION,
                               "element %s differs: got %g, expected %g "
                               "(tolerance %g)",
                               where, graft_tensor_element_as_double(got, i),
                               graft_tensor_element_as_double(expected, i),
                               atol);
    if (is_float(got->dtype))
      return graft_status_make(GRAFT_FAILED_PRECONDITION,
                               "element %s differs: got %g, expected %g "
                               "(atol %g, rtol %g)",
                               where, graft_tensor_element_as_double(got, i),
                               graft_tensor_element_as_double(expected, i),
                               atol, rtol);
    return graft_status_make(GRAFT_FAILED_PRECONDITION,
                             "element %s differs: got %.0f, expected %.0f",
                             where, graft_tensor_element_as_double(got, i),
                             graft_tensor_element_as_double(expected, i));
  }
  return NULL;
}
