// Compiler bugs, kept apart from user errors (Diagnostics.h): an invariant
// that does not hold is never reported as a problem with the input and never
// papered over with a default value. GRAFT_CHECK stays on in release builds;
// failing it prints what broke and where, asks for a bug report and aborts.
#pragma once

#include <string>

namespace graft {

[[noreturn]] void internalError(const std::string &what, const char *file, int line);

} // namespace graft

// Aborts with |what| (a std::string or C string) as an internal error.
#define GRAFT_INTERNAL_ERROR(what) ::graft::internalError((what), __FILE__, __LINE__)

// Aborts with |what| unless |cond| holds. Always evaluated, also with NDEBUG.
#define GRAFT_CHECK(cond, what)                                                \
  do {                                                                         \
    if (!(cond))                                                               \
      GRAFT_INTERNAL_ERROR(what);                                              \
  } while (0)
