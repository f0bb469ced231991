//===- wirc/ir/WrapperIR.h - Wrapper IR -----------------------------------===//
//
// Wrapper IR is the program a wrapper runs: allocate, launch, call, free,
// return. A function is a flat, ordered list of lines drawn from a closed set
// of kinds; nothing is a free-form string of target code.
//
// Lines are a std::variant rather than a class hierarchy: the set of kinds is
// closed and small, lines nest only through enter/exit markers, and every
// emitter dispatches with std::visit over an overload set, so adding a kind
// is a compile error in each emitter that does not handle it. (LLVM-style
// Kind/classof pays off for open hierarchies with deep nesting; this is
// neither.)
//
// Tensors are referred to by dense BufferId into the module's buffer table,
// never by pointer, so iteration order and output are deterministic.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_IR_WRAPPERIR_H
#define WIRC_IR_WRAPPERIR_H

#include "wirc/graph/Graph.h"
#include "wirc/support/OutOfLine.h"
#include "wirc/sym/Expr.h"
#include "wirc/sym/ExprList.h"

#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace wirc::ir {

using BufferId = uint32_t;
using KernelId = uint32_t;
using PoolId = uint32_t;
inline constexpr BufferId kNoBuffer = UINT32_MAX;

enum class BufferKind : uint8_t {
  Input,        ///< a tensor graph input
  SymbolInput,  ///< a graph input carrying a size symbol
  ScalarInput,  ///< a graph input carrying a Python scalar
  Constant,     ///< a constant (parameter, buffer) of the compiled module
  Intermediate, ///< owns storage the wrapper allocates or a kernel returns
  View,         ///< a named, non-owning alias of another buffer's storage
};

struct BufferInfo {
  std::string name;
  BufferKind kind = BufferKind::Intermediate;
  graph::Layout layout;            ///< dtype only for scalar inputs
  BufferId viewBase = kNoBuffer;   ///< View: the owning buffer
  unsigned function = 0;           ///< index of the function it belongs to
  bool mutatedInput = false;       ///< Input written in place by the graph
  bool removed = false;            ///< eliminated by fusion; never allocated
  bool isTuple = false;            ///< holds a multi-output op's results; no layout
  bool aliasesInput = false;       ///< an op's result that views one of its inputs
};

struct ValueParts;

/// An operand of a line: a constant, a tensor, a reinterpret view of a
/// tensor, a symbolic integer, or a list/tuple of those. Call arguments are
/// most of a large module's memory and nearly all of them are a bare buffer:
/// a string's text, a view's size and stride and a list's items are held out
/// of line (ValueParts), so that a value takes 48 bytes.
struct Value {
  enum class Kind : uint8_t {
    None, Bool, Int, Float, String, Buffer, View, Expr, DType, Device, List, Tuple, Complex,
  };
  Kind kind = Kind::None;
  bool boolValue = false;
  graph::DType dtype = graph::DType::Float32;
  graph::Device device;
  BufferId buffer = kNoBuffer;    ///< Buffer; View: the base
  int64_t intValue = 0;
  double floatValue = 0;          ///< Float; Complex: the real part
  sym::Expr expr;                 ///< Expr; View: the element offset
  OutOfLine<ValueParts> parts;    ///< String, View, List and Tuple only

  const std::string &text() const;                ///< String
  const sym::ExprList &size() const;     ///< View
  const sym::ExprList &stride() const;   ///< View
  const std::vector<Value> &items() const;        ///< List, Tuple
  /// Complex: the imaginary part, whose bits intValue holds.
  double imagValue() const { return std::bit_cast<double>(intValue); }
  /// The out-of-line parts, made on first use.
  ValueParts &mutableParts();

  static Value ofBuffer(BufferId id) {
    Value v;
    v.kind = Kind::Buffer;
    v.buffer = id;
    return v;
  }
  static Value ofExpr(sym::Expr e) {
    Value v;
    v.kind = Kind::Expr;
    v.expr = std::move(e);
    return v;
  }
};

