// `graft plugin`: builds a bare-metal plugin, one slice per target joined
// into one FatELF .sos file that graft's runtime (and IREE's) loads on any
// of those CPUs. The passes, over one PluginContext:
//
//   resolveTargets   --target list (default: the host)
//   checkSources     every source is readable
//   per target:
//     compileSources   each C file with clang (found as for kernels),
//                      freestanding (the command of kernels: no libc, PIC,
//                      hidden) to an object; checked
//                      for the architecture, TLS and the query symbol
//     linkPlugin       lld in-process, like a bundle's slice: objects +
//                      graft's builtins (memcpy, ...), no undefined symbols,
//                      W^X, only the query function exported
//   writePlugin      FatELF of all slices
#include "driver/Driver.h"

#include "bundle/FatElf.h"
#include "driver/DriverSupport.h"
#include "graft/plugin.h"
#include "link/PrebuiltBuiltins.h"
#include "link/Linker.h"
#include "spec/KernelCompiler.h"
#include "support/Diagnostics.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace graft {

namespace fs = std::filesystem;

namespace {

struct PluginContext {
  const PluginOptions &opts;
  SourceManager sm;
  DiagEngine diag{sm};
  std::vector<const TargetInfo *> targets;
  KernelToolchain toolchain;
  KernelBuildOptions compileOptions;
  WorkDir work;
  std::vector<std::vector<uint8_t>> slices;

  explicit PluginContext(const PluginOptions &o) : opts(o) { compileOptions.flags = o.cflags; }
  void log(const std::string &s) const {
    if (opts.verbose)
      std::fprintf(stderr, "graft: %s\n", s.c_str());
  }
};

bool readBytes(const std::string &path, std::vector<char> &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

// Compiles every source for |target| into |objects|; one of them must define
// the query function.
bool compileSources(PluginContext &ctx, const TargetInfo &target, const std::string &dir,
                    std::vector<LinkInput> &objects) {
  bool ok = true, hasQuery = false;
  for (size_t i = 0; i < ctx.opts.sources.size(); ++i) {
    const std::string &src = ctx.opts.sources[i];
    std::string object = dir + "/" + std::to_string(i) + ".o";
    std::vector<std::string> cmd = freestandingCompileCommand(
        ctx.toolchain, target, src, {}, ctx.compileOptions, object, /*bitcode=*/false);
    if (ctx.opts.verbose) {
      std::string line;
      for (const std::string &a : cmd)
        line += (line.empty() ? "" : " ") + a;
      ctx.log(std::string(target.name) + ": " + line);
    }
    if (!runCompileCommand(cmd, src, "plugin", target, dir + "/" + std::to_string(i) + ".log",
                           ctx.diag)) {
      ok = false;
      continue;
    }
    CompiledKernel compiled;
    compiled.kind = CompiledKernel::Object;
    compiled.path = object;
    if (!readBytes(object, compiled.bytes)) {
      ctx.diag.error(src, "cannot read the compiled object '" + object + "'");
      ok = false;
      continue;
    }
    bool defines = false;
    if (!checkObjectFor(compiled, target, src, GRAFT_PLUGIN_QUERY_SYMBOL, defines, ctx.diag))
      ok = false;
    hasQuery |= defines;
    objects.push_back({src, object, /*userCode=*/true});
  }
  if (ok && !hasQuery) {
    ctx.diag.error(ctx.opts.sources.front(),
                   std::string("no source defines the plugin's query function ") +
                       GRAFT_PLUGIN_QUERY_SYMBOL + " (target " + target.name +
                       "); define it with GRAFT_PLUGIN_EXPORT (graft/plugin.h) or "
                       "IREE_HAL_EXECUTABLE_PLUGIN_EXPORT");
    ok = false;
  }
  return ok;
}

bool linkPlugin(PluginContext &ctx, const TargetInfo &target, const std::string &dir,
                std::vector<LinkInput> objects) {
  std::string builtins = dir + "/builtins.o";
  if (!writeBuiltinsObject(target, builtins, ctx.diag))
    return false;
  objects.push_back({std::string("graft builtins (") + target.name + ")", builtins});
  std::vector<uint8_t> elf;
  if (!linkSlice(target, objects, dir, elf, ctx.diag, {GRAFT_PLUGIN_QUERY_SYMBOL}))
    return false;
  ctx.log(std::string(target.name) + ": plugin slice of " + std::to_string(elf.size()) +
          " bytes");
  ctx.slices.push_back(std::move(elf));
  return true;
}

bool buildTarget(PluginContext &ctx, const TargetInfo &target) {
  std::string dir = ctx.work.path() + "/" + target.name;
  fs::create_directories(dir);
  std::vector<LinkInput> objects;
  return compileSources(ctx, target, dir, objects) && linkPlugin(ctx, target, dir, objects);
}

bool writePlugin(PluginContext &ctx) {
  std::vector<uint8_t> bytes;
  std::string err;
  if (!writeFatElf(ctx.slices, bytes, err)) {
    ctx.diag.error(ctx.opts.output, "cannot write plugin: " + err);
    return false;
  }
  return writeOutputFile(ctx.opts.output, bytes, ctx.diag);
}

// Every source must be readable before clang is run once per target.
bool checkSources(PluginContext &ctx) {
  for (const std::string &src : ctx.opts.sources) {
    std::ifstream in(src);
    if (!in)
      ctx.diag.error(src, "cannot read plugin source: " + std::string(std::strerror(errno)));
  }
  return !ctx.diag.hasErrors();
}

} // namespace

int runPlugin(const PluginOptions &opts) {
  PluginContext ctx(opts);
  if (!resolveTargets(opts.targets, ctx.diag, ctx.targets) || !checkSources(ctx))
    return 1;
  std::string err;
  if (!findKernelToolchain(ctx.toolchain, err)) {
    ctx.diag.error(opts.sources.front(), err);
    return 1;
  }
  if (!ctx.work.create("plugin", ctx.diag))
    return 1;
  for (const TargetInfo *t : ctx.targets)
    if (!buildTarget(ctx, *t))
      return 1;
  if (!writePlugin(ctx))
    return 1;
  ctx.log("wrote " + opts.output);
  return 0;
}

} // namespace graft
