// Command-line front of `graft`: one table of build options with their help
// text, subcommand dispatch, and nothing else.
#include "driver/Driver.h"

#include "bundle/FatElf.h"
#include "driver/CheckEval.h"
#include "driver/EmbedC.h"
#include "driver/SpecHeader.h"
#include "support/Diagnostics.h"
#include "support/InternalError.h"
#include "targets/Describe.h"
#include "targets/Target.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace graft {

namespace {

struct OptionDesc {
  const char *name;
  const char *arg; // null for flags
  const char *help;
};

const OptionDesc kBuildOptions[] = {
    {"-o", "FILE", "output bundle (default: <graph name>.graft)"},
    {"--spec", "FILE", "match/replace spec (YAML); may be repeated"},
    {"--target", "LIST", "comma-separated targets (default: the host)"},
    {"--levels", "LIST",
     "feature levels to compile an ISA variant for (x86-64-v2,x86-64-v4; "
     "'baseline'; default: every level of each target)"},
    {"--emit", "KINDS",
     "also write llvm,asm,obj,elf per target into --emit-dir"},
    {"--emit-dir", "DIR", "directory for --emit (default: .)"},
    {"--depfile", "FILE",
     "write the bundle's inputs (graph, specs, kernels) as a Make rule"},
    {"--embed", "STEM",
     "also write STEM.h and STEM.c: the bundle as C, an entry point per "
     "function"},
    {"-I", "DIR", "include directory for every C kernel"},
    {"-D", "NAME[=VALUE]", "macro definition for every C kernel"},
    {"--kernel-flag", "FLAG", "clang flag for every C kernel"},
    {"--sanitize", "undefined",
     "check C kernels with UBSan (minimal runtime, in the slice); a check that "
     "fires fails the invocation, naming it (docs/threat-model.md)"},
    {"--explain", nullptr,
     "report every spec match and why candidates did not match"},
    {"-v", nullptr, "print what each pass did"},
    {"--time-passes", nullptr, "print each pass's wall and CPU time to stderr"},
    {"--weights-as-args", nullptr,
     "ONNX input: initializers become function arguments, not constants"},
    {"--constant", "NAME=T",
     "ONNX input: fix graph input NAME to tensor T (2xi64=[1 2], @f.pb, @f.npy)"},
};
const OptionDesc kImportOptions[] = {
    {"-o", "FILE", "write the graph to FILE (default: stdout)"},
    {"--weights-as-args", nullptr,
     "initializers become function arguments (after the inputs), not constants"},
    {"--constant", "NAME=T",
     "fix graph input NAME to tensor T (2xi64=[1 2], @f.pb, @f.npy); it becomes a "
     "constant"},
};
const OptionDesc kCheckOptions[] = {
    {"--print", nullptr, "print the verified graph back in graph syntax"},
};
const OptionDesc kEvalOptions[] = {
    {"--function", "F", "the function to run (default: the only one)"},
    {"--input", "T",
     "an argument: 2x2xf32=[[1 2][3 4]], 8xf32=2, f32=1.5, @f.npy; repeat per "
     "argument"},
    {"--output", "-|@F.npy",
     "print the results (-, the default) or write them as .npy"},
};
// Accepted by every command (driverMain strips them before the command's
// own parser runs).
const OptionDesc kCommonOptions[] = {
    {"--color", "auto|always|never",
     "coloured diagnostics (also clang's for C kernels); auto: on a terminal"},
    {"-q", nullptr, "quiet: no warnings, only errors"},
    {"--help", nullptr, "this text"},
};

// One command's help page: what `graft <command> --help` prints.
struct CommandDesc {
  const char *name;
  const char *synopsis;
  const char *summary;
  const OptionDesc *options;
  size_t optionCount;
  const char *examples;
  const char *environment; // extra environment variables, or ""
};

const OptionDesc kPluginOptions[] = {
    {"-o", "FILE", "output plugin (default: <first source name>.sos)"},
    {"--target", "LIST", "comma-separated targets (default: the host)"},
    {"-I", "DIR", "include directory for the sources"},
    {"-D", "NAME[=VALUE]", "preprocessor definition for the sources"},
    {"-v", nullptr, "print the clang commands and what each step did"},
};

const OptionDesc kSpecOptions[] = {
    {"--header", nullptr, "print the C prototype each rule expects of its kernel"},
    {"--target", "LIST", "only rules with kernels for these targets (default: all)"},
};

const OptionDesc kTargetsOptions[] = {
    {"--format=F", nullptr, "human (default), tsv or cmake"},
};

#define GRAFT_OPTIONS(table) table, sizeof(table) / sizeof(table[0])
const CommandDesc kCommands[] = {
    {"build", "graft build GRAPH [options]",
     "compile a graph, with the kernels its specs splice in, into a FatELF "
     "bundle",
     GRAFT_OPTIONS(kBuildOptions),
     "  graft build mlp.graph --target x86_64,aarch64 -o mlp.graft\n"
     "  graft build mlp.graph --spec mlp.yaml -I include -o mlp.graft "
     "--depfile mlp.graft.d\n"
     "  graft build mlp.graph -o mlp.graft --embed gen/mlp    # gen/mlp.h, "
     "gen/mlp.c\n"
     "  graft build mlp.graph --spec mlp.yaml --sanitize=undefined -o "
     "mlp.graft   # UBSan in C kernels\n",
     "  GRAFT_CLANG        clang for C kernels (default: clang-19 or clang "
     "next to\n"
     "                     graft, else clang-19 on PATH)\n"
     "  GRAFT_INCLUDE_DIR  directory holding graft/kernel.h (default: "
     "<graft's\n"
     "                     dir>/../include)\n"
     "  TMPDIR             where work files go while graft runs (default: "
     "/tmp)\n"},
    {"import", "graft import MODEL.onnx [options]",
     "print an ONNX model as a graph (docs/onnx.md); graft build MODEL.onnx builds it directly",
     GRAFT_OPTIONS(kImportOptions),
     "  graft import model.onnx -o model.graph\n"
     "  graft import model.onnx --constant shape=@shape.pb\n",
     ""},
    {"check", "graft check GRAPH [--print]", "parse and verify a graph",
     GRAFT_OPTIONS(kCheckOptions), "  graft check mlp.graph --print\n", ""},
    {"eval", "graft eval GRAPH [--function F] --input T... [--output -|@F.npy]",
     "run a graph with the reference evaluator (the oracle of the differential "
     "tests)",
     GRAFT_OPTIONS(kEvalOptions),
     "  graft eval mlp.graph --input \"2x2xf32=[[2 2][-2 -2]]\" --input "
     "\"2x2xf32=[[3 -3][3 -3]]\"\n",
     ""},
    {"inspect", "graft inspect BUNDLE",
     "list the slices of a bundle (graft-fatelf info shows more)", nullptr, 0,
     "  graft inspect mlp.graft\n", ""},
    {"plugin", "graft plugin SRC.c... [options]",
     "build a bare-metal plugin (each source per target, linked, checked and "
     "joined into one FatELF .sos)",
     GRAFT_OPTIONS(kPluginOptions),
     "  graft plugin standalone.c --target x86_64,aarch64 -o standalone.sos\n"
     "  graft-run mlp.graft --plugin standalone.sos ...\n",
     "  GRAFT_CLANG        clang for the sources (as for graft build)\n"
     "  GRAFT_INCLUDE_DIR  directory holding graft/plugin.h\n"
     "  TMPDIR             where work files go while graft runs (default: "
     "/tmp)\n"},
    {"spec", "graft spec --header SPEC.yaml... [--target LIST]",
     "print the C prototypes the rules of spec files expect of their kernels",
     GRAFT_OPTIONS(kSpecOptions),
     "  graft spec --header mlp.yaml > mlp_kernels.h\n", ""},
    {"targets", "graft targets [--format=F]",
     "list the known targets and their feature levels",
     GRAFT_OPTIONS(kTargetsOptions),
     "  graft targets\n"
     "  graft targets --format=tsv    # target, level and qemu-cpu records\n",
     ""},
};
#undef GRAFT_OPTIONS

void printOptions(std::FILE *out, const OptionDesc *options, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const OptionDesc &o = options[i];
    std::string left =
        std::string(o.name) + (o.arg ? std::string(" ") + o.arg : "");
    std::fprintf(out, "  %-26s  %s\n", left.c_str(), o.help);
  }
}

