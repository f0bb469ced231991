//===- wirc/graph/Graph.h - An Inductor graph after scheduling ------------===//
//
// The in-memory form of a graph-format document (docs/graph-format.md): what
// Inductor's scheduler hands to wrapper codegen. The reader validates every
// invariant the rest of wirc relies on, so passes can trust this structure:
// names are identifiers and unique, references resolve, every buffer is
// defined before it is used.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_GRAPH_GRAPH_H
#define WIRC_GRAPH_GRAPH_H

#include "wirc/support/OutOfLine.h"
#include "wirc/sym/Expr.h"
#include "wirc/sym/ExprList.h"

#include <cstdint>
#include <map>
#include <memory>
#include <bit>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

namespace wirc::graph {

inline constexpr std::string_view kFormatName = "wirc.graph";
inline constexpr int kFormatVersion = 1;

enum class DType : uint8_t {
  Bool,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt16,
  UInt32,
  UInt64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  Complex64,
  Complex128,
  Float8E4M3FN,
  Float8E5M2,
};

/// The graph-format spelling ("float32"), which is also torch's attribute name.
std::string_view dtypeName(DType dtype);
std::optional<DType> parseDType(std::string_view name);
/// Bytes per element.
unsigned dtypeSize(DType dtype);
/// Bool and the integer dtypes: those whose element binds a size (`.item()`).
bool isIntegral(DType dtype);

struct Device {
  enum class Kind : uint8_t { CPU, CUDA };
  Kind kind = Kind::CUDA;
  int index = 0; ///< always 0 for CPU

  friend bool operator==(const Device &, const Device &) = default;
};
/// "cuda:0" or "cpu".
std::string deviceName(const Device &device);
std::optional<Device> parseDevice(std::string_view text);

/// A strided tensor layout; sizes, strides and offset may be symbolic.
struct Layout {
  DType dtype = DType::Float32;
  Device device;
  sym::ExprList size;
  sym::ExprList stride;
  sym::Expr offset;
};

/// "Not resolved" for the tensor indices below. The reader resolves the
/// tensor references it validates to the tensor's position in its graph's
/// inputs (symbol ones included), constants and buffers, in that order, so
/// that later stages need not look the name up again. (A cond's results,
/// which are rare, are not resolved: that would make every node larger.)
/// Graphs built or edited in memory leave (or reset) them unresolved; users
/// fall back to the name.
inline constexpr uint32_t kNoTensor = UINT32_MAX;

/// A reinterpretation of another buffer's storage (Inductor's ReinterpretView):
/// same dtype and device as the base, its own size, stride and element offset.
struct View {
  std::string base;
  uint32_t baseId = kNoTensor;
  sym::ExprList size;
  sym::ExprList stride;
  sym::Expr offset;
};

/// A value passed to an extern kernel, a fallback, a condition or returned as
/// an output. Lists and tuples nest.
struct Value {
  enum class Kind : uint8_t {
    None,
    Bool,
    Int,
    Float,
    String,
    Buffer, ///< a tensor by name: input, constant or buffer
    View,   ///< an anonymous reinterpret view of a tensor
    Expr,   ///< a symbolic integer
    DType,
    Device,
    List,
    Tuple,
    Complex, ///< a complex number (a Python complex argument: `x + 1j`)
  };
  Kind kind = Kind::None;
  bool boolValue = false;
  uint32_t tensor = kNoTensor; ///< Buffer: the resolved \c text
  int64_t intValue = 0;
  double floatValue = 0;       ///< Float; Complex: the real part

