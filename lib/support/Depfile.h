// Make-syntax dependency files ("depfiles"), as compilers write them with
// -MD and as Ninja, CMake and Make read them: `out: in1 in2 ...`, spaces in
// names escaped with '\', '$' doubled, lines continued with '\' + newline.
// graft reads clang's depfiles for C kernels and writes one for the bundle.
#pragma once

#include <string>
#include <vector>

namespace graft {

// The prerequisites of every rule in |text| (targets dropped), in order of
// first appearance, without duplicates. Empty rules (`-MP` phony targets)
// contribute nothing.
std::vector<std::string> parseDepfilePrerequisites(const std::string &text);

// One rule `output: inputs...`, then an empty rule per input (what -MP
// writes), so Make does not fail with "No rule to make target" once an
// input is deleted or renamed.
std::string formatDepfile(const std::string &output, const std::vector<std::string> &inputs);

} // namespace graft