struct ValueParts {
  std::string text;               ///< String
  sym::ExprList size;   ///< View
  sym::ExprList stride; ///< View
  std::vector<Value> items;       ///< List, Tuple
};

namespace detail {
/// What a value without parts reads as (a function's static: a std::string
/// is not constant-initialized under every compiler wirc builds with).
inline const ValueParts &noValueParts() {
  static const ValueParts none;
  return none;
}
} // namespace detail

inline const std::string &Value::text() const {
  return parts ? parts->text : detail::noValueParts().text;
}
inline const sym::ExprList &Value::size() const {
  return parts ? parts->size : detail::noValueParts().size;
}
inline const sym::ExprList &Value::stride() const {
  return parts ? parts->stride : detail::noValueParts().stride;
}
inline const std::vector<Value> &Value::items() const {
  return parts ? parts->items : detail::noValueParts().items;
}
inline ValueParts &Value::mutableParts() {
  if (!parts)
    parts = ValueParts{};
  return *parts;
}

/// True when two layouts view storage identically (same size, stride and
/// offset): a reuse between them needs no reinterpretation.
inline bool sameView(const graph::Layout &a, const graph::Layout &b) {
  return a.size == b.size && a.stride == b.stride && a.offset == b.offset;
}

/// The bytes a static layout's storage spans (0 when a size is 0), or
/// nullopt when it is symbolic or past int64.
std::optional<int64_t> staticStorageBytes(const graph::Layout &layout);

/// Calls \p fn on every BufferId a value refers to (views: their base).
template <typename Fn> void forEachBuffer(const Value &value, Fn &&fn) {
  if (value.kind == Value::Kind::Buffer || value.kind == Value::Kind::View)
    fn(value.buffer);
  if (value.parts)
    for (const Value &item : value.parts->items)
      forEachBuffer(item, fn);
}

/// Calls \p fn on every expression a value holds (a view's size, stride and
/// offset, list items').
template <typename Fn> void forEachExpr(const Value &value, Fn &&fn) {
  if (value.kind == Value::Kind::Expr || value.kind == Value::Kind::View)
    fn(value.expr);
  if (value.parts) {
    for (const sym::Expr &e : value.parts->size)
      fn(e);
    for (const sym::Expr &e : value.parts->stride)
      fn(e);
    for (const Value &item : value.parts->items)
      forEachExpr(item, fn);
  }
}

//===----------------------------------------------------------------------===//
// Line kinds
//===----------------------------------------------------------------------===//

/// Allocates an intermediate buffer with its layout.
struct AllocateLine {
  BufferId buffer;
};

/// Drops a buffer's name. For intermediates this releases storage (`del`,
/// `.reset()`); for inputs it only drops the wrapper's reference.
struct FreeLine {
  BufferId buffer;
};

/// \c reusedAs takes over the storage of \c old. With \c deleteOld the old
/// name is dead afterwards. \c inPlace marks a kernel's in-place reuse
/// (Inductor's in_out_ptr) as opposed to the memory planner's reuse of a
/// dead buffer.
struct ReuseLine {
  BufferId old;
  BufferId reusedAs;
  bool deleteOld = true;
  bool inPlace = false;
};

struct CommentLine {
  std::string text;
};

/// Allocates a pool: one block of device bytes that planned buffers are
/// carved from (plan-memory's pool and arena strategies).
struct PoolAllocateLine {
  PoolId pool;
};

/// Defines an intermediate buffer, with its own layout, as a view of a pool
/// at a byte offset. The buffer owns no storage: freeing it drops the name.
struct AllocateFromPoolLine {
  BufferId buffer;
  PoolId pool;
  int64_t offset = 0; ///< bytes from the pool's start
};

/// Releases a pool. Every buffer carved from it is dead from here on.
struct PoolFreeLine {
  PoolId pool;
};