  /// Complex: the imaginary part, whose bits intValue holds (a rare kind
  /// gets no field of its own).
  double imagValue() const { return std::bit_cast<double>(intValue); }
  void setComplex(double real, double imag) {
    kind = Kind::Complex;
    floatValue = real;
    intValue = std::bit_cast<int64_t>(imag);
  }
  std::string text; ///< String contents or Buffer name
  sym::Expr expr;
  DType dtype = DType::Float32;
  Device device;
  OutOfLine<View> view;
  std::vector<Value> items;
};

enum class InputKind : uint8_t { Tensor, Symbol, Scalar };

struct Input {
  std::string name;
  InputKind kind = InputKind::Tensor;
  Layout layout;  ///< Tensor inputs
  DType dtype = DType::Int64; ///< Scalar inputs: int64, float64 or bool
  bool mutated = false; ///< the graph writes this input in place
};

/// A size symbol. Its value at run time comes from a symbol input, from the
/// size or stride of a tensor input, or (for precomputed sizes) from \c expr.
struct Symbol {
  std::string name;
  int64_t hint = 0; ///< the example value Inductor compiled for
  std::optional<sym::Expr> expr;
  /// Data-dependent (Inductor's unbacked SymInt): bound mid-graph by a
  /// bind_symbol node, from what a tensor holds at run time.
  bool unbacked = false;
  /// A data-dependent float (Inductor's unbacked SymFloat, `zuf0`): always
  /// unbacked, bound by an item read of a floating-point tensor, and used
  /// only by itself as a value, never in a size or expression.
  bool isFloat = false;
};

/// The hint of an unbacked symbol the document gives none (Inductor's
/// unbacked_symint_fallback): plans compare such sizes symbolically, the
/// hint only weighs estimates.
inline constexpr int64_t kUnbackedHint = 8192;

struct Constant {
  std::string name;
  Layout layout;
};

/// An intermediate buffer. Buffers with \c viewOf are non-owning aliases of
/// another buffer's storage; removed buffers were eliminated by fusion and
/// are never allocated or passed; tuple buffers hold the several results of
/// a multi-output op (Inductor's MultiOutputLayout) and have no layout.
struct Buffer {
  std::string name;
  Layout layout;
  std::optional<std::string> viewOf;
  uint32_t viewOfId = kNoTensor;
  bool removed = false;
  bool isTuple = false;
  /// Returned by an op as a view of one of its inputs (a view op's result):
  /// its storage is the input's, so it is never handed to another buffer.
  bool aliasesInput = false;
};

/// Cpp: a C++ CPU kernel of Inductor's cpp backend (`cpp_fused_*`), called
/// through `async_compile.cpp_pybinding` with the tensors' data pointers.
enum class KernelLanguage : uint8_t { Triton, PTX, CUDA, LLVM, Cpp };
std::string_view kernelLanguageName(KernelLanguage language);

/// How a launch grid is derived from numels and a config (torch 2.11's
/// GridExpr classes).
enum class GridType : uint8_t {
  Grid1D,
  Grid2D,
  Grid3D,
  Grid2DWithYZOverflow,
  CooperativeReductionGrid,
  SplitScanGrid,
  FixedGrid,
  PrecomputedGrid,
  BatchMatmulGrid3D,
  SequentialComboKernelGrid,
  RoundRobinComboKernelGrid,
};
std::string_view gridTypeName(GridType type);
std::optional<GridType> parseGridType(std::string_view name);

struct KernelParam {
  std::string name;
  std::string type; ///< Triton signature type ("*fp32", "i32", "constexpr", ...)
};

/// Compiled code for one config, as produced by Triton or another compiler.
struct KernelArtifacts {
  std::string ptx;
  std::string cubinBase64;
  /// The cubin as bytes, once wirc's kernel compiler built (or found) it;
  /// emitters prefer it to cubinBase64, which the document carries.
  std::string cubin;
  std::string entryName; ///< the mangled entry point, if it differs from the kernel name
  int64_t sharedMemBytes = 0;
  int64_t globalScratchBytes = 0;
  int64_t profileScratchBytes = 0;
};

struct KernelConfig {
  /// Block sizes and other tuned constexprs, in the order the document gives.
  std::vector<std::pair<std::string, int64_t>> kwargs;
  int numWarps = 4;
  int numStages = 1;
  /// PrecomputedGrid only: the grid for this config.
  std::optional<std::vector<sym::Expr>> grid;
  std::optional<KernelArtifacts> artifacts;

