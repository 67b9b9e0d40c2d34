#include "support/InternalError.h"

#include <cstdio>
#include <cstdlib>

namespace graft {

void internalError(const std::string &what, const char *file, int line) {
  std::fflush(stdout);
  std::fprintf(stderr,
               "graft: internal error: %s (%s:%d)\n"
               "This is a bug in graft, not in your input. Please report it with "
               "the command line and the files it read.\n",
               what.c_str(), file, line);
  std::fflush(stderr);
  std::abort();
}

} // namespace graft