const char *kExitCodes =
    "exit status:\n"
    "  0  success\n"
    "  1  bad input (the diagnostics say which file, line and column)\n"
    "  2  a usage error (unknown command or option, missing argument)\n";

void printCommandHelp(const CommandDesc &c) {
  std::printf("usage: %s\n\n%s\n", c.synopsis, c.summary);
  if (c.optionCount) {
    std::printf("\noptions:\n");
    printOptions(stdout, c.options, c.optionCount);
  }
  std::printf("\ncommon options:\n");
  printOptions(stdout, kCommonOptions, std::size(kCommonOptions));
  std::printf("\nexamples:\n%s\n%s", c.examples, kExitCodes);
  std::printf(
      "\nenvironment:\n%s  NO_COLOR           set: --color=auto means never\n",
      c.environment);
}

// The overview: `graft --help` (stdout) and `graft` alone (stderr, exit 2).
void printUsage(std::FILE *out) {
  std::fputs("usage: graft <command> [options]\n\ncommands:\n", out);
  for (const CommandDesc &c : kCommands)
    std::fprintf(out, "  %-9s %s\n", c.name, c.summary);
  std::fputs("\ncommon options:\n", out);
  printOptions(out, kCommonOptions, std::size(kCommonOptions));
  std::fputs("\n`graft <command> --help` describes a command, its options and "
             "examples.\n"
             "graft-run runs bundles; graft-fatelf takes them apart.\n",
             out);
}

