// The build pipeline, as a list of passes over one BuildContext:
//
//   readInputs    parse + verify the graph, load specs (all errors at once)
//   per target:
//     lowerTarget   per feature level (ISA variant): clone the verified
//                   graph, apply the target's spec rules, bind direct
//                   kernel calls to the rules providing them, analyse
//                   shapes, form dispatches with the level's tiles
//     compileKernels  user kernels for the rules that matched (C -> bitcode),
//                   per level with the level's clang flags
//   compileSlice    per target, on threads of their own: LLVM codegen of
//                   every variant + kernel bitcode -> one optimized object
//   linkSlice       per target, in order: lld in-process: object + kernel
//                   objects + builtins -> ELF
//   writeBundle   FatELF of all slices
//
// --time-passes prints each pass's wall and CPU time (support/PassTimes.h).
//
// Each target and level is lowered from its own clone of the verified graph
// (rewriting and formation edit it in place), so a rule without a kernel for
// one target leaves that subgraph to graft's codegen there.
#include "driver/Driver.h"

#include "bundle/FatElf.h"
#include "codegen/Compile.h"
#include "dispatch/Dispatch.h"
#include "driver/DriverSupport.h"
#include "driver/EmbedC.h"
#include "driver/Variants.h"
#include "graft/abi.h"
#include "graph/Parser.h"
#include "graph/Verifier.h"
#include "ir/Clone.h"
#include "ir/Inline.h"
#include "ir/KernelCall.h"
#include "link/PrebuiltBuiltins.h"
#include "link/Linker.h"
#include "link/TargetMachine.h"
#include "shape/Shapes.h"
#include "spec/DirectCalls.h"
#include "spec/KernelCompiler.h"
#include "spec/Rewriter.h"
#include "spec/SpecLoader.h"
#include "support/Depfile.h"
#include "support/Diagnostics.h"
#include "support/PassTimes.h"
#include "targets/Target.h"


#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

namespace graft {

namespace fs = std::filesystem;

namespace {

struct BuildContext {
  const BuildOptions &opts;
  SourceManager sm;
  DiagEngine diag{sm};
  // As read and verified; every (target, level) lowers a clone of it.
  std::unique_ptr<Module> graph;
  SpecSet specs;
  std::vector<const TargetInfo *> targets;
  // The feature levels compiled per target (--levels; default: all).
  std::map<const TargetInfo *, std::vector<const FeatureLevel *>> levels;
  WorkDir work;
  std::string workDir;
  std::string moduleName;
  std::vector<std::vector<uint8_t>> slices;
  // Files the kernels were made from (sources, the headers clang read,
  // objects), over all targets: they go into the depfile.
  std::set<std::string> kernelDependencies;
  // --sanitize=undefined: kernels already warned about (object and bitcode
  // kernels are linked as they are, uninstrumented), each once per build.
  std::set<std::string> uninstrumented;

  // --time-passes: every pass of the driver's thread; the compile threads
  // keep their own and are appended in target order.
  PassTimes passTimes;

