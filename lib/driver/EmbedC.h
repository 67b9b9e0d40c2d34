// `graft build --embed STEM`: a C header and a C source that put a bundle
// inside an application, in the spirit of Halide's generated headers.
//
// STEM.h declares, for the prefix P (STEM's base name):
//   graft_status_t P_open(const graft_runtime_options_t *, graft_module_t **);
//   void P_close(graft_module_t *);
//   graft_status_t P_<function>(graft_module_t *, <one parameter per argument>,
//                               <one parameter per result>);
// A tensor argument is `const graft_tensor_t *name`, a scalar argument its C
// value (`float alpha`); a tensor result is `graft_tensor_t *outN` (filled
// as graft_module_function_invoke does), a scalar result a pointer to its C
// type. STEM.c holds the bundle's bytes and defines these functions on the
// public runtime API, so the application links STEM.c and graft's runtime
// and ships no bundle file.
#pragma once

#include "ir/IR.h"

#include <cstdint>
#include <string>
#include <vector>

namespace graft {

struct EmbedFiles {
  std::string header; // STEM.h
  std::string source; // STEM.c
};

// Generates both files for |module|'s functions. |prefix| must be a C
// identifier; |graphName| is only quoted in the "generated from" comment.
// Fails (with |error| set) when two generated names would collide.
bool generateEmbedFiles(const Module &module, const std::string &prefix,
                        const std::string &graphName,
                        const std::vector<uint8_t> &bundle, EmbedFiles &out,
                        std::string &error);

// True when |name| is a C identifier (and not a C keyword).
bool isCIdentifier(const std::string &name);

} // namespace graft
