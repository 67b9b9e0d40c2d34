// Parser of graph files and spec patterns (docs/graph-format.md).
//
// Reports every syntax error it can find in one run (recovering at the next
// line) and never crashes on malformed input. Names are resolved while
// parsing, so undefined and redefined values are parse errors; all typing
// rules are the verifier's (Verifier.h). A module returned from a run with
// errors is incomplete: check diag.hasErrors() before using it.
#pragma once

#include "ir/IR.h"
#include "support/Diagnostics.h"

#include <memory>
#include <string_view>

namespace graft {

struct ParseOptions {
  // Added to every reported line / column (pattern text inside a YAML block
  // scalar: the line the text starts on minus one, its indentation).
  uint32_t lineOffset = 0;
  uint32_t colOffset = 0;
};

// Parses the whole text of |file|; warns when it defines no function.
std::unique_ptr<Module> parseModule(const SourceManager &sm, uint32_t file,
                                    DiagEngine &diag,
                                    const ParseOptions &opts = {});

// Parses |text|, which is a part of |file| (e.g. a YAML block scalar) given
// separately; locations point into |file| through |opts|.
std::unique_ptr<Module> parseModuleText(std::string_view text, uint32_t file,
                                        DiagEngine &diag,
                                        const ParseOptions &opts);

} // namespace graft
