// graft-fatelf: look inside FatELF bundles and take them apart or put them
// together (info, split, join, extract, remove, verify). Every command reads
// with lib/bundle's strict reader and writes with its writer, so what this
// tool accepts and produces is what graft build and the runtime do.
#include "driver/FatElfTool.h"

#include "bundle/FatElf.h"
#include "driver/LibraryInfo.h"
#include "targets/Target.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace graft {

namespace {

namespace fs = std::filesystem;

const char *kUsage =
    "usage: graft-fatelf <command> [options]\n"
    "\n"
    "commands:\n"
    "  info BUNDLE                        slices: machine, class, byte order, "
    "OS ABI,\n"
    "                                     offset, size, graft ABI version, "
    "functions\n"
    "  verify BUNDLE...                   check each file as strictly as the "
    "FatELF\n"
    "                                     spec asks (exit 1 on the first bad "
    "one)\n"
    "  split BUNDLE [-o DIR]              write each slice as "
    "DIR/<name>.<target>.so\n"
    "  join -o OUT ELF...                 pack ELF files into a FatELF bundle, "
    "in\n"
    "                                     the order given\n"
    "  extract BUNDLE --target T -o OUT   write the slice for target T as an "
    "ELF file\n"
    "  remove BUNDLE --target T -o OUT    write the bundle without T's slice\n"
    "\n"
    "targets: the names of `graft targets`; a slice for another machine is\n"
    "named by its ELF machine number (machine-0x8).\n"
    "\n"
    "examples:\n"
    "  graft-fatelf split mlp.graft -o slices/\n"
    "  graft-fatelf join -o mlp.graft slices/mlp.x86_64.so "
    "slices/mlp.aarch64.so\n"
    "  graft-fatelf remove mlp.graft --target riscv64 -o mlp-small.graft\n"
    "\n"
    "exit status: 0 success, 1 a bad or unreadable file, 2 a usage error\n";

int usageError(const std::string &msg) {
  std::fprintf(stderr, "graft-fatelf: error: %s\n(see graft-fatelf --help)\n",
               msg.c_str());
  return 2;
}

int fileError(const std::string &file, const std::string &msg) {
  std::fprintf(stderr, "%s: error: %s\n", file.c_str(), msg.c_str());
  return 1;
}

bool readBytes(const std::string &path, std::vector<uint8_t> &out,
               std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = std::string("cannot open: ") + std::strerror(errno);
    return false;
  }
  out.assign(std::istreambuf_iterator<char>(in),
             std::istreambuf_iterator<char>());
  return true;
}

bool writeBytes(const std::string &path, const uint8_t *data, size_t size,
                std::string &error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(data),
            static_cast<std::streamsize>(size));
  out.close();
  if (!out) {
    error = std::string("cannot write: ") + std::strerror(errno);
    return false;
  }
  return true;
}

// The graft target of a slice, or null.
const TargetInfo *sliceTarget(const FatElfSlice &s) {
  for (const TargetInfo *t : allTargets())
    if (t->elfMachine == s.machine && t->elfClass == s.wordSize &&
        t->elfData == s.byteOrder)
      return t;
  return nullptr;
}

// The target a slice is for ("x86_64"), or "machine-0x8" for a slice of
// a machine graft does not target.
std::string sliceName(const FatElfSlice &s) {
  if (const TargetInfo *t = sliceTarget(s))
    return t->name;
  char buf[32];
  std::snprintf(buf, sizeof buf, "machine-0x%x", s.machine);
  return buf;
}

struct Bundle {
  std::string path;
  std::vector<uint8_t> data;
  std::vector<FatElfSlice> slices;

  std::vector<uint8_t> bytesOf(const FatElfSlice &s) const {
    return {data.begin() + static_cast<std::ptrdiff_t>(s.offset),
            data.begin() + static_cast<std::ptrdiff_t>(s.offset + s.size)};
  }
};

