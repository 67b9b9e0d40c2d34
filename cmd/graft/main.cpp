// graft: the compiler driver. Parses the command line and hands over to the
// driver library (lib/driver); all work lives there.
#include "driver/Driver.h"

#include <cstdio>
#include <new>

int main(int argc, char **argv) {
  // Allocation failures that no pass turned into a diagnostic of its own
  // end the run with an error, never an uncaught exception.
  try {
    return graft::driverMain(argc, argv);
  } catch (const std::bad_alloc &) {
    std::fputs("graft: error: out of memory\n", stderr);
    return 1;
  }
}
