// Reading spec files (docs/spec-format.md) into Rules: YAML structure, the
// embedded match pattern (parsed and verified with the graph parser, errors
// located in the YAML file), constraints, the replacement and kernel paths.
#pragma once

#include "spec/Spec.h"

#include <string>

namespace graft {

// Reads |path|, adds its text to |sm| and appends its rules to |out|. Every
// problem is reported through |diag| as file:line:col; returns false if any
// was found (|out| then holds only the rules of earlier files). Kernel paths
// are resolved relative to the directory of |path|. Rule names must be unique
// across all files loaded into |out|. |graph| declares the kernels that
// direct rules (`kernel: NAME`) provide; without it such a rule is an error.
bool loadSpecFile(const std::string &path, SourceManager &sm, DiagEngine &diag,
                  SpecSet &out, const Module *graph = nullptr);

// Same, for spec text already in |sm| as file |file|; |baseDir| resolves
// kernel paths.
bool loadSpecText(uint32_t file, const std::string &baseDir, DiagEngine &diag,
                  SpecSet &out, const Module *graph = nullptr);

} // namespace graft
