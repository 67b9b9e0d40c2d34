// `graft spec --header SPEC.yaml... [--target LIST]`: the C prototypes the
// rules of spec files expect of their kernels (spec/Prototype.h), as a
// header to write the kernels against. |argv| holds the arguments after the
// subcommand word.
#pragma once

namespace graft {

// Returns 0, 1 on errors in a spec, 2 on a bad command line.
int runSpec(int argc, char **argv);

} // namespace graft