/// Makes a kernel available to later calls (Python: async_compile; C++:
/// a lazily loaded module).
struct KernelDefinitionLine {
  KernelId kernel;
};

/// One argument of a launch, in the order Inductor's KernelArgs created them.
/// Removed arguments are not passed but keep their place in the counting:
/// either an argument created here and removed later in the list
/// (!removalEvent), or the removal itself (removalEvent), which may remove an
/// argument created earlier (removesEarlier).
struct CallArg {
  std::string param;                         ///< in_ptr0, out_ptr1, ks0, ... or the signature's name
  graph::ArgRole role = graph::ArgRole::Input;
  graph::ArgRole removedRole = graph::ArgRole::Output; ///< Removed only: the role before
  bool removalEvent = true;   ///< Removed only
  bool removesEarlier = false; ///< Removed removal events only
  /// A one-element CPU tensor passed for a scalar parameter: the launch takes
  /// its value (set by name-kernel-args, which checks it).
  bool readsScalar = false;
  Value value;     ///< Buffer or View for tensor roles (Removed: the buffer), else a scalar
};

inline constexpr uint32_t kNoOrigin = UINT32_MAX;

/// A launch grid: three dimensions, each an integer or symbolic expression.
using Grid = std::array<sym::Expr, 3>;

/// Launches a kernel. \c grids holds one grid per config of the kernel,
/// filled by fold-launch-grids; \c config selects the one this call uses.
struct KernelCallLine {
  KernelId kernel;
  std::vector<CallArg> args;
  std::vector<std::pair<std::string, sym::Expr>> numels;
  unsigned config = 0;
  OutOfLine<Grid> fixedGrid; ///< FixedGrid kernels only
  std::vector<Grid> grids;
  int device = 0;
  /// The graph node's JSON Pointer, for diagnostics: an index into its
  /// function's \c origins (kNoOrigin: none).
  uint32_t origin = kNoOrigin;
};

/// An extern kernel writing into a preallocated output (`out=`).
struct ExternKernelOutLine {
  std::string op;
  std::vector<Value> args;
  std::vector<std::pair<std::string, Value>> kwargs;
  Boxed<Value> out; ///< Buffer or View
  bool fallback = false;
  OutOfLine<std::string> schema; ///< aten schema for --cpp-abi=aoti, if the graph gives one
};

/// An extern kernel or fallback returning a new buffer (or nothing).
struct ExternKernelAllocLine {
  std::string op;
  std::vector<Value> args;
  std::vector<std::pair<std::string, Value>> kwargs;
  OutOfLine<std::vector<BufferId>> mutated; ///< inputs the op writes in place, if any
  OutOfLine<std::string> schema; ///< aten schema for --cpp-abi=aoti, if the graph gives one
  BufferId result = kNoBuffer; ///< kNoBuffer: the op returns nothing
  bool fallback = false;
};

/// `result = source[i][j]...`: unpacks a multi-output op.
struct MultiOutputLine {
  BufferId result;
  BufferId source;
  std::vector<std::pair<std::string, std::string>> indices; ///< (container, key)
};

/// Defines a named view of \c base with the view buffer's own layout.
struct ReinterpretViewLine {
  BufferId view;
  BufferId base;
};

/// Checks a tensor's size and stride at run time.
struct AssertSizeStrideLine {
  BufferId buffer;
  sym::ExprList size;
  sym::ExprList stride;
  std::string what;
};

