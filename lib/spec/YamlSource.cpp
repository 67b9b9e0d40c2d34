// See YamlSource.h. yaml-cpp marks are 0-based; SourceLoc is 1-based.
#include "spec/YamlSource.h"

#include <set>

namespace graft {

SourceLoc YamlSource::loc(const YAML::Mark &m) const {
  if (m.line < 0 || m.column < 0)
    return SourceLoc{file_, 0, 0};
  return SourceLoc{file_, static_cast<uint32_t>(m.line) + 1,
                   static_cast<uint32_t>(m.column) + 1};
}

SourceLoc YamlSource::loc(const YAML::Node &n) const { return loc(n.Mark()); }

SourceLoc YamlSource::contentLoc(const YAML::Node &n) const {
  SourceLoc l = loc(n);
  int pos = n.Mark().pos;
  if (pos >= 0 && static_cast<size_t>(pos) < text_.size() &&
      (text_[pos] == '"' || text_[pos] == '\''))
    ++l.col;
  return l;
}

bool YamlSource::error(const YAML::Node &n, const std::string &msg) const {
  diag_.error(loc(n), msg);
  return false;
}

bool YamlSource::checkKeys(const YAML::Node &map,
                           std::initializer_list<const char *> allowed,
                           const std::string &what) const {
  if (!expectMap(map, what))
    return false;
  bool ok = true;
  std::set<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const YAML::Node key = it->first; // a copy: the iterator hands out a temporary
    if (!key.IsScalar()) {
      ok = error(key, "expected a key name in " + what);
      continue;
    }
    const std::string &k = key.Scalar();
    bool known = false;
    for (const char *a : allowed)
      known |= k == a;
    if (!known) {
      std::string list;
      for (const char *a : allowed)
        list += std::string(list.empty() ? "" : ", ") + a;
      ok = error(key, "unknown key '" + k + "' in " + what + "; expected one of: " + list);
      continue;
    }
    if (!seen.insert(k).second)
      ok = error(key, "duplicate key '" + k + "' in " + what);
  }
  return ok;
}

static const char *nodeKind(const YAML::Node &n) {
  switch (n.Type()) {
  case YAML::NodeType::Scalar: return "a scalar";
  case YAML::NodeType::Sequence: return "a list";
  case YAML::NodeType::Map: return "a mapping";
  case YAML::NodeType::Null: return "nothing";
  default: return "an undefined node";
  }
}

bool YamlSource::expectScalar(const YAML::Node &n, const std::string &what) const {
  if (n.IsScalar())
    return true;
  return error(n, "expected " + what + " to be a scalar, found " + nodeKind(n));
}

bool YamlSource::expectSequence(const YAML::Node &n, const std::string &what) const {
  if (n.IsSequence())
    return true;
  return error(n, "expected " + what + " to be a list, found " + nodeKind(n));
}

bool YamlSource::expectMap(const YAML::Node &n, const std::string &what) const {
  if (n.IsMap())
    return true;
  return error(n, "expected " + what + " to be a mapping, found " + nodeKind(n));
}

bool YamlSource::getInt(const YAML::Node &n, const std::string &what, int64_t &out) const {
  if (!expectScalar(n, what))
    return false;
  const std::string &s = n.Scalar();
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+'))
    neg = s[i++] == '-';
  if (i >= s.size())
    return error(n, "expected " + what + " to be an integer, found '" + s + "'");
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9')
      return error(n, "expected " + what + " to be an integer, found '" + s + "'");
    if (v > (INT64_MAX - (s[i] - '0')) / 10)
      return error(n, what + " '" + s + "' does not fit in 64 bits");
    v = v * 10 + (s[i] - '0');
  }
  out = neg ? -v : v;
  return true;
}

void YamlSource::embeddedOffsets(const YAML::Node &n, uint32_t &lineOffset,
                                 uint32_t &colOffset) const {
  YAML::Mark m = n.Mark();
  lineOffset = m.line >= 0 ? static_cast<uint32_t>(m.line) : 0;
  colOffset = m.column >= 0 ? static_cast<uint32_t>(m.column) : 0;
  size_t pos = m.pos >= 0 ? static_cast<size_t>(m.pos) : text_.size();
  if (pos >= text_.size())
    return;
  char c = text_[pos];
  if (c == '"' || c == '\'') {
    ++colOffset; // text starts after the quote
    return;
  }
  if (c != '|' && c != '>')
    return;
  // Block scalar: header "|", "|-", "|+", "|2-", ... then the content lines.
  size_t i = pos + 1;
  int explicitIndent = 0;
  while (i < text_.size() && text_[i] != '\n') {
    if (text_[i] >= '1' && text_[i] <= '9' && explicitIndent == 0)
      explicitIndent = text_[i] - '0';
    if (text_[i] == '#')
      break;
    ++i;
  }
  lineOffset = static_cast<uint32_t>(m.line) + 1;
  if (explicitIndent) {
    // Relative to the indentation of the line holding the key.
    size_t lineStart = text_.rfind('\n', pos);
    lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
    uint32_t parent = 0;
    while (lineStart + parent < text_.size() && text_[lineStart + parent] == ' ')
      ++parent;
    colOffset = parent + static_cast<uint32_t>(explicitIndent);
    return;
  }
  // Otherwise the first non-blank content line sets the indentation.
  while (i < text_.size() && text_[i] != '\n')
    ++i;
  colOffset = 0;
  while (i < text_.size()) {
    size_t lineStart = i + 1;
    size_t j = lineStart;
    while (j < text_.size() && text_[j] == ' ')
      ++j;
    if (j < text_.size() && text_[j] != '\n' && text_[j] != '\r') {
      colOffset = static_cast<uint32_t>(j - lineStart);
      return;
    }
    i = j;
    if (i < text_.size() && text_[i] == '\r')
      ++i;
  }
}

} // namespace graft
