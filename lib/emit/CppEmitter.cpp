//===- CppEmitter.cpp - Wrapper IR as a standalone C++ CUDA wrapper -------===//
//
// Writes one C++ translation unit that runs the graph with the CUDA driver
// API and the header-only runtime in wirc/runtime/Runtime.h: no libtorch.
// Kernels are embedded as the PTX or cubin their configs carry and loaded on
// first use. Each launch computes its grid at run time from the same folded
// grid expressions the FX and Python emitters print (dynamic shapes too),
// skips empty grids, passes Triton's trailing scratch pointers, and checks
// every CUDA call. Extern kernels and fallbacks (aten ops) are rejected with
// the op's name, or with --cpp-extern=hooks called through the embedder's hook
// table (wirc/runtime/Extern.h); control flow is rejected.
//
//===----------------------------------------------------------------------===//
#include "wirc/emit/Emitter.h"

#include "wirc/support/Base64.h"
#include "wirc/support/Diagnostics.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

namespace wirc::emit {

namespace {

using namespace wirc::ir;

/// How each byte appears inside a C++ string literal. Embedded cubins make
/// this the emitter's hottest loop, so it is a table lookup per byte.
struct ByteEscapes {
  char text[256][4];
  unsigned char length[256];
  constexpr ByteEscapes() : text{}, length{} {
    for (unsigned c = 0; c < 256; ++c) {
      if (c == '"' || c == '\\') {
        text[c][0] = '\\';
        text[c][1] = static_cast<char>(c);
        length[c] = 2;
      } else if (c >= 0x20 && c < 0x7f && c != '?') { // '?' would start trigraphs
        text[c][0] = static_cast<char>(c);
        length[c] = 1;
      } else {
        // Always three octal digits, so a following digit is never absorbed.
        text[c][0] = '\\';
        text[c][1] = static_cast<char>('0' + (c >> 6));
        text[c][2] = static_cast<char>('0' + ((c >> 3) & 7));
        text[c][3] = static_cast<char>('0' + (c & 7));
        length[c] = 4;
      }
    }
  }
};
constexpr ByteEscapes kByteEscapes;

/// A C++ string literal for arbitrary bytes: printable ASCII stays, every
/// other byte is an octal escape, so no input can end the literal.
std::string cppStringLiteral(std::string_view bytes) {
  static constexpr std::string_view kLineBreak = "\\n\"\n    \"";
  // Written through a pointer into a buffer sized for the worst case (every
  // byte a line break), then trimmed: no per-byte capacity checks.
  std::string out(2 + bytes.size() * kLineBreak.size(), '\0');
  char *p = out.data();
  *p++ = '"';
  for (unsigned char c : bytes) {
    if (c == '\n') {
      std::memcpy(p, kLineBreak.data(), kLineBreak.size());
      p += kLineBreak.size();
    } else {
      std::memcpy(p, kByteEscapes.text[c], 4);
      p += kByteEscapes.length[c];
    }
  }
  *p++ = '"';
  out.resize(static_cast<size_t>(p - out.data()));
  return out;
}


/// The entry point a compiled config exports: the compiler's (mangled) name
/// when the artifacts record one, else the function the source defines.
const std::string &entryOf(const graph::Kernel &kernel, const graph::KernelConfig &config) {
  if (config.artifacts && !config.artifacts->entryName.empty())
    return config.artifacts->entryName;
  return kernel.entryName();
}

/// The C++ type a Triton signature type is passed as, or "" for pointers.
std::string scalarType(const std::string &type) {
  if (type == "i32" || type == "u32")
    return "int32_t";
  if (type == "i64" || type == "u64")
    return "int64_t";
  if (type == "i1")
    return "bool";
  if (type == "fp32")
    return "float";
  if (type == "fp64")
    return "double";
  return "";
}

class CppEmitter {
public:
  CppEmitter(const Module &module, const EmitOptions &options)
      : module(module), options(options) {}

  std::string emit();

private:
  const Module &module;
  const EmitOptions &options;
  std::string out;
  /// --cpp-extern=hooks: each op's index, in order of first call, and the
  /// run's lines that resolve them.
  std::map<std::string, unsigned> externOps;
  std::string externResolution;
  std::set<std::pair<KernelId, unsigned>> launchers;

