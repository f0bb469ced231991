//===- FxEmitter.cpp - Wrapper IR as a printed torch.fx graph -------------===//
//
// Prints each function as torch.fx prints a Graph: placeholders, one node
// per operation with its user count, and a return. The node forms follow
// the FX conversion of Inductor's Wrapper IR (PyTorch PR 146942):
// allocations are torch.empty_strided, Triton launches are
// triton_kernel_wrapper_mutation with the grid folded per config, frees are
// calls to wrapper_fxir.delete, views are torch.as_strided, multi-output
// unpacking is operator.getitem. Size asserts, which upstream cannot
// convert, become aten._assert_tensor_metadata.
//
// Layout rules that make the text reproducible (documented in docs/emit-fx.md):
// a single output still prints as a tuple `(buf0,)`; size and stride print as
// tuples unless the stride is symbolic, then as lists; a static grid prints
// as a tuple without trailing 1s, a symbolic one as a list of three.
//
//===----------------------------------------------------------------------===//
#include "wirc/emit/Emitter.h"

#include "wirc/support/Diagnostics.h"
#include "wirc/support/Names.h"
#include "wirc/support/PagePopulator.h"

#include "FxNames.h"
#include "PoolOffsets.h"
#include "PythonText.h"

#include <fmt/format.h>

#include <span>
#include <algorithm>
#include <charconv>
#include <cstring>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <unordered_map>

namespace wirc::emit {

// Literals appended as string_views: the length is known here, not counted
// at run time.
using namespace std::string_view_literals;

namespace {

using namespace wirc::ir;

/// Room reserved per node for a graph's text written in place: about twice
/// what a node's line takes.
constexpr size_t kInPlaceBytesPerNode = 320;

/// A node per input, constant and line, about.
size_t expectedNodes(const Function &function) {
  return function.inputs.size() + function.lines.size() + 16;
}

/// Module-wide state: kernel side-table indices are shared by all graphs.
struct SideTables {
  std::unordered_map<KernelId, unsigned> kernelIndex;
  unsigned nextKernelIndex = 0;
  unsigned nextConstantArgsIndex = 0;
  /// Precomputed symbols (ks0 = s0*s1) have no FX node of their own; their
  /// expressions are printed in their place.
  std::map<std::string, sym::Expr, std::less<>> precomputed;
  /// The printed text of each symbolic expression: launches and layouts
  /// repeat a few expressions many times.
  std::unordered_map<sym::Expr, std::string> exprText;
};

constexpr unsigned kNoNode = ~0u;

/// The node of \p id in a node table. Verified IR defines every buffer and
/// pool before its use, so a miss is a bug.
unsigned nodeAt(const std::vector<unsigned> &table, unsigned id) {
  if (id >= table.size() || table[id] == kNoNode)
    throw InternalError(fmt::format("FX emitter: id {} is used before its node is defined", id));
  return table[id];
}

/// Every node's line ends in its arguments, then `, kwargs = {}` for most.
constexpr std::string_view kNoKwargs = ", kwargs = {}";

/// Per-buffer tables of the graph printers, sized to the module once: each
/// function's printer puts back the entries of the buffers it names, so a
/// module of many subgraphs costs its size, not its size times its functions.
struct BufferTables {
  explicit BufferTables(const Module &module)
      : node(module.buffers.size(), kNoNode), viewCount(module.buffers.size(), 0),
        handedOn(module.buffers.size(), false), ranges(functionBufferRanges(module)) {}
  std::vector<unsigned> node;
  std::vector<unsigned> viewCount;
  std::vector<bool> handedOn;
  std::vector<std::pair<BufferId, BufferId>> ranges; ///< by function: its buffers' ids

  /// Puts back the entries of a function's buffers, ids [first, second).
  void reset(std::pair<BufferId, BufferId> range) {
    for (BufferId b = range.first; b < range.second; ++b) {
      node[b] = kNoNode;
      viewCount[b] = 0;
      handedOn[b] = false;
    }
  }
};

class FxGraphPrinter {
public:
  /// \p writeInPlace: the output has room prepared for this graph's text
  /// (EmitOptions::textStorage), which is then written in place whatever its
  /// size.
  FxGraphPrinter(const Module &module, const Function &function, SideTables &tables,
                 BufferTables &buffers, const EmitOptions &options, std::string &out,
                 bool writeInPlace)
      : module(module), function(function), tables(tables), options(options),
        buffers(buffers), out(out),
        nodeText(writeInPlace || function.lines.size() >= kPopulateFromLines
                     ? inPlace.emplace(out)
                     : aside),
        bufferNode(buffers.node), viewCount(buffers.viewCount), handedOn(buffers.handedOn) {}

  /// Appends the graph's text to the output.
  void print();

private:
  /// A node's line goes into nodeText as it is made, its user count (known
  /// only at the end) in a slot of kCountWidth blanks that print() fills in
  /// at the end, closing the gap.
  struct FxNode {
    std::string_view name; ///< in names
    size_t countSlot;      ///< where in nodeText its user count goes
  };
  static constexpr size_t kCountWidth = 10; // the digits of any unsigned

