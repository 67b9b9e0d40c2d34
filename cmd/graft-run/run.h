/* graft-run's work: open the bundle, list or run one function, print, write
 * or check its results, optionally benchmark it. */
#ifndef GRAFT_RUN_RUN_H_
#define GRAFT_RUN_RUN_H_

#include "options.h"

/* Returns the process exit code: 0 success, 1 any error (already printed
 * to stderr as "graft-run: ..."). */
int graft_run(const graft_run_options_t* options);

#endif /* GRAFT_RUN_RUN_H_ */