// Reads and checks |path|; prints the error and returns false when it is
// not a valid bundle.
bool loadBundle(const std::string &path, Bundle &b) {
  b.path = path;
  std::string error;
  if (!readBytes(path, b.data, error) || !readFatElf(b.data, b.slices, error)) {
    fileError(path, error);
    return false;
  }
  return true;
}

// Index of the slice for target |name| in |b|, or -1 after printing why.
int findSlice(const Bundle &b, const std::string &name) {
  for (size_t i = 0; i < b.slices.size(); ++i)
    if (sliceName(b.slices[i]) == name)
      return static_cast<int>(i);
  std::string have;
  for (const FatElfSlice &s : b.slices)
    have += (have.empty() ? "" : ", ") + sliceName(s);
  fileError(b.path,
            "no slice for target '" + name + "'; the bundle has: " + have);
  return -1;
}

// Parsed arguments: positional files and the values of -o / --target.
struct Args {
  std::vector<std::string> files;
  std::string output;
  std::string target;
};

// Parses -o FILE, --target T (also --target=T) and positional files;
// returns 0 or the usage error's exit code.
int parseArgs(const std::string &cmd, int argc, char **argv, Args &args) {
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    std::string *slot = nullptr;
    if (a == "-o")
      slot = &args.output;
    else if (a == "--target")
      slot = &args.target;
    else if (a.rfind("--target=", 0) == 0) {
      args.target = a.substr(9);
      continue;
    }
    if (slot) {
      if (i + 1 >= argc)
        return usageError(cmd + ": option '" + a + "' needs a value");
      *slot = argv[++i];
      continue;
    }
    if (a.size() > 1 && a[0] == '-')
      return usageError(cmd + ": unknown option '" + a + "'");
    args.files.push_back(a);
  }
  return 0;
}

int runInfo(const Args &args) {
  if (args.files.size() != 1)
    return usageError("info takes one bundle file");
  Bundle b;
  if (!loadBundle(args.files[0], b))
    return 1;
  bool fat = b.data.size() >= 4 && b.data[0] != 0x7f;
  std::printf("%s: %s, %zu slice(s), %zu bytes\n", b.path.c_str(),
              fat ? "FatELF version 1" : "plain ELF", b.slices.size(),
              b.data.size());
  int status = 0;
  for (const FatElfSlice &s : b.slices) {
    std::printf("  %-8s  machine %u, %s, %s, OS ABI %u version %u, offset "
                "%llu, size %llu\n",
                sliceName(s).c_str(), s.machine,
                s.wordSize == 1 ? "32-bit" : "64-bit",
                s.byteOrder == 1 ? "little-endian" : "big-endian", s.osabi,
                s.osabiVersion, static_cast<unsigned long long>(s.offset),
                static_cast<unsigned long long>(s.size));
    LibraryInfo lib;
    std::string error;
    const TargetInfo *target = sliceTarget(s);
    if (!target)
      error = "not a graft target (" + targetNames() +
              "), its library header is not read";
    if (!target || !readLibraryInfo(b.bytesOf(s), *target, lib, error)) {
      std::fprintf(stderr, "%s: error: slice %s: %s\n", b.path.c_str(),
                   sliceName(s).c_str(), error.c_str());
      status = 1;
      continue;
    }
    std::printf("    graft ABI version %u, module '%s', produced by %s\n",
                lib.abiVersion, lib.name.c_str(), lib.producer.c_str());
    for (const std::string &f : lib.functions)
      std::printf("    %s\n", f.c_str());
    for (const std::string &v : lib.variants)
      std::printf("    isa variant %s\n", v.c_str());
    if (lib.sanitizeUndefined)
      std::printf("    instrumented: --sanitize=undefined (UBSan checks in its C kernels)\n");
  }
  return status;
}

int runVerify(const Args &args) {
  if (args.files.empty())
    return usageError("verify takes one or more bundle files");
  for (const std::string &f : args.files) {
    Bundle b;
    if (!loadBundle(f, b))
      return 1;
    std::printf("%s: ok, %zu slice(s)\n", f.c_str(), b.slices.size());
  }
  return 0;
}