  const std::string &name(BufferId b) const { return module.buffer(b).name; }
  static std::string expr(const sym::Expr &e) { return sym::printCpp(e); }

  std::string array(const std::vector<sym::Expr> &list) const {
    std::string s = "{";
    for (size_t i = 0; i < list.size(); ++i)
      s += (i ? ", " : "") + expr(list[i]);
    if (list.empty())
      s += "0"; // a zero-length array is not C++
    return s + "}";
  }

  static unsigned itemsize(const BufferInfo &info) { return graph::dtypeSize(info.layout.dtype); }

  /// Buffers carved from a pool (by id); they own no storage.
  std::vector<bool> pooled;

  bool owns(BufferId b) const {
    return module.buffer(b).kind == BufferKind::Intermediate && !(b < pooled.size() && pooled[b]);
  }

  [[noreturn]] static void unsupported(const std::string &what) {
    throw NotImplementedError(fmt::format("--emit=cpp (standalone) cannot run {}", what));
  }

  /// A kernel argument: a device address or a size value.
  std::string argument(const Value &v) const {
    switch (v.kind) {
    case Value::Kind::Buffer:
      return name(v.buffer) + ".data";
    case Value::Kind::View:
      return fmt::format("({}.data + static_cast<CUdeviceptr>(wirc::rt::mul({}, {})))",
                         name(v.buffer), expr(v.expr), itemsize(module.buffer(v.buffer)));
    case Value::Kind::Expr:
      return expr(v.expr);
    case Value::Kind::Int:
      return fmt::format("INT64_C({})", v.intValue);
    case Value::Kind::Float:
      return fmt::format("{}", v.floatValue);
    case Value::Kind::Bool:
      return v.boolValue ? "true" : "false";
    default:
      unsupported("a kernel argument that is not a tensor or a number");
    }
  }

  bool hooks() const { return options.cppExtern == EmitOptions::CppExtern::Hooks; }
  [[noreturn]] static void rejectExtern(const std::string &op) {
    unsupported(fmt::format("extern kernel '{}' without a hook table (--cpp-extern=hooks)", op));
  }
  std::string externOp(const std::string &op);
  std::string externValue(const Value &v, std::string &decls, unsigned &counter) const;
  void externCall(std::string &text, const std::string &op, const std::vector<Value> &args,
                  const std::vector<std::pair<std::string, Value>> &kwargs, const Value *outValue,
                  std::string_view assign, std::string_view method, std::string_view tail);

