/* The import contract between probe_slice.c and tagger_plugin.c: three
 * imports, one required and two optional, each called per element as
 *   int fn(probe_params_t* params, void* context, void* reserved)
 * It writes the plugin's tag into out[index], or returns -input (a
 * non-zero code) when the input element is negative. */
#ifndef GRAFT_TESTS_PLUGINS_PROBE_H_
#define GRAFT_TESTS_PLUGINS_PROBE_H_

#include <stdint.h>

#define PROBE_A "probe_a"  /* required */
#define PROBE_B "probe_b"  /* optional */
#define PROBE_C "probe_c"  /* optional */

typedef struct probe_params_t {
  float* out;
  uint64_t index;
  float input;
} probe_params_t;

#endif /* GRAFT_TESTS_PLUGINS_PROBE_H_ */