int runSplit(const Args &args) {
  if (args.files.size() != 1)
    return usageError("split takes one bundle file");
  Bundle b;
  if (!loadBundle(args.files[0], b))
    return 1;
  fs::path dir = args.output.empty() ? fs::path(".") : fs::path(args.output);
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string stem = fs::path(b.path).stem().string();
  for (const FatElfSlice &s : b.slices) {
    std::string out = (dir / (stem + "." + sliceName(s) + ".so")).string();
    std::string error;
    std::vector<uint8_t> bytes = b.bytesOf(s);
    if (!writeBytes(out, bytes.data(), bytes.size(), error))
      return fileError(out, error);
    std::printf("%s\n", out.c_str());
  }
  return 0;
}

// Writes |slices| as a FatELF bundle to |out|.
int writeBundle(const std::string &out,
                const std::vector<std::vector<uint8_t>> &slices) {
  std::vector<uint8_t> bundle;
  std::string error;
  if (!writeFatElf(slices, bundle, error) ||
      !writeBytes(out, bundle.data(), bundle.size(), error))
    return fileError(out, error);
  return 0;
}

int runJoin(const Args &args) {
  if (args.output.empty())
    return usageError("join needs -o OUT");
  if (args.files.empty())
    return usageError("join takes one or more ELF files");
  std::vector<std::vector<uint8_t>> slices;
  for (const std::string &f : args.files) {
    std::vector<uint8_t> bytes;
    std::vector<FatElfSlice> parsed;
    std::string error;
    if (!readBytes(f, bytes, error))
      return fileError(f, error);
    if (!readFatElf(bytes, parsed, error))
      return fileError(f, error);
    if (bytes.size() < 4 || bytes[0] != 0x7f)
      return fileError(
          f, "is a FatELF bundle; join takes ELF files (split it first)");
    slices.push_back(std::move(bytes));
  }
  return writeBundle(args.output, slices);
}

int runExtractOrRemove(const std::string &cmd, const Args &args) {
  if (args.files.size() != 1)
    return usageError(cmd + " takes one bundle file");
  if (args.target.empty())
    return usageError(cmd + " needs --target T");
  if (args.output.empty())
    return usageError(cmd + " needs -o OUT");
  Bundle b;
  if (!loadBundle(args.files[0], b))
    return 1;
  int index = findSlice(b, args.target);
  if (index < 0)
    return 1;
  if (cmd == "extract") {
    std::vector<uint8_t> bytes =
        b.bytesOf(b.slices[static_cast<size_t>(index)]);
    std::string error;
    if (!writeBytes(args.output, bytes.data(), bytes.size(), error))
      return fileError(args.output, error);
    return 0;
  }
  if (b.slices.size() == 1)
    return fileError(
        b.path,
        "'" + args.target +
            "' is the bundle's only slice; a bundle needs at least one");
  std::vector<std::vector<uint8_t>> rest;
  for (size_t i = 0; i < b.slices.size(); ++i)
    if (static_cast<int>(i) != index)
      rest.push_back(b.bytesOf(b.slices[i]));
  return writeBundle(args.output, rest);
}

} // namespace

int fatelfMain(int argc, char **argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::string cmd = argv[1];
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 ||
        std::strcmp(argv[i], "-h") == 0 || (i == 1 && cmd == "help")) {
      std::fputs(kUsage, stdout);
      return 0;
    }
  if (cmd == "--version") {
    std::printf("graft-fatelf %s\n", GRAFT_VERSION);
    return 0;
  }
  Args args;
  if (int rc = parseArgs(cmd, argc - 2, argv + 2, args))
    return rc;
  if (cmd == "info")
    return runInfo(args);
  if (cmd == "verify")
    return runVerify(args);
  if (cmd == "split")
    return runSplit(args);
  if (cmd == "join")
    return runJoin(args);
  if (cmd == "extract" || cmd == "remove")
    return runExtractOrRemove(cmd, args);
  return usageError("unknown command '" + cmd +
                    "' (info, verify, split, join, extract, remove)");
}

} // namespace graft
