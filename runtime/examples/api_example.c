/* A minimal program on graft's public C API: open a bundle, list its
 * functions, run one on inputs given in the text form and print the results.
 *
 *   graft_api_example mlp.graft mlp "2x2xf32=[[2 2][-2 -2]]" "2x2xf32=..."
 *
 * Every status is checked; every resource is released on every path. */
#include <stdio.h>
#include <stdlib.h>

#include "graft/runtime.h"

#define MAX_VALUES 16

int main(int argc, char** argv) {
  if (argc < 3 || argc - 3 > MAX_VALUES) {
    fprintf(stderr, "usage: %s BUNDLE FUNCTION [INPUT...]\n", argv[0]);
    return 2;
  }
  graft_tensor_t inputs[MAX_VALUES] = {{0}};
  graft_tensor_t outputs[MAX_VALUES] = {{0}};
  size_t input_count = (size_t)(argc - 3);
  graft_module_t* module = NULL;
  graft_function_info_t info = {0};
  uint32_t ordinal = 0;

  graft_status_t status = graft_module_open_file(argv[1], NULL, &module);
  for (uint32_t i = 0; !status && i < graft_module_function_count(module); ++i) {
    char* signature = NULL;
    status = graft_module_function_format_signature(module, i, &signature);
    if (!status) printf("function %s\n", signature);
    free(signature);
  }
  if (!status) status = graft_module_function_lookup(module, argv[2], &ordinal);
  if (!status) status = graft_module_function_info(module, ordinal, &info);
  if (!status && info.result_count > MAX_VALUES)
    status = graft_status_make(GRAFT_UNIMPLEMENTED, "too many results (%u)",
                               info.result_count);
  for (size_t i = 0; !status && i < input_count; ++i)
    status = graft_tensor_parse(argv[3 + i], &inputs[i]);
  if (!status)
    status = graft_module_function_invoke(module, ordinal, inputs, input_count,
                                          outputs, info.result_count);
  for (uint32_t i = 0; !status && i < info.result_count; ++i) {
    char* text = NULL;
    status = graft_tensor_format(&outputs[i], &text);
    if (!status) printf("%s\n", text);
    free(text);
  }

  int exit_code = 0;
  if (status) {
    fprintf(stderr, "error: %s\n", graft_status_message(status));
    graft_status_free(status);
    exit_code = 1;
  }
  for (size_t i = 0; i < MAX_VALUES; ++i) {
    graft_tensor_release(&inputs[i]);
    graft_tensor_release(&outputs[i]);
  }
  graft_module_close(module);
  return exit_code;
}
