// See Depfile.h. The escaping follows what GCC and clang write and what
// Ninja's depfile parser accepts: "\ " for a space, "\#" for '#', "$$" for
// '$'; any other backslash is part of the name (Windows-style paths).
#include "support/Depfile.h"

#include <unordered_set>

namespace graft {

namespace {

// Splits |text| into words; a word ending in an unescaped ':' ends the
// targets of its rule, and an unescaped newline ends the rule.
struct Word {
  enum Kind { Name, Target, RuleEnd } kind = Name;
  std::string text;
};

std::vector<Word> splitWords(const std::string &text) {
  std::vector<Word> words;
  std::string cur;
  bool inWord = false;
  auto finish = [&] {
    if (!inWord)
      return;
    Word w;
    if (!cur.empty() && cur.back() == ':') {
      cur.pop_back();
      w.kind = Word::Target;
    }
    w.text = cur;
    words.push_back(std::move(w));
    cur.clear();
    inWord = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      char n = text[i + 1];
      if (n == '\n' || (n == '\r' && i + 2 < text.size() && text[i + 2] == '\n')) {
        finish(); // a continued line: the rule goes on
        i += n == '\n' ? 1 : 2;
        continue;
      }
      if (n == ' ' || n == '#') {
        cur += n;
        inWord = true;
        ++i;
        continue;
      }
    }
    if (c == '$' && i + 1 < text.size() && text[i + 1] == '$') {
      cur += '$';
      inWord = true;
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      finish();
      continue;
    }
    if (c == '\n') {
      finish();
      words.push_back(Word{Word::RuleEnd, ""});
      continue;
    }
    cur += c;
    inWord = true;
  }
  finish();
  return words;
}

std::string escape(const std::string &path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#')
      out += '\\';
    if (c == '$')
      out += '$';
    out += c;
  }
  return out;
}

} // namespace

std::vector<std::string> parseDepfilePrerequisites(const std::string &text) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  bool afterColon = false; // words before a rule's ':' are its targets
  for (const Word &w : splitWords(text)) {
    if (w.kind == Word::RuleEnd)
      afterColon = false;
    else if (w.kind == Word::Target && !afterColon)
      afterColon = true;
    else if (afterColon && !w.text.empty() && seen.insert(w.text).second)
      out.push_back(w.text);
  }
  return out;
}

std::string formatDepfile(const std::string &output, const std::vector<std::string> &inputs) {
  std::string text = escape(output) + ":";
  for (const std::string &in : inputs)
    text += " \\\n  " + escape(in);
  text += "\n";
  for (const std::string &in : inputs)
    text += "\n" + escape(in) + ":\n";
  return text;
}

} // namespace graft
