// See ReplaceLoader.h. The two replacement forms share everything but the
// argument list: `call` lists kernel arguments (`args`), `dispatch` lists the
// constants handed to a whole-dispatch kernel (`constants`).
#include "spec/ReplaceLoader.h"

#include "targets/Target.h"

#include <cctype>
#include <climits>
#include <cstdint>
#include <filesystem>
#include <set>

namespace graft {

namespace {

bool loadWorkgroupSize(const YamlSource &ys, const YAML::Node &n, Rule &rule) {
  if (!n)
    return true;
  if (!ys.expectSequence(n, "'workgroup_size'"))
    return false;
  if (n.size() < 1 || n.size() > 3)
    return ys.error(n, "expected 1 to 3 sizes in 'workgroup_size', found " +
                           std::to_string(n.size()));
  for (const YAML::Node &e : n) {
    int64_t v = 0;
    if (!ys.expectScalar(e, "a workgroup size"))
      return false;
    const std::string &text = e.Scalar();
    size_t used = 0;
    try {
      v = std::stoll(text, &used);
    } catch (...) {
      used = 0;
    }
    if (used != text.size() || used == 0 || v < 1 || v > UINT32_MAX)
      return ys.error(e, "expected a workgroup size between 1 and " +
                             std::to_string(UINT32_MAX) + ", found '" + text + "'");
    rule.workgroupSize.push_back(v);
  }
  return true;
}

// Without 'grid', a rule with a workgroup size covers its first output:
// grid axis i is ceildiv(that output's dim (rank - 1 - i), workgroup_size[i])
// (axis x runs along the innermost dim, as graft's own dispatches do).
bool defaultGrid(const YamlSource &ys, const YAML::Node &sizeNode, Rule &rule) {
  const Type &out = rule.pattern->resultTypes.at(0);
  if (rule.workgroupSize.size() > out.rank())
    return ys.error(sizeNode, "'workgroup_size' has " +
                                  std::to_string(rule.workgroupSize.size()) +
                                  " entries but output '" + rule.outputNames[0] +
                                  "' has rank " + std::to_string(out.rank()) +
                                  "; give 'grid' explicitly");
  for (size_t i = 0; i < rule.workgroupSize.size(); ++i) {
    SpecExpr dim, size;
    dim.kind = SpecExpr::Kind::Dim;
    dim.output = 0;
    dim.axis = static_cast<int>(out.rank() - 1 - i);
    size.value = rule.workgroupSize[i];
    SpecExpr &g = rule.grid[i];
    g.kind = SpecExpr::Kind::Binary;
    g.op = GRAFT_EXPR_CEILDIV;
    g.operands = {dim, size};
    g.loc = dim.loc = size.loc = ys.loc(sizeNode);
  }
  return true;
}

bool loadGrid(const YamlSource &ys, const YAML::Node &n, const SpecScope &scope,
              Rule &rule) {
  for (SpecExpr &g : rule.grid) {
    g = SpecExpr();
    g.value = 1;
  }
  if (!n)
    return true;
  if (!ys.expectSequence(n, "'grid'"))
    return false;
  if (n.size() < 1 || n.size() > 3)
    return ys.error(n, "expected 1 to 3 workgroup counts in 'grid', found " +
                           std::to_string(n.size()));
  bool ok = true;
  for (size_t i = 0; i < n.size(); ++i) {
    const YAML::Node &e = n[i];
    if (!ys.expectScalar(e, "a workgroup count")) {
      ok = false;
      continue;
    }
    ok &= parseSpecExpr(e.Scalar(), ys.contentLoc(e), scope, ys.diag(), rule.grid[i]);
  }
  return ok;
}

// clang flags whose value is a path. A relative path in a spec means the
// spec's directory (where its kernels are), not wherever graft runs.
const char *const kPathFlags[] = {"-I", "-isystem", "-iquote", "-idirafter", "-include",
                                  "-imacros", "-isysroot", "--sysroot"};

std::string underBase(const std::string &path, const std::string &baseDir) {
  std::filesystem::path p(path);
  if (path.empty() || p.is_absolute() || path[0] == '=') // "=dir": sysroot-relative
    return path;
  return (std::filesystem::path(baseDir) / p).lexically_normal().string();
}

// Rewrites the relative paths in |flags| ("-Idir", "-I dir", "-I=..." left
// alone, "--sysroot=dir") to paths under |baseDir|.
void resolveFlagPaths(std::vector<std::string> &flags, const std::string &baseDir) {
  for (size_t i = 0; i < flags.size(); ++i) {
    std::string &f = flags[i];
    for (const char *pf : kPathFlags) {
      std::string name = pf;
      if (f == name) { // the path is the next flag
        if (i + 1 < flags.size()) {
          ++i;
          flags[i] = underBase(flags[i], baseDir);
        }
        break;
      }
      if (name.compare(0, 2, "--") == 0 && f.compare(0, name.size() + 1, name + "=") == 0) {
        f = name + "=" + underBase(f.substr(name.size() + 1), baseDir);
        break;
      }
      // Joined short forms: only -I takes one ("-Iinc"); "-include" and
      // friends would otherwise read as "-I" + "nclude".
      if (name == "-I" && f.size() > 2 && f.compare(0, 2, "-I") == 0) {
        f = "-I" + underBase(f.substr(2), baseDir);
        break;
      }
    }
  }
}

// The target that has a feature level named |name|, or null.
static const TargetInfo *targetOfLevel(const std::string &name) {
  for (const TargetInfo *t : allTargets())
    if (lookupLevel(*t, name))
      return t;
  return nullptr;
}

bool loadKernelSource(const YamlSource &ys, const YAML::Node &key, const YAML::Node &n,
                      const std::string &baseDir, Rule &rule) {
  if (!ys.expectScalar(key, "a target name"))
    return false;
  const TargetInfo *info = lookupTarget(key.Scalar());
  if (!info && !targetOfLevel(key.Scalar())) {
    std::string levels;
    for (const TargetInfo *t : allTargets())
      for (const FeatureLevel &l : t->levels)
        levels += std::string(levels.empty() ? "" : ", ") + l.name;
    return ys.error(key, "unknown target '" + key.Scalar() + "'; expected one of: " +
                             targetNames() + ", or a feature level: " + levels);
  }
  // A target's own name, never an alias ("arm64" is "aarch64"), or a level's.
  const std::string target = info ? std::string(info->name) : key.Scalar();
  if (!ys.checkKeys(n, {"source", "object", "bitcode", "flags"}, "kernel for " + target))
    return false;
  KernelSource src;
  src.loc = ys.loc(key);
  const char *kindKey = nullptr;
  for (const char *k : {"source", "object", "bitcode"}) {
    if (!n[k])
      continue;
    if (kindKey)
      return ys.error(n[k], std::string("kernel for ") + target + " has both '" +
                                kindKey + "' and '" + k + "'; expected one");
    kindKey = k;
  }
  if (!kindKey)
    return ys.error(n, "kernel for " + target +
                           " needs one of 'source', 'object' or 'bitcode'");
  std::string kind = kindKey;
  src.kind = kind == "source"   ? KernelSource::Kind::CSource
             : kind == "object" ? KernelSource::Kind::Object
                                : KernelSource::Kind::Bitcode;
  const YAML::Node &pathNode = n[kindKey];
  if (!ys.expectScalar(pathNode, "'" + kind + "'"))
    return false;
  std::filesystem::path p(pathNode.Scalar());
  // clang picks the language from the extension (and takes anything it does
  // not know as a linker input), so a C kernel must say it is C.
  if (src.kind == KernelSource::Kind::CSource && p.extension() != ".c")
    return ys.error(pathNode, "kernel source '" + pathNode.Scalar() + "' has " +
                                  (p.extension().empty()
                                       ? std::string("no extension")
                                       : "extension '" + p.extension().string() + "'") +
                                  "; a 'source' kernel is C and must end in '.c' (compiled "
                                  "objects go under 'object:', LLVM bitcode under 'bitcode:')");
  if (p.is_relative())
    p = std::filesystem::path(baseDir) / p;
  src.path = p.lexically_normal().string();
  src.loc = ys.contentLoc(pathNode);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(src.path, ec))
    return ys.error(pathNode, "kernel " + kind + " '" + pathNode.Scalar() +
                                  "' not found (looked for " + src.path + ")");
  if (n["flags"]) {
    if (src.kind != KernelSource::Kind::CSource)
      return ys.error(n["flags"], "'flags' apply only to 'source' kernels");
    if (!ys.expectSequence(n["flags"], "'flags'"))
      return false;
    for (const YAML::Node &f : n["flags"]) {
      if (!ys.expectScalar(f, "a compiler flag"))
        return false;
      src.flags.push_back(f.Scalar());
    }
    resolveFlagPaths(src.flags, baseDir);
  }
  rule.kernels[target] = std::move(src);
  return true;
}

bool loadArgs(const YamlSource &ys, const YAML::Node &n, const SpecScope &scope,
              Rule &rule) {
  if (!ys.expectSequence(n, "'args'"))
    return false;
  bool ok = true;
  for (const YAML::Node &a : n) {
    if (!ys.expectScalar(a, "a kernel argument")) {
      ok = false;
      continue;
    }
    KernelArg arg;
    if (!parseKernelArg(a.Scalar(), ys.contentLoc(a), scope, ys.diag(), arg)) {
      ok = false;
      continue;
    }
    rule.args.push_back(std::move(arg));
  }
  return ok;
}

bool loadConstants(const YamlSource &ys, const YAML::Node &n, const SpecScope &scope,
                   Rule &rule) {
  if (!ys.expectSequence(n, "'constants'"))
    return false;
  bool ok = true;
  for (const YAML::Node &c : n) {
    SpecExpr e;
    if (!ys.expectScalar(c, "a dispatch constant") ||
        !parseSpecExpr(c.Scalar(), ys.contentLoc(c), scope, ys.diag(), e)) {
      ok = false;
      continue;
    }
    rule.constants.push_back(std::move(e));
  }
  return ok;
}

bool isSymbol(const std::string &s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
    return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$'))
      return false;
  return true;
}

// An in-place output (`{name: result, init: rhs}`) starts as a copy of a
// tensor argument of the same element type and rank.
bool loadOutputInit(const YamlSource &ys, const YAML::Node &init, const std::string &output,
                    const Type &outType, const SpecScope &scope, int &input) {
  if (!ys.expectScalar(init, "a pattern argument name"))
    return false;
  std::string name = init.Scalar();
  if (!name.empty() && name[0] == '%')
    name.erase(0, 1);
  input = scope.inputIndex(name);
  if (input < 0)
    return ys.error(init, "unknown pattern argument '" + name + "' in 'init' of output '" +
                              output + "'");
  const Type &inType = scope.typeOf(input, -1);
  bool compatible = inType.tensor && inType.elem == outType.elem && inType.rank() == outType.rank();
  for (size_t d = 0; compatible && d < inType.rank(); ++d)
    compatible = inType.dims[d] == kDynamic || outType.dims[d] == kDynamic ||
                 inType.dims[d] == outType.dims[d];
  if (!compatible)
    return ys.error(init, "output '" + output + "' (" + outType.str() +
                              ") cannot start as '" + name + "' (" + inType.str() +
                              "); 'init' needs a tensor of the same element type and shape");
  return true;
}

} // namespace