const CommandDesc *findCommand(const std::string &name) {
  for (const CommandDesc &c : kCommands)
    if (name == c.name)
      return &c;
  return nullptr;
}

std::vector<std::string> splitList(const std::string &s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      if (!cur.empty())
        out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty())
    out.push_back(cur);
  return out;
}

int usageError(const std::string &msg) {
  std::fprintf(stderr, "graft: error: %s\n(see graft --help)\n", msg.c_str());
  return 2;
}

int parseBuild(int argc, char **argv, BuildOptions o) {
  o.emitDir = ".";
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    std::string value;
    bool hasValue = false;
    const OptionDesc *desc = nullptr;
    for (const OptionDesc &d : kBuildOptions) {
      size_t n = std::strlen(d.name);
      if (a == d.name || (d.arg && a.compare(0, n, d.name) == 0 &&
                          a.size() > n && a[n] == '=')) {
        desc = &d;
        if (a.size() > n) {
          value = a.substr(n + 1);
          hasValue = true;
        }
        break;
      }
    }
    if (!desc) {
      if (!a.empty() && a[0] == '-')
        return usageError("unknown option '" + a + "'");
      if (!o.graph.empty())
        return usageError("more than one graph file: '" + o.graph + "' and '" +
                          a + "'");
      o.graph = a;
      continue;
    }
    if (desc->arg && !hasValue) {
      if (i + 1 >= argc)
        return usageError(std::string("option '") + desc->name +
                          "' needs a value (" + desc->arg + ")");
      value = argv[++i];
    }
    std::string n = desc->name;
    if (n == "-o")
      o.output = value;
    else if (n == "--spec")
      o.specs.push_back(value);
    else if (n == "--target") {
      for (const std::string &t : splitList(value))
        o.targets.push_back(t);
    } else if (n == "--levels") {
      for (const std::string &l : splitList(value))
        o.levels.push_back(l);
    } else if (n == "--emit") {
      for (const std::string &k : splitList(value)) {
        if (k != "llvm" && k != "asm" && k != "obj" && k != "elf")
          return usageError("unknown --emit kind '" + k +
                            "' (expected llvm, asm, obj, elf)");
        o.emit.push_back(k);
      }
    } else if (n == "--emit-dir")
      o.emitDir = value;
    else if (n == "--depfile")
      o.depfile = value;
    else if (n == "--embed") {
      std::string prefix = value.substr(value.find_last_of('/') + 1);
      if (!isCIdentifier(prefix))
        return usageError("--embed '" + value + "': the name '" + prefix +
                          "' prefixes C functions, so it must be a C "
                          "identifier (letters, digits, '_')");
      o.embed = value;
    } else if (n == "-I")
      o.kernelFlags.push_back("-I" + value);
    else if (n == "-D")
      o.kernelFlags.push_back("-D" + value);
    else if (n == "--kernel-flag")
      o.kernelFlags.push_back(value);
    else if (n == "--sanitize") {
      if (value != "undefined")
        return usageError("unknown --sanitize kind '" + value +
                          "' (graft build supports --sanitize=undefined)");
      o.sanitizeUndefined = true;
    }
    else if (n == "--explain")
      o.explain = true;
    else if (n == "-v")
      o.verbose = true;
    else if (n == "--time-passes")
      o.timePasses = true;
    else if (n == "--weights-as-args")
      o.onnx.weightsAsArguments = true;
    else if (n == "--constant") {
      size_t eq = value.find('=');
      if (eq == std::string::npos || eq == 0)
        return usageError("--constant '" + value + "': expected NAME=TENSOR");
      o.onnx.constants.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    }
  }
  if (o.graph.empty())
    return usageError("no graph file given");
  if (o.output.empty()) {
    std::string base = o.graph;
    size_t slash = base.find_last_of('/');
    if (slash != std::string::npos)
      base = base.substr(slash + 1);
    size_t dot = base.find_last_of('.');
    o.output =
        (dot == std::string::npos ? base : base.substr(0, dot)) + ".graft";
  }
  return runBuild(o);
}

