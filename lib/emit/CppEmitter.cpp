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
// table (wirc/runtime/Extern.h). torch.cond's subgraphs become functions.
//
// --cpp-abi=aoti writes the same wrapper over PyTorch's AOTI C shim
// (wirc/runtime/Aoti.h): every tensor is an AtenTensorHandle next to its
// device-pointer view, intermediates come from aoti_torch_empty_strided, and
// extern kernels call the shim function their recorded aten schema names,
// arguments laid out as torchgen lays out the shim's parameters.
//
//===----------------------------------------------------------------------===//
#include "wirc/emit/Emitter.h"

#include "wirc/emit/AtenSchema.h"

#include "wirc/support/Base64.h"
#include "wirc/support/Diagnostics.h"
#include "wirc/support/Names.h"

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>

namespace wirc::emit {

namespace {

using namespace wirc::ir;

/// An extern line's aten schema, empty where the graph gives none.
template <typename Line> std::string_view schemaOf(const Line &line) {
  return line.schema ? std::string_view(*line.schema) : std::string_view();
}

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

/// Appends a C++ string literal for arbitrary bytes to \p out: printable
/// ASCII stays, every other byte is an octal escape, so no input can end the
/// literal. Embedded cubins make this the emitter's bulk: one pass sizes the
/// text exactly, a second writes it through a pointer.
void appendCppStringLiteral(std::string &out, std::string_view bytes) {
  static constexpr std::string_view kLineBreak = "\\n\"\n    \"";
  size_t size = 2;
  for (unsigned char c : bytes)
    size += c == '\n' ? kLineBreak.size() : kByteEscapes.length[c];
  size_t start = out.size();
  out.resize(start + size + 3); // slack: each escape is copied as 4 bytes
  char *p = out.data() + start;
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
  out.resize(start + size);
}

std::string cppStringLiteral(std::string_view bytes) {
  std::string out;
  appendCppStringLiteral(out, bytes);
  return out;
}


/// A C++ double literal: the shortest round-trip form, kept a floating
/// literal so that -0.0 stays negative (the integer literal -0 would be
/// +0.0); NaN and infinities through std::numeric_limits.
std::string doubleLiteral(double value) {
  if (std::isnan(value))
    return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(value))
    return value < 0 ? "-std::numeric_limits<double>::infinity()"
                     : "std::numeric_limits<double>::infinity()";
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  return text;
}

/// A C++ int64_t literal; -2^63 has none (its magnitude does not fit).
std::string intLiteral(int64_t value) {
  return value == INT64_MIN ? "INT64_MIN" : fmt::format("INT64_C({})", value);
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
      : module(module), options(options) {
    for (const graph::Symbol &symbol : module.symbols)
      if (symbol.isFloat)
        floatSymbols.insert(symbol.name);
  }

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
  /// Float symbols (doubles in the wrapper); the reader lets one appear only
  /// as a whole value.
  std::set<std::string, std::less<>> floatSymbols;

  const std::string &name(BufferId b) const { return module.buffer(b).name; }
  bool isFloatSymbol(const Value &v) const {
    return v.kind == Value::Kind::Expr && v.expr.isSymbol() &&
           floatSymbols.count(v.expr.symbolName()) != 0;
  }
  static std::string expr(const sym::Expr &e) { return sym::printCpp(e); }

  std::string array(std::span<const sym::Expr> list) const {
    std::string s = "{";
    for (size_t i = 0; i < list.size(); ++i)
      s += (i ? ", " : "") + expr(list[i]);
    if (list.empty())
      s += "0"; // a zero-length array is not C++
    return s + "}";
  }

  /// The statement checking tensor \p name against the graph's sizes and
  /// strides (an input's or extern output's assert, a constant's check).
  std::string sizeStrideCheck(const std::string &name, std::span<const sym::Expr> size,
                              std::span<const sym::Expr> stride) const {
    return fmt::format("{{ const int64_t size[] = {}, stride[] = {}; "
                       "wirc::rt::assert_size_stride({}, {}, size, stride, \"{}\"); }}",
                       array(size), array(stride), name, size.size(), name);
  }

  static unsigned itemsize(const BufferInfo &info) { return graph::dtypeSize(info.layout.dtype); }

  /// Buffers carved from a pool or reusing one that owns nothing (by id):
  /// they own no storage.
  std::vector<bool> pooled;

  bool owns(BufferId b) const {
    return module.buffer(b).kind == BufferKind::Intermediate && !(b < pooled.size() && pooled[b]);
  }

  /// The C++ type of an element of \p dtype, or "" where wirc has none.
  static std::string_view elementCType(graph::DType dtype) {
    switch (dtype) {
    case graph::DType::Bool: return "bool";
    case graph::DType::UInt8: return "uint8_t";
    case graph::DType::Int8: return "int8_t";
    case graph::DType::Int16: return "int16_t";
    case graph::DType::Int32: return "int32_t";
    case graph::DType::Int64: return "int64_t";
    case graph::DType::UInt16: return "uint16_t";
    case graph::DType::UInt32: return "uint32_t";
    case graph::DType::UInt64: return "uint64_t";
    case graph::DType::Float32: return "float";
    case graph::DType::Float64: return "double";
    default: return "";
    }
  }

  [[noreturn]] void unsupported(const std::string &what) const {
    throw NotImplementedError(fmt::format("--emit=cpp ({}) cannot run {}",
                                          aoti() ? "--cpp-abi=aoti" : "standalone", what));
  }

  /// The standalone runtime's tensors are device memory; a CPU tensor goes
  /// no further than a kernel's scalar parameter, whose value is read.
  void rejectHostTensor(const BufferInfo &info) const {
    if (info.layout.device.kind == graph::Device::Kind::CPU)
      unsupported(fmt::format("'{}', a tensor on the CPU (a device copy's source or result): "
                              "its tensors are device memory; the python and fx-module "
                              "wrappers run it",
                              info.name));
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
      return doubleLiteral(v.floatValue);
    case Value::Kind::Bool:
      return v.boolValue ? "true" : "false";
    default:
      unsupported("a kernel argument that is not a tensor or a number");
    }
  }

  bool hooks() const { return options.cppExtern == EmitOptions::CppExtern::Hooks; }
  bool aoti() const { return options.cppAbi == EmitOptions::CppAbi::Aoti; }
  /// AOTI: the handle variable of a tensor buffer.
  std::string handle(BufferId b) const { return name(b) + "_h"; }
  /// Tuple results (an extern call's or a cond's), unpacked by multi_output:
  /// AOTI keeps handles in NAME_items, the standalone wrapper tensors in
  /// NAME_items and their memory in NAME_item_storage; hook results stay an
  /// ExternResults. Mapped to their number of items.
  std::map<BufferId, size_t> itemTuples;
  /// AOTI: an op ran on the CPU, so the CPU shim header is needed too.
  bool needsCpuShim = false;
  /// The function being emitted: size-symbol inputs its body binds again.
  std::set<std::string, std::less<>> reboundInputs;
  unsigned condCounter = 0;

  std::string layoutArrays(const BufferInfo &info) const {
    return fmt::format("const int64_t {0}_size[] = {1}, {0}_stride[] = {2};", info.name,
                       array(info.layout.size), array(info.layout.stride));
  }
  static std::string aotiDType(graph::DType dtype) {
    return fmt::format("aoti_torch_dtype_{}()", graph::dtypeName(dtype));
  }
  std::string aotiHandleVar(const Value &v, std::string &decls, unsigned &counter) const;
  void aotiCopy(std::string &text, const ExternKernelAllocLine &e);
  void aotiIndexPut(std::string &text, const ExternKernelAllocLine &e);
  /// AOTI: the statement allocating a tensor on \p device from \p args
  /// (rank, sizes, strides, dtype), named \p what in errors.
  static std::string aotiEmpty(const graph::Device &device, const std::string &args,
                               std::string_view what) {
    if (device.kind == graph::Device::Kind::CPU)
      return fmt::format("wirc::rt::aoti::empty_strided_cpu({}, \"{}\");", args, what);
    return fmt::format("wirc::rt::aoti::empty_strided({}, {}, \"{}\");", args, device.index,
                       what);
  }
  /// A number passed where an op takes a tensor: a 0-dim CPU tensor, as
  /// PyTorch wraps it, of the dtype the wrapped number would compute in.
  std::string aotiScalarTensor(const Value &v, std::string &decls, unsigned &counter) const;
  /// The dtype of the current extern call's first tensor argument, which a
  /// number passed as a tensor is promoted against.
  std::optional<graph::DType> scalarPeer;
  std::vector<std::string> aotiArgument(const SchemaType &type, const Value *value,
                                        const SchemaDefault *fallback, const std::string &what,
                                        std::string &decls, unsigned &counter) const;
  void aotiExternCall(std::string &text, const std::string &op, std::string_view schemaText,
                      const std::vector<Value> &args,
                      const std::vector<std::pair<std::string, Value>> &kwargs,
                      const Value *outValue, BufferId result);
  /// A subgraph operand that is a size (an integer, an expression or a
  /// symbol input), as the callee's `symbols` entry; none for a tensor.
  std::optional<std::string> sizeOperand(const Value &v) const {
    if (v.kind == Value::Kind::Int)
      return intLiteral(v.intValue);
    if (v.kind == Value::Kind::Expr)
      return expr(v.expr);
    if (v.kind == Value::Kind::Buffer && module.buffer(v.buffer).kind == BufferKind::SymbolInput)
      return name(v.buffer);
    return std::nullopt;
  }
  /// A function's output line (its last; only a subgraph's exit follows
  /// it), or null.
  static const OutputLine *outputLine(const Function &f) {
    for (auto l = f.lines.rbegin(); l != f.lines.rend(); ++l)
      if (const auto *o = std::get_if<OutputLine>(&*l))
        return o;
    return nullptr;
  }
  /// A standalone subgraph operand that is a tensor: its name, or a view
  /// of its base made in \p decls.
  std::string tensorOperand(const Value &v, std::string &decls, unsigned &counter) const {
    if (v.kind == Value::Kind::Buffer)
      return name(v.buffer);
    const BufferInfo &base = module.buffer(v.buffer);
    std::string var = fmt::format("wirc_{}", counter++);
    decls += fmt::format("    const int64_t {0}_size[] = {1}, {0}_stride[] = {2};\n", var,
                         array(v.size()), array(v.stride()));
    return fmt::format("wirc::rt::make_tensor({}.data, wirc::rt::mul({}, {}), {}, {}_size, "
                       "{}_stride)",
                       base.name, expr(v.expr), itemsize(base), v.size().size(), var, var);
  }
  void condCall(std::string &text, const Line &l, const CondLine &c);
  void standaloneWhileLoop(std::string &text, const WhileLoopLine &w);
  void whileLoop(std::string &text, const WhileLoopLine &w);
  /// A torch.cond predicate as a C++ bool expression.
  std::string condPredicate(const CondLine &c);
  /// A call of subgraph \p then, or of \p then or \p otherwise on the C++
  /// bool expression \p predicate (torch.cond); the outputs land in \p results
  /// or in \p tupleResult's items.
  void subgraphCall(std::string &text, const Line &l, const std::string *predicate, unsigned then,
                    unsigned otherwise, const std::vector<Value> &operands,
                    const std::vector<BufferId> &results, BufferId tupleResult,
                    std::string_view op);
  /// Whether a free right after \p call (with only frees between) releases
  /// \p b: the call is its last use.
  bool freedAfter(const Line &call, BufferId b) const {
    bool freed = false;
    forEachFreeAfter(*lines, static_cast<size_t>(&call - lines->data()),
                     [&](size_t, const FreeLine &free) { freed |= free.buffer == b; });
    return freed;
  }
  /// The lines of the function being printed.
  const std::vector<Line> *lines = nullptr;
  std::string function(const Function &f);
  bool isUnreadIntInput(const Function &f, BufferId b) const;
  static std::string symbolList(unsigned entries, unsigned unread, std::string_view gap);
  [[noreturn]] void rejectExtern(const std::string &op) const {
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
    rejectHostTensor(info);
    return fmt::format("wirc::rt::extern_tensor({}, \"{}\", {})", t,
                       graph::dtypeName(info.layout.dtype), itemsize(info));
  };
  switch (v.kind) {
  case Value::Kind::None:
    return "wirc::rt::extern_none()";
  case Value::Kind::Bool:
    return fmt::format("wirc::rt::extern_bool({})", v.boolValue ? "true" : "false");
  case Value::Kind::Int:
    return fmt::format("wirc::rt::extern_int({})", intLiteral(v.intValue));
  case Value::Kind::Float:
    return fmt::format("wirc::rt::extern_double({})", doubleLiteral(v.floatValue));
  case Value::Kind::String:
    return fmt::format("wirc::rt::extern_string({}, {})", cppStringLiteral(v.text()), v.text().size());
  case Value::Kind::Expr:
    return fmt::format("wirc::rt::extern_{}({})", isFloatSymbol(v) ? "double" : "int",
                       expr(v.expr));
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
                         array(v.size()), array(v.stride()));
    return tensor(fmt::format("wirc::rt::make_tensor({}.data, wirc::rt::mul({}, {}), {}, {}_size, "
                              "{}_stride)",
                              base.name, expr(v.expr), itemsize(base), v.size().size(), arrays,
                              arrays),
                  base);
  }
  case Value::Kind::List:
  case Value::Kind::Tuple: {
    const char *make = v.kind == Value::Kind::List ? "extern_list" : "extern_tuple";
    if (v.items().empty())
      return fmt::format("wirc::rt::{}(nullptr, 0)", make);
    std::string items;
    for (const Value &item : v.items())
      items += (items.empty() ? "" : ", ") + externValue(item, decls, counter);
    std::string arrayName = fmt::format("wirc_{}", counter++);
    decls += fmt::format("    const wirc::rt::ExternValue {}[] = {{{}}};\n", arrayName, items);
    return fmt::format("wirc::rt::{}({}, {})", make, arrayName, v.items().size());
  }
  case Value::Kind::Complex:
    unsupported("a complex number as an extern kernel's argument (the hook table has no "
                "complex scalar)");
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