  std::optional<int64_t> kwarg(std::string_view name) const;
};

/// A combo kernel's grid: sub-kernels (the parts of a foreach or combo
/// kernel) launched together, each over its own numels. Sequential grids
/// give each part its own blocks, one after another along x; round-robin
/// grids interleave them, as many blocks per part as the largest needs; y
/// covers the largest part, split over z past CUDA's 65535 (torch 2.11's
/// ComboKernelGrid).
struct ComboGrid {
  struct Part {
    /// The part's numels: fixed by the kernel, or passed by each launch as
    /// numel `xnumel_<i>` (`ynumel_<i>`) where absent.
    std::optional<sym::Expr> xnumel, ynumel;
    bool hasY = false;   ///< whether the part has a y dimension
    bool noXDim = false; ///< one block per x element, not XBLOCK
  };
  std::vector<Part> parts;
  int64_t minBlocks = 0; ///< the least x blocks a launch gets
  /// Block sizes for configs that do not set them.
  std::vector<std::pair<std::string, int64_t>> defaultConfig;

  static bool isCombo(GridType type) {
    return type == GridType::SequentialComboKernelGrid ||
           type == GridType::RoundRobinComboKernelGrid;
  }
};

struct Kernel {
  std::string name;
  std::string entry; ///< the function the source defines, when not \c name
  KernelLanguage language = KernelLanguage::Triton;
  std::string source;
  std::vector<KernelParam> signature; ///< empty when unknown
  /// The source spells its name KERNEL_NAME and its parameters PARAM_0,
  /// PARAM_1, ...; name-kernel-args substitutes the assigned names.
  bool placeholders = false;
  /// Launched with all its blocks resident at once (Triton's
  /// launch_cooperative_grid: a cooperative reduction's blocks wait for
  /// each other).
  bool cooperative = false;
  GridType gridType = GridType::Grid1D;
  std::vector<KernelConfig> configs;
  /// Combo grid types only.
  std::optional<ComboGrid> combo;