// `graft plugin SRC.c... [-o OUT] [--target LIST] [-I DIR] [-D X] [-v]`;
// -I and -D also take their value attached, as with clang.
int parsePlugin(int argc, char **argv) {
  PluginOptions o;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *name, std::string &out) {
      size_t n = std::strlen(name);
      if (a == name) {
        if (i + 1 >= argc)
          return usageError(std::string("option '") + name + "' needs a value");
        out = argv[++i];
      } else {
        out = a.substr(a[n] == '=' && name[1] == '-' ? n + 1 : n);
      }
      return 0;
    };
    std::string v;
    if (a == "-o" || a.rfind("-o=", 0) == 0) {
      if (int rc = value("-o", o.output))
        return rc;
    } else if (a == "--target" || a.rfind("--target=", 0) == 0) {
      if (int rc = value("--target", v))
        return rc;
      for (const std::string &t : splitList(v))
        o.targets.push_back(t);
    } else if (a.rfind("-I", 0) == 0 || a.rfind("-D", 0) == 0) {
      std::string flag = a.substr(0, 2);
      if (int rc = value(flag.c_str(), v))
        return rc;
      if (v.empty())
        return usageError("option '" + flag + "' needs a value");
      o.cflags.push_back(flag + v);
    } else if (a == "-v") {
      o.verbose = true;
    } else if (!a.empty() && a[0] == '-') {
      return usageError("unknown option '" + a + "' for graft plugin");
    } else {
      o.sources.push_back(a);
    }
  }
  if (o.sources.empty())
    return usageError("graft plugin: no source files given");
  if (o.output.empty()) {
    std::string base = o.sources.front();
    size_t slash = base.find_last_of('/');
    if (slash != std::string::npos)
      base = base.substr(slash + 1);
    size_t dot = base.find_last_of('.');
    o.output = (dot == std::string::npos ? base : base.substr(0, dot)) + ".sos";
  }
  return runPlugin(o);
}

int runInspect(int argc, char **argv) {
  if (argc != 1)
    return usageError("inspect takes one bundle file");
  std::ifstream in(argv[0], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "graft: error: cannot open '%s': %s\n", argv[0],
                 std::strerror(errno));
    return 1;
  }
  std::vector<uint8_t> data((std::istreambuf_iterator<char>(in)),
                            std::istreambuf_iterator<char>());
  std::vector<FatElfSlice> slices;
  std::string err;
  if (!readFatElf(data, slices, err)) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], err.c_str());
    return 1;
  }
  std::printf("%s: %zu slice(s)\n", argv[0], slices.size());
  for (const FatElfSlice &s : slices)
    std::printf("  %-8s  offset %-8llu size %llu\n",
                elfMachineName(s.machine).c_str(),
                static_cast<unsigned long long>(s.offset),
                static_cast<unsigned long long>(s.size));
  return 0;
}

