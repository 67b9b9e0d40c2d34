// Source files and user-facing diagnostics.
//
// Every user error is reported as
//   file:line:col: error: what was expected, what was found
//     <the source line>
//     ^
// Several errors may be reported in one run; callers check hasErrors() at
// phase boundaries. Compiler bugs are asserts, never diagnostics.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace graft {

// A position in a source file. file == 0 means "no location".
struct SourceLoc {
  uint32_t file = 0;
  uint32_t line = 0; // 1-based
  uint32_t col = 0;  // 1-based, in bytes
  bool valid() const { return file != 0 && line != 0; }
};

// Owns the text of every file the compiler reads so that diagnostics can show
// source lines. File ids start at 1.
class SourceManager {
public:
  // Adds a file's text; returns its id. The text is kept normalized: a
  // UTF-8 byte order mark is dropped and CRLF and lone CR line ends become
  // LF.
  uint32_t add(std::string name, std::string text);
  const std::string &name(uint32_t file) const;
  const std::string &text(uint32_t file) const;
  // The text of 1-based line |line| of |file| without its newline, or "".
  std::string_view line(uint32_t file, uint32_t line) const;
  // "file:line:col" (or "file" / "<unknown>" when parts are missing).
  std::string format(SourceLoc loc) const;
  // The same with the file's base name only: what goes into bundles, so that
  // they do not depend on where the sources are.
  std::string formatShort(SourceLoc loc) const;

private:
  struct File {
    std::string name;
    std::string text;
    std::vector<uint32_t> lineStarts;
  };
  std::vector<File> files_;
};

enum class Severity { Error, Warning, Note };

// Process-wide settings of what DiagEngines write to stderr (set once by the
// command line: --color, -q). Colours follow clang's: bold location, red
// error, magenta warning, green caret. Quiet drops warnings (and their
// notes).
// text() is never coloured and always complete.
void setDiagnosticColors(bool on);
bool diagnosticColors();
void setDiagnosticQuiet(bool on);

class DiagEngine {
public:
  explicit DiagEngine(const SourceManager &sm) : sm_(sm) {}

  // Reports at |loc| with the source line and a caret when loc is valid.
  void error(SourceLoc loc, const std::string &msg);
  void warning(SourceLoc loc, const std::string &msg);
  void note(SourceLoc loc, const std::string &msg);
  // Reports an error about a whole file or an object (no line), e.g.
  // "kernel.o: error: ...". |what| is printed as the location.
  void error(const std::string &what, const std::string &msg);

  bool hasErrors() const { return errors_ != 0; }
  unsigned errorCount() const { return errors_; }
  // Everything reported so far, in order (what is also written to stderr).
  const std::string &text() const { return text_; }
  // When false (tests, library use) nothing is written to stderr.
  void setEcho(bool echo) { echo_ = echo; }

  const SourceManager &sources() const { return sm_; }

  // A deferred engine keeps its reports until replayInto() reports them,
  // in order, through another engine: diagnostics of work done on a
  // thread, reported in a fixed order whatever the threads' timing.
  void setDeferred(bool deferred) { deferred_ = deferred; }
  void replayInto(DiagEngine &to) const;

private:
  struct Pending {
    Severity sev;
    SourceLoc loc;
    std::string prefix, msg;
  };
  void emit(Severity sev, SourceLoc loc, const std::string &prefix,
            const std::string &msg);
  bool deferred_ = false;
  std::vector<Pending> pending_;
  const SourceManager &sm_;
  unsigned errors_ = 0;
  std::string text_;
  bool echo_ = true;
  bool dropNotes_ = false; // the last warning was dropped by -q
};

// "1 operand", "3 operands": a count and its noun for diagnostics.
std::string countOf(size_t n, std::string_view noun);

} // namespace graft