  /// The function the source defines: \c entry, or the kernel's name.
  const std::string &entryName() const { return entry.empty() ? name : entry; }
};
/// A Triton scalar type a launch passes by value ("i32", "fp32", ...).
bool isTritonScalarType(std::string_view type);

/// What a Triton kernel argument is for; drives in_ptr/out_ptr/in_out_ptr/ks
/// naming and liveness.
enum class ArgRole : uint8_t {
  Input,   ///< read
  Output,  ///< written
  InOut,   ///< read and written in place
  Removed, ///< eliminated by fusion; not passed, but counted when naming
  Size,    ///< a symbolic size (ksN)
  Scalar,  ///< any other scalar argument
};
std::string_view argRoleName(ArgRole role);

struct KernelArg {
  ArgRole role = ArgRole::Input;
  uint32_t bufferId = kNoTensor; ///< \c buffer resolved
  std::string name;   ///< the parameter name if the document gives one
  std::string buffer; ///< Input, Output, InOut, Removed: the tensor
  OutOfLine<View> view; ///< Input/Output/InOut through a reinterpret view
  /// InOut: the buffer name the kernel's result carries (Inductor's in-place
  /// reuse, `buf3 = buf1; del buf1`); empty when it keeps the input's name.
  std::string result;
  ArgRole removedRole = ArgRole::Output; ///< Removed: what the argument was
  uint32_t resultId = kNoTensor; ///< \c result resolved
  OutOfLine<Value> value; ///< Size and Scalar
};

struct KernelCallNode {
  std::string kernel;
  std::vector<KernelArg> args;
  std::vector<std::pair<std::string, sym::Expr>> numels; ///< xnumel, r0_numel, ...
  unsigned config = 0;                      ///< index into the kernel's configs
  OutOfLine<std::vector<sym::Expr>> grid; ///< FixedGrid only
};

/// An extern kernel (extern_kernels.mm, aten.topk.default, ...).
struct ExternNode {
  std::string op;
  std::vector<Value> args;
  std::vector<std::pair<std::string, Value>> kwargs;
  OutOfLine<Value> out;          ///< out= form: the buffer (or view) written
  std::optional<std::string> result; ///< allocating form: the buffer returned
  std::vector<std::string> mutated; ///< inputs the op writes in place
  uint32_t resultId = kNoTensor;   ///< \c result resolved
  std::vector<uint32_t> mutatedIds; ///< \c mutated resolved, if not empty
  bool fallback = false;         ///< an aten fallback rather than an extern kernel
  std::string schema;            ///< the aten schema of the C shim call, or ""
};

struct MultiOutputNode {
  std::string result;
  std::string source;
  uint32_t resultId = kNoTensor;
  uint32_t sourceId = kNoTensor;
  /// Nested index path: ("tuple"|"list", index) or ("dict", key).
  std::vector<std::pair<std::string, std::string>> indices;
};

struct AssertSizeStrideNode {
  std::string buffer;
  uint32_t bufferId = kNoTensor;
  sym::ExprList size;
  sym::ExprList stride;
  std::string what; ///< the op whose output is checked, for the message
};

struct DeviceGuardEnterNode {
  int index = 0;
};
struct DeviceGuardExitNode {};

struct CommentNode {
  std::string text;
};

enum class Compare : uint8_t { EQ, NE, LT, LE, GT, GE };
/// `==`, `!=`, `<`, `<=`, `>`, `>=`.
std::string_view compareSpelling(Compare cmp);
/// Python's operator module name: `eq`, `ne`, `lt`, `le`, `gt`, `ge`.
std::string_view compareOperatorName(Compare cmp);

/// A comparison of symbolic integers, `lhs cmp rhs`: an assert_scalar's
/// condition, or a torch.cond predicate on sizes (`x.shape[0] > 4`, a SymBool
/// in PyTorch).
struct SizeComparison {
  sym::Expr lhs;
  sym::Expr rhs;
  Compare cmp = Compare::EQ;
};

/// A torch.cond predicate on sizes: one comparison, or several that must
/// all hold (`and`, sympy's And) or of which one must (`or`, sympy's Or).
struct SizePredicate {
  std::vector<SizeComparison> terms; ///< at least one
  bool any = false;                  ///< joined by `or`, not `and`
};

/// torch.cond: runs one of two subgraphs on the operands.
struct CondNode {
  Value predicate;                      ///< a bool tensor, a bool or an integer, or
  std::optional<SizePredicate> compare; ///< a predicate on sizes (predicate unused)
  std::string trueGraph;
  std::string falseGraph;
  std::vector<Value> operands;
  std::vector<std::string> results; ///< one buffer per subgraph output, or
  std::string result;               ///< one tuple buffer holding all of them
};

/// torch.while_loop: runs the body subgraph on the carried values while the
/// cond subgraph returns true; the final carried values land in a tuple
/// buffer.
struct WhileLoopNode {
  std::string condGraph;
  std::string bodyGraph;
  std::vector<Value> carried;    ///< the initial carried values
  std::vector<Value> additional; ///< passed to both subgraphs unchanged
  std::string result;            ///< the tuple buffer of the final carried values
};

/// invoke_subgraph: calls a subgraph (a torch.compiler.nested_compile_region,
/// which several nodes may call); its outputs land in a tuple buffer.
struct InvokeSubgraphNode {
  std::string graph;
  std::vector<Value> operands;
  std::string result; ///< the tuple buffer of the subgraph's outputs
};

/// Binds an unbacked symbol to what a tensor holds at run time: a size, a
/// stride, the storage offset, or its one element (`.item()`; a bool's is
/// bound as 0 or 1); or to an expression of symbols bound before it (a
/// slice's length, computed from data-dependent bounds).
struct BindSymbolNode {
  enum class Read : uint8_t { Size, Stride, StorageOffset, Item, Expr };
  std::string symbol;
  sym::Expr expr;             ///< Expr only
  Value tensor;               ///< a buffer or view; a tuple buffer with \c index
  std::vector<uint32_t> index; ///< items of a tuple buffer, outermost first
  Read read = Read::Size;
  unsigned dim = 0; ///< Size, Stride
};
std::string_view bindReadName(BindSymbolNode::Read read);

/// A run-time check on symbols (Inductor's AssertScalar: a torch._check on a
/// data-dependent value): fails with \c message unless \c condition holds.
struct AssertScalarNode {
  SizeComparison condition;
  std::string message;
};

/// Fills a buffer with zeros (a workspace that kernels expect zeroed, as
/// Inductor's `ws.zero_()`): defines the buffer if nothing wrote it before.
struct ZeroNode {
  std::string buffer;
  uint32_t bufferId = kNoTensor; ///< \c buffer resolved
};

/// Fails at run time if a tensor holds a NaN or an infinity (Inductor's
/// `nan_asserts`, after each kernel and on every tensor input).
struct AssertFiniteNode {
  std::string buffer;
  uint32_t bufferId = kNoTensor; ///< \c buffer resolved
};

// Extern, assert and subgraph-calling nodes are held out of line: a node is as large as
// its largest kind, and kernel calls and comments are most of a graph.
using NodeBody = std::variant<KernelCallNode, Boxed<ExternNode>, MultiOutputNode,
                              Boxed<AssertSizeStrideNode>, DeviceGuardEnterNode,
                              DeviceGuardExitNode, CommentNode, Boxed<CondNode>,
                              Boxed<WhileLoopNode>, Boxed<InvokeSubgraphNode>,
                              Boxed<BindSymbolNode>, Boxed<AssertScalarNode>, ZeroNode,
                              AssertFiniteNode>;

struct Node {
  NodeBody body;
  std::string pointer; ///< JSON Pointer of the node, for diagnostics
};

/// Calls \p fn(node, name, field) for every subgraph \p nodes call: a cond's
/// branches, a while_loop's cond and body, an invoke_subgraph's graph, in
/// node order; field is the node's member that names it ("true_graph", ...).
template <typename Fn> void forEachSubgraphCall(const std::vector<Node> &nodes, Fn &&fn) {
  for (const Node &node : nodes) {
    if (const auto *cond = std::get_if<Boxed<CondNode>>(&node.body)) {
      fn(node, (*cond)->trueGraph, "true_graph");
      fn(node, (*cond)->falseGraph, "false_graph");
    } else if (const auto *loop = std::get_if<Boxed<WhileLoopNode>>(&node.body)) {
      fn(node, (*loop)->condGraph, "cond_graph");
      fn(node, (*loop)->bodyGraph, "body_graph");
    } else if (const auto *invoke = std::get_if<Boxed<InvokeSubgraphNode>>(&node.body)) {
      fn(node, (*invoke)->graph, "subgraph");
    }
  }
}

/// One graph: the top-level document or one of its subgraphs.
struct Graph {
  std::string name;
  std::vector<Input> inputs;
  std::vector<Symbol> symbols; ///< top level only
  std::vector<Constant> constants;
  std::vector<Buffer> buffers;
  std::vector<Node> nodes;
  std::vector<Value> outputs;
  std::string pointer; ///< "" for the top level, "/subgraphs/N" otherwise
};

/// Hashes std::string and std::string_view alike, so that a table keyed by
/// strings is searched with a view and no temporary string.
struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

/// A whole graph-format document.
struct Document {
  Graph main;
  std::vector<Graph> subgraphs;
  std::vector<Kernel> kernels;
  /// Kernel name to index in \c kernels; built by the reader.
  std::unordered_map<std::string, size_t, NameHash, std::equal_to<>> kernelIndex;
  /// Subgraph name to index in \c subgraphs; built by the reader (without
  /// it, findSubgraph searches).
  std::unordered_map<std::string, size_t, NameHash, std::equal_to<>> subgraphIndex;

  /// Indices into \c subgraphs, each after every subgraph it calls
  /// (through cond and while_loop nodes); built by the reader, which rejects
  /// calls that loop back.
  std::vector<size_t> subgraphOrder;
  /// Graphs whose nodes the reader checked in parts, on threads (statistics:
  /// nothing else depends on it).
  unsigned graphsCheckedInParts = 0;

  const Kernel *findKernel(std::string_view name) const;
  const Graph *findSubgraph(std::string_view name) const;
  /// Size hints of every symbol, for evaluating sizes at example values.
  sym::SymbolValues hints() const;
};

} // namespace wirc::graph

#endif // WIRC_GRAPH_GRAPH_H
