#include "driver/EmbedC.h"

#include <cstdio>
#include <set>
#include <sstream>

namespace graft {

namespace {

const char *const kCKeywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do",
    "double", "else", "enum", "extern", "float", "for", "goto", "if", "inline",
    "int", "long", "register", "restrict", "return", "short", "signed",
    "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned",
    "void", "volatile", "while", "_Alignas", "_Alignof", "_Atomic", "_Bool",
    "_Complex", "_Generic", "_Imaginary", "_Noreturn", "_Static_assert",
    "_Thread_local",
    // The header is also included from C++.
    "bool", "true", "false", "class", "new", "delete", "this", "template",
    "typename", "namespace", "operator", "private", "public", "protected",
    "virtual", "friend", "try", "catch", "throw", "using", "explicit", "export",
    "mutable", "nullptr", "and", "or", "not", "xor",
    // The generated functions' own parameter.
    "module"};

// The C type a scalar of |t| is passed as: i1 is one byte holding 0 or 1, f16
// and bf16 travel as their bit patterns.
const char *cScalarType(DType t) {
  switch (t) {
  case DType::I1:
  case DType::I8:
    return t == DType::I1 ? "uint8_t" : "int8_t";
  case DType::I16:
    return "int16_t";
  case DType::I32:
    return "int32_t";
  case DType::I64:
  case DType::Index:
    return "int64_t";
  case DType::F16:
  case DType::BF16:
    return "uint16_t";
  case DType::F32:
    return "float";
  case DType::F64:
    return "double";
  case DType::Invalid:
    break;
  }
  return nullptr;
}

const char *cDTypeEnum(DType t) {
  switch (t) {
  case DType::I1:
    return "GRAFT_DTYPE_I1";
  case DType::I8:
    return "GRAFT_DTYPE_I8";
  case DType::I16:
    return "GRAFT_DTYPE_I16";
  case DType::I32:
    return "GRAFT_DTYPE_I32";
  case DType::I64:
    return "GRAFT_DTYPE_I64";
  case DType::F16:
    return "GRAFT_DTYPE_F16";
  case DType::BF16:
    return "GRAFT_DTYPE_BF16";
  case DType::F32:
    return "GRAFT_DTYPE_F32";
  case DType::F64:
    return "GRAFT_DTYPE_F64";
  case DType::Index:
    return "GRAFT_DTYPE_INDEX";
  case DType::Invalid:
    break;
  }
  return nullptr;
}

// A graph name as a C name: '.' and '$' (allowed in graph names) become '_'.
std::string cName(const std::string &graphName) {
  std::string s = graphName;
  for (char &c : s)
    if (c == '.' || c == '$')
      c = '_';
  return s;
}

struct Param {
  Type type;
  std::string name;
  bool result;
};

// One function's parameters: an argument keeps its graph name when that is
// a free C identifier, else becomes argN; results are out0, out1, ...
std::vector<Param> parametersOf(const Function &f) {
  std::vector<Param> params;
  std::set<std::string> taken;
  for (size_t i = 0; i < f.resultTypes.size(); ++i)
    taken.insert("out" + std::to_string(i));
  for (size_t i = 0; i < f.args.size(); ++i) {
    std::string name = f.args[i]->name;
    if (!isCIdentifier(name) || !taken.insert(name).second)
      name = "arg" + std::to_string(i);
    params.push_back({f.args[i]->type, name, false});
  }
  for (size_t i = 0; i < f.resultTypes.size(); ++i)
    params.push_back({f.resultTypes[i], "out" + std::to_string(i), true});
  return params;
}

std::string declaration(const std::string &cFunction,
                        const std::vector<Param> &params) {
  std::string s = "graft_status_t " + cFunction + "(graft_module_t* module";
  for (const Param &p : params) {
    s += ", ";
    if (p.type.tensor)
      s += std::string(p.result ? "graft_tensor_t* "
                                : "const graft_tensor_t* ") +
           p.name;
    else
      s += std::string(cScalarType(p.type.elem)) + (p.result ? "* " : " ") +
           p.name;
  }
  return s + ")";
}

std::string signatureComment(const Function &f,
                             const std::vector<Param> &params) {
  std::string s = "@" + f.name + "(";
  size_t n = 0;
  for (const Param &p : params) {
    if (p.result)
      continue;
    s += (n++ ? ", " : "") + p.name + ": " + p.type.str();
  }
  s += ") -> (";
  n = 0;
  for (const Param &p : params) {
    if (!p.result)
      continue;
    s += (n++ ? ", " : "") + p.name + ": " + p.type.str();
  }
  return s + ")";
}

// The graft_tensor_t for scalar parameter |p| (its C value, or the caller's
// variable for a result), as a C initializer.
std::string scalarTensor(const Param &p) {
  std::string data = p.result ? p.name : "&" + p.name;
  return std::string("{.dtype = ") + cDTypeEnum(p.type.elem) +
         ", .rank = 0, .data = (void*)" + data + ", .size = sizeof(" +
         cScalarType(p.type.elem) + ")}";
}

void writeDefinition(std::ostringstream &c, const Function &f,
                     const std::string &cFunction,
                     const std::vector<Param> &params) {
  size_t argCount = f.args.size(), resultCount = f.resultTypes.size();
  c << declaration(cFunction, params) << " {\n";
  c << "  uint32_t ordinal = 0;\n";
  c << "  graft_status_t status = graft_module_function_lookup(module, \""
    << f.name << "\", &ordinal);\n";
  c << "  if (status) return status;\n";
  c << "  graft_tensor_t inputs[" << (argCount ? argCount : 1) << "] = {";
  for (size_t i = 0; i < argCount; ++i) {
    const Param &p = params[i];
    c << (i ? ", " : "") << (p.type.tensor ? "*" + p.name : scalarTensor(p));
  }
  c << "};\n";
  c << "  graft_tensor_t outputs[" << (resultCount ? resultCount : 1)
    << "] = {";
  for (size_t i = 0; i < resultCount; ++i) {
    const Param &p = params[argCount + i];
    c << (i ? ", " : "") << (p.type.tensor ? "*" + p.name : scalarTensor(p));
  }
  c << "};\n";
  c << "  status = graft_module_function_invoke(module, ordinal, inputs, "
    << argCount << ", outputs, " << resultCount << ");\n";
  for (size_t i = 0; i < resultCount; ++i) {
    const Param &p = params[argCount + i];
    if (p.type.tensor)
      c << "  *" << p.name << " = outputs[" << i << "];\n";
  }
  c << "  return status;\n}\n";
}

} // namespace

