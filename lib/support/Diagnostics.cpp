#include "support/Diagnostics.h"

#include <cassert>
#include <cstdio>

namespace graft {

namespace {

// One text convention for every reader: a leading UTF-8 byte order mark is
// dropped and CRLF or a lone CR (old Mac files) become LF, so lexers, YAML
// and carets only ever see '\n' line ends. Columns do not change: the
// removed bytes sit before line 1 or at line ends.
std::string normalizeText(std::string text) {
  size_t begin = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  if (begin == 0 && text.find('\r') == std::string::npos)
    return text;
  std::string out;
  out.reserve(text.size() - begin);
  for (size_t i = begin; i < text.size(); ++i) {
    if (text[i] != '\r') {
      out += text[i];
      continue;
    }
    out += '\n';
    if (i + 1 < text.size() && text[i + 1] == '\n')
      ++i;
  }
  return out;
}

} // namespace

uint32_t SourceManager::add(std::string name, std::string text) {
  File f;
  f.name = std::move(name);
  f.text = normalizeText(std::move(text));
  f.lineStarts.push_back(0);
  for (uint32_t i = 0; i < f.text.size(); ++i)
    if (f.text[i] == '\n')
      f.lineStarts.push_back(i + 1);
  files_.push_back(std::move(f));
  return static_cast<uint32_t>(files_.size());
}

const std::string &SourceManager::name(uint32_t file) const {
  assert(file >= 1 && file <= files_.size());
  return files_[file - 1].name;
}

const std::string &SourceManager::text(uint32_t file) const {
  assert(file >= 1 && file <= files_.size());
  return files_[file - 1].text;
}

std::string_view SourceManager::line(uint32_t file, uint32_t line) const {
  if (file < 1 || file > files_.size())
    return {};
  const File &f = files_[file - 1];
  if (line < 1 || line > f.lineStarts.size())
    return {};
  uint32_t begin = f.lineStarts[line - 1];
  uint32_t end = line < f.lineStarts.size()
                     ? f.lineStarts[line] - 1
                     : static_cast<uint32_t>(f.text.size());
  return std::string_view(f.text).substr(begin, end - begin);
}

std::string SourceManager::format(SourceLoc loc) const {
  if (loc.file < 1 || loc.file > files_.size())
    return "<unknown>";
  std::string s = files_[loc.file - 1].name;
  if (loc.line) {
    s += ":" + std::to_string(loc.line);
    if (loc.col)
      s += ":" + std::to_string(loc.col);
  }
  return s;
}

std::string SourceManager::formatShort(SourceLoc loc) const {
  std::string s = format(loc);
  if (loc.file < 1 || loc.file > files_.size())
    return s;
  const std::string &name = files_[loc.file - 1].name;
  size_t slash = name.find_last_of('/');
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

namespace {
bool gColors = false;
bool gQuiet = false;
} // namespace

void setDiagnosticColors(bool on) { gColors = on; }
bool diagnosticColors() { return gColors; }
void setDiagnosticQuiet(bool on) { gQuiet = on; }

void DiagEngine::emit(Severity sev, SourceLoc loc, const std::string &prefix,
                      const std::string &msg) {
  const char *kind = sev == Severity::Error     ? "error"
                     : sev == Severity::Warning ? "warning"
                                                : "note";
  // The same text plain (for text()) and, on request, with clang's colours.
  auto render = [&](bool color) {
    auto paint = [&](const char *code, const std::string &s) {
      return color ? std::string("\033[") + code + "m" + s + "\033[0m" : s;
    };
    const char *kindColor = sev == Severity::Error     ? "1;31"
                            : sev == Severity::Warning ? "1;35"
                                                       : "1;30";
    std::string out = paint("1", prefix + ":") + " " +
                      paint(kindColor, std::string(kind) + ":") + " " +
                      paint("1", msg) + "\n";
    if (loc.valid()) {
      std::string_view src = sm_.line(loc.file, loc.line);
      if (!src.empty() || loc.col == 1) {
        out += "  ";
        out += src;
        out += "\n  ";
        // Keep tabs so the caret lines up under the same column.
        for (uint32_t i = 1; i < loc.col && i - 1 < src.size(); ++i)
          out += src[i - 1] == '\t' ? '\t' : ' ';
        out += paint("1;32", "^") + "\n";
      }
    }
    return out;
  };
  if (sev == Severity::Error)
    ++errors_;
  if (deferred_) {
    pending_.push_back({sev, loc, prefix, msg});
    return;
  }
  text_ += render(false);
  // -q drops warnings and the notes that explain them, never errors.
  if (sev != Severity::Note)
    dropNotes_ = sev == Severity::Warning && gQuiet;
  if (echo_ && !(sev == Severity::Warning && gQuiet) &&
      !(sev == Severity::Note && dropNotes_))
    std::fputs(render(gColors).c_str(), stderr);
}

void DiagEngine::replayInto(DiagEngine &to) const {
  for (const Pending &p : pending_)
    to.emit(p.sev, p.loc, p.prefix, p.msg);
}

void DiagEngine::error(SourceLoc loc, const std::string &msg) {
  emit(Severity::Error, loc, sm_.format(loc), msg);
}
void DiagEngine::warning(SourceLoc loc, const std::string &msg) {
  emit(Severity::Warning, loc, sm_.format(loc), msg);
}
void DiagEngine::note(SourceLoc loc, const std::string &msg) {
  emit(Severity::Note, loc, sm_.format(loc), msg);
}
void DiagEngine::error(const std::string &what, const std::string &msg) {
  emit(Severity::Error, SourceLoc{}, what, msg);
}

std::string countOf(size_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

} // namespace graft