/// AOTI: aten.copy_(dst, src, non_blocking), the form of a copy between
/// devices, through the C shim's own aoti_torch_copy_ (no generated shim
/// function runs it).
void CppEmitter::aotiCopy(std::string &text, const ExternKernelAllocLine &e) {
  if (e.args.size() != 3 || !e.kwargs.empty() || e.args[2].kind != Value::Kind::Bool)
    unsupported("aten.copy_.default with arguments other than (dst, src, non_blocking)");
  std::string decls;
  unsigned counter = 0;
  std::string dst = aotiHandleVar(e.args[0], decls, counter);
  std::string src = aotiHandleVar(e.args[1], decls, counter);
  text += "  {\n" + decls;
  text += fmt::format("    wirc::rt::aoti::check(aoti_torch_copy_({}.get(), {}.get(), {}), "
                      "\"aoti_torch_copy_\", \"aten.copy_.default\");\n  }}\n",
                      dst, src, e.args[2].boolValue ? 1 : 0);
}

/// AOTI: aten.index_put_(self, indices, values, accumulate), Inductor's
/// in-place index_put fallback, through the C shim's own
/// aoti_torch_index_put_out with self as its out (torchgen generates a shim
/// for the functional index_put only, which would allocate a copy).
void CppEmitter::aotiIndexPut(std::string &text, const ExternKernelAllocLine &e) {
  if (e.args.size() != 4 || !e.kwargs.empty() || e.args[1].kind != Value::Kind::List ||
      e.args[3].kind != Value::Kind::Bool)
    unsupported(fmt::format("{} with arguments other than (self, indices, values, accumulate)",
                            e.op));
  std::string decls;
  unsigned counter = 0;
  std::string self = aotiHandleVar(e.args[0], decls, counter);
  std::string indices;
  for (const Value &index : e.args[1].items()) {
    if (!indices.empty())
      indices += ", ";
    // None selects a whole dimension: the shim reads a null handle as None.
    indices += index.kind == Value::Kind::None ? std::string("nullptr")
                                               : aotiHandleVar(index, decls, counter) + ".get()";
  }
  if (indices.empty())
    unsupported(fmt::format("{} with no indices", e.op));
  std::string values = aotiHandleVar(e.args[2], decls, counter);
  text += "  {\n" + decls;
  text += fmt::format("    AtenTensorHandle wirc_indices[] = {{{}}};\n", indices);
  text += fmt::format("    wirc::rt::aoti::check(aoti_torch_index_put_out({0}.get(), {0}.get(), "
                      "wirc_indices, {1}, {2}.get(), {3}), \"aoti_torch_index_put_out\", "
                      "\"{4}\");\n  }}\n",
                      self, e.args[1].items().size(), values, e.args[3].boolValue ? "true" : "false",
                      e.op);
}

/// AOTI: the Handle variable holding a tensor argument: the buffer's own, or
/// for a view a temporary declared into \p decls, alive for the call's block.
std::string CppEmitter::aotiHandleVar(const Value &v, std::string &decls, unsigned &counter) const {
  if (v.kind == Value::Kind::Buffer) {
    const BufferInfo &info = module.buffer(v.buffer);
    if (info.kind == BufferKind::SymbolInput || info.kind == BufferKind::ScalarInput ||
        info.isTuple)
      unsupported(fmt::format("'{}' as an extern kernel's tensor argument", info.name));
    return handle(v.buffer);
  }
  if (v.kind == Value::Kind::View) {
    std::string var = fmt::format("wirc_{}", counter++);
    decls += fmt::format("    const int64_t {0}_size[] = {1}, {0}_stride[] = {2};\n", var,
                         array(v.size()), array(v.stride()));
    decls += fmt::format("    wirc::rt::aoti::Handle {0} = wirc::rt::aoti::view({1}, {2}, "
                         "{0}_size, {0}_stride, {3}, \"{4}\");\n",
                         var, handle(v.buffer), v.size().size(), expr(v.expr), name(v.buffer));
    return var;
  }
  unsupported("a tensor argument that is neither a buffer nor a view");
}

std::string CppEmitter::aotiScalarTensor(const Value &v, std::string &decls,
                                         unsigned &counter) const {
  using graph::DType;
  // A wrapped number takes the dtype of a tensor of its kind or above that
  // it meets (a float meets float32: float32), else the default for its kind
  // (float32, int64); computed in that dtype either way, so the 0-dim
  // tensor holds the value in it. Half-precision peers take float32, which
  // promotes to them the same way.
  auto floating = [](DType d) {
    switch (d) {
    case DType::Float64:
    case DType::Complex128:
      return DType::Float64;
    default:
      return DType::Float32;
    }
  };
  auto isFloating = [](DType d) {
    return d == DType::Float16 || d == DType::BFloat16 || d == DType::Float32 ||
           d == DType::Float64 || d == DType::Complex64 || d == DType::Complex128 ||
           d == DType::Float8E4M3FN || d == DType::Float8E5M2;
  };
  DType dtype = DType::Bool;
  std::string value;
  if (v.kind == Value::Kind::Bool) {
    value = v.boolValue ? "true" : "false";
  } else if (v.kind == Value::Kind::Float || isFloatSymbol(v)) {
    dtype = scalarPeer && isFloating(*scalarPeer) ? floating(*scalarPeer) : DType::Float32;
    value = v.kind == Value::Kind::Float ? doubleLiteral(v.floatValue) : expr(v.expr);
  } else {
    value = v.kind == Value::Kind::Int ? intLiteral(v.intValue) : expr(v.expr);
    if (!scalarPeer || *scalarPeer == DType::Bool)
      dtype = DType::Int64;
    else if (isFloating(*scalarPeer))
      dtype = floating(*scalarPeer);
    else
      dtype = *scalarPeer;
  }
  std::string_view ctype = elementCType(dtype);
  if (ctype.empty())
    unsupported("a number passed as a tensor of a dtype the C shim cannot make");
  std::string var = fmt::format("wirc_{}", counter++);
  decls += fmt::format("    wirc::rt::aoti::Handle {0} = wirc::rt::aoti::scalar_tensor("
                       "aoti_torch_scalar_to_tensor_{1}, static_cast<{2}>({3}), \"{0}\");\n",
                       var, graph::dtypeName(dtype), ctype, value);
  return var;
}

namespace {

/// A schema default as the graph would have spelled the value.
Value defaultValue(const SchemaDefault &d) {
  Value v;
  switch (d.kind) {
  case SchemaDefault::Kind::None:
    v.kind = Value::Kind::None;
    break;
  case SchemaDefault::Kind::Bool:
    v.kind = Value::Kind::Bool;
    v.boolValue = d.boolValue;
    break;
  case SchemaDefault::Kind::Int:
    v.kind = Value::Kind::Int;
    v.intValue = d.intValue;
    break;
  case SchemaDefault::Kind::Double:
    v.kind = Value::Kind::Float;
    v.floatValue = d.doubleValue;
    break;
  case SchemaDefault::Kind::String:
  case SchemaDefault::Kind::Identifier:
    v.kind = Value::Kind::String;
    v.mutableParts().text = d.text;
    break;
  case SchemaDefault::Kind::List:
    v.kind = Value::Kind::List;
    for (const SchemaDefault &item : d.items)
      v.mutableParts().items.push_back(defaultValue(item));
    break;
  }
  return v;
}

/// The C type the shim passes a base schema type as (torchgen's mapping).
const char *shimScalarType(const std::string &base) {
  if (base == "int" || base == "SymInt")
    return "int64_t";
  if (base == "bool" || base == "ScalarType" || base == "Layout" || base == "MemoryFormat" ||
      base == "DeviceIndex")
    return "int32_t";
  if (base == "float" || base == "Scalar")
    return "double";
  if (base == "str")
    return "const char*";
  return nullptr;
}

} // namespace