/// Binds a size symbol to its run-time value: at entry, from a symbol input,
/// an input's size or stride, or an expression of other symbols; mid-function
/// (an unbacked symbol), from what a tensor holds: a size, stride or storage
/// offset, or its one element (`.item()`; a bool's binds 0 or 1).
struct SymbolBindingLine {
  enum class Source : uint8_t { Input, Size, Stride, Expr, StorageOffset, Item };
  std::string symbol;
  Source source = Source::Input;
  /// Input: the symbol input; otherwise the tensor read (a view's base, the
  /// tuple buffer \c index selects from).
  BufferId tensor = kNoBuffer;
  unsigned dim = 0;
  sym::Expr expr; ///< Expr only
  OutOfLine<Value> view; ///< the tensor read is this view of \c tensor
  std::vector<uint32_t> index; ///< items of the tuple buffer \c tensor, outermost first
};

/// Fails at run time with \c message unless `lhs cmp rhs` (a torch._check on
/// data-dependent sizes).
struct AssertScalarLine {
  sym::Expr lhs;
  sym::Expr rhs;
  graph::Compare cmp = graph::Compare::EQ;
  std::string message;

  /// \c message, or the condition where the graph gives none.
  std::string what() const;
};

/// Fills a buffer's storage with zeros (a workspace kernels expect zeroed).
struct ZeroLine {
  BufferId buffer;
};

/// Fails at run time if a tensor holds a NaN or an infinity.
struct AssertFiniteLine {
  BufferId buffer;
};
/// The messages of a failed AssertFiniteLine on \p tensor, where a target
/// checks for NaN and for infinity apart, as Inductor does (FX's
/// `_assert_scalar`).
std::string nanAssertMessage(std::string_view tensor);
std::string infAssertMessage(std::string_view tensor);

struct DeviceGuardEnterLine {
  int device = 0;
};
struct DeviceGuardExitLine {};

/// First line of a subgraph function.
struct SubgraphEnterLine {
  std::string name;
};
/// Last line of a subgraph function.
struct SubgraphExitLine {};

/// torch.cond: runs one of two subgraph functions.
struct CondLine {
  Boxed<Value> predicate; ///< a bool tensor, a bool or an integer, unless
  /// a comparison of sizes (`x.shape[0] > 4`) decides instead.
  std::optional<graph::SizePredicate> compare;
  unsigned trueFunction = 0;
  unsigned falseFunction = 0;
  std::vector<Value> operands;
  std::vector<BufferId> results;    ///< one buffer per subgraph output, or
  BufferId tupleResult = kNoBuffer; ///< one tuple buffer holding them all
};

/// torch.while_loop: calls the cond function on the carried and additional
/// values and, while it returns true, the body function, whose outputs are
/// the next carried values. The final carried values land in a tuple buffer;
/// when the body never runs, they are copies of the initial ones, so the
/// result never aliases an operand.
struct WhileLoopLine {
  unsigned condFunction = 0;
  unsigned bodyFunction = 0;
  std::vector<Value> carried;
  std::vector<Value> additional;
  BufferId tupleResult = kNoBuffer;
};

/// invoke_subgraph: calls a subgraph function; its outputs land in a tuple
/// buffer.
struct InvokeSubgraphLine {
  unsigned function = 0;
  std::vector<Value> operands;
  BufferId tupleResult = kNoBuffer;
};

/// Returns from the function.
struct OutputLine {
  std::vector<Value> outputs;
};

using Line = std::variant<AllocateLine, FreeLine, ReuseLine, CommentLine, KernelDefinitionLine,
                          KernelCallLine, ExternKernelOutLine, ExternKernelAllocLine,
                          MultiOutputLine, ReinterpretViewLine, AssertSizeStrideLine,
                          SymbolBindingLine, DeviceGuardEnterLine, DeviceGuardExitLine,
                          SubgraphEnterLine, SubgraphExitLine, CondLine, WhileLoopLine,
                          InvokeSubgraphLine, OutputLine, PoolAllocateLine,
                          AllocateFromPoolLine, PoolFreeLine, AssertScalarLine, ZeroLine,
                          AssertFiniteLine>;

/// Helper for std::visit over an overload set of lambdas.
template <class... Ts> struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts> Overloaded(Ts...) -> Overloaded<Ts...>;

