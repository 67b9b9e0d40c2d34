/* The example application: opens the saxpy bundle with graft's C API, runs
 * saxpy on 5 elements built in memory and prints the result in graft's text
 * form ("5xf32=..."). Usage: saxpy_app [BUNDLE] (default: the path
 * graft_add_bundle() gave the bundle, compiled in as SAXPY_BUNDLE). */
#include <stdio.h>
#include <stdlib.h>

#include "graft/runtime.h"

#define N 5

int main(int argc, char** argv) {
  const char* bundle = argc > 1 ? argv[1] : SAXPY_BUNDLE;
  graft_tensor_t inputs[2] = {{0}};
  graft_tensor_t result = {0};
  graft_module_t* module = NULL;
  uint32_t saxpy = 0;
  char* text = NULL;
  const int64_t dims[1] = {N};

  graft_status_t status = graft_module_open_file(bundle, NULL, &module);
  if (!status) status = graft_module_function_lookup(module, "saxpy", &saxpy);
  for (int i = 0; !status && i < 2; ++i)
    status = graft_tensor_allocate(GRAFT_DTYPE_F32, 1, dims, &inputs[i]);
  if (!status) {
    float* x = inputs[0].data;
    float* y = inputs[1].data;
    for (int i = 0; i < N; ++i) {
      x[i] = (float)i;
      y[i] = 10.0f * (float)i;
    }
    /* result.data stays NULL: the runtime allocates it and we own it. */
    status = graft_module_function_invoke(module, saxpy, inputs, 2, &result, 1);
  }
  if (!status) status = graft_tensor_format(&result, &text);
  if (!status) printf("saxpy: %s\n", text);

  int exit_code = 0;
  if (status) {
    fprintf(stderr, "saxpy_app: error: %s\n", graft_status_message(status));
    graft_status_free(status);
    exit_code = 1;
  }
  free(text);
  graft_tensor_release(&result);
  graft_tensor_release(&inputs[0]);
  graft_tensor_release(&inputs[1]);
  graft_module_close(module);
  return exit_code;
}