  void kernelImages();
  void launcher(const KernelCallLine &call);
  void body(std::string &text, const Line &line);
};

/// The run-local ExternOp of \p op, resolved once at the start of each run.
std::string CppEmitter::externOp(const std::string &op) {
  auto [it, inserted] = externOps.try_emplace(op, static_cast<unsigned>(externOps.size()));
  if (inserted)
    externResolution += fmt::format("  const wirc::rt::ExternOp wirc_extern_{}(wirc_hooks, {});\n",
                                    it->second, cppStringLiteral(op));
  return fmt::format("wirc_extern_{}", it->second);
}

/// An expression building the wirc::rt::ExternValue of \p v. Arrays it points
/// to (list items, a view's sizes and strides) are declared into \p decls as
/// wirc_N, a prefix graph names cannot use.
std::string CppEmitter::externValue(const Value &v, std::string &decls, unsigned &counter) const {
  auto tensor = [&](const std::string &t, const BufferInfo &info) {
    return fmt::format("wirc::rt::extern_tensor({}, \"{}\", {})", t,
                       graph::dtypeName(info.layout.dtype), itemsize(info));
  };
  switch (v.kind) {
  case Value::Kind::None:
    return "wirc::rt::extern_none()";
  case Value::Kind::Bool:
    return fmt::format("wirc::rt::extern_bool({})", v.boolValue ? "true" : "false");
  case Value::Kind::Int:
    // -2^63 has no literal: its magnitude does not fit int64_t.
    return v.intValue == INT64_MIN ? "wirc::rt::extern_int(INT64_MIN)"
                                   : fmt::format("wirc::rt::extern_int(INT64_C({}))", v.intValue);
  case Value::Kind::Float:
    if (std::isnan(v.floatValue))
      return "wirc::rt::extern_double(std::numeric_limits<double>::quiet_NaN())";
    if (std::isinf(v.floatValue))
      return fmt::format("wirc::rt::extern_double({}std::numeric_limits<double>::infinity())",
                         v.floatValue < 0 ? "-" : "");
  {
    // Shortest round-trip form, kept a floating literal so that -0.0 stays
    // negative (the integer literal -0 would be +0.0).
    std::string text = fmt::format("{}", v.floatValue);
    if (text.find_first_of(".e") == std::string::npos)
      text += ".0";
    return fmt::format("wirc::rt::extern_double({})", text);
  }
  case Value::Kind::String:
    return fmt::format("wirc::rt::extern_string({}, {})", cppStringLiteral(v.text), v.text.size());
  case Value::Kind::Expr:
    return fmt::format("wirc::rt::extern_int({})", expr(v.expr));
  case Value::Kind::DType:
    return fmt::format("wirc::rt::extern_dtype(\"{}\")", graph::dtypeName(v.dtype));
  case Value::Kind::Device:
    return fmt::format("wirc::rt::extern_device(\"{}\", {})",
                       v.device.kind == graph::Device::Kind::CPU ? "cpu" : "cuda",
                       v.device.index);
  case Value::Kind::Buffer: {
    const BufferInfo &info = module.buffer(v.buffer);
    if (info.kind == BufferKind::SymbolInput)
      return fmt::format("wirc::rt::extern_int({})", info.name);
    if (info.kind == BufferKind::ScalarInput || info.isTuple)
      unsupported(fmt::format("'{}' as an extern kernel's argument", info.name));
    return tensor(info.name, info);
  }
  case Value::Kind::View: {
    const BufferInfo &base = module.buffer(v.buffer);
    std::string arrays = fmt::format("wirc_{}", counter++);
    decls += fmt::format("    const int64_t {0}_size[] = {1}, {0}_stride[] = {2};\n", arrays,
                         array(v.size), array(v.stride));
    return tensor(fmt::format("wirc::rt::make_tensor({}.data, wirc::rt::mul({}, {}), {}, {}_size, "
                              "{}_stride)",
                              base.name, expr(v.expr), itemsize(base), v.size.size(), arrays,
                              arrays),
                  base);
  }
  case Value::Kind::List:
  case Value::Kind::Tuple: {
    const char *make = v.kind == Value::Kind::List ? "extern_list" : "extern_tuple";
    if (v.items.empty())
      return fmt::format("wirc::rt::{}(nullptr, 0)", make);
    std::string items;
    for (const Value &item : v.items)
      items += (items.empty() ? "" : ", ") + externValue(item, decls, counter);
    std::string arrayName = fmt::format("wirc_{}", counter++);
    decls += fmt::format("    const wirc::rt::ExternValue {}[] = {{{}}};\n", arrayName, items);
    return fmt::format("wirc::rt::{}({}, {})", make, arrayName, v.items.size());
  }
  }
  unsupported("an extern kernel argument of an unknown kind");
}

/// Writes a block into \p text that declares an extern call's arguments (and
/// its out= tensor) and calls the op's \p method with them, the stream and
/// \p tail; \p assign prefixes the call (a result's name and " = ").
void CppEmitter::externCall(std::string &text, const std::string &op,
                            const std::vector<Value> &args,
                            const std::vector<std::pair<std::string, Value>> &kwargs,
                            const Value *outValue, std::string_view assign,
                            std::string_view method, std::string_view tail) {
  std::string callee = externOp(op);
  std::string decls, values;
  unsigned counter = 0;
  for (const Value &v : args)
    values += (values.empty() ? "" : ", ") + externValue(v, decls, counter);
  for (const auto &[key, v] : kwargs)
    values += (values.empty() ? "" : ", ") +
              fmt::format("wirc::rt::named({}, {})", cppStringLiteral(key),
                          externValue(v, decls, counter));
  text += "  {\n" + decls;
  if (!values.empty())
    text += fmt::format("    const wirc::rt::ExternValue wirc_args[] = {{{}}};\n", values);
  std::string callArgs = fmt::format("{}, {}, {}", values.empty() ? "nullptr" : "wirc_args",
                                     args.size(), kwargs.size());
  if (outValue) {
    std::string outDecls;
    std::string value = externValue(*outValue, outDecls, counter);
    text += outDecls + fmt::format("    const wirc::rt::ExternValue wirc_out = {};\n", value);
    callArgs += ", wirc_out";
  }
  text += fmt::format("    {}{}.{}({}, stream{});\n  }}\n", assign, callee, method, callArgs, tail);
}

void CppEmitter::kernelImages() {
  out += "// Kernel images, loaded on first launch.\n";
  for (const Function &function : module.functions)
    for (const Line &l : function.lines) {
      const auto *call = std::get_if<KernelCallLine>(&l);
      if (!call || !launchers.insert({call->kernel, call->config}).second)
        continue;
      const graph::Kernel &kernel = module.kernel(call->kernel);
      const graph::KernelConfig &config = kernel.configs.at(call->config);
      std::string image;
      // A cubin comes first: the kernel compiler (wirc/cuda) stores what it
      // built for --cuda-arch there, for PTX kernels too.
      if (config.artifacts && !config.artifacts->cubinBase64.empty())
        image = decodeBase64(config.artifacts->cubinBase64);
      else if (kernel.language == graph::KernelLanguage::PTX)
        image = kernel.source;
      else if (config.artifacts && !config.artifacts->ptx.empty())
        image = config.artifacts->ptx;
      else
        throw NotImplementedError(fmt::format(
            "--emit=cpp needs the compiled PTX or cubin of each launched config; kernel '{}' "
            "config {} has none (export the graph with artifacts)",
            kernel.name, call->config));
      // A cubin is binary; PTX must end with its terminating zero, which the
      // literal provides.
      out += fmt::format("static const char kImage_{}_{}[] =\n    {};\n", kernel.name,
                         call->config, cppStringLiteral(image));
    }
}

void CppEmitter::launcher(const KernelCallLine &call) {
  const graph::Kernel &kernel = module.kernel(call.kernel);
  const graph::KernelConfig &config = kernel.configs.at(call.config);
  int shared = config.artifacts ? static_cast<int>(config.artifacts->sharedMemBytes) : 0;
  int64_t globalScratch = config.artifacts ? config.artifacts->globalScratchBytes : 0;
  int64_t profileScratch = config.artifacts ? config.artifacts->profileScratchBytes : 0;

  // Parameters in signature order; constexprs are compiled into the kernel
  // and are not arguments of the entry point.
  std::vector<std::pair<std::string, std::string>> params; // (name, C++ type or "" for ptr)
  if (!kernel.signature.empty()) {
    for (const graph::KernelParam &p : kernel.signature) {
      if (p.type == "constexpr" || config.kwarg(p.name))
        continue;
      params.emplace_back(p.name, p.type.starts_with("*") ? "" : scalarType(p.type));
      if (!p.type.starts_with("*") && params.back().second.empty())
        unsupported(fmt::format("kernel '{}': parameter type '{}'", kernel.name, p.type));
    }
  } else {
    for (const CallArg &arg : call.args)
      if (arg.role != graph::ArgRole::Removed)
        params.emplace_back(arg.param, arg.value.kind == Value::Kind::Buffer ||
                                               arg.value.kind == Value::Kind::View
                                           ? ""
                                           : "int64_t");
    for (const auto &[numel, e] : call.numels)
      params.emplace_back(numel, "int32_t");
  }
  out += fmt::format("\n// {} with config {}: {} warps, {} bytes of shared memory.\n",
                     kernel.name, call.config, config.numWarps, shared);
  out += fmt::format("static void launch_{}_{}(wirc::rt::LazyKernel &kernel, CUstream stream, "
                     "int64_t grid_0, int64_t grid_1, int64_t grid_2",
                     kernel.name, call.config);
  for (const auto &[param, type] : params)
    out += fmt::format(", {} {}", type.empty() ? "CUdeviceptr" : "int64_t", param);
  out += ") {\n";
  out += "  if (grid_0 == 0 || grid_1 == 0 || grid_2 == 0)\n    return;\n";
  std::string args;
  for (const auto &[param, type] : params) {
    if (type == "int32_t") {
      out += fmt::format("  int32_t {0}_arg = wirc::rt::to_i32({0}, \"{1}\");\n", param,
                         kernel.name);
      args += fmt::format("&{}_arg, ", param);
    } else if (!type.empty() && type != "int64_t") {
      out += fmt::format("  {0} {1}_arg = static_cast<{0}>({1});\n", type, param);
      args += fmt::format("&{}_arg, ", param);
    } else {
      args += fmt::format("&{}, ", param);
    }
  }
  // Triton kernels take trailing global and profile scratch pointers: null
  // when the kernel needs none, else per-program space for the whole grid.
  if (kernel.language == graph::KernelLanguage::Triton) {
    auto scratch = [&](std::string_view which, int64_t bytes) {
      if (bytes == 0) {
        out += fmt::format("  CUdeviceptr {}_scratch = 0;\n", which);
      } else {
        out += fmt::format("  wirc::rt::Buffer {0}_storage(wirc::rt::product({{INT64_C({1}), "
                           "grid_0, grid_1, grid_2}}));\n  CUdeviceptr {0}_scratch = "
                           "{0}_storage.get();\n",
                           which, bytes);
      }
      args += fmt::format("&{}_scratch, ", which);
    };
    scratch("global", globalScratch);
    scratch("profile", profileScratch);
  }
  if (!args.empty())
    args.resize(args.size() - 2);
  out += fmt::format("  void *args[] = {{{}}};\n", args.empty() ? "nullptr" : args);
  out += "  kernel.launch(grid_0, grid_1, grid_2, stream, args);\n}\n";
}

void CppEmitter::body(std::string &text, const Line &l) {
  auto line = [&](const std::string &s) { text += "  " + s + "\n"; };
  std::visit(
      Overloaded{
          [&](const AllocateLine &a) {
            const BufferInfo &info = module.buffer(a.buffer);
            int rank = static_cast<int>(info.layout.size.size());
            line(fmt::format("const int64_t {0}_size[] = {1}, {0}_stride[] = {2};", info.name,
                             array(info.layout.size), array(info.layout.stride)));
            line(fmt::format("wirc::rt::Buffer {0}_storage(wirc::rt::storage_bytes({1}, {0}_size, "
                             "{0}_stride, {2}));",
                             info.name, rank, itemsize(info)));
            line(fmt::format("wirc::rt::Tensor {0} = wirc::rt::make_tensor({0}_storage.get(), 0, "
                             "{1}, {0}_size, {0}_stride);",
                             info.name, rank));
          },
          [&](const FreeLine &f) {
            if (owns(f.buffer))
              line(fmt::format("{}_storage.reset();", name(f.buffer)));
          },
          [&](const ReuseLine &r) {
            const BufferInfo &reused = module.buffer(r.reusedAs);
            int rank = static_cast<int>(reused.layout.size.size());
            line(fmt::format("const int64_t {0}_size[] = {1}, {0}_stride[] = {2};", reused.name,
                             array(reused.layout.size), array(reused.layout.stride)));
            if (owns(r.old))
              line(fmt::format("wirc::rt::Buffer {}_storage = std::move({}_storage);  // reuse",
                               reused.name, name(r.old)));
            std::string base = owns(r.old) ? reused.name + "_storage.get()" : name(r.old) + ".data";
            line(fmt::format("wirc::rt::Tensor {0} = wirc::rt::make_tensor({1}, 0, {2}, {0}_size, "
                             "{0}_stride);",
                             reused.name, base, rank));
          },
          [&](const CommentLine &c) {
            std::string safe;
            for (unsigned char ch : c.text)
              safe += (ch < 0x20 || ch == 0x7f || ch == '\\') ? fmt::format("\\x{:02x}", ch)
                                                              : std::string(1, char(ch));
            line("// " + safe);
          },
          [&](const KernelDefinitionLine &) {},
          [&](const KernelCallLine &call) {
            const graph::Kernel &kernel = module.kernel(call.kernel);
            const Grid &grid = call.grids.at(call.config);
            std::string args;
            for (const CallArg &arg : call.args)
              if (arg.role != graph::ArgRole::Removed)
                args += ", " + argument(arg.value);
            // A numel the signature makes constexpr (Triton specializes a
            // static xnumel of 1) is compiled into the kernel, not passed.
            const graph::KernelConfig &config = kernel.configs.at(call.config);
            auto passed = [&](const std::string &numel) {
              if (kernel.signature.empty())
                return true;
              for (const graph::KernelParam &p : kernel.signature)
                if (p.name == numel)
                  return p.type != "constexpr" && !config.kwarg(p.name);
              return false;
            };
            for (const auto &[numel, e] : call.numels)
              if (passed(numel))
                args += ", " + expr(e);
            line(fmt::format("launch_{0}_{1}(kernels.{0}_{1}, stream, {2}, {3}, {4}{5});",
                             kernel.name, call.config, expr(grid[0]), expr(grid[1]),
                             expr(grid[2]), args));
          },
          [&](const ExternKernelOutLine &e) {
            if (!hooks())
              rejectExtern(e.op);
            externCall(text, e.op, e.args, e.kwargs, &e.out, "", "call_out", "");
          },
          [&](const ExternKernelAllocLine &e) {
            if (!hooks())
              rejectExtern(e.op);
            if (e.result == kNoBuffer) {
              externCall(text, e.op, e.args, e.kwargs, nullptr, "", "call", ", nullptr");
              return;
            }
            // The result adopts the memory the hook returns; a tuple keeps
            // every result for the multi_output lines that unpack it.
            const BufferInfo &result = module.buffer(e.result);
            line(fmt::format("wirc::rt::Buffer {}_storage;", result.name));
            if (result.isTuple) {
              line(fmt::format("wirc::rt::ExternResults {};", result.name));
              externCall(text, e.op, e.args, e.kwargs, nullptr, result.name + " = ", "call",
                         fmt::format(", &{}_storage", result.name));
            } else {
              line(fmt::format("wirc::rt::Tensor {};", result.name));
              externCall(text, e.op, e.args, e.kwargs, nullptr, result.name + " = ", "call_tensor",
                         fmt::format(", {}_storage", result.name));
            }
          },
          [&](const MultiOutputLine &m) {
            const BufferInfo &source = module.buffer(m.source);
            unsigned index = 0;
            bool simple = hooks() && source.isTuple && m.indices.size() == 1 &&
                          m.indices[0].first != "dict";
            if (simple) {
              const std::string &key = m.indices[0].second;
              auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), index);
              simple = error == std::errc() && end == key.data() + key.size();
            }
            if (!simple)
              unsupported(fmt::format("multi-output unpacking of '{}' (only one level of tuple or "
                                      "list indexing of an extern kernel's result)",
                                      source.name));
            const std::string &result = name(m.result);
            line(fmt::format("wirc::rt::Tensor {} = {}.at({});", result, source.name, index));
            if (owns(m.result))
              line(fmt::format("wirc::rt::Buffer {0}_storage = {1}_storage.share({0}.data);",
                               result, source.name));
          },
          [&](const ReinterpretViewLine &r) {
            const BufferInfo &view = module.buffer(r.view);
            int rank = static_cast<int>(view.layout.size.size());
            line(fmt::format("const int64_t {0}_size[] = {1}, {0}_stride[] = {2};", view.name,
                             array(view.layout.size), array(view.layout.stride)));
            line(fmt::format("wirc::rt::Tensor {0} = wirc::rt::make_tensor({1}.data, "
                             "wirc::rt::mul({2}, {3}), {4}, {0}_size, {0}_stride);",
                             view.name, name(r.base), expr(view.layout.offset), itemsize(view),
                             rank));
          },
          [&](const AssertSizeStrideLine &a) {
            line(fmt::format("{{ const int64_t size[] = {}, stride[] = {}; "
                             "wirc::rt::assert_size_stride({}, {}, size, stride, \"{}\"); }}",
                             array(a.size), array(a.stride), name(a.buffer), a.size.size(),
                             name(a.buffer)));
          },
          [&](const SymbolBindingLine &b) {
            switch (b.source) {
            case SymbolBindingLine::Source::Input:
              // The prologue binds each symbol input from symbols[] under its
              // own name, which is usually the symbol's.
              if (name(b.tensor) != b.symbol)
                line(fmt::format("const int64_t {} = {};", b.symbol, name(b.tensor)));
              break;
            case SymbolBindingLine::Source::Size:
              line(fmt::format("const int64_t {} = {}.sizes[{}];", b.symbol, name(b.tensor), b.dim));
              break;
            case SymbolBindingLine::Source::Stride:
              line(fmt::format("const int64_t {} = {}.strides[{}];", b.symbol, name(b.tensor),
                               b.dim));
              break;
            case SymbolBindingLine::Source::Expr:
              line(fmt::format("const int64_t {} = {};", b.symbol, expr(b.expr)));
              break;
            }
          },
          [&](const DeviceGuardEnterLine &) {},
          [&](const DeviceGuardExitLine &) {},
          [&](const SubgraphEnterLine &) {},
          [&](const SubgraphExitLine &) {},
          [&](const CondLine &) { unsupported("torch.cond"); },
          [&](const OutputLine &o) {
            for (size_t i = 0; i < o.outputs.size(); ++i) {
              const Value &v = o.outputs[i];
              if (v.kind == Value::Kind::Buffer) {
                line(fmt::format("outputs[{}] = {};", i, name(v.buffer)));
                if (owns(v.buffer))
                  line(fmt::format("output_storage[{}] = std::move({}_storage);", i,
                                   name(v.buffer)));
              } else if (v.kind == Value::Kind::View) {
                const BufferInfo &base = module.buffer(v.buffer);
                line(fmt::format("{{ const int64_t size[] = {}, stride[] = {}; outputs[{}] = "
                                 "wirc::rt::make_tensor({}.data, wirc::rt::mul({}, {}), {}, size, "
                                 "stride); }}",
                                 array(v.size), array(v.stride), i, base.name, expr(v.expr),
                                 itemsize(base), v.size.size()));
                if (owns(v.buffer))
                  line(fmt::format("output_storage[{}] = std::move({}_storage);", i, base.name));
              } else {
                unsupported("an output that is not a tensor");
              }
            }
          },
          [&](const PoolAllocateLine &p) {
            const PoolInfo &pool = module.pool(p.pool);
            line(fmt::format("wirc::rt::Buffer {}_storage(INT64_C({}));", pool.name, pool.bytes));
          },
          [&](const AllocateFromPoolLine &a) {
            const BufferInfo &info = module.buffer(a.buffer);
            int rank = static_cast<int>(info.layout.size.size());
            line(fmt::format("const int64_t {0}_size[] = {1}, {0}_stride[] = {2};", info.name,
                             array(info.layout.size), array(info.layout.stride)));
            line(fmt::format("wirc::rt::Tensor {0} = wirc::rt::make_tensor({1}_storage.get(), "
                             "INT64_C({2}), {3}, {0}_size, {0}_stride);",
                             info.name, module.pool(a.pool).name, a.offset, rank));
            if (pooled.size() <= a.buffer)
              pooled.resize(module.buffers.size(), false);
            pooled[a.buffer] = true;
          },
          [&](const PoolFreeLine &p) {
            line(fmt::format("{}_storage.reset();", module.pool(p.pool).name));
          },
      },
      l);
}

