// Spec file loading: the document and rule level, the match pattern and the
// `where` constraints. The `replace` section is read by ReplaceLoader.cpp.
//
// Loading never stops at the first problem inside a rule: each section is
// checked so one run reports as many errors as is safe, but a rule with any
// error is not added to the SpecSet.
#include "spec/SpecLoader.h"

#include "graph/Parser.h"
#include "graph/Verifier.h"
#include "spec/DagOperands.h"
#include "spec/DirectCalls.h"
#include "spec/ReplaceLoader.h"
#include "spec/SpecExpr.h"
#include "spec/YamlSource.h"

#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

namespace graft {

namespace {

// Checks the properties the matcher relies on: one `pattern` function with
// results produced by ops, and every op and argument reachable from the root
// (the op defining result 0) through operands and body captures.
bool checkPattern(const YamlSource &ys, const YAML::Node &node, Rule &rule) {
  DiagEngine &diag = ys.diag();
  Module &m = *rule.patternModule;
  if (m.functions.size() != 1) {
    diag.error(ys.loc(node), "expected exactly one pattern in 'match', found " +
                                 std::to_string(m.functions.size()));
    return false;
  }
  Function &p = *m.functions[0];
  if (!p.isPattern) {
    diag.error(p.loc, "expected 'pattern @" + p.name + "', found 'func'; match "
                      "text declares a pattern");
    return false;
  }
  if (p.results.empty()) {
    diag.error(p.loc, "pattern @" + p.name + " returns nothing; a pattern must "
                      "return the values the kernel computes");
    return false;
  }
  bool ok = true;
  for (Value *r : p.results) {
    if (r && r->isArg()) {
      diag.error(p.returnLoc, "pattern result %" + r->name +
                                  " is an argument; results must be computed by "
                                  "pattern ops");
      ok = false;
    }
  }
  if (!ok)
    return false;

  // Walk from the root like the matcher will.
  std::set<const Op *> reachedOps;
  std::set<const Value *> reachedArgs;
  std::vector<const Op *> work = {p.results[0]->def};
  while (!work.empty()) {
    const Op *op = work.back();
    work.pop_back();
    if (!reachedOps.insert(op).second)
      continue;
    for (Value *v : dagOperands(*op)) {
      if (v->isArg())
        reachedArgs.insert(v);
      else
        work.push_back(v->def);
    }
  }
  for (const Op *op : p.ops) {
    if (reachedOps.count(op))
      continue;
    std::string name = op->result() ? "%" + op->result()->name : opName(op->kind);
    diag.error(op->loc, "pattern op " + name + " does not feed the pattern root "
                        "(the op defining the first result %" +
                        p.results[0]->name + "); the matcher walks from the root "
                        "through operands, so it could never match this op");
    ok = false;
  }
  for (const Value *a : p.args) {
    if (!reachedArgs.count(a)) {
      diag.error(a->loc, "pattern argument %" + a->name +
                             " is not used on the way to the pattern root");
      ok = false;
    }
  }
  return ok;
}

bool loadPattern(const YamlSource &ys, const YAML::Node &node, Rule &rule) {
  if (!ys.expectScalar(node, "'match'"))
    return false;
  ParseOptions opts;
  ys.embeddedOffsets(node, opts.lineOffset, opts.colOffset);
  DiagEngine &diag = ys.diag();
  unsigned before = diag.errorCount();
  rule.patternModule = parseModuleText(node.Scalar(), ys.file(), diag, opts);
  if (!rule.patternModule || diag.errorCount() != before)
    return false;
  if (!verifyModule(*rule.patternModule, diag))
    return false;
  if (!checkPattern(ys, node, rule))
    return false;
  rule.pattern = rule.patternModule->functions[0].get();
  return true;
}

bool loadExprField(const YamlSource &ys, const YAML::Node &n, const SpecScope &scope,
                   const std::string &what, SpecExpr &out) {
  if (!ys.expectScalar(n, what))
    return false;
  return parseSpecExpr(n.Scalar(), ys.contentLoc(n), scope, ys.diag(), out);
}

bool loadConstraint(const YamlSource &ys, const YAML::Node &item, const SpecScope &scope,
                    Rule &rule) {
  if (!ys.expectMap(item, "a 'where' entry") || item.size() != 1)
    return item.IsMap() ? ys.error(item, "expected one constraint per 'where' entry "
                                         "(divisible, range or element_types)")
                        : false;
  auto kv = *item.begin();
  if (!ys.expectScalar(kv.first, "a constraint name"))
    return false;
  const std::string kind = kv.first.Scalar();
  const YAML::Node &body = kv.second;
  Constraint c;
  c.loc = ys.loc(kv.first);
  if (kind == "divisible") {
    c.kind = Constraint::Kind::DivisibleBy;
    if (!ys.checkKeys(body, {"value", "by"}, "divisible"))
      return false;
    if (!body["value"] || !body["by"])
      return ys.error(body, "divisible needs 'value' and 'by'");
    if (!loadExprField(ys, body["value"], scope, "'value'", c.value) ||
        !ys.getInt(body["by"], "'by'", c.divisor))
      return false;
    if (c.divisor <= 0)
      return ys.error(body["by"], "'by' must be positive, found " +
                                      std::to_string(c.divisor));
    c.text = "divisible(" + formatSpecExpr(c.value, scope) + ", " +
             std::to_string(c.divisor) + ")";
  } else if (kind == "range") {
    c.kind = Constraint::Kind::DimRange;
    if (!ys.checkKeys(body, {"value", "min", "max"}, "range"))
      return false;
    if (!body["value"] || (!body["min"] && !body["max"]))
      return ys.error(body, "range needs 'value' and at least one of 'min', 'max'");
    if (!loadExprField(ys, body["value"], scope, "'value'", c.value))
      return false;
    if (body["min"] && !ys.getInt(body["min"], "'min'", c.min))
      return false;
    if (body["max"] && !ys.getInt(body["max"], "'max'", c.max))
      return false;
    if (c.min > c.max)
      return ys.error(body, "empty range: min " + std::to_string(c.min) +
                                " is greater than max " + std::to_string(c.max));
    c.text = "range(" + formatSpecExpr(c.value, scope) + ", " + std::to_string(c.min) +
             ".." + std::to_string(c.max) + ")";
  } else if (kind == "element_types") {
    c.kind = Constraint::Kind::ElementTypes;
    if (!ys.checkKeys(body, {"of", "in"}, "element_types"))
      return false;
    if (!body["of"] || !body["in"])
      return ys.error(body, "element_types needs 'of' and 'in'");
    if (!ys.expectScalar(body["of"], "'of'") || !ys.expectSequence(body["in"], "'in'"))
      return false;
    std::string of = body["of"].Scalar();
    if (!of.empty() && of[0] == '%')
      of.erase(0, 1);
    c.input = scope.inputIndex(of);
    if (c.input < 0)
      return ys.error(body["of"], "unknown pattern argument '" + of + "'");
    c.text = "element_types(" + of + " in [";
    for (const YAML::Node &t : body["in"]) {
      std::optional<DType> dt = t.IsScalar() ? parseDType(t.Scalar()) : std::nullopt;
      if (!dt)
        return ys.error(t, "expected an element type (f32, i8, ...), found '" +
                               (t.IsScalar() ? t.Scalar() : std::string("?")) + "'");
      c.text += std::string(c.types.empty() ? "" : ", ") + dtypeName(*dt);
      c.types.push_back(*dt);
    }
    c.text += "])";
  } else {
    return ys.error(kv.first, "unknown constraint '" + kind +
                                  "'; expected divisible, range or element_types");
  }
  rule.constraints.push_back(std::move(c));
  return true;
}

bool isIdentifier(const std::string &s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return true;
}

// `kernel: NAME`: the rule provides the graph's `kernel @NAME` (direct
// calls); its pattern is made from that declaration. Returns false on an
// error; true with no pattern when the graph does not declare the kernel
// (the rule is dropped with a warning: a spec may serve several graphs).
bool loadDirectKernel(const YamlSource &ys, const YAML::Node &node, const Module *graph,
                      Rule &rule) {
  if (!ys.expectScalar(node, "'kernel'"))
    return false;
  rule.kernel = node.Scalar();
  rule.kernelLoc = ys.contentLoc(node);
  if (!rule.kernel.empty() && rule.kernel[0] == '@')
    rule.kernel.erase(0, 1);
  if (!isIdentifier(rule.kernel))
    return ys.error(node, "kernel name '" + rule.kernel +
                              "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)");
  if (!graph)
    return ys.error(node, "rule '" + rule.name + "' provides kernel @" + rule.kernel +
                              ", whose signature is declared in a graph; give the graph "
                              "(graft spec --header --graph G)");
  const KernelDecl *decl = graph->lookupKernel(rule.kernel);
  if (!decl) {
    ys.diag().warning(rule.kernelLoc, "rule '" + rule.name + "' provides kernel @" +
                                          rule.kernel + ", which the graph does not declare; "
                                          "the rule is not used");
    return true;
  }
  rule.patternModule = declarationPattern(*decl);
  rule.pattern = rule.patternModule->functions[0].get();
  return true;
}

bool loadRule(const YamlSource &ys, const YAML::Node &node, const std::string &baseDir,
              const SpecSet &existing, const Module *graph, std::unique_ptr<Rule> &out) {
  bool ok = ys.checkKeys(node, {"name", "match", "kernel", "where", "replace"}, "rule");
  if (!node.IsMap())
    return false;
  auto rule = std::make_unique<Rule>();
  rule->loc = ys.loc(node);
  if (!node["name"]) {
    ok = ys.error(node, "rule has no 'name'");
  } else if (ys.expectScalar(node["name"], "'name'")) {
    rule->name = node["name"].Scalar();
    rule->loc = ys.contentLoc(node["name"]);
    if (!isIdentifier(rule->name))
      ok = ys.error(node["name"], "rule name '" + rule->name +
                                      "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)");
    for (const auto &r : existing.rules)
      if (r->name == rule->name) {
        ok = ys.error(node["name"], "duplicate rule name '" + rule->name +
                                        "'; first defined at " +
                                        ys.diag().sources().format(r->loc));
      }
  } else {
    ok = false;
  }
  if (node["match"] && node["kernel"])
    return ys.error(node["kernel"], "rule '" + rule->name + "' has both 'match' and 'kernel'; "
                                    "a rule either matches a pattern or provides a kernel "
                                    "the graph calls directly");
  if (!node["match"] && !node["kernel"])
    return ys.error(node, "rule '" + rule->name + "' has no 'match' (or 'kernel', for a "
                          "kernel the graph calls directly)");
  if (!node["replace"])
    return ys.error(node, "rule '" + rule->name + "' has no 'replace'");
  if (node["kernel"] && node["where"])
    return ys.error(node["where"], "rule '" + rule->name + "' provides a kernel the graph "
                                   "calls directly: it has no graft code to fall back on, so "
                                   "it takes no 'where'");
  // Names in the rest of the rule refer to the pattern, so stop here when it
  // does not parse.
  if (node["kernel"]) {
    if (!loadDirectKernel(ys, node["kernel"], graph, *rule))
      return false;
    if (!rule->pattern)
      return ok; // not declared by this graph: dropped
  } else if (!loadPattern(ys, node["match"], *rule)) {
    return false;
  }

  SpecScope scope;
  scope.pattern = rule->pattern;
  // Expressions may name the outputs: without them, everything after would
  // only repeat this error.
  if (!loadOutputNames(ys, node["replace"], *rule, scope))
    return false;
  if (node["where"] && ys.expectSequence(node["where"], "'where'")) {
    for (const YAML::Node &item : node["where"])
      ok &= loadConstraint(ys, item, scope, *rule);
  } else if (node["where"]) {
    ok = false;
  }
  ok &= loadReplace(ys, node["replace"], baseDir, scope, *rule);
  if (ok && rule->direct() && rule->link == KernelLink::Optional)
    ok = ys.error(node["replace"]["link"], "a kernel the graph calls directly has no graft "
                                           "code to fall back on, so it cannot be 'link: "
                                           "optional'; use 'link: import'");
  if (ok)
    out = std::move(rule);
  return ok;
}

} // namespace

bool loadSpecText(uint32_t file, const std::string &baseDir, DiagEngine &diag,
                  SpecSet &out, const Module *graph) {
  const std::string &text = diag.sources().text(file);
  YamlSource ys(file, text, diag);
  YAML::Node loadedDoc;
  try {
    loadedDoc = YAML::Load(text);
  } catch (const YAML::Exception &e) {
    diag.error(ys.loc(e.mark), "invalid YAML: " + e.msg);
    return false;
  }
  // Const access: operator[] on a non-const node may insert keys.
  const YAML::Node &doc = loadedDoc;
  if (!doc.IsMap()) {
    diag.error(SourceLoc{file, 1, 1}, "expected a mapping with 'graft-spec' and "
                                      "'rules' at the top of the spec");
    return false;
  }
  if (!ys.checkKeys(doc, {"graft-spec", "rules"}, "the spec"))
    return false;
  if (!doc["graft-spec"]) {
    diag.error(SourceLoc{file, 1, 1}, "missing 'graft-spec: 1' (the spec format "
                                      "version)");
    return false;
  }
  int64_t version = 0;
  if (!ys.getInt(doc["graft-spec"], "'graft-spec'", version))
    return false;
  if (version != 1)
    return ys.error(doc["graft-spec"], "unsupported spec format version " +
                                           std::to_string(version) +
                                           "; this graft reads version 1");
  if (!doc["rules"])
    return ys.error(doc, "missing 'rules'");
  if (!ys.expectSequence(doc["rules"], "'rules'"))
    return false;
  if (doc["rules"].size() == 0)
    diag.warning(ys.loc(doc["rules"]), "the spec defines no rule ('rules' is empty)");
  bool ok = true;
  std::vector<std::unique_ptr<Rule>> loaded;
  SpecSet seen; // names of earlier files and of this file so far
  for (const auto &r : out.rules) {
    auto copy = std::make_unique<Rule>();
    copy->name = r->name;
    copy->loc = r->loc;
    seen.rules.push_back(std::move(copy));
  }
  for (const YAML::Node &item : doc["rules"]) {
    std::unique_ptr<Rule> rule;
    bool loaded_ok;
    try {
      loaded_ok = loadRule(ys, item, baseDir, seen, graph, rule);
    } catch (const YAML::Exception &e) {
      // yaml-cpp throws on shapes the checks above did not anticipate
      // (e.g. subscripting a scalar); report it like any other error.
      diag.error(ys.loc(e.mark), "invalid spec: " + e.msg);
      loaded_ok = false;
    }
    if (!loaded_ok) {
      ok = false;
      continue;
    }
    if (!rule)
      continue; // a direct rule for a kernel this graph does not declare
    auto copy = std::make_unique<Rule>();
    copy->name = rule->name;
    copy->loc = rule->loc;
    seen.rules.push_back(std::move(copy));
    loaded.push_back(std::move(rule));
  }
  if (!ok)
    return false;
  for (auto &r : loaded)
    out.rules.push_back(std::move(r));
  return true;
}

bool loadSpecFile(const std::string &path, SourceManager &sm, DiagEngine &diag,
                  SpecSet &out, const Module *graph) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diag.error(path, "cannot open spec file");
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  uint32_t file = sm.add(path, ss.str());
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  if (dir.empty())
    dir = "/";
  return loadSpecText(file, dir, diag, out, graph);
}

} // namespace graft