bool isCIdentifier(const std::string &name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9'))
    return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_'))
      return false;
  for (const char *k : kCKeywords)
    if (name == k)
      return false;
  return true;
}

bool generateEmbedFiles(const Module &module, const std::string &prefix,
                        const std::string &graphName,
                        const std::vector<uint8_t> &bundle, EmbedFiles &out,
                        std::string &error) {
  std::string guard;
  for (char c : prefix)
    guard += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  guard += "_GRAFT_H_";
  std::ostringstream h, c;
  std::string banner =
      "/* Generated by graft from " + graphName + "; do not edit. */\n";

  h << banner << "#ifndef " << guard << "\n#define " << guard << "\n\n";
  h << "#include <stdint.h>\n\n#include \"graft/runtime.h\"\n\n";
  h << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  h << "/* Loads the bundle built into this library (the slice for this CPU) "
       "and\n"
       " * starts its thread pool; |options| may be NULL for the defaults. "
       "The\n"
       " * caller owns *out_module and closes it with "
    << prefix << "_close. */\n";
  h << "graft_status_t " << prefix
    << "_open(const graft_runtime_options_t* options, graft_module_t** "
       "out_module);\n";
  h << "void " << prefix << "_close(graft_module_t* module);\n";

  c << banner << "#include \"" << prefix << ".h\"\n\n";
  c << "static const unsigned char kBundle[" << bundle.size() << "] = {";
  for (size_t i = 0; i < bundle.size(); ++i) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x,", bundle[i]);
    c << (i % 16 == 0 ? "\n  " : " ") << hex;
  }
  c << "\n};\n\n";
  c << "graft_status_t " << prefix
    << "_open(const graft_runtime_options_t* options, graft_module_t** "
       "out_module) {\n"
       "  return graft_module_open_memory(kBundle, sizeof kBundle, options, "
       "out_module);\n}\n\n";
  c << "void " << prefix
    << "_close(graft_module_t* module) { graft_module_close(module); }\n";

  std::set<std::string> names = {prefix + "_open", prefix + "_close"};
  for (const auto &f : module.functions) {
    if (f->isPattern)
      continue;
    std::string cFunction = prefix + "_" + cName(f->name);
    if (!names.insert(cFunction).second) {
      error = "function '@" + f->name + "' would be the C function '" +
              cFunction + "', which is already taken; rename the function";
      return false;
    }
    std::vector<Param> params = parametersOf(*f);
    h << "\n/* " << signatureComment(*f, params) << "\n"
      << " * Tensor results are allocated by the runtime when their data is "
         "NULL\n"
      << " * (release them with graft_tensor_release), else copied into the\n"
      << " * caller's storage, as graft_module_function_invoke does. */\n";
    h << declaration(cFunction, params) << ";\n";
    c << "\n";
    writeDefinition(c, *f, cFunction, params);
  }
  h << "\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  out.header = h.str();
  out.source = c.str();
  return true;
}

} // namespace graft