  explicit BuildContext(const BuildOptions &o) : opts(o) {}
  PassTimes *times() { return opts.timePasses ? &passTimes : nullptr; }
  void log(const std::string &s) const {
    if (opts.verbose)
      std::fprintf(stderr, "graft: %s\n", s.c_str());
  }
  bool emits(const std::string &kind) const {
    for (const std::string &e : opts.emit)
      if (e == kind)
        return true;
    return false;
  }
};

bool readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

// Parses and verifies the graph and loads the specs, reporting every error.
bool readInputs(BuildContext &ctx) {
  PassTimer pass(ctx.times(), "parse");
  std::string text;
  if (isOnnxPath(ctx.opts.graph)) {
    if (!importGraphText(ctx.opts.graph, ctx.opts.onnx, ctx.diag, text))
      return false;
  } else if (!ctx.opts.onnx.constants.empty() || ctx.opts.onnx.weightsAsArguments) {
    ctx.diag.error(ctx.opts.graph, "--constant and --weights-as-args apply to .onnx models only");
    return false;
  } else if (!readFile(ctx.opts.graph, text)) {
    ctx.diag.error(ctx.opts.graph, "cannot read graph file: " + std::string(std::strerror(errno)));
    return false;
  }
  uint32_t file = ctx.sm.add(ctx.opts.graph, text);
  ctx.moduleName = fs::path(ctx.opts.graph).stem().string();
  ctx.graph = parseModule(ctx.sm, file, ctx.diag);
  pass.next("verify");
  if (ctx.graph)
    verifyModule(*ctx.graph, ctx.diag);
  pass.next("load specs");
  for (const std::string &s : ctx.opts.specs)
    loadSpecFile(s, ctx.sm, ctx.diag, ctx.specs, ctx.graph.get());
  if (ctx.graph)
    warnUncalledKernels(*ctx.graph, ctx.specs, ctx.diag);
  return !ctx.diag.hasErrors();
}

// One ISA variant of a target's slice: the graph lowered for one feature
// level (tiles from its vector width and registers; its own kernels).
struct LevelBuild {
  const FeatureLevel *level;
  std::unique_ptr<Module> module;
  ProgramSet programs;
  // The plans of the kernel calls left after rewriting, each once, in the
  // order first met (each names one kernel to compile).
  std::vector<const KernelCall *> calls;
  std::vector<KernelBitcode> bitcode; // this level's kernels, each file once
};

struct TargetBuild {
  const TargetInfo *target;
  std::vector<LevelBuild> levels; // lowest level first
  std::vector<LinkInput> objects; // object kernels, each file once
  std::map<std::string, std::string> objectOf; // kernel symbol -> its object
};

std::vector<SliceVariant> variantPrograms(const TargetBuild &tb) {
  std::vector<SliceVariant> out;
  for (const LevelBuild &lb : tb.levels)
    out.push_back(SliceVariant{lb.level, &lb.programs, lb.bitcode});
  return out;
}

// Lowers the graph for one level; |explain| (may be null) receives the
// spec rules' report.
bool lowerLevel(BuildContext &ctx, const TargetInfo &t, LevelBuild &lb, std::string *explain) {
  const std::string passPrefix = std::string(t.name) + " " + lb.level->name + ": ";
  PassTimer pass(ctx.times(), passPrefix + "clone");
  lb.module = cloneModule(*ctx.graph);
  // Calls first, so that spec patterns match across them.
  for (auto &fn : lb.module->functions)
    inlineCalls(*fn);
  pass.next(passPrefix + "match specs");
  if (!ctx.specs.rules.empty()) {
    RewriteReport report;
    unsigned n = applySpecs(*lb.module, ctx.specs, t.name, ctx.diag, explain ? &report : nullptr,
                            lb.level->name);
    if (ctx.diag.hasErrors())
      return false;
    ctx.log(std::string(t.name) + " " + lb.level->name + ": " + std::to_string(n) +
            " spec match(es)");
    if (explain)
      *explain = report.explainText;
  }
  if (!bindDirectCalls(*lb.module, ctx.specs, t.name, lb.level->name, ctx.diag, explain))
    return false;
  pass.next(passPrefix + "lower");
  for (auto &fn : lb.module->functions) {
    if (fn->isPattern)
      continue;
    for (const Op *op : fn->ops)
      if (op->kind == OpKind::KernelCall &&
          std::find(lb.calls.begin(), lb.calls.end(), op->call.get()) == lb.calls.end())
        lb.calls.push_back(op->call.get());
    expandSplatConstants(*fn);
    lowerSplits(*fn);
    lowerWindowOps(*fn);
    lowerReduceForms(*fn);
    expandMapBroadcasts(*fn);
    ShapeInfo shapes;
    analyzeShapes(*fn, ctx.diag, shapes);
    formDispatches(*fn, std::move(shapes), ctx.diag, *lb.level, lb.programs);
  }
  if (ctx.diag.hasErrors())
    return false;
  ctx.log(std::string(t.name) + " " + lb.level->name + ": " +
          std::to_string(lb.programs.dispatches.size()) + " dispatch(es)");
  return true;
}

// Every level of the target the build compiles (--levels), each lowered
// from a clone of the verified graph. The spec report (--explain) is printed
// for the first level and for each later one where it differs (kernels
// per feature level).
bool lowerTarget(BuildContext &ctx, TargetBuild &tb) {
  std::string previous;
  for (const FeatureLevel *level : ctx.levels.at(tb.target)) {
    tb.levels.push_back(LevelBuild{level, nullptr, {}, {}, {}});
    std::string explain;
    if (!lowerLevel(ctx, *tb.target, tb.levels.back(), ctx.opts.explain ? &explain : nullptr))
      return false;
    if (ctx.opts.explain && !ctx.specs.rules.empty() &&
        (tb.levels.size() == 1 || explain != previous)) {
      std::string header = tb.target->name;
      if (tb.levels.size() > 1)
        header += std::string(" ") + level->name;
      std::fprintf(stdout, "== %s ==\n%s", header.c_str(), explain.c_str());
    }
    previous = explain;
  }
  if (ctx.opts.explain)
    std::fprintf(stdout, "%s", explainVariants(*tb.target, variantPrograms(tb)).c_str());
  return true;
}

// --sanitize=undefined reaches only what graft compiles from C: an object
// or bitcode kernel is linked as it is.
void warnUninstrumented(BuildContext &ctx, const KernelSource &src) {
  ctx.diag.warning(src.loc, std::string(src.kind == KernelSource::Kind::Object ? "object"
                                                                               : "bitcode") +
                                " kernel '" + src.path +
                                "' is not instrumented by --sanitize=undefined (graft can "
                                "only instrument C sources); compile it with "
                                "-fsanitize=undefined -fsanitize-minimal-runtime to check it");
}

// Each level's kernels, compiled for that level. Several rules may name one
// kernel file: it is compiled and linked once per variant (twice would
// define its symbols twice), and checked against every rule that uses it;
// an object file is linked once per slice.
bool compileKernels(BuildContext &ctx, TargetBuild &tb) {
  KernelBuildOptions options;
  options.flags = ctx.opts.kernelFlags;
  options.color = ctx.opts.color;
  options.sanitizeUndefined = ctx.opts.sanitizeUndefined;
  const TargetInfo &t = *tb.target;
  struct Shared {
    KernelSource source;
    CompiledKernel kernel;
    std::vector<std::string> symbols; // of its rules, each once
    std::string rules;                // "'a'" / "'a', 'b'"
    unsigned ruleCount = 0;
  };
  for (LevelBuild &lb : tb.levels) {
    PassTimer pass(ctx.times(), std::string(t.name) + " " + lb.level->name + ": kernels");
    options.level = lb.level;
    std::vector<Shared> kernels;
    for (size_t i = 0; i < lb.calls.size(); ++i) {
      const KernelCall &plan = *lb.calls[i];
      if (plan.link != KernelLink::Static)
        continue; // resolved from plugins when the bundle is loaded
      const KernelSource &src = plan.source;
      auto same = std::find_if(kernels.begin(), kernels.end(), [&](const Shared &k) {
        return k.source.kind == src.kind && k.source.path == src.path &&
               k.source.flags == src.flags;
      });
      if (same != kernels.end()) {
        if (!checkKernelForPlan(same->kernel, plan, t, ctx.diag))
          return false;
        same->rules += ", '" + plan.name + "'";
        ++same->ruleCount;
        if (std::find(same->symbols.begin(), same->symbols.end(), plan.symbol) ==
            same->symbols.end())
          same->symbols.push_back(plan.symbol);
        continue;
      }
      if (options.sanitizeUndefined && src.kind != KernelSource::Kind::CSource &&
          ctx.uninstrumented.insert(src.path).second)
        warnUninstrumented(ctx, src);
      std::string dir = ctx.workDir + "/" + t.name + "/" + lb.level->name + "/kernels/" +
                        std::to_string(i);
      fs::create_directories(dir);
      CompiledKernel k;
      // Compiles C sources and checks architecture, symbol and arity.
      bool ok = compileKernel(plan, t, dir, ctx.diag, k, options);
      if (!k.command.empty()) {
        std::string line;
        for (const std::string &a : k.command)
          line += (line.empty() ? "" : " ") + a;
        ctx.log(std::string(t.name) + " " + lb.level->name + ": " + line);
      }
      if (!ok)
        return false;
      ctx.kernelDependencies.insert(k.dependencies.begin(), k.dependencies.end());
      kernels.push_back({src, std::move(k), {plan.symbol}, "'" + plan.name + "'", 1});
    }
    for (const Shared &k : kernels) {
      std::string name = k.source.path + " (" + (k.ruleCount > 1 ? "rules " : "rule ") +
                         k.rules + ")";
      if (k.kernel.kind == CompiledKernel::Bitcode) {
        lb.bitcode.push_back({k.kernel.path, name});
        continue;
      }
      // An object is linked once for all variants, so each symbol must come
      // from one file: two objects would define it twice in the slice.
      for (const std::string &symbol : k.symbols) {
        auto [it, inserted] = tb.objectOf.emplace(symbol, k.kernel.path);
        if (!inserted && it->second != k.kernel.path) {
          ctx.diag.error(k.source.loc, "kernel '" + symbol + "' for " + t.name +
                                           " comes from two object files (" + it->second +
                                           " and " + k.kernel.path +
                                           "); kernels per feature level must be 'source' or "
                                           "'bitcode'");
          return false;
        }
      }
      if (std::none_of(tb.objects.begin(), tb.objects.end(),
                       [&](const LinkInput &o) { return o.path == k.kernel.path; }))
        tb.objects.push_back({name, k.kernel.path, /*userCode=*/true});
    }
  }
  return true;
}

std::string emitPath(const BuildContext &ctx, const TargetInfo &t, const std::string &ext) {
  return ctx.opts.emitDir + "/" + ctx.moduleName + "." + t.name + "." + ext;
}

// The slice's object files: the dispatches (every variant) and graft's
// builtins (prebuilt when graft was built: PrebuiltBuiltins.h). Touches
// nothing of |ctx| but what it reads, so that targets compile on threads of
// their own; reports go to |diag|.
bool compileSlice(const BuildContext &ctx, const TargetBuild &tb, CompileOptions &co,
                  std::string &builtins, DiagEngine &diag) {
  const TargetInfo &t = *tb.target;
  std::string dir = ctx.workDir + "/" + t.name;
  fs::create_directories(dir);
  co.moduleName = ctx.moduleName;
  co.objectPath = dir + "/" + ctx.moduleName + ".o";
  if (ctx.emits("llvm"))
    co.llvmIRPath = emitPath(ctx, t, "ll");
  if (ctx.emits("asm"))
    co.asmPath = emitPath(ctx, t, "s");
  builtins = dir + "/builtins.o";
  if (!compileSliceObject(variantPrograms(tb), t, co, diag))
    return false;
  PassTimer pass(co.times, std::string(t.name) + ": builtins");
  return writeBuiltinsObject(t, builtins, diag, ctx.opts.sanitizeUndefined);
}

bool linkAndKeep(BuildContext &ctx, TargetBuild &tb, const CompileOptions &co,
                 const std::string &builtins) {
  const TargetInfo &t = *tb.target;
  std::string dir = ctx.workDir + "/" + t.name;
  // Kernel bitcode is inlined into the dispatches: their object holds user code.
  std::set<std::string> inlined;
  for (const LevelBuild &lb : tb.levels)
    for (const KernelBitcode &k : lb.bitcode)
      inlined.insert(k.name);
  std::string dispatches = ctx.moduleName + " (" + t.name + " dispatches)";
  for (const std::string &k : inlined)
    dispatches += (k == *inlined.begin() ? " with " : ", ") + k;
  std::vector<LinkInput> inputs = {{dispatches, co.objectPath, !inlined.empty()}};
  inputs.insert(inputs.end(), tb.objects.begin(), tb.objects.end());
  inputs.push_back({std::string("graft builtins (") + t.name + ")", builtins});
  std::vector<uint8_t> elf;
  PassTimer pass(ctx.times(), std::string(t.name) + ": link");
  std::vector<std::string> exported = {GRAFT_QUERY_SYMBOL};
  if (ctx.opts.sanitizeUndefined)
    exported.push_back(GRAFT_UBSAN_INSTALL_SYMBOL);
  if (!linkSlice(t, inputs, dir, elf, ctx.diag, exported))
    return false;
  if (ctx.emits("obj"))
    fs::copy_file(co.objectPath, emitPath(ctx, t, "o"), fs::copy_options::overwrite_existing);
  if (ctx.emits("elf")) {
    std::ofstream(emitPath(ctx, t, "so"), std::ios::binary)
        .write(reinterpret_cast<const char *>(elf.data()), static_cast<std::streamsize>(elf.size()));
  }
  ctx.log(std::string(t.name) + ": slice of " + std::to_string(elf.size()) + " bytes");
  ctx.slices.push_back(std::move(elf));
  return true;
}

// LLVM's optimisation and code generation, most of a build's time, run for
// every target at once, each on a thread with its own LLVMContext; their
// diagnostics are reported afterwards in target order. Linking stays
// sequential (lld keeps global state), in target order, so the bundle is
// the same bytes however the threads ran.
bool compileAndLinkAll(BuildContext &ctx, std::vector<TargetBuild> &builds) {
  size_t n = builds.size();
  std::vector<CompileOptions> co(n);
  std::vector<std::string> builtins(n);
  std::vector<std::unique_ptr<DiagEngine>> diags;
  std::vector<PassTimes> times(n);
  std::vector<char> ok(n, 0);
  for (size_t i = 0; i < n; ++i) {
    diags.push_back(std::make_unique<DiagEngine>(ctx.diag.sources()));
    diags.back()->setDeferred(true);
    co[i].times = ctx.opts.timePasses ? &times[i] : nullptr;
  }
  // Registering a backend edits LLVM's target registry, which the threads
  // read: every target's is registered first. (A backend this LLVM lacks
  // is reported by its thread, as the compile of that target's slice.)
  for (const TargetBuild &tb : builds) {
    std::string unused;
    initializeLLVMBackend(*tb.target, unused);
  }
  auto compile = [&](size_t i) { ok[i] = compileSlice(ctx, builds[i], co[i], builtins[i], *diags[i]); };
  std::vector<std::thread> threads;
  for (size_t i = 1; i < n; ++i)
    threads.emplace_back(compile, i);
  if (n)
    compile(0);
  for (std::thread &th : threads)
    th.join();
  bool all = true;
  for (size_t i = 0; i < n; ++i) {
    diags[i]->replayInto(ctx.diag);
    ctx.passTimes.append(times[i]);
    all = all && ok[i];
  }
  if (!all)
    return false;
  for (size_t i = 0; i < n; ++i)
    if (!linkAndKeep(ctx, builds[i], co[i], builtins[i]))
      return false;
  return true;
}

// Everything the bundle was made from: the graph, the specs, every kernel
// file they name and every header a C kernel included (clang's own -MD
// list), with an empty rule for each so that Make copes with a deleted or
// renamed input. Written last, so a failed build leaves the old one.
bool writeDepfile(BuildContext &ctx) {
  std::set<std::string> inputs = {ctx.opts.graph};
  inputs.insert(ctx.opts.specs.begin(), ctx.opts.specs.end());
  for (const auto &rule : ctx.specs.rules)
    for (const auto &k : rule->kernels)
      inputs.insert(k.second.path);
  inputs.insert(ctx.kernelDependencies.begin(), ctx.kernelDependencies.end());
  std::ofstream out(ctx.opts.depfile, std::ios::binary);
  out << formatDepfile(ctx.opts.output, {inputs.begin(), inputs.end()});
  if (!out) {
    ctx.diag.error(ctx.opts.depfile, "cannot write: " + std::string(std::strerror(errno)));
    return false;
  }
  return true;
}

// --embed STEM: the bundle as C (STEM.c) and its typed entry points (STEM.h).
bool writeEmbedFiles(BuildContext &ctx, const std::vector<uint8_t> &bundle) {
  std::string prefix = fs::path(ctx.opts.embed).filename().string();
  EmbedFiles files;
  std::string err;
  if (!generateEmbedFiles(*ctx.graph, prefix, fs::path(ctx.opts.graph).filename().string(),
                          bundle, files, err)) {
    ctx.diag.error(ctx.opts.graph, err);
    return false;
  }
  return writeOutputFile(ctx.opts.embed + ".h", files.header.data(), files.header.size(),
                         ctx.diag) &&
         writeOutputFile(ctx.opts.embed + ".c", files.source.data(), files.source.size(),
                         ctx.diag);
}

bool writeBundle(BuildContext &ctx) {
  PassTimer pass(ctx.times(), "bundle");
  std::vector<uint8_t> bundle;
  std::string err;
  if (!writeFatElf(ctx.slices, bundle, err)) {
    ctx.diag.error(ctx.opts.output, "cannot write bundle: " + err);
    return false;
  }
  if (!ctx.opts.embed.empty() && !writeEmbedFiles(ctx, bundle))
    return false;
  return writeOutputFile(ctx.opts.output, bundle, ctx.diag);
}

} // namespace

int runBuild(const BuildOptions &opts) {
  auto wallStart = std::chrono::steady_clock::now();
  double cpuStart = processCpuSeconds();
  BuildContext ctx(opts);
  if (!resolveTargets(opts.targets, ctx.diag, ctx.targets) ||
      !resolveLevels(opts.levels, ctx.targets, ctx.diag, ctx.levels))
    return 1;
  if (!readInputs(ctx))
    return 1;
  if (!ctx.work.create("build", ctx.diag))
    return 1;
  ctx.workDir = ctx.work.path();
  if (!opts.emit.empty())
    fs::create_directories(opts.emitDir);
  std::vector<TargetBuild> builds(ctx.targets.size());
  for (size_t i = 0; i < builds.size(); ++i) {
    builds[i].target = ctx.targets[i];
    if (!lowerTarget(ctx, builds[i]) || !compileKernels(ctx, builds[i]))
      return 1;
  }
  if (!compileAndLinkAll(ctx, builds) || !writeBundle(ctx))
    return 1;
  if (!opts.depfile.empty() && !writeDepfile(ctx))
    return 1;
  ctx.log("wrote " + opts.output);
  if (opts.timePasses) {
    std::chrono::duration<double> wall = std::chrono::steady_clock::now() - wallStart;
    std::fprintf(stderr, "graft: pass times of %s\n", opts.output.c_str());
    ctx.passTimes.print(stderr, wall.count(), processCpuSeconds() - cpuStart);
  }
  return 0;
}

} // namespace graft
