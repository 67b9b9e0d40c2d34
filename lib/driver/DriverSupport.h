// What the commands that write FatELF files (`graft build`, `graft plugin`)
// share: the --target list, a temporary work directory, and writing the
// output so that a failed run never leaves a half-written file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "support/Diagnostics.h"
#include "targets/Target.h"

namespace graft {

// Resolves --target names (empty: the host) into |out|, in the registry's
// order whatever the command line says (so outputs do not depend on how
// targets were listed), without duplicates. Reports every unknown name.
bool resolveTargets(const std::vector<std::string> &names, DiagEngine &diag,
                    std::vector<const TargetInfo *> &out);

// A fresh directory under /tmp, removed with everything in it on
// destruction.
class WorkDir {
public:
  WorkDir() = default;
  WorkDir(const WorkDir &) = delete;
  WorkDir &operator=(const WorkDir &) = delete;
  ~WorkDir();
  // Creates it ("$TMPDIR/graft-<what>.XXXXXX", /tmp without TMPDIR);
  // reports failure through |diag|.
  bool create(const std::string &what, DiagEngine &diag);
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

// Writes |size| bytes to |path| through a temporary file and a rename, so
// that a failed write leaves the old file (and a build system never sees half
// a file).
bool writeOutputFile(const std::string &path, const void *bytes, size_t size, DiagEngine &diag);
inline bool writeOutputFile(const std::string &path, const std::vector<uint8_t> &bytes,
                            DiagEngine &diag) {
  return writeOutputFile(path, bytes.data(), bytes.size(), diag);
}

} // namespace graft
