/* libFuzzer target for the tensor text form: graft_tensor_parse on arbitrary
 * text, and for every tensor that parses, the printer's round trip (format,
 * parse the printed text, format again: both texts agree; printing rounds
 * floats to 6 digits, so the first print is the fixed point, not the input).
 * The '@file' forms read files named by the input; inputs containing '@' are
 * skipped so the fuzzer never opens arbitrary paths.
 *
 * Build and run: cmake/fuzz.sh (seed corpus: tests/fuzz/corpus/fuzz_tensor/). */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graft/tensor.h"

/* Larger tensors are parsed but not printed: printing is linear in the
 * element count and adds nothing the small cases do not cover. */
#define MAX_PRINTED_ELEMENTS (1u << 16)

static void fail(const char* what, const char* a, const char* b) {
  fprintf(stderr, "fuzz_tensor: %s\n--- first:\n%s\n--- second:\n%s\n", what,
          a, b);
  abort();
}

/* Shapes declaring more elements are skipped before parsing: a splat such
 * as 3x177777771xf16=5 really allocates and fills its gigabyte, which is
 * the parser working, not a finding, and stalls the fuzzer. */
#define MAX_PARSED_ELEMENTS (1u << 22)

/* The element count the leading "DxDx...x" of |text| declares (saturating),
 * or 0 where it declares no dimensions. */
static uint64_t declared_elements(const uint8_t* text, size_t size) {
  uint64_t count = 1;
  int dims = 0;
  size_t i = 0;
  /* The leading space graft_tensor_parse skips: isspace's, form feed and
   * vertical tab included. */
  while (i < size && isspace(text[i])) ++i;
  while (i < size) {
    size_t start = i;
    uint64_t d = 0;
    while (i < size && text[i] >= '0' && text[i] <= '9') {
      d = d > UINT64_MAX / 10 ? UINT64_MAX : d * 10 + (uint64_t)(text[i] - '0');
      ++i;
    }
    if (i == start || i >= size || text[i] != 'x') break;
    ++i;
    ++dims;
    count = d && count > UINT64_MAX / d ? UINT64_MAX : count * d;
  }
  return dims ? count : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (memchr(data, '@', size) || memchr(data, 0, size)) return 0;
  if (declared_elements(data, size) > MAX_PARSED_ELEMENTS) return 0;
  char* text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;

  graft_tensor_t t;
  graft_status_t status = graft_tensor_parse(text, &t);
  free(text);
  if (status) {
    graft_status_free(status);
    return 0;
  }
  if (graft_tensor_element_count(&t) > MAX_PRINTED_ELEMENTS) {
    graft_tensor_release(&t);
    return 0;
  }
  char* printed = NULL;
  status = graft_tensor_format(&t, &printed);
  graft_tensor_release(&t);
  if (status) fail("a parsed tensor does not print", "", "");

  graft_tensor_t again;
  status = graft_tensor_parse(printed, &again);
  if (status) fail("the printed tensor does not parse", printed, "");
  char* reprinted = NULL;
  status = graft_tensor_format(&again, &reprinted);
  graft_tensor_release(&again);
  if (status) fail("the reparsed tensor does not print", printed, "");
  if (strcmp(printed, reprinted) != 0)
    fail("printing the reparsed tensor gives different text", printed,
         reprinted);
  free(printed);
  free(reprinted);
  return 0;
}