bool loadOutputNames(const YamlSource &ys, const YAML::Node &replace, Rule &rule,
                     SpecScope &scope) {
  size_t count = rule.pattern->results.size();
  rule.outputNames.clear();
  rule.outputInit.assign(count, -1);
  const YAML::Node outputs = replace.IsMap() ? replace["outputs"] : YAML::Node();
  if (!outputs) {
    for (size_t i = 0; i < count; ++i)
      rule.outputNames.push_back(count == 1 ? "result" : "result" + std::to_string(i));
  } else {
    if (!ys.expectSequence(outputs, "'outputs'"))
      return false;
    if (outputs.size() != count)
      return ys.error(outputs, "expected " + std::to_string(count) +
                                   " output name(s), one per pattern result, found " +
                                   std::to_string(outputs.size()));
    std::set<std::string> seen;
    for (size_t i = 0; i < count; ++i) {
      const YAML::Node entry = outputs[i];
      bool isMap = entry.IsMap(); // {name: result, init: rhs}
      if (isMap && !ys.checkKeys(entry, {"name", "init"}, "output"))
        return false;
      if (isMap && !entry["name"])
        return ys.error(entry, "output needs 'name'");
      const YAML::Node o = isMap ? entry["name"] : entry;
      bool hasInit = isMap && entry["init"];
      const YAML::Node init = hasInit ? entry["init"] : YAML::Node();
      if (!ys.expectScalar(o, "an output name"))
        return false;
      std::string name = o.Scalar();
      if (!name.empty() && name[0] == '%')
        name.erase(0, 1);
      if (!isSymbol(name))
        return ys.error(o, "output name '" + name + "' is not an identifier");
      if (scope.inputIndex(name) >= 0)
        return ys.error(o, "output name '" + name +
                               "' is already a pattern argument name");
      if (!seen.insert(name).second)
        return ys.error(o, "duplicate output name '" + name + "'");
      rule.outputNames.push_back(name);
      if (hasInit && !loadOutputInit(ys, init, name, rule.pattern->resultTypes[i], scope,
                                  rule.outputInit[i]))
        return false;
    }
    for (size_t i = 0; i < count; ++i)
      for (size_t j = 0; j < i; ++j)
        if (rule.outputInit[i] >= 0 && rule.outputInit[i] == rule.outputInit[j])
          return ys.error(outputs[i], "outputs '" + rule.outputNames[j] + "' and '" +
                                          rule.outputNames[i] + "' both start as '" +
                                          scope.nameOf(rule.outputInit[i], -1) +
                                          "'; each input can be updated in place once");
  }
  scope.outputNames = rule.outputNames;
  return true;
}

