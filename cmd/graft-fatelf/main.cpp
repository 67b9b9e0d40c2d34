// graft-fatelf: inspect, verify, split and join FatELF bundles. All work
// lives in lib/driver/FatElfTool.cpp over lib/bundle.
#include "driver/FatElfTool.h"

int main(int argc, char **argv) { return graft::fatelfMain(argc, argv); }