/// AOTI: the C arguments (one, or two for a list or a device) that pass
/// \p value (or, when null, \p fallback, the schema's default) as a shim
/// parameter of schema type \p type. Locals go into \p decls.
std::vector<std::string> CppEmitter::aotiArgument(const SchemaType &type, const Value *value,
                                                  const SchemaDefault *fallback,
                                                  const std::string &what, std::string &decls,
                                                  unsigned &counter) const {
  Value fromDefault;
  if (!value) {
    if (!fallback)
      unsupported(fmt::format("{}: no value and no default", what));
    fromDefault = defaultValue(*fallback);
    value = &fromDefault;
  }
  const Value &v = *value;
  auto mismatch = [&]() -> std::vector<std::string> {
    // In Value::Kind's order.
    static constexpr const char *kKinds[] = {"None",   "bool",   "int",  "float",
                                             "string", "buffer", "view", "size expression",
                                             "dtype",  "device", "list", "tuple",
                                             "complex"};
    auto kind = static_cast<size_t>(v.kind);
    unsupported(fmt::format("{}: a {} value for schema type '{}'", what,
                            kind < std::size(kKinds) ? kKinds[kind] : "graph", type.str()));
  };
  switch (type.kind) {
  case SchemaType::Kind::Optional: {
    const SchemaType &elem = *type.elem;
    bool pair = elem.isList() || elem.isBase("Device");
    if (v.kind == Value::Kind::None)
      return pair ? std::vector<std::string>{"nullptr", "0"}
                  : std::vector<std::string>{"nullptr"};
    std::vector<std::string> inner = aotiArgument(elem, &v, nullptr, what, decls, counter);
    std::string var = fmt::format("wirc_{}", counter++);
    const char *ctype = elem.isBase("Tensor") ? "AtenTensorHandle"
                        : elem.isList()       ? nullptr
                        : elem.isBase("Device") ? "int32_t"
                                                : shimScalarType(elem.base);
    if (elem.isList()) {
      // An optional list is a pointer to the list's pointer, then its length.
      const SchemaType &item = *elem.elem;
      const char *itemType = item.isBase("Tensor") ? "AtenTensorHandle"
                                                   : shimScalarType(item.base);
      if (!itemType)
        mismatch();
      decls += fmt::format("    const {}* {} = {};\n", itemType, var, inner[0]);
      return {"&" + var, inner[1]};
    }
    if (!ctype)
      mismatch();
    decls += fmt::format("    {} {} = {};\n", ctype, var, inner[0]);
    std::vector<std::string> result{"&" + var};
    if (pair)
      result.push_back(inner[1]);
    return result;
  }
  case SchemaType::Kind::List: {
    const SchemaType &item = *type.elem;
    std::vector<Value> items;
    if (v.kind == Value::Kind::List || v.kind == Value::Kind::Tuple)
      items = v.items();
    else if (type.fixedSize && !item.isBase("Tensor")) // `int[2] stride=1` repeats
      items.assign(static_cast<size_t>(*type.fixedSize), v);
    else
      mismatch();
    std::string list;
    std::string itemType;
    if (item.isBase("Tensor")) {
      itemType = "AtenTensorHandle";
      for (const Value &x : items)
        list += (list.empty() ? "" : ", ") + aotiHandleVar(x, decls, counter) + ".get()";
    } else if (item.isOptional() && item.elem->isBase("Tensor")) {
      itemType = "AtenTensorHandle*";
      for (const Value &x : items) {
        if (x.kind == Value::Kind::None) {
          list += std::string(list.empty() ? "" : ", ") + "nullptr";
          continue;
        }
        std::string var = fmt::format("wirc_{}", counter++);
        decls += fmt::format("    AtenTensorHandle {} = {};\n", var,
                             aotiHandleVar(x, decls, counter) + ".get()");
        list += (list.empty() ? "&" : ", &") + var;
      }
    } else if (item.kind == SchemaType::Kind::Base && shimScalarType(item.base) &&
               !item.isBase("str")) {
      itemType = shimScalarType(item.base);
      for (const Value &x : items)
        list += (list.empty() ? "" : ", ") +
                aotiArgument(item, &x, nullptr, what, decls, counter).at(0);
    } else {
      mismatch();
    }
    if (items.empty())
      return {"nullptr", "0"};
    std::string var = fmt::format("wirc_{}", counter++);
    decls += fmt::format("    const {} {}[] = {{{}}};\n", itemType, var, list);
    return {var, fmt::format("{}", items.size())};
  }
  case SchemaType::Kind::Base:
    break;
  }
  const std::string &base = type.base;
  if (base == "Tensor") {
    if (v.kind == Value::Kind::Float || v.kind == Value::Kind::Int ||
        v.kind == Value::Kind::Bool || v.kind == Value::Kind::Expr)
      return {aotiScalarTensor(v, decls, counter) + ".get()"};
    if (v.kind == Value::Kind::None) {
      // None where the schema says Tensor (SDPA backward's absent attn_bias):
      // an undefined tensor, as PyTorch's Python binding passes it.
      std::string var = fmt::format("wirc_{}", counter++);
      decls += fmt::format("    wirc::rt::aoti::Handle {} = wirc::rt::aoti::undefined_tensor({});\n",
                           var, cppStringLiteral(what));
      return {var + ".get()"};
    }
    if (v.kind != Value::Kind::Buffer && v.kind != Value::Kind::View)
      mismatch();
    return {aotiHandleVar(v, decls, counter) + ".get()"};
  }
  if (base == "int" || base == "SymInt" || base == "DeviceIndex") {
    if (v.kind == Value::Kind::Int)
      return {intLiteral(v.intValue)};
    if (v.kind == Value::Kind::Bool)
      return {v.boolValue ? "1" : "0"};
    if (v.kind == Value::Kind::Expr && !isFloatSymbol(v))
      return {expr(v.expr)};
    if (v.kind == Value::Kind::Buffer && module.buffer(v.buffer).kind == BufferKind::SymbolInput)
      return {module.buffer(v.buffer).name};
    mismatch();
  }
  if (base == "bool") {
    if (v.kind == Value::Kind::Bool)
      return {v.boolValue ? "1" : "0"};
    if (v.kind == Value::Kind::Int)
      return {v.intValue ? "1" : "0"};
    mismatch();
  }
  if (base == "float" || base == "Scalar") {
    if (v.kind == Value::Kind::Float)
      return {doubleLiteral(v.floatValue)};
    if (v.kind == Value::Kind::Int)
      return {doubleLiteral(static_cast<double>(v.intValue))};
    if (v.kind == Value::Kind::Bool)
      return {v.boolValue ? "1.0" : "0.0"};
    if (v.kind == Value::Kind::Expr)
      return {fmt::format("static_cast<double>({})", expr(v.expr))};
    mismatch();
  }
  if (base == "str") {
    if (v.kind != Value::Kind::String)
      mismatch();
    return {cppStringLiteral(v.text())};
  }
  if (base == "ScalarType") {
    if (v.kind == Value::Kind::DType)
      return {aotiDType(v.dtype)};
    if (v.kind == Value::Kind::String) // a default such as `ScalarType dtype=long`
      if (auto dtype = graph::parseDType(v.text() == "long" ? "int64" : v.text()))
        return {aotiDType(*dtype)};
    mismatch();
  }
  if (base == "Layout" || base == "MemoryFormat") {
    // Only a default names one (`Layout layout=strided`); the names are the
    // shim's own accessors, checked against the few that exist.
    static const std::set<std::string> layouts{"strided"};
    static const std::set<std::string> formats{"contiguous_format", "channels_last",
                                               "channels_last_3d", "preserve_format"};
    const auto &known = base == "Layout" ? layouts : formats;
    if (v.kind == Value::Kind::String && known.count(v.text()))
      return {fmt::format("aoti_torch_{}_{}()", base == "Layout" ? "layout" : "memory_format",
                          v.text())};
    mismatch();
  }
  if (base == "Device") {
    if (v.kind != Value::Kind::Device)
      mismatch();
    return {v.device.kind == graph::Device::Kind::CPU ? "aoti_torch_device_type_cpu()"
                                                      : "aoti_torch_device_type_cuda()",
            fmt::format("{}", v.device.index)};
  }
  unsupported(fmt::format("{}: schema type '{}' (the C shim has no form for it here)", what,
                          type.str()));
}