/// The name of a line kind as --print-ir spells it.
std::string_view lineKindName(const Line &line);

/// Calls \p fn(BufferId) for every buffer a line reads or writes, except
/// those it defines (its allocation, its result). Frees count as uses.
/// (Templates: passes walk every line with them, and a std::function call
/// per buffer was much of their time.)
template <typename Fn> void forEachUse(const Line &line, Fn &&fn) {
  auto values = [&](const std::vector<Value> &list) {
    for (const Value &v : list)
      forEachBuffer(v, fn);
  };
  std::visit(Overloaded{
                 [&](const FreeLine &l) { fn(l.buffer); },
                 [&](const ReuseLine &l) { fn(l.old); },
                 [&](const KernelCallLine &l) {
                   for (const CallArg &arg : l.args)
                     if (arg.role != graph::ArgRole::Removed)
                       forEachBuffer(arg.value, fn);
                 },
                 [&](const ExternKernelOutLine &l) {
                   values(l.args);
                   for (const auto &kv : l.kwargs)
                     forEachBuffer(kv.second, fn);
                   forEachBuffer(l.out, fn);
                 },
                 [&](const ExternKernelAllocLine &l) {
                   values(l.args);
                   for (const auto &kv : l.kwargs)
                     forEachBuffer(kv.second, fn);
                   if (l.mutated)
                     for (BufferId id : *l.mutated)
                       fn(id);
                 },
                 [&](const MultiOutputLine &l) { fn(l.source); },
                 [&](const ReinterpretViewLine &l) { fn(l.base); },
                 [&](const AssertSizeStrideLine &l) { fn(l.buffer); },
                 [&](const ZeroLine &l) { fn(l.buffer); },
                 [&](const AssertFiniteLine &l) { fn(l.buffer); },
                 [&](const SymbolBindingLine &l) {
                   if (l.source != SymbolBindingLine::Source::Input &&
                       l.source != SymbolBindingLine::Source::Expr)
                     fn(l.tensor);
                 },
                 [&](const CondLine &l) {
                   forEachBuffer(l.predicate, fn);
                   values(l.operands);
                 },
                 [&](const WhileLoopLine &l) {
                   values(l.carried);
                   values(l.additional);
                 },
                 [&](const InvokeSubgraphLine &l) { values(l.operands); },
                 [&](const OutputLine &l) { values(l.outputs); },
                 [](const auto &) {},
             },
             line);
}

/// Calls \p fn(BufferId) for every buffer a line defines.
template <typename Fn> void forEachDef(const Line &line, Fn &&fn) {
  std::visit(Overloaded{
                 [&](const AllocateLine &l) { fn(l.buffer); },
                 [&](const AllocateFromPoolLine &l) { fn(l.buffer); },
                 [&](const ReuseLine &l) { fn(l.reusedAs); },
                 [&](const ExternKernelAllocLine &l) {
                   if (l.result != kNoBuffer)
                     fn(l.result);
                 },
                 [&](const MultiOutputLine &l) { fn(l.result); },
                 [&](const ReinterpretViewLine &l) { fn(l.view); },
                 [&](const CondLine &l) {
                   for (BufferId id : l.results)
                     fn(id);
                   if (l.tupleResult != kNoBuffer)
                     fn(l.tupleResult);
                 },
                 [&](const WhileLoopLine &l) { fn(l.tupleResult); },
                 [&](const InvokeSubgraphLine &l) { fn(l.tupleResult); },
                 [](const auto &) {},
             },
             line);
}

/// Calls \p fn(size_t index, const FreeLine &) for each free right after \p at in
/// \p lines (\p at excluded), up to the first line that is not a free. After
/// a subgraph call (invoke_subgraph, cond) these release the operands whose
/// last use the call is: the Python wrapper deletes them before the call,
/// the AOTI one hands them over, so that the subgraph frees each at its own
/// last use.
template <typename Fn>
void forEachFreeAfter(const std::vector<Line> &lines, size_t at, Fn &&fn) {
  for (size_t j = at + 1; j < lines.size(); ++j) {
    const auto *free = std::get_if<FreeLine>(&lines[j]);
    if (!free)
      return;
    fn(j, *free);
  }
}

