// libFuzzer target for spec files: loadSpecText on arbitrary YAML text (YAML
// structure, embedded match patterns through the graph parser and verifier,
// constraints, replacements, kernel paths). Loading compiles nothing (kernels
// are compiled later, per target, by KernelCompiler), so no clang runs here.
// Kernel paths resolve against a private temp directory holding empty files
// named like the seed corpus's kernels, so that valid seeds load completely.
//
// Build and run: cmake/fuzz.sh (seed corpus: tests/fuzz/corpus/fuzz_spec/).
// GRAFT_FUZZ_ECHO=1 prints the diagnostics (to see why a seed is rejected).
#include "spec/SpecLoader.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <unistd.h>

namespace {

// Kernel file names used by the seeds (specs/*/ and tests).
const char *const kKernelFiles[] = {"k.c", "kernel.c", "kernel.o", "kernel.bc",
                                    "mlp_kernel.c", "mlp_external.c",
                                    "rowsum_kernel.c", "scaled_add.c", "fma_tile.c"};

struct KernelDir {
  std::filesystem::path path;
  KernelDir() {
    path = std::filesystem::temp_directory_path() /
           ("graft_fuzz_spec_" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
    for (const char *name : kKernelFiles)
      std::ofstream(path / name) << "/* empty */\n";
  }
  ~KernelDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static KernelDir dir;
  graft::SourceManager sm;
  graft::DiagEngine diag(sm);
  diag.setEcho(std::getenv("GRAFT_FUZZ_ECHO") != nullptr);
  uint32_t file =
      sm.add((dir.path / "fuzz.yaml").string(),
             std::string(reinterpret_cast<const char *>(data), size));
  graft::SpecSet specs;
  bool ok = graft::loadSpecText(file, dir.path.string(), diag, specs);
  // A failed load must say why; a successful one must not report errors.
  if (ok == diag.hasErrors()) {
    std::fprintf(stderr, "fuzz_spec: load returned %s with %u errors:\n%s\n",
                 ok ? "true" : "false", diag.errorCount(), diag.text().c_str());
    std::abort();
  }
  return 0;
}
