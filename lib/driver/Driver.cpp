// Command-line front of `graft`: one table of build options with their help
// text, subcommand dispatch, and nothing else.
#include "driver/Driver.h"

#include "bundle/FatElf.h"
#include "driver/CheckEval.h"
#include "targets/Target.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace graft {

namespace {

const char *kUsage =
    "usage: graft <command> [options]\n"
    "\n"
    "commands:\n"
    "  build GRAPH [options]     compile a graph into a FatELF bundle\n"
    "  check GRAPH [--print]     parse and verify a graph\n"
    "  eval GRAPH [--function F] --input T... [--output -|@F.npy]\n"
    "                            run a graph with the reference evaluator\n"
    "  inspect BUNDLE            list the slices of a bundle\n"
    "  plugin SRC.c... [options] build a bare-metal plugin (FatELF .sos)\n"
    "  targets                   list the known targets\n"
    "\n"
    "build options:\n";

struct OptionDesc {
  const char *name;
  const char *arg; // null for flags
  const char *help;
};

const OptionDesc kBuildOptions[] = {
    {"-o", "FILE", "output bundle (default: <graph name>.graft)"},
    {"--spec", "FILE", "match/replace spec (YAML); may be repeated"},
    {"--target", "LIST", "comma-separated targets (default: the host)"},
    {"--emit", "KINDS", "also write llvm,asm,obj,elf per target into --emit-dir"},
    {"--emit-dir", "DIR", "directory for --emit (default: .)"},
    {"--depfile", "FILE", "write the bundle's inputs (graph, specs, kernels) as a Make rule"},
    {"-I", "DIR", "include directory for every C kernel"},
    {"-D", "NAME[=VALUE]", "macro definition for every C kernel"},
    {"--kernel-flag", "FLAG", "clang flag for every C kernel"},
    {"--explain", nullptr, "report every spec match and why candidates did not match"},
    {"-v", nullptr, "print what each pass did"},
};

const OptionDesc kPluginOptions[] = {
    {"-o", "FILE", "output plugin (default: <first source name>.sos)"},
    {"--target", "LIST", "comma-separated targets (default: the host)"},
    {"-I", "DIR", "include directory for the sources"},
    {"-D", "NAME[=VALUE]", "preprocessor definition for the sources"},
    {"-v", nullptr, "print the clang commands and what each step did"},
};

template <size_t N> void printOptions(const OptionDesc (&options)[N]) {
  for (const OptionDesc &o : options) {
    std::string left = std::string(o.name) + (o.arg ? std::string(" ") + o.arg : "");
    std::printf("  %-24s  %s\n", left.c_str(), o.help);
  }
}

void printHelp() {
  std::fputs(kUsage, stdout);
  printOptions(kBuildOptions);
  std::printf("\nplugin options:\n");
  printOptions(kPluginOptions);
  std::printf("\n  --help, --version\n");
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

int parseBuild(int argc, char **argv) {
  BuildOptions o;
  o.emitDir = ".";
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    std::string value;
    bool hasValue = false;
    const OptionDesc *desc = nullptr;
    for (const OptionDesc &d : kBuildOptions) {
      size_t n = std::strlen(d.name);
      if (a == d.name || (d.arg && a.compare(0, n, d.name) == 0 && a.size() > n && a[n] == '=')) {
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
        return usageError("more than one graph file: '" + o.graph + "' and '" + a + "'");
      o.graph = a;
      continue;
    }
    if (desc->arg && !hasValue) {
      if (i + 1 >= argc)
        return usageError(std::string("option '") + desc->name + "' needs a value (" + desc->arg + ")");
      value = argv[++i];
    }
    std::string n = desc->name;
    if (n == "-o") o.output = value;
    else if (n == "--spec") o.specs.push_back(value);
    else if (n == "--target") {
      for (const std::string &t : splitList(value))
        o.targets.push_back(t);
    } else if (n == "--emit") {
      for (const std::string &k : splitList(value)) {
        if (k != "llvm" && k != "asm" && k != "obj" && k != "elf")
          return usageError("unknown --emit kind '" + k + "' (expected llvm, asm, obj, elf)");
        o.emit.push_back(k);
      }
    } else if (n == "--emit-dir") o.emitDir = value;
    else if (n == "--depfile") o.depfile = value;
    else if (n == "-I") o.kernelFlags.push_back("-I" + value);
    else if (n == "-D") o.kernelFlags.push_back("-D" + value);
    else if (n == "--kernel-flag") o.kernelFlags.push_back(value);
    else if (n == "--explain") o.explain = true;
    else if (n == "-v") o.verbose = true;
  }
  if (o.graph.empty())
    return usageError("no graph file given");
  if (o.output.empty()) {
    std::string base = o.graph;
    size_t slash = base.find_last_of('/');
    if (slash != std::string::npos)
      base = base.substr(slash + 1);
    size_t dot = base.find_last_of('.');
    o.output = (dot == std::string::npos ? base : base.substr(0, dot)) + ".graft";
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
    std::fprintf(stderr, "graft: error: cannot open '%s': %s\n", argv[0], std::strerror(errno));
    return 1;
  }
  std::vector<uint8_t> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<FatElfSlice> slices;
  std::string err;
  if (!readFatElf(data, slices, err)) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], err.c_str());
    return 1;
  }
  std::printf("%s: %zu slice(s)\n", argv[0], slices.size());
  for (const FatElfSlice &s : slices)
    std::printf("  %-8s  offset %-8llu size %llu\n", elfMachineName(s.machine).c_str(),
                static_cast<unsigned long long>(s.offset), static_cast<unsigned long long>(s.size));
  return 0;
}

} // namespace

int driverMain(int argc, char **argv) {
  if (argc < 2) {
    printHelp();
    return 2;
  }
  std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    printHelp();
    return 0;
  }
  if (cmd == "--version") {
    std::printf("graft %s (LLVM 19)\n", GRAFT_VERSION);
    return 0;
  }
  // `graft build --help` and the like print the one help text rather than
  // failing on an unknown option.
  bool known = cmd == "build" || cmd == "check" || cmd == "eval" || cmd == "inspect" ||
               cmd == "plugin" || cmd == "targets";
  for (int i = 2; known && i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      printHelp();
      return 0;
    }
  if (cmd == "build")
    return parseBuild(argc - 2, argv + 2);
  if (cmd == "check")
    return runCheck(argc - 2, argv + 2);
  if (cmd == "eval")
    return runEval(argc - 2, argv + 2);
  if (cmd == "inspect")
    return runInspect(argc - 2, argv + 2);
  if (cmd == "plugin")
    return parsePlugin(argc - 2, argv + 2);
  if (cmd == "targets") {
    for (const TargetInfo *t : allTargets())
      std::printf("%-8s  %s, cpu %s, %u-bit vectors\n", t->name, t->triple, t->cpu, t->vectorBits);
    return 0;
  }
  return usageError("unknown command '" + cmd + "'");
}

} // namespace graft
