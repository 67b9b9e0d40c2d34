#include "link/PrebuiltBuiltins.h"

#include "link/Builtins.h"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace graft {

namespace {
struct PrebuiltObject {
  const char *target;
  const unsigned char *bytes;
  size_t size;
};
#include "PrebuiltBuiltins.inc"
} // namespace

const unsigned char *prebuiltBuiltinsObject(const TargetInfo &target, size_t &size) {
  for (const PrebuiltObject *p = kPrebuiltBuiltins; p->target; ++p)
    if (std::strcmp(p->target, target.name) == 0) {
      size = p->size;
      return p->bytes;
    }
  size = 0;
  return nullptr;
}

bool writeBuiltinsObject(const TargetInfo &target, const std::string &path, DiagEngine &diag,
                         bool ubsanRuntime) {
  // Only the plain object is prebuilt: slices built with
  // --sanitize=undefined also carry the UBSan handlers, emitted now.
  size_t size = 0;
  const unsigned char *bytes = ubsanRuntime ? nullptr : prebuiltBuiltinsObject(target, size);
  if (!bytes)
    return emitBuiltinsObject(target, path, diag, ubsanRuntime);
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    diag.error(path, "cannot open for writing: " + std::string(std::strerror(errno)));
    return false;
  }
  out.write(reinterpret_cast<const char *>(bytes), static_cast<std::streamsize>(size));
  out.close();
  if (!out) {
    diag.error(path, "cannot write: " + std::string(std::strerror(errno)));
    return false;
  }
  return true;
}

} // namespace graft
