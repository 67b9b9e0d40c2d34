// Links a slice with lld in-process (see Linker.h).
//
// lld is driven exactly like the ld.lld command line. Its messages mention the
// temporary paths of the inputs; those are replaced by the inputs' names so a
// user sees "kernels.c" rather than "/tmp/graft-1234/k0.o".
#include "link/Linker.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <mutex>

#include "lld/Common/Driver.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "support/InternalError.h"

LLD_HAS_DRIVER(elf)

namespace graft {

namespace {

// lld keeps global state while it runs: one link at a time per process.
std::mutex lldMutex;
// Set when lld reported that its state is unusable (it crashed and was
// recovered); every later link would be unsafe.
bool lldBroken = false;

// Only the query function (and the exports that go with it) is visible
// outside the slice; every other symbol, including the builtins and
// whatever user kernels declare, is local.
std::string versionScript(const std::vector<std::string> &exported) {
  std::string global;
  for (const std::string &name : exported)
    global += " " + name + ";";
  return "{\n  global:" + global + "\n  local: *;\n};\n";
}

bool writeFile(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

bool readFile(const std::string &path, std::vector<uint8_t> &bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  bytes.assign(std::istreambuf_iterator<char>(in),
               std::istreambuf_iterator<char>());
  return !in.bad();
}

void replaceAll(std::string &text, const std::string &from,
                const std::string &to) {
  if (from.empty())
    return;
  for (size_t pos = text.find(from); pos != std::string::npos;
       pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
}

// Splits lld's stderr into one message per "ld.lld: error: " / "warning: "
// header (continuation lines such as ">>> referenced by" stay with their
// message) and reports each one.
void forwardLldMessages(std::string text, const std::string &what,
                        const std::vector<LinkInput> &inputs,
                        DiagEngine &diag) {
  // Longest paths first so that "/w/k.o.a" is not half-replaced by "/w/k.o".
  std::vector<const LinkInput *> byLength;
  for (const LinkInput &in : inputs)
    byLength.push_back(&in);
  std::stable_sort(byLength.begin(), byLength.end(),
                   [](const LinkInput *a, const LinkInput *b) {
                     return a->path.size() > b->path.size();
                   });
  for (const LinkInput *in : byLength)
    replaceAll(text, in->path, in->name);

  const std::string header = "ld.lld: ";
  std::vector<std::string> messages;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t next = text.find("\n" + header, pos);
    std::string chunk = text.substr(
        pos, next == std::string::npos ? std::string::npos : next - pos);
    pos = next == std::string::npos ? text.size() : next + 1;
    if (chunk.compare(0, header.size(), header) == 0)
      chunk.erase(0, header.size());
    for (const char *kind : {"error: ", "warning: "})
      if (chunk.compare(0, std::char_traits<char>::length(kind), kind) == 0)
        chunk.erase(0, std::char_traits<char>::length(kind));
    while (!chunk.empty() && (chunk.back() == '\n' || chunk.back() == ' '))
      chunk.pop_back();
    if (!chunk.empty())
      messages.push_back(chunk);
  }
  for (const std::string &m : messages)
    diag.error(what, m);
}

} // namespace

bool linkSlice(const TargetInfo &target, const std::vector<LinkInput> &inputs,
               const std::string &workDir, std::vector<uint8_t> &elf,
               DiagEngine &diag, const std::vector<std::string> &exported) {
  const std::string what = std::string(target.name) + " slice";
  if (inputs.empty()) {
    diag.error(what, "nothing to link: expected at least one object file");
    return false;
  }
  bool inputsOk = true;
  for (const LinkInput &in : inputs) {
    if (!llvm::sys::fs::exists(in.path)) {
      diag.error(in.name, "cannot link " + what + ": object file '" + in.path +
                              "' does not exist");
      inputsOk = false;
    }
  }
  if (!inputsOk)
    return false;

  const std::string output = workDir + "/" + target.name + ".slice.so";
  const std::string versionScriptPath = workDir + "/" + target.name + ".exports";
  if (!writeFile(versionScriptPath, versionScript(exported))) {
    diag.error(what, "cannot write the version script '" + versionScriptPath + "'");
    return false;
  }
  llvm::sys::fs::remove(output);

  std::vector<std::string> args = {
      "ld.lld", "-m", target.lldEmulation, "-shared", "-Bsymbolic",
      "--no-undefined", "-nostdlib",
      // Everything is resolved at load time and then read-only (W^X); no
      // relocation may patch code.
      "-z", "relro", "-z", "now", "-z", "noexecstack", "-z", "text",
      // graft's loader reads the SysV hash table, not DT_GNU_HASH.
      "--hash-style=sysv", "--pack-dyn-relocs=none",
      // Same inputs, same bytes: no build id, no symbol table with paths.
      "--build-id=none", "--strip-all", "--gc-sections", "--fatal-warnings",
      "--version-script", versionScriptPath, "-o", output};
  for (const LinkInput &in : inputs)
    args.push_back(in.path);
  std::vector<const char *> argv;
  for (const std::string &a : args)
    argv.push_back(a.c_str());

  std::string outText, errText;
  int retCode;
  {
    std::lock_guard<std::mutex> lock(lldMutex);
    // A crashed link fails its build or plugin before another link starts.
    GRAFT_CHECK(!lldBroken, "lld crashed earlier in this process and cannot run again");
    llvm::raw_string_ostream outOS(outText), errOS(errText);
    lld::Result result =
        lld::lldMain(argv, outOS, errOS, {{lld::Gnu, &lld::elf::link}});
    outOS.flush();
    errOS.flush();
    retCode = result.retCode;
    if (!result.canRunAgain)
      lldBroken = true;
  }

  if (!errText.empty())
    forwardLldMessages(errText + outText, what, inputs, diag);
  if (retCode != 0) {
    if (errText.empty())
      diag.error(what, "lld failed with exit code " + std::to_string(retCode) +
                           " and no message");
    return false;
  }
  if (!readFile(output, elf)) {
    diag.error(what, "cannot read the linked slice '" + output + "'");
    return false;
  }
  std::string problem = verifySlice(target, elf, exported);
  if (problem.empty())
    return true;
  // Code a user wrote can break the rules (a section both writable and
  // executable in a kernel's assembly); graft's own code never does.
  std::string userInputs;
  for (const LinkInput &in : inputs)
    if (in.userCode)
      userInputs += (userInputs.empty() ? "" : ", ") + in.name;
  GRAFT_CHECK(!userInputs.empty(), "the linked " + what + " is not a valid graft slice: " + problem);
  diag.error(what, "the linked slice breaks a rule of graft's loader: " + problem +
                       "; check the code linked from " + userInputs);
  return false;
}

} // namespace graft
