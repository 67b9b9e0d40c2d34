// graft-fatelf: info, verify, split, join, extract and remove on FatELF
// bundles (FatElfTool.cpp; the format is lib/bundle/FatElf.h).
#pragma once

namespace graft {

// Entry point of the `graft-fatelf` binary; returns the exit code.
int fatelfMain(int argc, char **argv);

} // namespace graft