/// AOTI: an extern kernel or fallback as a call of PyTorch's C shim function
/// aoti_torch_<device>_<name>[_<overload>], its parameters laid out from the
/// op's schema as torchgen lays them out: an out= overload's written
/// arguments first, every argument in schema order (defaults filled in),
/// then one pointer per return unless the op works in place.
void CppEmitter::aotiExternCall(std::string &text, const std::string &op,
                                std::string_view schemaText, const std::vector<Value> &args,
                                const std::vector<std::pair<std::string, Value>> &kwargs,
                                const Value *outValue, BufferId result) {
  if (schemaText.empty())
    unsupported(fmt::format("extern kernel '{}' without a 'schema' (the aten schema of the C "
                            "shim function to call, which the exporter records when PyTorch has "
                            "one: re-export older graphs, or add schemas with python -m "
                            "wirc_export.add_schemas; an op without a C shim function runs in "
                            "--emit=python or fx-module)",
                            op));
  FunctionSchema schema;
  try {
    schema = parseFunctionSchema(schemaText);
  } catch (const SchemaError &e) {
    unsupported(fmt::format("extern kernel '{}': its schema does not parse: {}", op, e.what()));
  }
  if (schema.ns != "aten" || !isPlainIdentifier(schema.name) ||
      (!schema.overload.empty() && !isPlainIdentifier(schema.overload)))
    unsupported(fmt::format("extern kernel '{}': schema '{}::{}' is not an aten op the C shim "
                            "provides",
                            op, schema.ns, schema.name));

  // Bind the node's values to the schema's arguments.
  std::vector<const Value *> bound(schema.arguments.size(), nullptr);
  size_t positional = 0;
  for (const Value &v : args) {
    while (positional < schema.arguments.size() && schema.arguments[positional].kwargOnly)
      ++positional;
    if (positional >= schema.arguments.size())
      unsupported(fmt::format("extern kernel '{}': {} positional arguments, more than its schema "
                              "takes",
                              op, args.size()));
    bound[positional++] = &v;
  }
  for (const auto &[key, v] : kwargs) {
    size_t i = 0;
    while (i < schema.arguments.size() && schema.arguments[i].name != key)
      ++i;
    if (i == schema.arguments.size())
      unsupported(fmt::format("extern kernel '{}': keyword argument '{}' is not in its schema", op,
                              key));
    bound[i] = &v;
  }
  bool outFn = schema.isOutFn();
  std::vector<size_t> outArgs, otherArgs;
  for (size_t i = 0; i < schema.arguments.size(); ++i)
    (outFn && schema.arguments[i].kwargOnly && schema.arguments[i].isWrite ? outArgs : otherArgs)
        .push_back(i);
  if (outFn) {
    if (outArgs.size() != 1)
      unsupported(fmt::format("extern kernel '{}': an out= schema with {} written arguments", op,
                              outArgs.size()));
    // An extern_out node binds its out; an in-place fallback called through
    // the out= overload writes its first argument.
    const Value *out = outValue ? outValue : (args.empty() ? nullptr : &args[0]);
    if (!out)
      unsupported(fmt::format("extern kernel '{}': nothing to pass as its out argument", op));
    bound[outArgs[0]] = out;
  } else if (outValue) {
    unsupported(fmt::format("extern kernel '{}' writes out=, but its schema '{}' has no out "
                            "argument",
                            op, schema.unambiguousName()));
  }

  scalarPeer.reset();
  for (const Value &v : args)
    if (v.kind == Value::Kind::Buffer || v.kind == Value::Kind::View) {
      const BufferInfo &info = module.buffer(v.buffer);
      if (!info.isTuple && info.kind != BufferKind::SymbolInput &&
          info.kind != BufferKind::ScalarInput) {
        scalarPeer = info.layout.dtype; // a view keeps its base's dtype
        break;
      }
    }
  std::string decls, callArgs;
  unsigned counter = 0;
  auto pass = [&](size_t i) {
    const SchemaArgument &a = schema.arguments[i];
    for (const std::string &c :
         aotiArgument(a.type, bound[i], a.defaultValue ? &*a.defaultValue : nullptr,
                      fmt::format("extern kernel '{}', argument '{}'", op, a.name), decls,
                      counter))
      callArgs += (callArgs.empty() ? "" : ", ") + c;
  };
  for (size_t i : outArgs)
    pass(i);
  for (size_t i : otherArgs)
    pass(i);

  // Returns come back through pointers, except for out= and in-place ops.
  bool inPlace = schema.name.ends_with('_');
  std::vector<std::string> returns;
  if (!outFn && !inPlace) {
    for (size_t i = 0; i < schema.returns.size(); ++i) {
      const SchemaType &r = schema.returns[i];
      const char *ctype = r.isBase("Tensor") ? "AtenTensorHandle"
                          : r.kind == SchemaType::Kind::Base ? shimScalarType(r.base)
                                                             : nullptr;
      if (!ctype || r.isBase("str"))
        unsupported(fmt::format("extern kernel '{}': return type '{}'", op, r.str()));
      std::string var = fmt::format("wirc_ret{}", i);
      decls += fmt::format("    {} {}{{}};\n", ctype, var);
      callArgs += (callArgs.empty() ? "&" : ", &") + var;
      returns.push_back(r.isBase("Tensor") ? var : "");
    }
  }
  std::string device = "cuda";
  for (const Value *v : bound)
    if (v && (v->kind == Value::Kind::Buffer || v->kind == Value::Kind::View) &&
        module.buffer(v->buffer).layout.device.kind == graph::Device::Kind::CPU)
      device = "cpu";
  if (device == "cpu")
    needsCpuShim = true;
  std::string fn = fmt::format("aoti_torch_{}_{}", device, schema.unambiguousName());

  if (result != kNoBuffer && module.buffer(result).isTuple) {
    itemTuples[result] = returns.size();
    text += fmt::format("  wirc::rt::aoti::Handle {}_items[{}];\n", name(result),
                        std::max<size_t>(returns.size(), 1));
  } else if (result != kNoBuffer) {
    text += fmt::format("  wirc::rt::aoti::Handle {};\n  [[maybe_unused]] wirc::rt::Tensor {};\n",
                        handle(result), name(result));
  }
  text += "  {\n" + decls;
  text += fmt::format("    wirc::rt::aoti::check({}({}), \"{}\", {});\n", fn, callArgs, fn,
                      cppStringLiteral(op));
  // Every returned handle is owned from here on: by the result, or dropped.
  if (result != kNoBuffer && module.buffer(result).isTuple) {
    for (size_t i = 0; i < returns.size(); ++i)
      if (!returns[i].empty())
        text += fmt::format("    {}_items[{}] = wirc::rt::aoti::Handle({});\n", name(result), i,
                            returns[i]);
  } else {
    bool taken = false;
    for (const std::string &r : returns) {
      if (r.empty())
        continue;
      if (result != kNoBuffer && !taken) {
        text += fmt::format("    {} = wirc::rt::aoti::Handle({});\n", handle(result), r);
        taken = true;
      } else {
        text += fmt::format("    wirc::rt::aoti::Handle({}).reset();\n", r);
      }
    }
    if (result != kNoBuffer && !taken)
      unsupported(fmt::format("extern kernel '{}': the node names a result, but the C shim call "
                              "returns no tensor",
                              op));
  }
  text += "  }\n";
  if (result != kNoBuffer && !module.buffer(result).isTuple)
    text += fmt::format("  {} = {}.tensor(\"{}\");\n", name(result), handle(result), op);
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
      std::string decoded;
      std::string_view image;
      // A cubin comes first: the kernel compiler (wirc/cuda) stores what it
      // built for --cuda-arch there, for PTX kernels too.
      if (config.artifacts && !config.artifacts->cubin.empty())
        image = config.artifacts->cubin;
      else if (config.artifacts && !config.artifacts->cubinBase64.empty())
        image = decoded = decodeBase64(config.artifacts->cubinBase64);
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
      out += fmt::format("static const char kImage_{}_{}[] =\n    ", kernel.name, call->config);
      appendCppStringLiteral(out, image);
      out += ";\n";
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
  // Floating-point scalars travel as double, integers as int64_t; each is
  // narrowed to the parameter's type below.
  for (const auto &[param, type] : params)
    out += fmt::format(", {} {}",
                       type.empty()                          ? "CUdeviceptr"
                       : type == "float" || type == "double" ? "double"
                                                             : "int64_t",
                       param);
  out += ") {\n";
  out += "  if (grid_0 == 0 || grid_1 == 0 || grid_2 == 0)\n    return;\n";
  std::string args;
  for (const auto &[param, type] : params) {
    if (type == "int32_t") {
      out += fmt::format("  int32_t {0}_arg = wirc::rt::to_i32({0}, \"{1}\");\n", param,
                         kernel.name);
      args += fmt::format("&{}_arg, ", param);
    } else if (!type.empty() && type != "int64_t" && type != "double") {
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
  out += fmt::format("  kernel.{}(grid_0, grid_1, grid_2, stream, args);\n}}\n",
                     kernel.cooperative ? "launch_cooperative" : "launch");
}

void CppEmitter::body(std::string &text, const Line &l) {
  auto line = [&](const std::string &s) { text += "  " + s + "\n"; };
  // AOTI: a tensor's device-pointer view of its handle, for the launches.
  auto viewOf = [&](const BufferInfo &info) {
    line(fmt::format("[[maybe_unused]] wirc::rt::Tensor {0} = {0}_h.tensor(\"{0}\");",
                     info.name));
  };
  std::visit(
      Overloaded{
          [&](const AllocateLine &a) {
            const BufferInfo &info = module.buffer(a.buffer);
            int rank = static_cast<int>(info.layout.size.size());
            line(layoutArrays(info));
            if (aoti()) {
              line(fmt::format("wirc::rt::aoti::Handle {0}_h = {1}", info.name,
                               aotiEmpty(info.layout.device,
                                         fmt::format("{0}, {1}_size, {1}_stride, {2}", rank,
                                                     info.name, aotiDType(info.layout.dtype)),
                                         info.name)));
              viewOf(info);
              return;
            }
            rejectHostTensor(info);
            line(fmt::format("wirc::rt::Buffer {0}_storage(wirc::rt::storage_bytes({1}, {0}_size, "
                             "{0}_stride, {2}));",
                             info.name, rank, itemsize(info)));
            line(fmt::format("[[maybe_unused]] wirc::rt::Tensor {0} = wirc::rt::make_tensor({0}_storage.get(), 0, "
                             "{1}, {0}_size, {0}_stride);",
                             info.name, rank));
          },
          [&](const FreeLine &f) {
            const BufferInfo &info = module.buffer(f.buffer);
            if (aoti()) {
              // Every tensor holds a reference; the storage goes with the last.
              if (itemTuples.count(f.buffer))
                line(fmt::format("for (auto &item : {}_items) item.reset();", info.name));
              else if (info.kind != BufferKind::SymbolInput &&
                       info.kind != BufferKind::ScalarInput && !info.isTuple)
                line(fmt::format("{}.reset();", handle(f.buffer)));
              return;
            }
            if (itemTuples.count(f.buffer))
              line(fmt::format("for (auto &item : {}_item_storage) item.reset();", info.name));
            else if (owns(f.buffer))
              line(fmt::format("{}_storage.reset();", info.name));
          },
          [&](const ReuseLine &r) {
            const BufferInfo &reused = module.buffer(r.reusedAs);
            int rank = static_cast<int>(reused.layout.size.size());
            if (!aoti() || !ir::sameView(module.buffer(r.old).layout, reused.layout))
              line(layoutArrays(reused));
            if (aoti()) {
              // The same tensor when the layout agrees (as Inductor's
              // `buf1 = buf0`), a view of it otherwise; the old name keeps its
              // reference only when the graph still uses it.
              const BufferInfo &old = module.buffer(r.old);
              if (ir::sameView(old.layout, reused.layout))
                line(fmt::format("wirc::rt::aoti::Handle {}_h{};  // reuse", reused.name,
                                 r.deleteOld ? fmt::format(" = std::move({})", handle(r.old))
                                             : fmt::format("(wirc::rt::aoti::borrow({}.get(), "
                                                           "\"{}\"))",
                                                           handle(r.old), reused.name)));
              else
                line(fmt::format("wirc::rt::aoti::Handle {0}_h = wirc::rt::aoti::view({1}, {2}, "
                                 "{0}_size, {0}_stride, 0, \"{0}\");  // reuse",
                                 reused.name, handle(r.old), rank));
              if (r.deleteOld && !ir::sameView(old.layout, reused.layout))
                line(fmt::format("{}.reset();", handle(r.old)));
              viewOf(reused);
              return;
            }
            if (owns(r.old)) {
              line(fmt::format("wirc::rt::Buffer {}_storage = std::move({}_storage);  // reuse",
                               reused.name, name(r.old)));
            } else {
              // Reusing an input or a pooled buffer: no storage of its own.
              if (pooled.size() <= r.reusedAs)
                pooled.resize(module.buffers.size(), false);
              pooled[r.reusedAs] = true;
            }
            std::string base = owns(r.old) ? reused.name + "_storage.get()" : name(r.old) + ".data";
            line(fmt::format("[[maybe_unused]] wirc::rt::Tensor {0} = wirc::rt::make_tensor({1}, 0, {2}, {0}_size, "
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
            // The launcher's parameters: an argument or numel the signature
            // makes constexpr (Triton specializes integers equal to 1, such
            // as a static xnumel or a random kernel's seed offset) is
            // compiled into the kernel, not passed.
            const graph::KernelConfig &config = kernel.configs.at(call.config);
            auto passed = [&](const std::string &param) {
              if (kernel.signature.empty())
                return true;
              for (const graph::KernelParam &p : kernel.signature)
                if (p.name == param)
                  return p.type != "constexpr" && !config.kwarg(p.name);
              return false;
            };
            // A tensor passed for a scalar parameter is a one-element CPU
            // tensor (name-kernel-args checks it): its value is read here.
            std::string args;
            for (const CallArg &arg : call.args) {
              if (arg.role == graph::ArgRole::Removed || !passed(arg.param))
                continue;
              if (arg.readsScalar) {
                const BufferInfo &info = module.buffer(arg.value.buffer);
                std::string_view ctype = elementCType(info.layout.dtype);
                if (ctype.empty())
                  unsupported(fmt::format("a {} CPU tensor read as a kernel's scalar",
                                          graph::dtypeName(info.layout.dtype)));
                args += fmt::format(", wirc::rt::host_scalar<{}>({})", ctype, info.name);
                continue;
              }
              args += ", " + argument(arg.value);
            }
            for (const auto &[numel, e] : call.numels)
              if (passed(numel))
                args += ", " + expr(e);
            line(fmt::format("launch_{0}_{1}(kernels.{0}_{1}, stream, {2}, {3}, {4}{5});",
                             kernel.name, call.config, expr(grid[0]), expr(grid[1]),
                             expr(grid[2]), args));
          },
          [&](const ExternKernelOutLine &e) {
            if (aoti())
              return aotiExternCall(text, e.op, schemaOf(e), e.args,
                                    e.kwargs, &*e.out, kNoBuffer);
            if (!hooks())
              rejectExtern(e.op);
            externCall(text, e.op, e.args, e.kwargs, &*e.out, "", "call_out", "");
          },
          [&](const ExternKernelAllocLine &e) {
            if (aoti() && e.op == "aten.copy_.default" && e.result == kNoBuffer)
              return aotiCopy(text, e);
            if (aoti() && (e.op == "aten.index_put_" || e.op == "aten.index_put_.default") &&
                e.result == kNoBuffer && schemaOf(e).empty())
              return aotiIndexPut(text, e);
            if (aoti())
              return aotiExternCall(text, e.op, schemaOf(e), e.args,
                                    e.kwargs, nullptr, e.result);
            if (!hooks())
              rejectExtern(e.op);
            if (e.result == kNoBuffer) {
              externCall(text, e.op, e.args, e.kwargs, nullptr, "", "call", ", nullptr");
              return;
            }
            // The result adopts the memory the hook returns; a tuple keeps
            // every result for the multi_output lines that unpack it.
            const BufferInfo &result = module.buffer(e.result);
            rejectHostTensor(result);
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
            bool simple = (hooks() || aoti() || itemTuples.count(m.source)) && source.isTuple &&
                          m.indices.size() == 1 && m.indices[0].first != "dict";
            // No indices: the result is the value itself, which Inductor
            // wraps when a fallback returns one tensor (an FFT's).
            // (A hook's results: the first and only one.)
            auto items = itemTuples.find(m.source);
            const bool whole =
                m.indices.empty() &&
                (items != itemTuples.end() ? items->second == 1 : hooks() && source.isTuple);
            if (simple) {
              const std::string &key = m.indices[0].second;
              auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), index);
              simple = error == std::errc() && end == key.data() + key.size();
            }
            if (!simple && !whole)
              unsupported(fmt::format("multi-output unpacking of '{}' (only one level of tuple or "
                                      "list indexing of an extern kernel's or a cond's result{})",
                                      source.name,
                                      aoti() || hooks() ? ", or the one tensor it returns" : ""));
            const std::string &result = name(m.result);
            if (itemTuples.count(m.source)) {
              if (aoti()) {
                line(fmt::format("wirc::rt::aoti::Handle {0}_h(wirc::rt::aoti::borrow({1}_items[{2}]"
                                 ".get(), \"{0}\"));",
                                 result, source.name, index));
                viewOf(module.buffer(m.result));
              } else {
                line(fmt::format("[[maybe_unused]] wirc::rt::Tensor {} = {}_items[{}];", result,
                                 source.name, index));
                line(fmt::format("wirc::rt::Buffer {0}_storage = std::move({1}_item_storage[{2}]);",
                                 result, source.name, index));
              }
              return;
            }
            line(fmt::format("[[maybe_unused]] wirc::rt::Tensor {} = {}.at({});", result,
                             source.name, index));
            if (owns(m.result))
              line(fmt::format("wirc::rt::Buffer {0}_storage = {1}_storage.share({0}.data);",
                               result, source.name));
          },
          [&](const ReinterpretViewLine &r) {
            const BufferInfo &view = module.buffer(r.view);
            int rank = static_cast<int>(view.layout.size.size());
            line(layoutArrays(view));
            if (aoti()) {
              line(fmt::format("wirc::rt::aoti::Handle {0}_h = wirc::rt::aoti::view({1}, {2}, "
                               "{0}_size, {0}_stride, {3}, \"{0}\");",
                               view.name, handle(r.base), rank, expr(view.layout.offset)));
              viewOf(view);
              return;
            }
            line(fmt::format("[[maybe_unused]] wirc::rt::Tensor {0} = wirc::rt::make_tensor({1}.data, "
                             "wirc::rt::mul({2}, {3}), {4}, {0}_size, {0}_stride);",
                             view.name, name(r.base), expr(view.layout.offset), itemsize(view),
                             rank));
          },
          [&](const AssertSizeStrideLine &a) {
            line(sizeStrideCheck(name(a.buffer), a.size, a.stride));
          },
          [&](const ZeroLine &z) {
            const BufferInfo &info = module.buffer(z.buffer);
            line(fmt::format("wirc::rt::zero_storage({}, {}, stream, \"{}\");", name(z.buffer),
                             itemsize(info), info.name));
          },
          [&](const SymbolBindingLine &b) {
            // "const int64_t u0 = ...", or "u0 = ..." for a symbol input bound again.
            const bool isFloat = floatSymbols.count(b.symbol) != 0;
            std::string_view decl = reboundInputs.count(b.symbol) ? ""
                                    : isFloat                     ? "const double "
                                                                  : "const int64_t ";
            switch (b.source) {
            case SymbolBindingLine::Source::Input:
              // The prologue binds each symbol input from symbols[] under its
              // own name, which is usually the symbol's.
              if (name(b.tensor) != b.symbol)
                line(fmt::format("{}{} = {};", decl, b.symbol, name(b.tensor)));
              break;
            case SymbolBindingLine::Source::Size:
              line(fmt::format("{}{} = {}.sizes[{}];", decl, b.symbol, name(b.tensor), b.dim));
              break;
            case SymbolBindingLine::Source::Stride:
              line(fmt::format("{}{} = {}.strides[{}];", decl, b.symbol, name(b.tensor), b.dim));
              break;
            case SymbolBindingLine::Source::Expr:
              line(fmt::format("{}{} = {};", decl, b.symbol, expr(b.expr)));
              break;
            case SymbolBindingLine::Source::StorageOffset:
              unsupported(fmt::format("symbol '{}' bound to a storage offset (the wrapper's "
                                      "tensors carry their offset in the address)",
                                      b.symbol));
            case SymbolBindingLine::Source::Item:
              break;
            }
            if (b.source != SymbolBindingLine::Source::Item)
              return;
            // .item() of an integer or bool tensor: the stream is waited for,
            // then the element copied back (a bool binds 0 or 1). A float
            // symbol's element is widened to double.
            const BufferInfo &base = module.buffer(b.tensor);
            if (base.isTuple || !b.index.empty())
              unsupported(fmt::format("symbol '{}' bound to an item of a tuple buffer",
                                      b.symbol));
            std::string_view type;
            if (isFloat) {
              switch (base.layout.dtype) {
              case graph::DType::Float16: type = "wirc::rt::Float16"; break;
              case graph::DType::BFloat16: type = "wirc::rt::BFloat16"; break;
              case graph::DType::Float32: type = "float"; break;
              case graph::DType::Float64: type = "double"; break;
              case graph::DType::Float8E4M3FN: type = "wirc::rt::Float8E4M3FN"; break;
              case graph::DType::Float8E5M2: type = "wirc::rt::Float8E5M2"; break;
              default: break;
              }
            } else if (graph::isIntegral(base.layout.dtype)) {
              type = elementCType(base.layout.dtype);
            }
            if (type.empty())
              unsupported(fmt::format("symbol '{}' bound to an element of {} tensor '{}' (integer, "
                                      "bool and real floating-point tensors only)",
                                      b.symbol, graph::dtypeName(base.layout.dtype), base.name));
            std::string at = b.view ? fmt::format("{}.data + wirc::rt::mul({}, {})", base.name,
                                                  expr(b.view->expr), itemsize(base))
                                    : base.name + ".data";
            line(fmt::format("{}{} = wirc::rt::read_{}<{}>({}, stream, \"{}\");", decl,
                             b.symbol, isFloat ? "float" : "scalar", type, at, b.symbol));
          },
          [&](const AssertFiniteLine &a) {
            const BufferInfo &info = module.buffer(a.buffer);
            // (Part bytes, parts, the bits set in a NaN or an infinity.)
            struct Bits {
              int bytes, parts;
              uint64_t mask;
            };
            std::optional<Bits> bits;
            switch (info.layout.dtype) {
            case graph::DType::Float16: bits = Bits{2, 1, 0x7C00}; break;
            case graph::DType::BFloat16: bits = Bits{2, 1, 0x7F80}; break;
            case graph::DType::Float32: bits = Bits{4, 1, 0x7F800000}; break;
            case graph::DType::Float64: bits = Bits{8, 1, 0x7FF0000000000000}; break;
            case graph::DType::Complex64: bits = Bits{4, 2, 0x7F800000}; break;
            case graph::DType::Complex128: bits = Bits{8, 2, 0x7FF0000000000000}; break;
            case graph::DType::Float8E4M3FN: bits = Bits{1, 1, 0x7F}; break; // NaN only
            case graph::DType::Float8E5M2: bits = Bits{1, 1, 0x7C}; break;
            default: break; // integers and bools are always finite
            }
            if (bits)
              line(fmt::format("wirc::rt::check_finite({}, {}, {}, {:#x}, {}, stream, \"{}\");",
                               name(a.buffer), bits->bytes, bits->parts, bits->mask,
                               info.layout.device.kind == graph::Device::Kind::CUDA, info.name));
          },
          [&](const AssertScalarLine &a) {
            std::string condition =
                fmt::format("{} {} {}", expr(a.lhs), graph::compareSpelling(a.cmp), expr(a.rhs));
            line(fmt::format("if (!({})) throw wirc::rt::Error({});", condition,
                             cppStringLiteral(a.what())));
          },
          [&](const DeviceGuardEnterLine &) {},
          [&](const DeviceGuardExitLine &) {},
          [&](const SubgraphEnterLine &) {},
          [&](const SubgraphExitLine &) {},
          [&](const CondLine &c) { condCall(text, l, c); },
          [&](const InvokeSubgraphLine &i) {
            subgraphCall(text, l, nullptr, i.function, i.function, i.operands, {}, i.tupleResult,
                         "invoke_subgraph");
          },
          [&](const WhileLoopLine &w) { whileLoop(text, w); },
          [&](const OutputLine &o) {
            for (size_t i = 0; i < o.outputs.size(); ++i) {
              const Value &v = o.outputs[i];
              if (v.kind == Value::Kind::None) {
                // A None output (a gradient nobody asked for): a null handle,
                // or an empty tensor (data 0, rank 0).
                line(fmt::format("outputs[{}] = {};", i, aoti() ? "nullptr" : "wirc::rt::Tensor{}"));
              } else if (v.kind == Value::Kind::Buffer &&
                         module.buffer(v.buffer).kind != BufferKind::SymbolInput &&
                         module.buffer(v.buffer).kind != BufferKind::ScalarInput) {
                if (aoti()) {
                  line(fmt::format("outputs[{}] = {}.share();", i, handle(v.buffer)));
                  continue;
                }
                line(fmt::format("outputs[{}] = {};", i, name(v.buffer)));
                if (owns(v.buffer))
                  line(fmt::format("output_storage[{}] = std::move({}_storage);", i,
                                   name(v.buffer)));
              } else if (v.kind == Value::Kind::View) {
                const BufferInfo &base = module.buffer(v.buffer);
                if (aoti()) {
                  line(fmt::format("{{ const int64_t size[] = {}, stride[] = {}; outputs[{}] = "
                                   "wirc::rt::aoti::view({}, {}, size, stride, {}, \"output\")"
                                   ".release(); }}",
                                   array(v.size()), array(v.stride()), i, handle(v.buffer),
                                   v.size().size(), expr(v.expr)));
                  continue;
                }
                line(fmt::format("{{ const int64_t size[] = {}, stride[] = {}; outputs[{}] = "
                                 "wirc::rt::make_tensor({}.data, wirc::rt::mul({}, {}), {}, size, "
                                 "stride); }}",
                                 array(v.size()), array(v.stride()), i, base.name, expr(v.expr),
                                 itemsize(base), v.size().size()));
                if (owns(v.buffer))
                  line(fmt::format("output_storage[{}] = std::move({}_storage);", i, base.name));
              } else if (isFloatSymbol(v)) {
                // A float symbol: a 0-d float64 CPU tensor in the AOTI
                // flavour, a descriptor of rank -2 in the standalone one.
                line(aoti() ? fmt::format("outputs[{}] = wirc::rt::aoti::scalar_tensor("
                                          "aoti_torch_scalar_to_tensor_float64, {}, "
                                          "\"output\").release();",
                                          i, expr(v.expr))
                            : fmt::format("outputs[{}] = wirc::rt::float_output({});", i,
                                          expr(v.expr)));
              } else if (std::optional<std::string> value = sizeOperand(v)) {
                // An integer output (a size a forward graph returns for its
                // backward): a 0-d int64 CPU tensor in the AOTI flavour, a
                // descriptor of rank -1 holding the value in the standalone one.
                line(aoti() ? fmt::format("outputs[{}] = wirc::rt::aoti::scalar_tensor("
                                          "aoti_torch_scalar_to_tensor_int64, "
                                          "static_cast<int64_t>({}), \"output\").release();",
                                          i, *value)
                            : fmt::format("outputs[{}] = wirc::rt::int_output({});", i, *value));
              } else {
                unsupported("an output that is not a tensor, a number or None");
              }
            }
          },
          [&](const PoolAllocateLine &p) {
            const PoolInfo &pool = module.pool(p.pool);
            if (aoti()) {
              line(fmt::format("wirc::rt::aoti::Handle {0}_h; {{ const int64_t size[] = {{INT64_C("
                               "{1})}}, stride[] = {{1}}; {0}_h = {2} }}",
                               pool.name, pool.bytes,
                               aotiEmpty(pool.device, "1, size, stride, aoti_torch_dtype_uint8()",
                                         pool.name)));
              return;
            }
            if (pool.device.kind == graph::Device::Kind::CPU)
              unsupported(fmt::format("memory pool '{}' on the CPU: its tensors are device "
                                      "memory; the python and fx-module wrappers run it",
                                      pool.name));
            line(fmt::format("wirc::rt::Buffer {}_storage(INT64_C({}));", pool.name, pool.bytes));
          },
          [&](const AllocateFromPoolLine &a) {
            const BufferInfo &info = module.buffer(a.buffer);
            int rank = static_cast<int>(info.layout.size.size());
            line(layoutArrays(info));
            if (aoti()) {
              line(fmt::format("wirc::rt::aoti::Handle {0}_h = wirc::rt::aoti::from_pool({1}_h, "
                               "INT64_C({2}), {3}, {4}, {0}_size, {0}_stride, \"{0}\");",
                               info.name, module.pool(a.pool).name, a.offset,
                               aotiDType(info.layout.dtype), rank));
              viewOf(info);
              return;
            }
            line(fmt::format("[[maybe_unused]] wirc::rt::Tensor {0} = wirc::rt::make_tensor({1}_storage.get(), "
                             "INT64_C({2}), {3}, {0}_size, {0}_stride);",
                             info.name, module.pool(a.pool).name, a.offset, rank));
            if (pooled.size() <= a.buffer)
              pooled.resize(module.buffers.size(), false);
            pooled[a.buffer] = true;
          },
          [&](const PoolFreeLine &p) {
            line(fmt::format("{}_{}.reset();", module.pool(p.pool).name,
                             aoti() ? "h" : "storage"));
          },
      },
      l);
}

/// torch.cond: reads the predicate (waiting for the device when it is a
/// tensor), then calls one subgraph function with the operands; the results
/// land in NAME_items for multi_output to unpack, or in their own buffers.
void CppEmitter::condCall(std::string &text, const Line &l, const CondLine &c) {
  std::string predicate = condPredicate(c);
  subgraphCall(text, l, &predicate, c.trueFunction, c.falseFunction, c.operands, c.results,
               c.tupleResult, "torch.cond");
}

std::string CppEmitter::condPredicate(const CondLine &c) {
  if (c.compare) {
    std::string joined;
    for (const graph::SizeComparison &t : c.compare->terms)
      joined += fmt::format("{}({}) {} ({})", joined.empty() ? "" : c.compare->any ? " || " : " && ",
                            expr(t.lhs), graph::compareSpelling(t.cmp), expr(t.rhs));
    return c.compare->terms.size() == 1 ? joined : "(" + joined + ")";
  }
  const Value &predicate = *c.predicate;
  switch (predicate.kind) {
  case Value::Kind::Bool:
    return predicate.boolValue ? "true" : "false";
  case Value::Kind::Int:
    return predicate.intValue ? "true" : "false";
  case Value::Kind::Expr:
    return fmt::format("({}) != 0", expr(predicate.expr));
  case Value::Kind::Buffer: {
    const BufferInfo &p = module.buffer(predicate.buffer);
    if (p.kind == BufferKind::SymbolInput)
      return fmt::format("{} != 0", p.name);
    if (aoti())
      return fmt::format("wirc::rt::aoti::item_bool({}, \"cond\")", handle(predicate.buffer));
    if (p.layout.dtype != graph::DType::Bool || p.layout.device.kind != graph::Device::Kind::CUDA)
      unsupported(fmt::format("torch.cond predicate '{}' (a CUDA bool tensor is read)", p.name));
    return fmt::format("wirc::rt::read_bool({}, stream, \"cond\")", p.name);
  }
  default:
    unsupported("a torch.cond predicate that is not a bool, a symbol or a tensor");
  }
}

void CppEmitter::subgraphCall(std::string &text, const Line &l, const std::string *predicate,
                              unsigned thenIndex, unsigned otherwiseIndex,
                              const std::vector<Value> &operands,
                              const std::vector<BufferId> &results, BufferId tupleResult,
                              std::string_view op) {
  const Function &then = module.functions.at(thenIndex);
  const Function &otherwise = module.functions.at(otherwiseIndex);
  const OutputLine *thenOutput = outputLine(then);
  size_t numResults = thenOutput ? thenOutput->outputs.size() : 0;
  // A subgraph may return one of its inputs (a nested compile region hands
  // a saved activation back). The standalone wrapper's storage has one
  // owner, which frees it at the caller's last use of its own name: an
  // intermediate of the caller handed back under a new name gets a copy of
  // its own right after the call. (AOTI handles are reference counted.)
  std::string tensors, symbols;
  unsigned counter = 0;
  std::string decls;
  for (size_t k = 0; k < operands.size(); ++k) {
    const Value &v = operands[k];
    if (std::optional<std::string> size = sizeOperand(v)) {
      symbols += (symbols.empty() ? "" : ", ") + *size;
      continue;
    }
    if (aoti()) {
      // The branch takes over its inputs. An operand whose last use is the
      // call is handed over (at its last place in the list): the branch
      // then frees it at its own last use, as Inductor's wrapper, which
      // deletes such operands before the call, lets it. The others get new
      // references.
      bool handOver = v.kind == Value::Kind::View;
      if (v.kind == Value::Kind::Buffer && freedAfter(l, v.buffer))
        handOver = std::none_of(operands.begin() + static_cast<std::ptrdiff_t>(k) + 1,
                                operands.end(), [&](const Value &later) {
                                  return later.kind == Value::Kind::Buffer &&
                                         later.buffer == v.buffer;
                                });
      tensors += (tensors.empty() ? "" : ", ") + aotiHandleVar(v, decls, counter) +
                 (handOver ? ".release()" : ".share()");
    } else if (v.kind == Value::Kind::Buffer || v.kind == Value::Kind::View) {
      tensors += (tensors.empty() ? "" : ", ") + tensorOperand(v, decls, counter);
    } else {
      unsupported(fmt::format("a {} operand that is not a tensor or a size", op));
    }
  }
  size_t slots = std::max<size_t>(numResults, 1);
  std::string target;
  if (tupleResult != kNoBuffer) {
    target = name(tupleResult);
    itemTuples[tupleResult] = numResults;
  } else {
    target = fmt::format("wirc_cond{}", condCounter++);
  }
  if (aoti()) {
    text += fmt::format("  wirc::rt::aoti::Handle {}_items[{}];\n", target, slots);
  } else {
    text += fmt::format("  wirc::rt::Tensor {}_items[{}];\n", target, slots);
    text += fmt::format("  wirc::rt::Buffer {}_item_storage[{}];\n", target, slots);
  }
  // The predicate first: nothing is handed to a branch before it is known.
  text += predicate ? fmt::format("  {{\n    const bool wirc_pred = {};\n", *predicate)
                    : std::string("  {\n");
  text += decls;
  text += fmt::format("    {} wirc_inputs[] = {{{}}};\n",
                      aoti() ? "AtenTensorHandle" : "wirc::rt::Tensor",
                      tensors.empty() ? (aoti() ? "nullptr" : "wirc::rt::Tensor{}") : tensors);
  text += fmt::format("    const int64_t wirc_symbols[] = {{{}}};\n",
                      symbols.empty() ? "0" : symbols);
  std::string hooksArg = hooks() ? "wirc_hooks, " : "";
  auto call = [&](const Function &f, std::string_view indent) {
    if (aoti())
      return fmt::format("{}subgraph_{}(kernels, wirc_inputs, wirc_symbols, wirc_results, "
                         "stream);\n",
                         indent, f.name);
    std::string lines = fmt::format("{}subgraph_{}(kernels, {}wirc_inputs, wirc_symbols, "
                                    "{}_items, {}_item_storage, stream);\n",
                                    indent, f.name, hooksArg, target, target);
    // A subgraph may return one of its inputs (a nested compile region
    // hands a saved activation back). The standalone wrapper's storage has
    // one owner, which frees it at the caller's last use of its own name: an
    // intermediate of the caller handed back under a new name gets a copy of
    // its own. (AOTI handles are reference counted.)
    if (const OutputLine *o = outputLine(f))
      for (size_t i = 0; i < o->outputs.size(); ++i) {
        const Value &v = o->outputs[i];
        if (v.kind != Value::Kind::Buffer && v.kind != Value::Kind::View)
          continue;
        auto input = std::find(f.inputs.begin(), f.inputs.end(), v.buffer);
        if (input == f.inputs.end())
          continue;
        const Value &operand = operands.at(static_cast<size_t>(input - f.inputs.begin()));
        if ((operand.kind == Value::Kind::Buffer || operand.kind == Value::Kind::View) &&
            owns(operand.buffer))
          lines += fmt::format("{0}{1}_item_storage[{2}] = wirc::rt::copy_tensor({1}_items[{2}], "
                               "{3}, stream, \"{4}\");\n",
                               indent, target, i, itemsize(module.buffer(v.buffer)),
                               module.buffer(v.buffer).name);
      }
    return lines;
  };
  if (aoti())
    text += fmt::format("    AtenTensorHandle wirc_results[{}] = {{}};\n", slots);
  if (predicate)
    text += fmt::format("    if (wirc_pred) {{\n{}    }} else {{\n{}    }}\n", call(then, "      "),
                        call(otherwise, "      "));
  else
    text += call(then, "    ");
  // The handles the branch returned are owned from here on.
  if (aoti())
    text += fmt::format("    for (int i = 0; i < {}; ++i)\n      {}_items[i] = "
                        "wirc::rt::aoti::Handle(wirc_results[i]);\n",
                        slots, target);
  text += "  }\n";
  // Results named one by one take their item.
  for (size_t i = 0; i < results.size(); ++i) {
    const BufferInfo &r = module.buffer(results[i]);
    if (aoti()) {
      text += fmt::format("  wirc::rt::aoti::Handle {0}_h = std::move({1}_items[{2}]);\n"
                          "  [[maybe_unused]] wirc::rt::Tensor {0} = {0}_h.tensor(\"{0}\");\n",
                          r.name, target, i);
    } else {
      text += fmt::format("  [[maybe_unused]] wirc::rt::Tensor {0} = {1}_items[{2}];\n  wirc::rt::Buffer "
                          "{0}_storage = std::move({1}_item_storage[{2}]);\n",
                          r.name, target, i);
    }
  }
}

/// torch.while_loop (AOTI): the carried values live in the result's items,
/// one reference each. Each round hands the cond function, then the body,
/// new references to them and to the additional operands; the body's outputs
/// replace the items. When the body never runs, the items become copies of
/// the initial values, so the result never aliases an operand (as in the
/// Python wrapper). The standalone wrapper's loop is standaloneWhileLoop.
void CppEmitter::whileLoop(std::string &text, const WhileLoopLine &w) {
  if (!aoti())
    return standaloneWhileLoop(text, w);
  const std::string &state = name(w.tupleResult);
  itemTuples[w.tupleResult] = w.carried.size();
  const size_t n = w.carried.size();
  std::string decls, initial, additional, symbols;
  unsigned counter = 0;
  for (size_t i = 0; i < n; ++i) {
    const Value &v = w.carried[i];
    if (v.kind != Value::Kind::Buffer && v.kind != Value::Kind::View)
      unsupported("a torch.while_loop carried value that is not a tensor");
    std::string var = aotiHandleVar(v, decls, counter);
    initial += fmt::format("    {}_items[{}] = {};\n", state, i,
                           v.kind == Value::Kind::View
                               ? fmt::format("std::move({})", var)
                               : fmt::format("wirc::rt::aoti::Handle({}.share())", var));
  }
  for (const Value &v : w.additional) {
    if (std::optional<std::string> size = sizeOperand(v)) {
      symbols += (symbols.empty() ? "" : ", ") + *size;
      continue;
    }
    if (v.kind != Value::Kind::Buffer && v.kind != Value::Kind::View)
      unsupported("a torch.while_loop operand that is not a tensor or a size");
    additional += ", " + aotiHandleVar(v, decls, counter) + ".share()";
  }
  std::string operands;
  for (size_t i = 0; i < n; ++i)
    operands += fmt::format("{}{}_items[{}].share()", i ? ", " : "", state, i);
  operands += additional;
  const std::string &cond = module.functions.at(w.condFunction).name;
  const std::string &body = module.functions.at(w.bodyFunction).name;
  text += fmt::format("  wirc::rt::aoti::Handle {}_items[{}];\n  {{\n", state, n);
  text += decls;
  text += initial;
  text += fmt::format("    const int64_t wirc_symbols[] = {{{}}};\n", symbols.empty() ? "0" : symbols);
  text += "    for (bool wirc_ran = false;; wirc_ran = true) {\n";
  text += fmt::format("      AtenTensorHandle wirc_inputs[] = {{{}}};\n", operands);
  text += "      AtenTensorHandle wirc_pred[1] = {};\n";
  text += fmt::format("      subgraph_{}(kernels, wirc_inputs, wirc_symbols, wirc_pred, stream);\n",
                      cond);
  text += "      if (!wirc::rt::aoti::item_bool(wirc::rt::aoti::Handle(wirc_pred[0]), "
          "\"while_loop\")) {\n";
  text += "        if (!wirc_ran)\n";
  text += fmt::format("          for (auto &item : {}_items)\n", state);
  text += "            item = wirc::rt::aoti::clone(item, \"while_loop\");\n";
  text += "        break;\n      }\n";
  text += fmt::format("      AtenTensorHandle wirc_body_inputs[] = {{{}}};\n", operands);
  text += fmt::format("      AtenTensorHandle wirc_results[{}] = {{}};\n", n);
  text += fmt::format("      subgraph_{}(kernels, wirc_body_inputs, wirc_symbols, wirc_results, "
                      "stream);\n",
                      body);
  text += fmt::format("      for (int i = 0; i < {}; ++i)\n", n);
  text += fmt::format("        {}_items[i] = wirc::rt::aoti::Handle(wirc_results[i]);\n", state);
  text += "    }\n  }\n";
}

/// torch.while_loop (standalone): the carried values live in the result's
/// items, their memory in its item storage (empty while an item is still a
/// caller's tensor). The body's outputs replace them each round. Storage has
/// one owner, so what the body hands back unchanged must be known here: an
/// output that is (a view of) carried value j takes over item j's storage;
/// two outputs of one carried value, or an output of an additional operand
/// the caller frees, are not supported. When the body never runs the items
/// become copies, so the result never aliases an operand.
void CppEmitter::standaloneWhileLoop(std::string &text, const WhileLoopLine &w) {
  const Function &body = module.functions.at(w.bodyFunction);
  const size_t n = w.carried.size();
  const OutputLine *result = outputLine(body);
  if (!result || result->outputs.size() != n)
    unsupported("a torch.while_loop body whose outputs are not its carried values");
  // passes[i]: the carried value output i hands back, or -1 for new memory.
  std::vector<int> passes(n, -1);
  std::vector<bool> taken(n, false);
  for (size_t i = 0; i < n; ++i) {
    const Value &out = result->outputs[i];
    if (out.kind != Value::Kind::Buffer && out.kind != Value::Kind::View)
      continue; // the body's own output line reports it
    auto input = std::find(body.inputs.begin(), body.inputs.end(), out.buffer);
    if (input == body.inputs.end())
      continue;
    const size_t j = static_cast<size_t>(input - body.inputs.begin());
    if (j < n) {
      if (taken[j])
        unsupported(fmt::format("torch.while_loop body '{}' handing back its input '{}' twice "
                                "(use --cpp-abi=aoti)",
                                body.name, module.buffer(out.buffer).name));
      taken[j] = true;
      passes[i] = static_cast<int>(j);
      continue;
    }
    const Value &operand = w.additional.at(j - n);
    if ((operand.kind == Value::Kind::Buffer || operand.kind == Value::Kind::View) &&
        owns(operand.buffer))
      unsupported(fmt::format("torch.while_loop body '{}' returning its input '{}', an "
                              "intermediate of the caller (use --cpp-abi=aoti)",
                              body.name, module.buffer(out.buffer).name));
  }
  // The predicate is read as one byte of device memory.
  const Function &cond = module.functions.at(w.condFunction);
  if (const OutputLine *o = outputLine(cond)) {
    const Value *p = o->outputs.empty() ? nullptr : &o->outputs[0];
    const BufferInfo *pred =
        p && p->kind == Value::Kind::Buffer ? &module.buffer(p->buffer) : nullptr;
    if (!pred || pred->isTuple || pred->layout.dtype != graph::DType::Bool ||
        pred->layout.device.kind != graph::Device::Kind::CUDA)
      unsupported(fmt::format("torch.while_loop cond '{}' whose predicate is not a CUDA bool "
                              "tensor (use --cpp-abi=aoti)",
                              cond.name));
  }
  const std::string &state = name(w.tupleResult);
  itemTuples[w.tupleResult] = n;
  std::string decls, initial, operands, symbols;
  unsigned counter = 0;
  std::vector<bool> copied(n, false); // a copy of its own from the start
  for (size_t i = 0; i < n; ++i) {
    const Value &v = w.carried[i];
    if (v.kind != Value::Kind::Buffer && v.kind != Value::Kind::View)
      unsupported("a torch.while_loop carried value that is not a tensor");
    initial += fmt::format("    {}_items[{}] = {};\n", state, i, tensorOperand(v, decls, counter));
    // A value the body hands back unchanged stays the initial one: if that
    // is the caller's intermediate, which it frees after the loop, the loop
    // keeps a copy of its own.
    copied[i] = taken[i] && owns(v.buffer);
    if (copied[i])
      initial += fmt::format("    {0}_item_storage[{1}] = wirc::rt::copy_tensor({0}_items[{1}], "
                             "{2}, stream, \"while_loop\");\n",
                             state, i, itemsize(module.buffer(v.buffer)));
    operands += fmt::format("{}{}_items[{}]", i ? ", " : "", state, i);
  }
  for (const Value &v : w.additional) {
    if (std::optional<std::string> size = sizeOperand(v)) {
      symbols += (symbols.empty() ? "" : ", ") + *size;
      continue;
    }
    if (v.kind != Value::Kind::Buffer && v.kind != Value::Kind::View)
      unsupported("a torch.while_loop operand that is not a tensor or a size");
    operands += ", " + tensorOperand(v, decls, counter);
  }
  std::string hooksArg = hooks() ? "wirc_hooks, " : "";
  std::string copies, storage;
  for (size_t i = 0; i < n; ++i) {
    if (!copied[i])
      copies += fmt::format("          {0}_item_storage[{1}] = wirc::rt::copy_tensor("
                            "{0}_items[{1}], {2}, stream, \"while_loop\");\n",
                            state, i, itemsize(module.buffer(w.carried[i].buffer)));
    storage += fmt::format("{}std::move({})", i ? ", " : "",
                           passes[i] < 0 ? fmt::format("wirc_next_storage[{}]", i)
                                         : fmt::format("{}_item_storage[{}]", state, passes[i]));
  }
  text += fmt::format("  wirc::rt::Tensor {0}_items[{1}];\n  wirc::rt::Buffer "
                      "{0}_item_storage[{1}];\n  {{\n",
                      state, n);
  text += decls;
  text += initial;
  text += fmt::format("    const int64_t wirc_symbols[] = {{{}}};\n", symbols.empty() ? "0" : symbols);
  text += "    for (bool wirc_ran = false;; wirc_ran = true) {\n";
  text += fmt::format("      wirc::rt::Tensor wirc_inputs[] = {{{}}};\n", operands);
  text += "      wirc::rt::Tensor wirc_pred[1];\n      wirc::rt::Buffer wirc_pred_storage[1];\n";
  text += fmt::format("      subgraph_{}(kernels, {}wirc_inputs, wirc_symbols, wirc_pred, "
                      "wirc_pred_storage, stream);\n",
                      cond.name, hooksArg);
  text += "      if (!wirc::rt::read_bool(wirc_pred[0], stream, \"while_loop\")) {\n";
  text += "        if (!wirc_ran) {\n" + copies + "        }\n        break;\n      }\n";
  text += fmt::format("      wirc::rt::Tensor wirc_next[{}];\n      wirc::rt::Buffer "
                      "wirc_next_storage[{}];\n",
                      n, n);
  text += fmt::format("      subgraph_{}(kernels, {}wirc_inputs, wirc_symbols, wirc_next, "
                      "wirc_next_storage, stream);\n",
                      body.name, hooksArg);
  text += fmt::format("      wirc::rt::Buffer wirc_storage[] = {{{}}};\n", storage);
  text += fmt::format("      for (int i = 0; i < {}; ++i) {{\n", n);
  text += fmt::format("        {0}_items[i] = wirc_next[i];\n        {0}_item_storage[i] = "
                      "std::move(wirc_storage[i]);\n      }}\n",
                      state);
  text += "    }\n  }\n";
}

/// The main graph's integer inputs that nothing reads, which run() takes
/// in `symbols` (function()): any other scalar input is not supported.
bool CppEmitter::isUnreadIntInput(const Function &f, BufferId b) const {
  const BufferInfo &info = module.buffer(b);
  if (info.kind != BufferKind::ScalarInput || f.isSubgraph ||
      info.layout.dtype != graph::DType::Int64)
    return false;
  bool read = false;
  for (const Line &l : f.lines)
    forEachUse(l, [&](BufferId id) { read |= id == b; });
  return !read;
}

/// run()'s comment on `symbols`: how many entries, and of what, with \p gap
/// (a space or a line break) between two of its words.
std::string CppEmitter::symbolList(unsigned entries, unsigned unread, std::string_view gap) {
  if (unread == 0)
    return fmt::format("{} size{}symbols", entries, gap);
  return fmt::format("{} integers (size symbols and{}integer inputs nothing reads)", entries, gap);
}

/// One function's parameters and body: run() for the main graph, a static
/// subgraph_NAME() for each subgraph: a torch.cond branch or an invoked region
/// (same parameters).
std::string CppEmitter::function(const Function &f) {
  externOps.clear();
  externResolution.clear();
  // Size-symbol inputs that the body binds again (a backward that recomputes
  // a data-dependent size its forward returned): Python rebinds the name, so
  // these are variables here, assigned where the body binds them.
  reboundInputs.clear();
  for (const Line &l : f.lines)
    if (const auto *b = std::get_if<SymbolBindingLine>(&l);
        b && b->source != SymbolBindingLine::Source::Input)
      for (BufferId in : f.inputs)
        if (module.buffer(in).kind == BufferKind::SymbolInput && module.buffer(in).name == b->symbol)
          reboundInputs.insert(b->symbol);
  unsigned tensorInputs = 0, symbolInputs = 0, unreadInputs = 0, outputs = 0;
  std::string adopt, prologue;
  for (BufferId b : f.inputs) {
    const BufferInfo &info = module.buffer(b);
    if (info.kind == BufferKind::Input && aoti()) {
      // The caller's handles are taken over first, all of them, so each is
      // deleted at its buffer's last use or when anything fails.
      adopt += fmt::format("  wirc::rt::aoti::Handle {}_h(inputs[{}]);\n", info.name,
                           tensorInputs++);
      prologue += fmt::format("  [[maybe_unused]] const wirc::rt::Tensor {0} = "
                              "{0}_h.tensor(\"{0}\");\n",
                              info.name);
    } else if (info.kind == BufferKind::Input)
      prologue += fmt::format("  const wirc::rt::Tensor {} = inputs[{}];\n", info.name,
                              tensorInputs++);
    else if (info.kind == BufferKind::SymbolInput)
      prologue += fmt::format("  {}int64_t {} = symbols[{}];\n",
                              reboundInputs.count(info.name) ? "" : "const ", info.name,
                              symbolInputs++);
    else if (isUnreadIntInput(f, b)) {
      // An integer the graph is passed and never reads (AOTAutograd hands a
      // backward `s0//2`, which other inputs' symbols give): an entry of
      // `symbols`, in graph input order, as a size symbol's.
      prologue += fmt::format("  [[maybe_unused]] const int64_t {} = symbols[{}];\n", info.name,
                              symbolInputs++);
      ++unreadInputs;
    } else
      unsupported(fmt::format("scalar input '{}'", info.name));
  }
  // The main graph's constants (a frozen model's parameters) follow its
  // tensor inputs in `inputs`: the embedder owns them and passes them on
  // every call, as Inductor's loader sets them on its output module.
  unsigned constants = 0;
  std::string constantList;
  if (!f.isSubgraph) // a subgraph's constants are rejected in emit()
    forEachConstant(module, 0, functionBufferRanges(module)[0], [&](BufferId b) {
      const BufferInfo &info = module.buffer(b);
      unsigned index = tensorInputs + constants++;
      if (aoti()) {
        adopt += fmt::format("  wirc::rt::aoti::Handle {}_h(inputs[{}]);\n", info.name, index);
        prologue += fmt::format("  [[maybe_unused]] const wirc::rt::Tensor {0} = "
                                "{0}_h.tensor(\"{0}\");\n",
                                info.name);
      } else {
        prologue += fmt::format("  [[maybe_unused]] const wirc::rt::Tensor {} = inputs[{}];\n",
                                info.name, index);
      }
      // A constant of the wrong shape would be read silently out of bounds.
      prologue += "  " + sizeStrideCheck(info.name, info.layout.size, info.layout.stride) + "\n";
      constantList += fmt::format("\n///   inputs[{}]: {}, {}, size {}, stride {}", index,
                                  info.name, graph::dtypeName(info.layout.dtype),
                                  sym::toString(info.layout.size),
                                  sym::toString(info.layout.stride));
    });
  std::string text;
  lines = &f.lines;
  for (const Line &l : f.lines) {
    body(text, l);
    if (const auto *o = std::get_if<OutputLine>(&l))
      outputs = static_cast<unsigned>(o->outputs.size());
  }
  std::string head;
  if (f.isSubgraph) {
    head = fmt::format("\n/// Subgraph '{}': {} tensors, {} size symbols in; {} outputs.\n"
                       "static void subgraph_{}",
                       f.name, tensorInputs, symbolInputs, outputs, f.name);
  } else if (aoti()) {
    head = fmt::format(
        "\n/// Runs graph '{}' on \\p stream, which must be PyTorch's current stream of the\n"
        "/// device (the C shim's aten calls run on that one). inputs: {} tensor handles,\n"
        "/// which run() takes over and deletes (each at its last use); symbols: {}, in "
        "graph input order. Writes {} outputs: new tensor handles the\n"
        "/// caller owns (null for None). Throws wirc::rt::Error.\n"
        "void run",
        module.name, tensorInputs, symbolList(symbolInputs, unreadInputs, "\n/// "), outputs);
  } else {
    head = fmt::format(
        "\n/// Runs graph '{}' on \\p stream. inputs: {} tensors; symbols: {}, in\n"
        "/// graph input order. Writes {} outputs (an empty tensor for None);\n"
        "/// output_storage[i] owns outputs[i]'s memory when the wrapper allocated it{}.\n"
        "/// {}Throws wirc::rt::Error on any failure.\n"
        "void run",
        module.name, tensorInputs, symbolList(symbolInputs, unreadInputs, " "), outputs,
        hooks() ? " or an extern hook returned it" : "",
        hooks() ? "Extern kernels call wirc_hooks, each op looked up once per run.\n/// " : "");
  }
  if (constants) {
    constexpr std::string_view kRun = "void run";
    head.insert(head.size() - kRun.size(),
                fmt::format("/// After the tensor inputs, inputs holds the graph's {} constants "
                            "(the module's\n/// parameters and buffers{}), each checked for its "
                            "size and stride:{}\n",
                            constants, aoti() ? "; run() takes these handles over too" : "",
                            constantList));
  }
  if (aoti())
    head += "(Kernels &kernels, AtenTensorHandle *inputs, const int64_t *symbols,\n"
            "         AtenTensorHandle *outputs, CUstream stream) {\n"
            "  (void)kernels;\n  (void)inputs;\n  (void)symbols;\n  (void)outputs;\n  (void)stream;\n";
  else if (hooks())
    head += "(Kernels &kernels, const wirc::rt::ExternHooks &wirc_hooks,\n"
            "         const wirc::rt::Tensor *inputs, const int64_t *symbols,\n"
            "         wirc::rt::Tensor *outputs, wirc::rt::Buffer *output_storage, CUstream "
            "stream) {\n"
            "  (void)kernels;\n  (void)wirc_hooks;\n  (void)inputs;\n  (void)symbols;\n"
            "  (void)outputs;\n  (void)output_storage;\n  (void)stream;\n";
  else
    head += "(Kernels &kernels, const wirc::rt::Tensor *inputs, const int64_t *symbols,\n"
            "         wirc::rt::Tensor *outputs, wirc::rt::Buffer *output_storage, CUstream "
            "stream) {\n"
            "  (void)kernels;\n  (void)inputs;\n  (void)symbols;\n  (void)outputs;\n"
            "  (void)output_storage;\n  (void)stream;\n";
  // Every op is looked up before anything runs: a missing hook fails early.
  if (!externResolution.empty())
    externResolution = "  // Extern ops, each looked up once in the hook table.\n" + externResolution;
  return head + adopt + prologue + externResolution + text + "}\n";
}

std::string CppEmitter::emit() {
  for (const graph::Kernel &kernel : module.kernels)
    if (kernel.language == graph::KernelLanguage::Cpp)
      unsupported(fmt::format("cpp kernel '{}' (a CPU kernel of Inductor's cpp backend, "
                              "which needs PyTorch's headers; --emit=python runs it)",
                              kernel.name));
  for (const BufferInfo &info : module.buffers)
    if (info.kind == BufferKind::Constant && info.function != 0)
      unsupported(fmt::format("constant '{}' of subgraph '{}' (only the main graph's constants "
                              "are passed)",
                              info.name, module.functions[info.function].name));
  std::string images;
  std::swap(out, images);
  kernelImages();
  std::swap(out, images);
  std::set<std::pair<KernelId, unsigned>> written;
  std::string kernelsStruct = "\n/// The graph's kernels, each loaded on its first launch.\nstruct "
                              "Kernels {\n";
  for (const Function &f : module.functions)
    for (const Line &l : f.lines)
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
  std::string launchers;
  std::swap(out, launchers);
  // Subgraphs first: run() calls them.
  std::string functions;
  for (size_t i = 1; i < module.functions.size(); ++i)
    functions += function(module.functions[i]);
  functions += function(module.main());

  std::string header;
  if (aoti())
    header = "// Generated by wirc from graph '{}': a C++ wrapper over PyTorch's AOTI C shim.\n"
             "// Needs the CUDA driver API (-lcuda), wirc's runtime headers, and libtorch's\n"
             "// headers and libraries (the aoti_torch_* functions).\n";
  else if (hooks())
    header = "// Generated by wirc from graph '{}': a standalone CUDA wrapper.\n"
             "// Needs only the CUDA driver API (link with -lcuda) and wirc's runtime headers.\n"
             "// Extern kernels call the embedder's hooks (--cpp-extern=hooks).\n";
  else
    header = "// Generated by wirc from graph '{}': a standalone CUDA wrapper.\n"
             "// Needs only the CUDA driver API (link with -lcuda) and wirc's runtime headers.\n";
  out = fmt::format(fmt::runtime(header), module.name);
  out += fmt::format("#include \"wirc/runtime/{}\"\n", aoti()    ? "Aoti.h"
                                                       : hooks() ? "Extern.h"
                                                                 : "Runtime.h");
  if (needsCpuShim)
    out += "#include <torch/csrc/inductor/aoti_torch/generated/c_shim_cpu.h>\n";
  // <limits>: float arguments JSON cannot spell print as std::numeric_limits
  // (doubleLiteral).
  out += fmt::format("\n#include <limits>\n#include <utility>\n\nnamespace wirc_graph_{} {{\n\n",
                     module.name);
  // Appended piece by piece: the images can be megabytes.
  out.reserve(out.size() + images.size() + launchers.size() + kernelsStruct.size() +
              functions.size() + module.name.size() + 64);
  out += images;
  out += launchers;
  out += kernelsStruct;
  out += "};\n";
  out += functions;
  out += "\n} // namespace wirc_graph_";
  out += module.name;
  out += "\n";
  return std::move(out);
}

} // namespace

std::string emitCpp(const Module &module, const EmitOptions &options) {
  return CppEmitter(module, options).emit();
}

} // namespace wirc::emit
