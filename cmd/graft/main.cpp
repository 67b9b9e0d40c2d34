// graft: the compiler driver. Parses the command line and hands over to the
// driver library (lib/driver); all work lives there.
#include "driver/Driver.h"

int main(int argc, char **argv) { return graft::driverMain(argc, argv); }