  const Module &module;
  const Function &function;
  SideTables &tables;
  const EmitOptions &options;
  BufferTables &buffers;
  std::vector<FxNode> nodes;
  /// Per node: how many nodes use it, and the last user that counted it.
  /// Views are built while another node's arguments are, so they keep
  /// their own record.
  std::vector<unsigned> users, countedBy, countedByView;
  /// The graph's text. A large graph's is written in place into the
  /// output; a small one's is built aside and appended, in memory the
  /// allocator reuses from call to call (a growing output string would be
  /// mapped afresh by each call in a process that compiles many graphs).
  std::string &out;
  std::optional<TextBuffer> inPlace;
  TextBuffer aside;
  TextBuffer &nodeText;
  /// Per buffer and per pool: its node, or kNoNode.
  std::vector<unsigned> &bufferNode;
  std::vector<unsigned> poolNode = std::vector<unsigned>(module.pools.size(), kNoNode);
  std::vector<unsigned> &viewCount;
  /// Per buffer: a tuple whose node lives on as a multi_output result with
  /// no index (the same value), so freeing the tuple does not end the node.
  std::vector<bool> &handedOn;
  FxNames names;
  /// The user that references count for: the node being built, or
  /// kOutputUser between nodes, where only the output line refers to nodes.
  unsigned user = kOutputUser;
  unsigned nextUser = kOutputUser + 1;
  std::vector<unsigned> *counted = &countedBy;
  TextBuffer outputText;
  std::vector<unsigned> outputRefs;
  // Reused for every node: the node being built, and a view node built
  // while a node's arguments are.
  TextBuffer text, viewText, viewName, scratch, suffixed;
  /// The launches' name as a base of suffixed names, once taken.
  std::optional<unsigned> launchName;

  static constexpr unsigned kOutputUser = 0;

  /// FX's namespace rule: a taken name gets `_1`, `_2`, ... appended.
  std::string_view uniqueName(std::string_view candidate) {
    return names.unique(candidate);
  }

  /// Starts a node's references: each node it uses counts it once.
  void beginUser() { user = nextUser++; }

  /// Starts the line of node \p name; its text follows at once.
  void beginNode(std::string_view name) {
    constexpr std::string_view kSlot = "          ] = "; // kCountWidth blanks
    static_assert(kSlot.size() == kCountWidth + 4);
    nodeText += "    %"sv;
    nodeText += name;
    nodeText += " : [num_users="sv;
    countSlot = nodeText.size();
    nodeText += kSlot;
  }
  size_t countSlot = 0;

  /// Adds the node whose line beginNode started.
  unsigned endNode(std::string_view name) {
    nodes.push_back({name, countSlot});
    users.push_back(0);
    countedBy.push_back(kOutputUser);
    countedByView.push_back(kOutputUser);
    return static_cast<unsigned>(nodes.size() - 1);
  }

  /// A placeholder or get_attr node.
  unsigned addAttrNode(std::string_view name, std::string_view op, std::string_view target) {
    std::string_view unique = uniqueName(name);
    beginNode(unique);
    nodeText += op;
    nodeText += "[target="sv;
    nodeText += target;
    nodeText += "]\n"sv;
    return endNode(unique);
  }

  /// A get_attr node of subgraph function \p f, named after it.
  unsigned subgraphAttr(unsigned f) {
    const std::string &name = module.functions[f].name;
    return addAttrNode(name, "get_attr", name);
  }

  void appendRef(TextBuffer &s, unsigned node) {
    if (user == kOutputUser)
      outputRefs.push_back(node);
    else if ((*counted)[node] != user) {
      (*counted)[node] = user;
      ++users[node];
    }
    s += '%';
    s += nodes[node].name;
  }

  PoolOffsets pools{module};

  void appendBuffer(TextBuffer &s, BufferId b) {
    if (b >= bufferNode.size() || bufferNode[b] == kNoNode)
      throw InternalError(fmt::format("FX: buffer %{} has no node", module.buffer(b).name));
    appendRef(s, bufferNode[b]);
  }

  void appendExpr(TextBuffer &s, const sym::Expr &e) {
    if (auto c = e.constant()) {
      s.appendInt(*c);
      return;
    }
    auto it = tables.exprText.find(e);
    if (it == tables.exprText.end())
      it = tables.exprText
               .emplace(e, tables.precomputed.empty()
                               ? sym::printFx(e)
                               : sym::printFx(sym::substitute(e, tables.precomputed)))
               .first;
    s += it->second;
  }

  /// The tuple `(a, b)` / `(a,)` or the list `[a, b]` of \p list.
  void appendExprs(TextBuffer &s, std::span<const sym::Expr> list, bool asList) {
    s += asList ? '[' : '(';
    for (size_t i = 0; i < list.size(); ++i) {
      if (i)
        s += ", "sv;
      appendExpr(s, list[i]);
    }
    s += asList ? "]" : list.size() == 1 ? ",)" : ")";
  }

  /// `size, stride` as FX prints them for Inductor: tuples, or lists when a
  /// stride is symbolic.
  void appendSizeStride(TextBuffer &s, std::span<const sym::Expr> size,
                        std::span<const sym::Expr> stride) {
    bool symbolicStride = std::any_of(stride.begin(), stride.end(),
                                      [](const sym::Expr &e) { return !e.isConstant(); });
    appendExprs(s, size, symbolicStride);
    s += ", "sv;
    appendExprs(s, stride, symbolicStride);
  }

