// Helpers that tie yaml-cpp nodes back to the YAML text for diagnostics:
// node locations, quoted-scalar column shifts, unknown/duplicate key checks,
// and the line/column offsets of text embedded in a block scalar (the match
// pattern), so errors found by the graph parser point into the YAML file.
#pragma once

#include "support/Diagnostics.h"

#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <string>

namespace graft {

class YamlSource {
public:
  YamlSource(uint32_t file, const std::string &text, DiagEngine &diag)
      : file_(file), text_(text), diag_(diag) {}

  uint32_t file() const { return file_; }
  DiagEngine &diag() const { return diag_; }

  // The location of |n| (of its first character; for a quoted scalar the
  // quote).
  SourceLoc loc(const YAML::Node &n) const;
  SourceLoc loc(const YAML::Mark &m) const;
  // Where the *content* of scalar |n| starts: after the quote of a quoted
  // scalar. Only meaningful for single-line scalars.
  SourceLoc contentLoc(const YAML::Node &n) const;

  // Reports an error at |n|; always returns false.
  bool error(const YAML::Node &n, const std::string &msg) const;

  // Checks that |map| is a mapping whose keys are all in |allowed| and
  // appear once. |what| names the mapping in messages ("rule", "replace").
  bool checkKeys(const YAML::Node &map, std::initializer_list<const char *> allowed,
                 const std::string &what) const;

  // Expects |n| to be a scalar; |what| names it in the message.
  bool expectScalar(const YAML::Node &n, const std::string &what) const;
  bool expectSequence(const YAML::Node &n, const std::string &what) const;
  bool expectMap(const YAML::Node &n, const std::string &what) const;
  // Parses an integer scalar.
  bool getInt(const YAML::Node &n, const std::string &what, int64_t &out) const;

  // For scalar |n| holding multi-line text, the offsets to add to line/col
  // positions inside the text so they land on the YAML file: for a block
  // scalar ('|', '|-', '|+', with an optional indentation digit) line 1 of
  // the text is the line after the indicator and every line is indented by
  // the block's indentation; for a plain or quoted scalar the text starts at
  // the node.
  void embeddedOffsets(const YAML::Node &n, uint32_t &lineOffset,
                       uint32_t &colOffset) const;

private:
  uint32_t file_;
  const std::string &text_;
  DiagEngine &diag_;
};

} // namespace graft
