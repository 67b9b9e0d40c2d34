// See DriverSupport.h.
#include "driver/DriverSupport.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/Path.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

namespace graft {

namespace fs = std::filesystem;

bool resolveTargets(const std::vector<std::string> &names, DiagEngine &diag,
                    std::vector<const TargetInfo *> &out) {
  std::vector<std::string> wanted = names;
  if (wanted.empty()) {
    const TargetInfo *h = hostTarget();
    if (!h) {
      diag.error("graft", "the host is not a known target; pass --target (" + targetNames() + ")");
      return false;
    }
    wanted.push_back(h->name);
  }
  std::set<const TargetInfo *> chosen;
  bool ok = true;
  for (const std::string &n : wanted) {
    const TargetInfo *t = lookupTarget(n);
    if (!t) {
      diag.error("--target", "unknown target '" + n + "'; known targets: " + targetNames());
      ok = false;
      continue;
    }
    chosen.insert(t);
  }
  out.clear();
  for (const TargetInfo *t : allTargets())
    if (chosen.count(t))
      out.push_back(t);
  return ok;
}

WorkDir::~WorkDir() {
  if (!path_.empty()) {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
}

bool WorkDir::create(const std::string &what, DiagEngine &diag) {
  // $TMPDIR (else /tmp) holds the work files while graft runs.
  llvm::SmallString<256> tmp;
  llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, tmp);
  llvm::sys::path::append(tmp, "graft-" + what + ".XXXXXX");
  std::string tmpl(tmp.str());
  if (!mkdtemp(tmpl.data())) {
    diag.error(std::string(tmp.str()), "cannot create a temporary directory: " +
                                           std::string(std::strerror(errno)) +
                                           " (set TMPDIR to a writable directory)");
    return false;
  }
  path_ = tmpl;
  return true;
}

bool writeOutputFile(const std::string &path, const void *bytes, size_t size, DiagEngine &diag) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(static_cast<const char *>(bytes), static_cast<std::streamsize>(size));
    if (!out) {
      diag.error(path, "cannot write: " + std::string(std::strerror(errno)));
      return false;
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    diag.error(path, "cannot write: " + ec.message());
    return false;
  }
  return true;
}

} // namespace graft
