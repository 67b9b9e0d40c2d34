// `graft import`: an ONNX model written out as graph text (OnnxImport.h),
// checked by graft's own parser and verifier before anyone sees it.
#include "driver/Driver.h"
#include "driver/DriverSupport.h"
#include "graph/Parser.h"
#include "graph/Verifier.h"
#include "support/InternalError.h"

#include <cstdio>
#include <cstring>

namespace graft {

bool importGraphText(const std::string &path, const OnnxImportOptions &opts, DiagEngine &diag,
                     std::string &text) {
  if (!importOnnxFile(path, opts, diag, text))
    return false;
  SourceManager sm;
  uint32_t file = sm.add(path + " (imported)", text);
  DiagEngine inner(sm);
  inner.setEcho(false);
  std::unique_ptr<Module> m = parseModule(sm, file, inner);
  if (!inner.hasErrors() && m)
    verifyModule(*m, inner);
  // The importer checks the model; text that does not verify is its bug.
  GRAFT_CHECK(!inner.hasErrors(), "the graph imported from " + path +
                                      " does not verify (please attach the model):\n" +
                                      inner.text());
  return true;
}

int runImport(int argc, char **argv) {
  std::string model, output;
  OnnxImportOptions opts;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *flag, std::string &out) {
      if (a == flag) {
        if (i + 1 >= argc)
          return -1;
        out = argv[++i];
        return 1;
      }
      std::string prefix = std::string(flag) + "=";
      if (a.compare(0, prefix.size(), prefix) == 0) {
        out = a.substr(prefix.size());
        return 1;
      }
      return 0;
    };
    std::string v;
    int r;
    if ((r = value("-o", output)) != 0) {
      if (r < 0) {
        std::fprintf(stderr, "graft import: error: option '-o' needs a value (FILE)\n");
        return 2;
      }
    } else if ((r = value("--constant", v)) != 0) {
      size_t eq = v.find('=');
      if (r < 0 || eq == std::string::npos || eq == 0) {
        std::fprintf(stderr, "graft import: error: --constant '%s': expected NAME=TENSOR\n",
                     v.c_str());
        return 2;
      }
      opts.constants.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (a == "--weights-as-args") {
      opts.weightsAsArguments = true;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "graft import: error: unknown option '%s'\n", a.c_str());
      return 2;
    } else if (!model.empty()) {
      std::fprintf(stderr, "graft import: error: more than one model: '%s' and '%s'\n",
                   model.c_str(), a.c_str());
      return 2;
    } else {
      model = a;
    }
  }
  if (model.empty()) {
    std::fprintf(stderr, "graft import: error: no ONNX model given\n");
    return 2;
  }
  SourceManager sm;
  DiagEngine diag(sm);
  std::string text;
  if (!importGraphText(model, opts, diag, text))
    return 1;
  if (output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  return writeOutputFile(output, text.data(), text.size(), diag) ? 0 : 1;
}

} // namespace graft