  static std::string floatRepr(double v) {
    if (std::isnan(v))
      return "nan";
    if (std::isinf(v))
      return v > 0 ? "inf" : "-inf";
    std::string s = fmt::format("{}", v);
    if (s.find_first_of(".e") == std::string::npos)
      s += ".0"sv;
    return s;
  }

  void appendValue(TextBuffer &s, const Value &v) {
    switch (v.kind) {
    case Value::Kind::None:
      s += "None"sv;
      return;
    case Value::Kind::Bool:
      s += v.boolValue ? "True" : "False";
      return;
    case Value::Kind::Int:
      s.appendInt(v.intValue);
      return;
    case Value::Kind::Float:
      s += floatRepr(v.floatValue);
      return;
    case Value::Kind::Complex:
      s += pythonComplex(v.floatValue, v.imagValue(), false);
      return;
    case Value::Kind::String:
      s += pythonStringLiteral(v.text());
      return;
    case Value::Kind::Buffer:
      appendBuffer(s, v.buffer);
      return;
    case Value::Kind::View:
      appendRef(s, viewNode(v));
      return;
    case Value::Kind::Expr:
      appendExpr(s, v.expr);
      return;
    case Value::Kind::DType:
      s += "torch."sv;
      s += graph::dtypeName(v.dtype);
      return;
    case Value::Kind::Device:
      s += graph::deviceName(v.device);
      return;
    case Value::Kind::List:
    case Value::Kind::Tuple: {
      bool list = v.kind == Value::Kind::List;
      s += list ? '[' : '(';
      const std::vector<Value> &items = v.items();
      for (size_t i = 0; i < items.size(); ++i) {
        if (i)
          s += ", "sv;
        appendValue(s, items[i]);
      }
      s += list ? "]" : items.size() == 1 ? ",)" : ")";
      return;
    }
    }
    s += "None"sv;
  }

  /// An anonymous reinterpret view becomes a torch.as_strided node named
  /// `<base>_view_<base>_<k>`, k counting the views of that base.
  unsigned viewNode(const Value &v) {
    const std::string &base = module.buffer(v.buffer).name;
    unsigned k = viewCount[v.buffer]++;
    TextBuffer &candidate = viewName;
    candidate.clear();
    candidate += base;
    candidate += "_view_"sv;
    candidate += base;
    candidate += '_';
    candidate.appendInt(k);
    std::string_view name = uniqueName(candidate.view());
    unsigned savedUser = user;
    user = nextUser++;
    counted = &countedByView;
    viewText.clear();
    viewText += "call_function[target=torch.as_strided](args = ("sv;
    appendBuffer(viewText, v.buffer);
    viewText += ", "sv;
    appendSizeStride(viewText, v.size(), v.stride());
    viewText += ", "sv;
    appendExpr(viewText, pools.storageOffset(v.buffer, v.expr));
    viewText += "), kwargs = {})\n"sv;
    user = savedUser;
    counted = &countedBy;
    beginNode(name);
    nodeText += viewText;
    return endNode(name);
  }

  /// Builds a call_function node; \p build appends `ARGS, kwargs = KWARGS`
  /// while refs are recorded.
  template <typename Fn>
  unsigned callNode(std::string_view candidate, std::string_view target, Fn &&build) {
    std::string_view name = uniqueName(candidate);
    text.clear();
    text += "call_function[target="sv;
    text += target;
    text += "](args = "sv;
    beginUser();
    build(text);
    user = kOutputUser;
    text += ")\n"sv;
    beginNode(name);
    nodeText += text;
    return endNode(name);
  }

  /// `torch.as_strided(base, size, stride, offset)`: \p info's layout over
  /// \p base's storage (a reinterpret view, or a reuse that changes the view).
  unsigned asStrided(const BufferInfo &info, BufferId base) {
    return callNode(info.name, "torch.as_strided", [&](TextBuffer &s) {
      s += '(';
      appendBuffer(s, base);
      s += ", "sv;
      appendSizeStride(s, info.layout.size, info.layout.stride);
      s += ", "sv;
      appendExpr(s, pools.storageOffset(base, info.layout.offset));
      s += ')';
      s += kNoKwargs;
    });
  }

  /// `operator.OP(a, b)`, the operands appended by \p operand (0, then 1).
  template <typename Operand>
  unsigned operatorNode(std::string_view op, Operand &&operand) {
    return callNode(op, fmt::format("operator.{}", op), [&](TextBuffer &s) {
      s += '(';
      operand(s, 0);
      s += ", "sv;
      operand(s, 1);
      s += ')';
      s += kNoKwargs;
    });
  }

  /// `operator.gt(lhs, rhs)` and the like: a comparison of sizes, for an
  /// assert or a cond's predicate.
  unsigned compareNode(const sym::Expr &lhs, graph::Compare cmp, const sym::Expr &rhs) {
    return operatorNode(graph::compareOperatorName(cmp),
                        [&](TextBuffer &s, int i) { appendExpr(s, i ? rhs : lhs); });
  }