std::string CppEmitter::emit() {
  if (module.functions.size() > 1)
    unsupported("subgraphs (torch.cond)");
  const Function &main = module.main();
  out = fmt::format("// Generated by wirc from graph '{}': a standalone CUDA wrapper.\n"
                    "// Needs only the CUDA driver API (link with -lcuda) and wirc's runtime "
                    "headers.\n{}#include \"wirc/runtime/{}\"\n\n#include <utility>\n\n"
                    "namespace wirc_graph_{} {{\n\n",
                    module.name,
                    hooks() ? "// Extern kernels call the embedder's hooks (--cpp-extern=hooks).\n"
                            : "",
                    hooks() ? "Extern.h" : "Runtime.h", module.name);
  kernelImages();
  std::set<std::pair<KernelId, unsigned>> written;
  std::string kernelsStruct = "\n/// The graph's kernels, each loaded on its first launch.\nstruct "
                              "Kernels {\n";
  for (const Line &l : main.lines)
    if (const auto *call = std::get_if<KernelCallLine>(&l)) {
      if (!written.insert({call->kernel, call->config}).second)
        continue;
      launcher(*call);
      const graph::Kernel &kernel = module.kernel(call->kernel);
      const graph::KernelConfig &config = kernel.configs.at(call->config);
      kernelsStruct += fmt::format(
          "  wirc::rt::LazyKernel {0}_{1}{{\"{0}\", \"{2}\", kImage_{0}_{1}, {3}, {4}}};\n",
          kernel.name, call->config, entryOf(kernel, config),
          config.artifacts ? config.artifacts->sharedMemBytes : 0, config.numWarps);
    }
  out += kernelsStruct + "};\n";

  // The entry point.
  unsigned tensorInputs = 0, symbolInputs = 0, outputs = 0;
  std::string prologue;
  for (BufferId b : main.inputs) {
    const BufferInfo &info = module.buffer(b);
    if (info.kind == BufferKind::Input)
      prologue += fmt::format("  const wirc::rt::Tensor {} = inputs[{}];\n", info.name,
                              tensorInputs++);
    else if (info.kind == BufferKind::SymbolInput)
      prologue += fmt::format("  const int64_t {} = symbols[{}];\n", info.name, symbolInputs++);
    else
      unsupported(fmt::format("scalar input '{}'", info.name));
  }
  for (const BufferInfo &info : module.buffers)
    if (info.kind == BufferKind::Constant)
      unsupported(fmt::format("constant '{}' (constants are not passed yet)", info.name));
  std::string text;
  for (const Line &l : main.lines) {
    body(text, l);
    if (const auto *o = std::get_if<OutputLine>(&l))
      outputs = static_cast<unsigned>(o->outputs.size());
  }
  if (hooks())
    out += fmt::format(
        "\n/// Runs graph '{}' on \\p stream. inputs: {} tensors; symbols: {} size symbols, in\n"
        "/// graph input order. Writes {} outputs; output_storage[i] owns outputs[i]'s memory\n"
        "/// when the wrapper allocated it or an extern hook returned it. Extern kernels call\n"
        "/// wirc_hooks, each op looked up once per run. Throws wirc::rt::Error on any failure.\n"
        "void run(Kernels &kernels, const wirc::rt::ExternHooks &wirc_hooks,\n"
        "         const wirc::rt::Tensor *inputs, const int64_t *symbols,\n"
        "         wirc::rt::Tensor *outputs, wirc::rt::Buffer *output_storage, CUstream stream) {{\n"
        "  (void)kernels;\n  (void)wirc_hooks;\n  (void)inputs;\n  (void)symbols;\n"
        "  (void)output_storage;\n",
        module.name, tensorInputs, symbolInputs, outputs);
  else
    out += fmt::format(
        "\n/// Runs graph '{}' on \\p stream. inputs: {} tensors; symbols: {} size symbols, in\n"
        "/// graph input order. Writes {} outputs; output_storage[i] owns outputs[i]'s memory\n"
        "/// when the wrapper allocated it. Throws wirc::rt::Error on any failure.\n"
        "void run(Kernels &kernels, const wirc::rt::Tensor *inputs, const int64_t *symbols,\n"
        "         wirc::rt::Tensor *outputs, wirc::rt::Buffer *output_storage, CUstream stream) {{\n"
        "  (void)kernels;\n  (void)inputs;\n  (void)symbols;\n  (void)output_storage;\n",
        module.name, tensorInputs, symbolInputs, outputs);
  // Every op is looked up before anything runs: a missing hook fails early.
  if (!externResolution.empty())
    externResolution = "  // Extern ops, each looked up once in the hook table.\n" + externResolution;
  out += prologue + externResolution + text + "}\n\n} // namespace wirc_graph_" + module.name +
         "\n";
  return out;
}

} // namespace

std::string emitCpp(const Module &module, const EmitOptions &options) {
  return CppEmitter(module, options).emit();
}

} // namespace wirc::emit
