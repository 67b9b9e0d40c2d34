/* graft-run: runs a function of a graft bundle on this CPU.
 *   graft-run mlp.graft --function mlp --input "2x2xf32=[[2 2][-2 -2]]" ...
 * Parse options, run, report. Exit codes: 0 ok, 1 error, 2 usage error. */
#include <stdio.h>

#include "graft/abi.h"
#include "graft/runtime.h"
#include "options.h"
#include "run.h"

int main(int argc, char** argv) {
  graft_run_options_t options;
  int rc = graft_run_options_parse(argc, argv, &options);
  if (rc == 0 && options.help) {
    graft_run_print_help();
  } else if (rc == 0 && options.version) {
    printf("graft-run %s (bundle ABI %u)\n", GRAFT_RUNTIME_VERSION,
           GRAFT_ABI_VERSION);
  } else if (rc == 0) {
    rc = graft_run(&options);
  }
  graft_run_options_free(&options);
  return rc;
}