struct Function {
  std::string name;
  bool isSubgraph = false;
  /// A while_loop's cond: FX passes its one output bare, not in a tuple,
  /// as the while_loop operator expects of its cond function.
  bool returnsPredicate = false;
  std::vector<BufferId> inputs;
  std::vector<Line> lines;
  /// JSON Pointers of the graph nodes its kernel calls came from
  /// (KernelCallLine::origin): kept beside the lines, which stay small.
  std::vector<std::string> origins;

  /// Where \p call came from, or "" when unknown.
  std::string_view originOf(const KernelCallLine &call) const {
    return call.origin < origins.size() ? std::string_view(origins[call.origin])
                                        : std::string_view();
  }
};

/// Figures of one memory plan (one device of one function), filled by
/// plan-memory for --stats and the manifest. Bytes are evaluated at the size
/// hints; the expressions are the symbolic forms (empty when static). No
/// timings: everything here reaches deterministic output.
struct MemoryPlanStats {
  std::string function;   ///< the function's name
  std::string device;     ///< "cuda:0"
  std::string strategy;   ///< none, reuse, pool or arena
  int64_t lowerBound = 0; ///< max over time of live aligned bytes
  int64_t peak = 0;       ///< the plan's peak
  std::string lowerBoundExpr;
  std::string peakExpr;
  /// The plan kept: the strategy's own, or "reuse" where the arena kept the
  /// reuse plan because its own peak was higher.
  std::string method;
  unsigned pools = 0; ///< pools (or arenas) of this function on this device
};

/// A pool of device memory planned buffers are carved from: a uint8 block
/// of a static size, allocated by a pool.alloc line and released by a
/// pool.free line of one function.
struct PoolInfo {
  std::string name; ///< pool0, arena0, ...: unique among the module's names
  graph::Device device;
  int64_t bytes = 0;
  unsigned function = 0; ///< index of the function it belongs to
};

struct Module {
  std::string name;
  std::vector<MemoryPlanStats> memoryStats; ///< one per planned function and device
  std::vector<PoolInfo> pools;
  std::vector<BufferInfo> buffers;
  std::vector<graph::Kernel> kernels;
  std::vector<graph::Symbol> symbols;
  std::vector<Function> functions; ///< functions[0] is the main graph

  Function &main() { return functions.front(); }
  const Function &main() const { return functions.front(); }
  const BufferInfo &buffer(BufferId id) const { return buffers.at(id); }
  const graph::Kernel &kernel(KernelId id) const { return kernels.at(id); }
  const PoolInfo &pool(PoolId id) const { return pools.at(id); }
  /// Size hints of every symbol.
  sym::SymbolValues hints() const;
};

/// Per function, the ids of its buffers: [first, last + 1), empty for none.
/// Builders number a function's buffers together, so per-function work on
/// per-buffer tables of the module touches its range, not the whole table.
std::vector<std::pair<BufferId, BufferId>> functionBufferRanges(const Module &module);

/// Calls \p fn with the id of each constant of function \p f, in id order;
/// \p range is the function's entry of functionBufferRanges.
template <typename Fn>
void forEachConstant(const Module &module, unsigned f, std::pair<BufferId, BufferId> range,
                     Fn &&fn) {
  for (BufferId b = range.first; b < range.second; ++b)
    if (module.buffers[b].function == f && module.buffers[b].kind == BufferKind::Constant)
      fn(b);
}

/// Prints the module in wirc's stable textual Wrapper IR form (--print-ir).
std::string printModule(const Module &module);

} // namespace wirc::ir

#endif // WIRC_IR_WRAPPERIR_H
