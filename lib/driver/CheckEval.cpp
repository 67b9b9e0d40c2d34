// `graft check` and `graft eval` (see CheckEval.h): thin wrappers that read
// the graph, run parser + verifier (+ reference evaluator) and print.
#include "driver/CheckEval.h"

#include "driver/Driver.h"

#include "eval/Evaluator.h"
#include "graft/tensor.h"
#include "graph/Parser.h"
#include "graph/Verifier.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace graft {

namespace {

int usage(const char *cmd, const std::string &msg) {
  std::fprintf(stderr, "graft %s: error: %s\n", cmd, msg.c_str());
  return 2;
}

} // namespace

std::unique_ptr<Module> loadGraph(const std::string &path, SourceManager &sm) {
  if (isOnnxPath(path)) {
    DiagEngine diag(sm);
    std::string text;
    if (!importGraphText(path, {}, diag, text))
      return nullptr;
    uint32_t file = sm.add(path, text);
    std::unique_ptr<Module> m = parseModule(sm, file, diag);
    if (diag.hasErrors() || !verifyModule(*m, diag))
      return nullptr;
    return m;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "%s: error: cannot read file: %s\n", path.c_str(),
                 std::strerror(errno));
    return nullptr;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  uint32_t file = sm.add(path, ss.str());
  DiagEngine diag(sm);
  std::unique_ptr<Module> m = parseModule(sm, file, diag);
  if (diag.hasErrors() || !verifyModule(*m, diag))
    return nullptr;
  return m;
}

namespace {

// "--name value" or "--name=value": sets |out| and advances |i|.
bool optionValue(int argc, char **argv, int &i, const char *name, std::string &out,
                 bool &bad) {
  std::string arg = argv[i];
  std::string flag = std::string("--") + name;
  if (arg == flag) {
    if (i + 1 >= argc) {
      bad = true;
      return true;
    }
    out = argv[++i];
    return true;
  }
  if (arg.compare(0, flag.size() + 1, flag + "=") == 0) {
    out = arg.substr(flag.size() + 1);
    return true;
  }
  return false;
}

std::string functionList(const Module &m) {
  std::string s;
  for (const auto &f : m.functions)
    s += (s.empty() ? "@" : ", @") + f->name;
  return s.empty() ? "none" : s;
}

} // namespace

int runCheck(int argc, char **argv) {
  std::string path;
  bool print = false;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--print")
      print = true;
    else if (arg.size() > 1 && arg[0] == '-')
      return usage("check", "unknown option '" + arg + "'");
    else if (!path.empty())
      return usage("check", "more than one graph file given ('" + path + "', '" +
                                arg + "')");
    else
      path = arg;
  }
  if (path.empty())
    return usage("check", "expected a graph file (graft check GRAPH [--print])");
  SourceManager sm;
  std::unique_ptr<Module> m = loadGraph(path, sm);
  if (!m)
    return 1;
  if (print)
    std::fputs(printModule(*m).c_str(), stdout);
  return 0;
}

int runEval(int argc, char **argv) {
  std::string path, function;
  std::vector<std::string> inputs, outputs;
  for (int i = 0; i < argc; ++i) {
    std::string value;
    bool bad = false;
    if (optionValue(argc, argv, i, "function", value, bad)) {
      function = value;
    } else if (optionValue(argc, argv, i, "input", value, bad)) {
      inputs.push_back(value);
    } else if (optionValue(argc, argv, i, "output", value, bad)) {
      if (value != "-" && (value.size() < 2 || value[0] != '@'))
        return usage("eval", "--output takes @file.npy, @file.pb or -, found '" + value + "'");
      outputs.push_back(value);
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return usage("eval", "unknown option '" + std::string(argv[i]) + "'");
    } else if (!path.empty()) {
      return usage("eval", "more than one graph file given ('" + path + "', '" +
                               argv[i] + "')");
    } else {
      path = argv[i];
    }
    if (bad)
      return usage("eval", std::string("option '") + argv[i] + "' needs a value");
  }
  if (path.empty())
    return usage("eval", "expected a graph file (graft eval GRAPH --function F "
                         "--input T...)");
  SourceManager sm;
  std::unique_ptr<Module> m = loadGraph(path, sm);
  if (!m)
    return 1;
  const Function *fn = nullptr;
  if (function.empty()) {
    if (m->functions.size() != 1)
      return usage("eval", "--function is required: " + path + " defines " +
                               functionList(*m));
    fn = m->functions[0].get();
  } else {
    // `--function @f` and `--function f` name the same function.
    std::string name = function[0] == '@' ? function.substr(1) : function;
    fn = m->lookup(name);
    if (!fn) {
      std::fprintf(stderr, "graft eval: error: no function '@%s' in %s (it defines %s)\n",
                   name.c_str(), path.c_str(), functionList(*m).c_str());
      return 1;
    }
  }

  std::vector<graft_tensor_t> in(inputs.size());
  std::vector<graft_tensor_t> out;
  auto releaseAll = [&]() {
    for (graft_tensor_t &t : in)
      graft_tensor_release(&t);
    for (graft_tensor_t &t : out)
      graft_tensor_release(&t);
  };
  for (graft_tensor_t &t : in)
    std::memset(&t, 0, sizeof t);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (graft_status_t s = graft_tensor_parse(inputs[i].c_str(), &in[i])) {
      std::fprintf(stderr, "graft eval: error: --input %zu ('%s'): %s\n", i,
                   inputs[i].c_str(), graft_status_message(s));
      graft_status_free(s);
      releaseAll();
      return 1;
    }
  }
  std::string error;
  if (!evaluate(*fn, in, out, error)) {
    std::fprintf(stderr, "graft eval: error: %s: %s\n", path.c_str(), error.c_str());
    releaseAll();
    return 1;
  }
  if (outputs.size() > out.size()) {
    std::fprintf(stderr, "graft eval: error: %zu --output given, but '@%s' has %zu results\n",
                 outputs.size(), fn->name.c_str(), out.size());
    releaseAll();
    return 1;
  }
  int rc = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (i < outputs.size() && outputs[i] != "-") {
      std::string file = outputs[i].substr(1);
      if (graft_status_t s = graft_tensor_write_file(file.c_str(), &out[i])) {
        std::fprintf(stderr, "graft eval: error: result %zu: %s\n", i,
                     graft_status_message(s));
        graft_status_free(s);
        rc = 1;
      }
      continue;
    }
    char *text = nullptr;
    if (graft_status_t s = graft_tensor_format(&out[i], &text)) {
      std::fprintf(stderr, "graft eval: error: result %zu: %s\n", i,
                   graft_status_message(s));
      graft_status_free(s);
      rc = 1;
      continue;
    }
    std::printf("%s\n", text);
    std::free(text);
  }
  releaseAll();
  return rc;
}

} // namespace graft