namespace {

// A `call` kernel writes its outputs through the pointers it is given: an
// output it is never given would be returned unwritten.
bool checkOutputsPassed(const YamlSource &ys, const YAML::Node &replace, const Rule &rule) {
  bool ok = true;
  for (size_t o = 0; o < rule.outputNames.size(); ++o) {
    bool passed = false;
    for (const KernelArg &a : rule.args)
      passed |= a.output == static_cast<int>(o) &&
                (a.kind == KernelArg::Kind::Tensor || a.kind == KernelArg::Kind::Memref);
    if (!passed)
      ok = ys.error(replace["args"], "output '" + rule.outputNames[o] +
                                         "' is never passed to kernel '" + rule.symbol +
                                         "'; add '" + rule.outputNames[o] + "' or 'memref(" +
                                         rule.outputNames[o] + ")' to 'args'");
  }
  return ok;
}

} // namespace

bool loadReplace(const YamlSource &ys, const YAML::Node &replace,
                 const std::string &baseDir, const SpecScope &patternScope, Rule &rule) {
  // Unknown keys are reported, then the known ones are still checked so one
  // run shows every problem.
  bool ok = ys.checkKeys(replace,
                         {"call", "dispatch", "link", "returns", "outputs", "args",
                          "constants", "grid", "workgroup_size", "kernels"},
                         "replace");
  if (!replace.IsMap())
    return false;
  if (!loadWorkgroupSize(ys, replace["workgroup_size"], rule))
    return false;
  SpecScope scope = patternScope;
  scope.workgroupSize = rule.workgroupSize;
  if (replace["call"] && replace["dispatch"])
    return ys.error(replace["dispatch"], "'replace' has both 'call' and 'dispatch'; "
                                         "expected one");
  const YAML::Node sym = replace["call"] ? replace["call"] : replace["dispatch"];
  if (!sym)
    return ys.error(replace, "'replace' needs 'call: <symbol>' or "
                             "'dispatch: <symbol>'");
  rule.form = replace["call"] ? KernelForm::Call : KernelForm::Dispatch;
  if (!ys.expectScalar(sym, "the kernel symbol"))
    return false;
  rule.symbol = sym.Scalar();
  if (!isSymbol(rule.symbol))
    ok = ys.error(sym, "kernel symbol '" + rule.symbol + "' is not a C identifier");

  if (replace["link"]) {
    const YAML::Node &l = replace["link"];
    if (!ys.expectScalar(l, "'link'"))
      return false;
    if (l.Scalar() == "static")
      rule.link = KernelLink::Static;
    else if (l.Scalar() == "import")
      rule.link = KernelLink::Import;
    else if (l.Scalar() == "optional")
      rule.link = KernelLink::Optional;
    else if (l.Scalar() == "host")
      rule.link = KernelLink::Host;
    else
      ok = ys.error(l, "expected 'link' to be static, import, optional or host, found '" +
                           l.Scalar() + "'");
  }
  if (replace["returns"]) {
    const YAML::Node &r = replace["returns"];
    if (!ys.expectScalar(r, "'returns'"))
      return false;
    if (rule.link != KernelLink::Static && r.Scalar() == "void")
      ok = ys.error(r, "an import always returns int (0: success), as IREE's plugin "
                       "functions do; 'returns: void' is for static kernels");
    else if (r.Scalar() == "void" || r.Scalar() == "status")
      rule.returnsStatus = r.Scalar() == "status";
    else
      ok = ys.error(r, "expected 'returns' to be void or status, found '" +
                           r.Scalar() + "'");
  }

  if (rule.form == KernelForm::Call) {
    if (replace["constants"])
      ok = ys.error(replace["constants"], "'constants' is for 'dispatch' kernels; "
                                          "a 'call' kernel takes 'args'");
    if (!replace["args"])
      ok = ys.error(replace, "'call' needs 'args' (the kernel's parameters, in "
                             "order)");
    else if (loadArgs(ys, replace["args"], scope, rule))
      ok &= checkOutputsPassed(ys, replace, rule);
    else
      ok = false;
  } else {
    if (replace["args"])
      ok = ys.error(replace["args"], "'args' is for 'call' kernels; a 'dispatch' "
                                     "kernel takes 'constants'");
    if (replace["constants"])
      ok &= loadConstants(ys, replace["constants"], scope, rule);
  }
  ok &= loadGrid(ys, replace["grid"], scope, rule);
  if (!replace["grid"] && !rule.workgroupSize.empty())
    ok &= defaultGrid(ys, replace["workgroup_size"], rule);

  const YAML::Node &kernels = replace["kernels"];
  if (rule.link != KernelLink::Static) {
    if (kernels)
      return ys.error(kernels, "'kernels' is for static kernels; an import is provided by "
                               "a plugin when the bundle is loaded (graft-run --plugin)");
    return ok;
  }
  if (!kernels)
    return ys.error(replace, "'replace' has no 'kernels' (a source, object or "
                             "bitcode file per target)");
  if (!ys.expectMap(kernels, "'kernels'"))
    return false;
  if (kernels.size() == 0)
    return ys.error(kernels, "'kernels' is empty; expected at least one target");
  std::set<std::string> seen;
  for (auto it = kernels.begin(); it != kernels.end(); ++it) {
    const TargetInfo *t = it->first.IsScalar() ? lookupTarget(it->first.Scalar()) : nullptr;
    if (t && !seen.insert(t->name).second) { // "arm64" is "aarch64"
      ok = ys.error(it->first, "duplicate kernel for target '" + std::string(t->name) + "'" +
                                   (it->first.Scalar() != t->name
                                        ? " ('" + it->first.Scalar() + "' is an alias)"
                                        : ""));
      continue;
    }
    ok &= loadKernelSource(ys, it->first, it->second, baseDir, rule);
  }
  return ok;
}

const KernelSource *Rule::kernelFor(const std::string &target, const std::string &level) const {
  const TargetInfo *t = lookupTarget(target);
  if (t) {
    // From |level| (or the baseline) down to the baseline.
    const FeatureLevel *at = level.empty() ? &t->baseline() : lookupLevel(*t, level);
    for (size_t i = at ? size_t(at - t->levels.data()) + 1 : 0; i-- > 0;) {
      auto it = kernels.find(t->levels[i].name);
      if (it != kernels.end())
        return &it->second;
    }
  }
  auto it = kernels.find(target);
  return it == kernels.end() ? nullptr : &it->second;
}

} // namespace graft