  /// `operator.and_(a, b)` or `operator.or_(a, b)` of two SymBool nodes.
  unsigned joinNode(unsigned a, unsigned b, bool any) {
    return operatorNode(any ? "or_" : "and_",
                        [&](TextBuffer &s, int i) { appendRef(s, i ? b : a); });
  }

  static std::string opTarget(const std::string &op) {
    if (op.starts_with("extern_kernels."))
      return "torch." + op.substr(15);
    if (op.starts_with("aten."))
      return "torch.ops." + op;
    return op;
  }

  static std::string_view opShortName(std::string_view op) {
    // extern_kernels.NAME, aten.NAME[.OVERLOAD], torch.ops.NS.NAME[.OVERLOAD]
    size_t nameIndex = op.substr(0, op.find('.')) == "torch" ? 3 : 1;
    std::string_view part = op;
    for (size_t i = 0; i < nameIndex; ++i) {
      size_t dot = part.find('.');
      if (dot == std::string_view::npos)
        break;
      part = part.substr(dot + 1);
    }
    return part.substr(0, part.find('.'));
  }

  /// `(a, b)` of the values.
  void appendArgs(TextBuffer &s, const std::vector<Value> &args) {
    s += '(';
    for (size_t i = 0; i < args.size(); ++i) {
      if (i)
        s += ", "sv;
      appendValue(s, args[i]);
    }
    s += args.size() == 1 ? ",)" : ")";
  }

  /// `{key: value, ...[, extra]}`.
  void appendKwargs(TextBuffer &s, const std::vector<std::pair<std::string, Value>> &kwargs,
                    std::string_view extra = {}) {
    s += '{';
    bool first = true;
    for (const auto &[key, v] : kwargs) {
      if (!first)
        s += ", "sv;
      s += key;
      s += ": "sv;
      appendValue(s, v);
      first = false;
    }
    if (!extra.empty()) {
      if (!first)
        s += ", "sv;
      s += extra;
    }
    s += '}';
  }

  void appendGrid(TextBuffer &s, const Grid &grid, const KernelCallLine &call) {
    bool isStatic = std::all_of(grid.begin(), grid.end(),
                                [](const sym::Expr &e) { return e.isConstant(); });
    if (!isStatic) {
      s += '[';
      appendExpr(s, grid[0]);
      s += ", "sv;
      appendExpr(s, grid[1]);
      s += ", "sv;
      appendExpr(s, grid[2]);
      s += ']';
      return;
    }
    if (options.fxLegacyGrid) {
      size_t start = s.size();
      size_t count = 0;
      s += '(';
      for (const auto &[name, value] : call.numels)
        if (name == "xnumel" || name == "ynumel" || name == "znumel") {
          if (count++)
            s += ", "sv;
          appendExpr(s, value);
        }
      if (count) {
        s += count == 1 ? ",)" : ")";
        return;
      }
      s.truncate(start);
    }
    size_t n = 3;
    while (n > 1 && grid[n - 1] == sym::Expr(1))
      --n;
    s += '(';
    for (size_t i = 0; i < n; ++i) {
      if (i)
        s += ", "sv;
      appendExpr(s, grid[i]);
    }
    s += n == 1 ? ",)" : ")";
  }

  void line(const Line &l);
  void kernelCall(const KernelCallLine &call);

