// See SpecHeader.h. A prototype is written in C types whose width follows
// the target (size_t), so one declaration serves every target a rule has a
// kernel for; that the per-target prototypes agree is checked, not assumed.
#include "driver/SpecHeader.h"

#include "driver/DriverSupport.h"
#include "driver/CheckEval.h"
#include "spec/CallPlan.h"
#include "spec/Prototype.h"
#include "spec/SpecLoader.h"
#include "support/InternalError.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

namespace graft {

namespace {

int usage(const std::string &msg) {
  std::fprintf(stderr, "graft spec: error: %s\n", msg.c_str());
  return 2;
}

// An import (`link: import/optional/host`) is a plugin function with IREE's
// convention, int fn(params, context, reserved) (docs/plugins.md): for a
// `call:` rule |params| points to a struct of the kernel's parameters, for a
// `dispatch:` rule it is the dispatch state and |reserved| the workgroup
// state. A host command (`link: host`) says so: it runs on the host thread.
std::string formatImport(const KernelPrototype &p, const KernelCall &plan) {
  std::string what = plan.link == KernelLink::Host ? " /* host command */" : " /* import */";
  if (plan.form == KernelForm::Dispatch)
    return "int " + p.symbol + "(void *dispatch_state, void *context, void *workgroup_state);" +
           what;
  std::string s = "struct " + p.symbol + "_params {\n";
  for (const KernelParam &k : p.params) {
    s += "  " + k.ctype + (k.ctype.back() == '*' ? "" : " ") + k.name + ";";
    if (k.showSource)
      s += " /* " + k.source + " */";
    s += "\n";
  }
  return s + "};\nint " + p.symbol + "(void *params, void *context, void *reserved);" + what;
}

} // namespace

int runSpec(int argc, char **argv) {
  bool header = false;
  std::vector<std::string> specs, targetNames;
  std::string graphPath;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--header") {
      header = true;
    } else if (a == "--graph" || a.compare(0, 8, "--graph=") == 0) {
      graphPath = a.size() > 7 ? a.substr(8) : (i + 1 < argc ? argv[++i] : "");
      if (graphPath.empty())
        return usage("option '--graph' needs a value");
    } else if (a == "--target" || a.compare(0, 9, "--target=") == 0) {
      std::string v = a.size() > 8 ? a.substr(9) : (i + 1 < argc ? argv[++i] : "");
      if (v.empty())
        return usage("option '--target' needs a value");
      for (size_t s = 0, e; s <= v.size(); s = e + 1) {
        e = v.find(',', s);
        if (e == std::string::npos)
          e = v.size();
        if (e > s)
          targetNames.push_back(v.substr(s, e - s));
      }
    } else if (!a.empty() && a[0] == '-') {
      return usage("unknown option '" + a + "'");
    } else {
      specs.push_back(a);
    }
  }
  if (!header)
    return usage("nothing to do; expected --header");
  if (specs.empty())
    return usage("no spec file given");

  SourceManager sm;
  DiagEngine diag(sm);
  SpecSet set;
  // The graph declares the kernels of direct rules (`kernel: NAME`).
  std::unique_ptr<Module> graph;
  if (!graphPath.empty() && !(graph = loadGraph(graphPath, sm)))
    return 1;
  for (const std::string &s : specs)
    loadSpecFile(s, sm, diag, set, graph.get());
  std::vector<const TargetInfo *> targets;
  if (!targetNames.empty())
    resolveTargets(targetNames, diag, targets);
  else
    targets = allTargets();
  if (diag.hasErrors())
    return 1;

  std::set<std::string> includes;
  std::string body;
  std::set<std::string> declared;
  for (const auto &rule : set.rules) {
    // Per target that has a kernel for the rule: its prototype.
    std::vector<std::pair<std::string, std::vector<std::string>>> variants;
    for (const TargetInfo *t : targets) {
      // The baseline's kernel, else the lowest level's that has one (the
      // prototype does not depend on the level: widths follow the target).
      bool applies = rule->appliesTo(t->name);
      std::string level;
      for (size_t l = 0; !applies && l < t->levels.size(); ++l)
        if ((applies = rule->appliesTo(t->name, t->levels[l].name)))
          level = t->levels[l].name;
      if (!applies)
        continue;
      std::shared_ptr<const KernelCall> plan = planKernelCall(*rule, t->name, level, diag);
      if (diag.hasErrors())
        return 1;
      KernelPrototype p = kernelPrototype(*plan, *t);
      includes.insert(p.includes.begin(), p.includes.end());
      std::string text = plan->imported() ? formatImport(p, *plan) : formatPrototype(p);
      auto same = std::find_if(variants.begin(), variants.end(),
                               [&](const auto &v) { return v.first == text; });
      if (same == variants.end())
        variants.push_back({text, {t->name}});
      else
        same->second.push_back(t->name);
    }
    if (variants.empty())
      continue;
    GRAFT_CHECK(variants.size() == 1, "rule '" + rule->name +
                                          "' has a C prototype that differs between targets");
    std::string where = sm.formatShort(rule->loc);
    if (rule->direct())
      where += ", kernel @" + rule->kernel;
    std::string on;
    for (const std::string &t : variants[0].second)
      on += (on.empty() ? "" : ", ") + t;
    body += "\n// rule '" + rule->name + "' (" + where + "), for " + on + "\n";
    body += declared.insert(variants[0].first).second
                ? variants[0].first + "\n"
                : "// (declared above)\n";
  }
  std::printf("// Kernel prototypes of graft spec rules: graft spec --header");
  for (const std::string &s : specs)
    std::printf(" %s", s.c_str());
  std::printf("\n#pragma once\n\n");
  for (const std::string &inc : includes)
    std::printf("#include <%s>\n", inc.c_str());
  std::printf("%s", body.c_str());
  return 0;
}

} // namespace graft