// Applies the options every command takes (--color, -q) and removes them
// from |args|; returns 0 or a usage error's exit code.
int takeCommonOptions(std::vector<char *> &args, BuildOptions &build) {
  std::string color = "auto";
  std::vector<char *> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (a == "-q") {
      setDiagnosticQuiet(true);
    } else if (a == "--color" || a.rfind("--color=", 0) == 0) {
      if (a == "--color") {
        if (i + 1 >= args.size())
          return usageError(
              "option '--color' needs a value (auto, always, never)");
        color = args[++i];
      } else {
        color = a.substr(8);
      }
      if (color != "auto" && color != "always" && color != "never")
        return usageError("--color takes auto, always or never, found '" +
                          color + "'");
    } else {
      rest.push_back(args[i]);
    }
  }
  bool on = color == "always";
  if (color == "auto") {
    const char *term = std::getenv("TERM");
    on = isatty(STDERR_FILENO) && !std::getenv("NO_COLOR") && term &&
         std::strcmp(term, "dumb") != 0;
  }
  setDiagnosticColors(on);
  build.color = on;
  args = rest;
  return 0;
}

// `graft targets [--format=human|tsv|cmake]` (targets/Describe.h).
int runTargets(int argc, char **argv) {
  TargetFormat format = TargetFormat::Human;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    const std::string prefix = "--format=";
    if (arg.compare(0, prefix.size(), prefix) != 0)
      return usageError("targets: unknown option '" + arg + "'");
    if (!parseTargetFormat(arg.substr(prefix.size()), format))
      return usageError("targets: unknown format '" + arg.substr(prefix.size()) +
                        "'; expected human, tsv or cmake");
  }
  printTargets(stdout, format);
  return 0;
}

} // namespace

int driverMain(int argc, char **argv) {
  // --color and -q may stand anywhere, before the command too.
  std::vector<char *> args(argv + 1, argv + argc);
  BuildOptions build;
  if (int rc = takeCommonOptions(args, build))
    return rc;
  if (args.empty()) {
    printUsage(stderr);
    return 2;
  }
  std::string cmd = args[0];
  if (cmd == "--help" || cmd == "-h") {
    printUsage(stdout);
    return 0;
  }
  if (cmd == "help") {
    const CommandDesc *c = args.size() > 1 ? findCommand(args[1]) : nullptr;
    if (args.size() > 1 && !c)
      return usageError("unknown command '" + std::string(args[1]) + "'");
    c ? printCommandHelp(*c) : printUsage(stdout);
    return 0;
  }
  if (cmd == "--version") {
    std::printf("graft %s (LLVM 19)\n", GRAFT_VERSION);
    return 0;
  }
  const CommandDesc *desc = findCommand(cmd);
  if (!desc)
    return usageError("unknown command '" + cmd + "'");
  for (char *a : args)
    if (std::strcmp(a, "--help") == 0 || std::strcmp(a, "-h") == 0) {
      printCommandHelp(*desc);
      return 0;
    }
  // The command's own parser sees argv[0], the command and its options.
  args.insert(args.begin(), argv[0]);
  argc = static_cast<int>(args.size());
  argv = args.data();
  if (cmd == "build")
    return parseBuild(argc - 2, argv + 2, build);
  if (cmd == "import")
    return runImport(argc - 2, argv + 2);
  if (cmd == "check")
    return runCheck(argc - 2, argv + 2);
  if (cmd == "eval")
    return runEval(argc - 2, argv + 2);
  if (cmd == "inspect")
    return runInspect(argc - 2, argv + 2);
  if (cmd == "plugin")
    return parsePlugin(argc - 2, argv + 2);
  if (cmd == "spec")
    return runSpec(argc - 2, argv + 2);
  if (cmd == "targets")
    return runTargets(argc - 2, argv + 2);
  GRAFT_INTERNAL_ERROR("command '" + cmd + "' has help but no handler");
}

} // namespace graft