  /// kernelCall: the nodes reading CPU tensors passed for scalar parameters.
  std::vector<unsigned> scalarItems;
};

void FxGraphPrinter::kernelCall(const KernelCallLine &call) {
  const graph::Kernel &kernel = module.kernel(call.kernel);
  if (kernel.language != graph::KernelLanguage::Triton)
    throw NotImplementedError(fmt::format(
        "--emit=fx supports Triton kernels only; kernel '{}' is {} (FX's kernel side table holds "
        "Triton kernels)",
        kernel.name, graph::kernelLanguageName(kernel.language)));
  auto [it, inserted] = tables.kernelIndex.emplace(call.kernel, tables.nextKernelIndex);
  if (inserted)
    ++tables.nextKernelIndex;
  unsigned kernelIdx = it->second;
  unsigned constantArgsIdx = tables.nextConstantArgsIndex++;
  const graph::KernelConfig &config = kernel.configs.at(call.config);
  if (call.grids.size() <= call.config)
    throw InternalError("FX: kernel call without folded grids");
  // A one-element CPU tensor passed for a scalar parameter is read first: the
  // launch takes its value, as Triton's own launcher does.
  scalarItems.clear();
  for (const CallArg &arg : call.args)
    if (arg.readsScalar)
      scalarItems.push_back(callNode("item", "torch.ops.aten.item.default", [&](TextBuffer &s) {
        s += '(';
        appendBuffer(s, arg.value.buffer);
        s += ",)"sv;
        s += kNoKwargs;
      }));
  // The kwargs first: views used as arguments become nodes before the
  // launch, and take their names first.
  TextBuffer &inner = scratch;
  inner.clear();
  auto separate = [&] {
    if (!inner.empty())
      inner += ", "sv;
  };
  beginUser();
  size_t nextItem = 0;
  for (const CallArg &arg : call.args) {
    if (arg.role == graph::ArgRole::Removed)
      continue;
    separate();
    inner += arg.param;
    inner += ": "sv;
    if (arg.readsScalar)
      appendRef(inner, scalarItems[nextItem++]);
    else
      appendValue(inner, arg.value);
  }
  user = kOutputUser;
  for (const auto &[numel, e] : call.numels) {
    separate();
    inner += numel;
    inner += ": "sv;
    appendExpr(inner, e);
  }
  for (const auto &[key, v] : config.kwargs) {
    separate();
    inner += key;
    inner += ": "sv;
    inner.appendInt(v);
  }
  std::string_view name;
  if (launchName) {
    name = names.takeSuffixed(*launchName);
  } else {
    constexpr std::string_view kLaunch = "triton_kernel_wrapper_mutation";
    name = uniqueName(kLaunch);
    launchName = names.base(kLaunch);
  }
  // The views are nodes by now: the launch's line goes in place.
  beginNode(name);
  nodeText += "call_function[target=torch.ops.higher_order.triton_kernel_wrapper_mutation]"
              "(args = (), kwargs = {kernel_idx: ";
  nodeText.appendInt(kernelIdx);
  nodeText += ", constant_args_idx: "sv;
  nodeText.appendInt(constantArgsIdx);
  nodeText += ", grid: ["sv;
  appendGrid(nodeText, call.grids[call.config], call);
  nodeText += "], tma_descriptor_metadata: {}, kwargs: {"sv;
  nodeText += inner;
  nodeText += "}})\n"sv;
  endNode(name);
}

void FxGraphPrinter::line(const Line &l) {
  std::visit(
      Overloaded{
          [&](const AllocateLine &a) {
            const BufferInfo &info = module.buffer(a.buffer);
            unsigned n = callNode(info.name, "torch.empty_strided", [&](TextBuffer &s) {
              s += '(';
              appendSizeStride(s, info.layout.size, info.layout.stride);
              s += "), kwargs = {dtype: torch."sv;
              s += graph::dtypeName(info.layout.dtype);
              s += ", device: "sv;
              s += graph::deviceName(info.layout.device);
              s += '}';
            });
            bufferNode[a.buffer] = n;
          },
          [&](const FreeLine &f) {
            if (module.buffer(f.buffer).kind != BufferKind::Intermediate || handedOn[f.buffer])
              return; // inputs and views: the reference just goes away
            callNode("delete", "torch._inductor.codegen.wrapper_fxir.delete",
                     [&](TextBuffer &s) {
                       s += '(';
                       appendBuffer(s, f.buffer);
                       s += ",)"sv;
                       s += kNoKwargs;
                     });
          },
          [&](const ReuseLine &r) {
            const BufferInfo &old = module.buffer(r.old);
            const BufferInfo &reused = module.buffer(r.reusedAs);
            pools.reused(r.old, r.reusedAs);
            if (ir::sameView(old.layout, reused.layout)) {
              bufferNode[r.reusedAs] = nodeAt(bufferNode, r.old);
              return;
            }
            bufferNode[r.reusedAs] = asStrided(reused, r.old);
          },
          [&](const CommentLine &) {},
          [&](const KernelDefinitionLine &) {},
          [&](const KernelCallLine &call) { kernelCall(call); },
          [&](const ExternKernelOutLine &e) {
            callNode(opShortName(e.op), opTarget(e.op), [&](TextBuffer &s) {
              appendArgs(s, e.args);
              // `out` is evaluated before the keyword arguments: the order
              // its views take their names in.
              TextBuffer out;
              out += "out: "sv;
              appendValue(out, e.out);
              s += ", kwargs = "sv;
              appendKwargs(s, e.kwargs, out.view());
            });
          },
          [&](const ExternKernelAllocLine &e) {
            std::string_view name = e.result == kNoBuffer
                                        ? opShortName(e.op)
                                        : std::string_view(module.buffer(e.result).name);
            unsigned n = callNode(name, opTarget(e.op), [&](TextBuffer &s) {
              appendArgs(s, e.args);
              s += ", kwargs = "sv;
              appendKwargs(s, e.kwargs);
            });
            if (e.result != kNoBuffer)
              bufferNode[e.result] = n;
          },
          [&](const MultiOutputLine &m) {
            unsigned source = nodeAt(bufferNode, m.source);
            handedOn[m.source] = handedOn[m.source] || m.indices.empty();
            for (size_t i = 0; i < m.indices.size(); ++i) {
              const auto &[container, key] = m.indices[i];
              bool last = i + 1 == m.indices.size();
              std::string index = container == "dict" ? pythonStringLiteral(key) : key;
              source = callNode(last ? std::string_view(module.buffer(m.result).name)
                                     : std::string_view("getitem"),
                                "operator.getitem", [&](TextBuffer &s) {
                                  s += '(';
                                  appendRef(s, source);
                                  s += ", "sv;
                                  s += index;
                                  s += ')';
                                  s += kNoKwargs;
                                });
            }
            bufferNode[m.result] = source;
          },
          [&](const ReinterpretViewLine &r) {
            const BufferInfo &view = module.buffer(r.view);
            bufferNode[r.view] = asStrided(view, r.base);
          },
          [&](const ZeroLine &z) {
            // In place: later users keep the buffer's own node.
            callNode("zero_", "torch.ops.aten.zero_.default", [&](TextBuffer &s) {
              s += '(';
              appendBuffer(s, z.buffer);
              s += ",), kwargs = {}"sv;
            });
          },
          [&](const AssertFiniteLine &a) {
            // Inductor's two asserts, op for op (isinf's temporary included),
            // so that the peak is Inductor's: not isnan(t).any(), then not
            // isinf(t).any().
            auto unary = [&](std::string_view candidate, std::string_view target,
                             unsigned operand) {
              return callNode(candidate, target, [&](TextBuffer &s) {
                s += '(';
                appendRef(s, operand);
                s += ",), kwargs = {}"sv;
              });
            };
            auto check = [&](std::string_view candidate, std::string_view target,
                             const std::string &message) {
              unsigned found = callNode(candidate, target, [&](TextBuffer &s) {
                s += '(';
                appendBuffer(s, a.buffer);
                s += ",), kwargs = {}"sv;
              });
              unsigned any = unary("any", "torch.ops.aten.any.default", found);
              unsigned none = unary("logical_not", "torch.ops.aten.logical_not.default", any);
              unsigned item = unary("item", "torch.ops.aten.item.default", none);
              callNode("_assert_scalar", "torch.ops.aten._assert_scalar.default",
                       [&](TextBuffer &s) {
                         s += '(';
                         appendRef(s, item);
                         s += ", "sv;
                         s += pythonStringLiteral(message);
                         s += ')';
                         s += kNoKwargs;
                       });
            };
            std::string_view name = module.buffer(a.buffer).name;
            check("isnan", "torch.ops.aten.isnan.default", nanAssertMessage(name));
            check("isinf", "torch.ops.aten.isinf.default", infAssertMessage(name));
          },
          [&](const AssertSizeStrideLine &a) {
            callNode("_assert_tensor_metadata", "torch.ops.aten._assert_tensor_metadata.default",
                     [&](TextBuffer &s) {
                       s += '(';
                       appendBuffer(s, a.buffer);
                       s += ",), kwargs = {size: "sv;
                       bool symbolicStride =
                           std::any_of(a.stride.begin(), a.stride.end(),
                                       [](const sym::Expr &e) { return !e.isConstant(); });
                       appendExprs(s, a.size, symbolicStride);
                       s += ", stride: "sv;
                       appendExprs(s, a.stride, symbolicStride);
                       s += '}';
                     });
          },
          [&](const SymbolBindingLine &b) {
            using Source = SymbolBindingLine::Source;
            if (b.source == Source::Expr && !tables.precomputed.count(b.symbol))
              // Bound mid-graph (an unbacked symbol's expression): printed
              // inline from here on, as precomputed sizes are.
              tables.precomputed.emplace(b.symbol,
                                         sym::substitute(b.expr, tables.precomputed));
            if (b.source == Source::Input || b.source == Source::Expr)
              return; // symbol inputs are placeholders; expressions print inline
            // What an unbacked symbol reads: tuple items, taken with getitem.
            unsigned source = b.view ? kNoNode : nodeAt(bufferNode, b.tensor);
            for (uint32_t item : b.index)
              source = callNode("getitem", "operator.getitem", [&](TextBuffer &s) {
                s += '(';
                appendRef(s, source);
                s += ", "sv;
                s.appendInt(item);
                s += ')';
                s += kNoKwargs;
              });
            auto appendSource = [&](TextBuffer &s) {
              if (b.view)
                appendValue(s, *b.view);
              else
                appendRef(s, source);
            };
            if (b.source == Source::Item) {
              // A bool binds 0 or 1 (upstream's ConvertIntKey).
              if (module.buffer(b.tensor).layout.dtype == graph::DType::Bool) {
                unsigned asInt = callNode("where", "torch.ops.aten.where.Scalar",
                                          [&](TextBuffer &s) {
                                            s += '(';
                                            appendSource(s);
                                            s += ", 1, 0)"sv;
                                            s += kNoKwargs;
                                          });
                callNode(b.symbol, "torch.ops.aten.item.default", [&](TextBuffer &s) {
                  s += '(';
                  appendRef(s, asInt);
                  s += ",)"sv;
                  s += kNoKwargs;
                });
                return;
              }
              callNode(b.symbol, "torch.ops.aten.item.default", [&](TextBuffer &s) {
                s += '(';
                appendSource(s);
                s += ",)"sv;
                s += kNoKwargs;
              });
              return;
            }
            if (b.source == Source::StorageOffset) {
              callNode(b.symbol, "torch.ops.aten.sym_storage_offset.default",
                       [&](TextBuffer &s) {
                         s += '(';
                         appendSource(s);
                         s += ",)"sv;
                         s += kNoKwargs;
                       });
              return;
            }
            callNode(b.symbol,
                     b.source == Source::Size ? "torch.ops.aten.sym_size.int"
                                              : "torch.ops.aten.sym_stride.int",
                     [&](TextBuffer &s) {
                       s += '(';
                       appendSource(s);
                       s += ", "sv;
                       s.appendInt(b.dim);
                       s += ')';
                       s += kNoKwargs;
                     });
          },
          [&](const AssertScalarLine &a) {
            unsigned holds = compareNode(a.lhs, a.cmp, a.rhs);
            callNode("_assert_scalar", "torch.ops.aten._assert_scalar.default", [&](TextBuffer &s) {
              s += '(';
              appendRef(s, holds);
              s += ", "sv;
              s += pythonStringLiteral(a.what());
              s += ')';
              s += kNoKwargs;
            });
          },
          [&](const DeviceGuardEnterLine &) {},
          [&](const DeviceGuardExitLine &) {},
          [&](const SubgraphEnterLine &) {},
          [&](const SubgraphExitLine &) {},
          [&](const CondLine &c) {
            unsigned t = subgraphAttr(c.trueFunction);
            unsigned f = subgraphAttr(c.falseFunction);
            std::string_view condName = c.tupleResult != kNoBuffer
                                            ? std::string_view(module.buffer(c.tupleResult).name)
                                            : std::string_view("cond");
            // A comparison of sizes is a node of its own, as a SymBool is;
            // several are joined by operator.and_ / or_ nodes.
            std::optional<unsigned> compared;
            if (c.compare)
              for (const graph::SizeComparison &t : c.compare->terms) {
                unsigned term = compareNode(t.lhs, t.cmp, t.rhs);
                compared = !compared ? term : joinNode(*compared, term, c.compare->any);
              }
            unsigned cond = callNode(condName, "torch.ops.higher_order.cond", [&](TextBuffer &s) {
              // The operands' views take their names before the predicate's.
              TextBuffer operands;
              operands += '(';
              for (size_t i = 0; i < c.operands.size(); ++i) {
                if (i)
                  operands += ", "sv;
                appendValue(operands, c.operands[i]);
              }
              operands += c.operands.size() == 1 ? ",)" : ")";
              s += '(';
              if (compared)
                appendRef(s, *compared);
              else
                appendValue(s, c.predicate);
              s += ", "sv;
              appendRef(s, t);
              s += ", "sv;
              appendRef(s, f);
              s += ", "sv;
              s += operands;
              s += ')';
              s += kNoKwargs;
            });
            if (c.tupleResult != kNoBuffer)
              bufferNode[c.tupleResult] = cond;
            for (size_t i = 0; i < c.results.size(); ++i) {
              unsigned n = callNode(module.buffer(c.results[i]).name, "operator.getitem",
                                    [&](TextBuffer &s) {
                                      s += '(';
                                      appendRef(s, cond);
                                      s += ", "sv;
                                      s.appendInt(static_cast<int64_t>(i));
                                      s += ')';
                                      s += kNoKwargs;
                                    });
              bufferNode[c.results[i]] = n;
            }
          },
          [&](const InvokeSubgraphLine &i) {
            unsigned g = subgraphAttr(i.function);
            const std::string &graphName = module.functions[i.function].name;
            unsigned n = callNode(module.buffer(i.tupleResult).name,
                                  "torch.ops.higher_order.invoke_subgraph", [&](TextBuffer &s) {
                                    s += '(';
                                    appendRef(s, g);
                                    s += ", '"sv;
                                    s += graphName; // an identifier: no quoting needed
                                    s += '\'';
                                    for (const Value &v : i.operands) {
                                      s += ", "sv;
                                      appendValue(s, v);
                                    }
                                    s += ')';
                                    s += kNoKwargs;
                                  });
            bufferNode[i.tupleResult] = n;
          },
          [&](const WhileLoopLine &w) {
            unsigned c = subgraphAttr(w.condFunction);
            unsigned b = subgraphAttr(w.bodyFunction);
            unsigned loop = callNode(module.buffer(w.tupleResult).name,
                                     "torch.ops.higher_order.while_loop", [&](TextBuffer &s) {
                                       s += '(';
                                       appendRef(s, c);
                                       s += ", "sv;
                                       appendRef(s, b);
                                       s += ", "sv;
                                       appendArgs(s, w.carried);
                                       s += ", "sv;
                                       appendArgs(s, w.additional);
                                       s += ')';
                                       s += kNoKwargs;
                                     });
            bufferNode[w.tupleResult] = loop;
          },
          [&](const OutputLine &o) {
            TextBuffer &s = outputText;
            s.clear();
            // A while_loop's cond returns its predicate bare.
            const bool bare = function.returnsPredicate && o.outputs.size() == 1;
            if (!bare)
              s += '(';
            for (size_t i = 0; i < o.outputs.size(); ++i) {
              if (i)
                s += ", "sv;
              TextBuffer item;
              appendValue(item, o.outputs[i]);
              std::string_view text = item.view();
              s += text.starts_with('%') ? text.substr(1) : text;
            }
            if (!bare)
              s += o.outputs.size() == 1 ? ",)" : ")";
          },
          [&](const PoolAllocateLine &p) {
            const PoolInfo &pool = module.pool(p.pool);
            unsigned n = callNode(pool.name, "torch.empty_strided", [&](TextBuffer &s) {
              s += "(("sv;
              s.appendInt(pool.bytes);
              s += ",), (1,)), kwargs = {dtype: torch.uint8, device: "sv;
              s += graph::deviceName(pool.device);
              s += '}';
            });
            poolNode[p.pool] = n;
          },
          [&](const AllocateFromPoolLine &a) {
            const BufferInfo &info = module.buffer(a.buffer);
            unsigned n =
                callNode(info.name, "torch.ops.inductor._alloc_from_pool", [&](TextBuffer &s) {
                  unsigned pool = nodeAt(poolNode, a.pool);
                  s += '(';
                  appendRef(s, pool);
                  s += ", "sv;
                  s.appendInt(a.offset);
                  s += ", torch."sv;
                  s += graph::dtypeName(info.layout.dtype);
                  s += ", "sv;
                  appendSizeStride(s, info.layout.size, info.layout.stride);
                  s += ')';
                  s += kNoKwargs;
                });
            bufferNode[a.buffer] = n;
            pools.carved(a.buffer, a.offset);
          },
          [&](const PoolFreeLine &p) {
            callNode("delete", "torch._inductor.codegen.wrapper_fxir.delete",
                     [&](TextBuffer &s) {
                       s += '(';
                       appendRef(s, nodeAt(poolNode, p.pool));
                       s += ",)"sv;
                       s += kNoKwargs;
                     });
          },
      },
      l);
}

void FxGraphPrinter::print() {
  // A node per input, constant and line, about: room made up front is
  // written once, where growing by doubling copies (and faults in) it all
  // again. Room not used costs address space only.
  size_t expected = expectedNodes(function);
  nodes.reserve(expected);
  users.reserve(expected);
  countedBy.reserve(expected);
  countedByView.reserve(expected);
  names.reserve(expected);
  // About twice what the text needs: a large graph's pages are faulted in
  // only as they are written. Storage the driver prepared (and faulted in)
  // is kept unless it cannot hold about what the text needs.
  if (!inPlace || nodeText.room() - nodeText.size() < expected * (kInPlaceBytesPerNode / 2))
    nodeText.reserveMore(expected * (inPlace ? kInPlaceBytesPerNode : 128));
  nodeText += "graph():\n"sv;
  for (BufferId b : function.inputs) {
    const BufferInfo &info = module.buffer(b);
    bufferNode[b] = addAttrNode(info.name, "placeholder", info.name);
  }
  const auto f = static_cast<unsigned>(&function - module.functions.data());
  forEachConstant(module, f, buffers.ranges[f], [&](BufferId b) {
    const BufferInfo &info = module.buffer(b);
    bufferNode[b] = addAttrNode(info.name, "get_attr", info.name);
  });
  // At scale the text's pages are faulted in on another core (a thread
  // prints the graph; nothing else runs meanwhile).
  std::optional<PagePopulator> populator;
  if (options.threads > 1 && function.lines.size() >= kPopulateFromLines)
    populator.emplace(size_t(64) << 20);
  for (size_t i = 0; i < function.lines.size(); ++i) {
    if (populator && i % 4096 == 0)
      populator->report(0, nodeText.data(), nodeText.size(), nodeText.room());
    line(function.lines[i]);
  }

  std::sort(outputRefs.begin(), outputRefs.end());
  outputRefs.erase(std::unique(outputRefs.begin(), outputRefs.end()), outputRefs.end());
  for (unsigned r : outputRefs)
    ++users[r];

  // The user counts go into their slots, and the text after each moves up
  // to close the slot's gap: one pass over the text, in place.
  char *text = nodeText.data();
  size_t from = nodes.empty() ? nodeText.size() : nodes.front().countSlot;
  size_t to = from;
  for (size_t i = 0; i < nodes.size(); ++i) {
    size_t slot = nodes[i].countSlot;
    std::memmove(text + to, text + from, slot - from);
    to += slot - from;
    to = static_cast<size_t>(std::to_chars(text + to, text + to + kCountWidth, users[i]).ptr - text);
    from = slot + kCountWidth;
  }
  std::memmove(text + to, text + from, nodeText.size() - from);
  nodeText.truncate(to + (nodeText.size() - from));
  nodeText += "    return "sv;
  nodeText += outputText.view();
  nodeText += '\n';
  if (inPlace) {
    nodeText.finish();
  } else {
    out.reserve(out.size() + aside.size());
    out += aside.view();
  }
}

} // namespace

size_t fxTextReserve(const Module &module) {
  size_t estimate = 1 << 16;
  for (const Function &function : module.functions)
    estimate += kInPlaceBytesPerNode * expectedNodes(function);
  return estimate;
}

std::string emitFx(const Module &module, const EmitOptions &options) {
  SideTables tables;
  for (const graph::Symbol &symbol : module.symbols)
    if (symbol.expr)
      tables.precomputed.emplace(symbol.name, sym::substitute(*symbol.expr, tables.precomputed));
  std::string out;
  // Storage the driver sized before the passes that add lines is taken if
  // the text will likely fit, as the Python emitter does.
  const bool prepared = takeTextStorage(options, fxTextReserve(module), out);
  BufferTables buffers(module);
  for (size_t f = 0; f < module.functions.size(); ++f) {
    if (f) {
      out += "\n# subgraph "sv;
      out += module.functions[f].name;
      out += '\n';
    }
    FxGraphPrinter(module, module.functions[f], tables, buffers, options, out, prepared && f == 0)
        .print();
    if (f + 1 < module.functions.size())
      buffers.reset(buffers.ranges[f]);
  }
  return out;
}

} // namespace wirc::emit
