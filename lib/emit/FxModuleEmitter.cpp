//===- FxModuleEmitter.cpp - Wrapper IR as a runnable torch.fx module -----===//
//
// Writes a Python module that rebuilds the --emit=fx graph as a
// torch.fx.GraphModule: Triton kernels are registered in the kernel side table
// of torch's triton_kernel_wrapper_mutation, symbolic sizes become FX
// arithmetic nodes, constants and cond branches become attributes of the
// root module. `call(args)` runs the graph (or what a user backend made of it,
// like the seed's WrapperFxCodegen.compile_graph override) with Inductor's
// calling convention, so the module can stand in for Inductor's output code.
//
//===----------------------------------------------------------------------===//
#include "wirc/emit/Emitter.h"

#include "wirc/support/Diagnostics.h"
#include "wirc/support/Names.h"
#include "wirc/support/PagePopulator.h"

#include "PoolOffsets.h"
#include "PythonText.h"

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <cmath>
#include <map>
#include <optional>
#include <unordered_map>

namespace wirc::emit {

// Literals appended as string_views: the length is known here, not counted
// at run time.
using namespace std::string_view_literals;

namespace {

using namespace wirc::ir;

std::string pyTuple(const std::vector<std::string> &items) {
  if (items.size() == 1)
    return "(" + items[0] + ",)";
  std::string s = "(";
  for (size_t i = 0; i < items.size(); ++i)
    s += (i ? ", " : "") + items[i];
  return s + ")";
}

/// Writes the body of one graph-building function. Values and expressions
/// may need nodes of their own, whose lines go before the line that uses
/// them: a line's arguments are built in a scratch string first.
/// Per-buffer tables of the graph builders, sized to the module once: each
/// function's builder puts back the entries of the buffers it names, so a
/// module of many subgraphs costs its size, not its size times its functions.
struct BufferTables {
  explicit BufferTables(const Module &module)
      : node(module.buffers.size()), handedOn(module.buffers.size(), false),
        ranges(functionBufferRanges(module)) {}
  std::vector<std::string> node;
  std::vector<bool> handedOn;
  std::vector<std::pair<BufferId, BufferId>> ranges; ///< by function: its buffers' ids

  /// Puts back the entries of a function's buffers, ids [first, second).
  void reset(std::pair<BufferId, BufferId> range) {
    for (BufferId b = range.first; b < range.second; ++b) {
      node[b].clear();
      handedOn[b] = false;
    }
  }
};

class GraphBuilder {
public:
  GraphBuilder(const Module &module, const Function &function,
               std::unordered_map<KernelId, unsigned> &kernelIndex, BufferTables &buffers,
               TextBuffer &out, PagePopulator *populator)
      : module(module), function(function), kernelIndex(kernelIndex), buffers(buffers),
        out(out), populator(populator) {}

  /// Appends the function \p fnName that builds the graph.
  void build(std::string_view fnName);

private:
  const Module &module;
  const Function &function;
  std::unordered_map<KernelId, unsigned> &kernelIndex;
  BufferTables &buffers;
  TextBuffer &out;
  PagePopulator *populator; ///< faults the text's pages in ahead, or null
  /// Per buffer: the Python variable of its node, empty while it has none.
  std::vector<std::string> &node = buffers.node;
  /// Per buffer: a tuple whose node lives on as a multi_output result with
  /// no index (the same value), so freeing the tuple does not end the node.
  std::vector<bool> &handedOn = buffers.handedOn;
  std::map<std::string, std::string> symbolNode;      ///< symbol -> Python variable
  std::unordered_map<sym::Expr, std::string> exprMemo;
  unsigned temps = 0;
  // Reused for every line: its arguments, a view's arguments built while
  // they are, and a launch's grid.
  TextBuffer args, viewArgs, grid;

  void line(std::string_view text) {
    out += "    "sv;
    out += text;
    out += '\n';
  }
  template <typename... Args> void linef(fmt::format_string<Args...> format, Args &&...args) {
    line(fmt::format(format, std::forward<Args>(args)...));
  }

  std::string fresh(std::string_view stem) {
    std::string name = "_";
    name += stem;
    appendInt(name, temps++);
    return name;
  }

  PoolOffsets pools{module};

  const std::string &var(BufferId b) const {
    if (b >= node.size() || node[b].empty())
      throw InternalError(fmt::format("fx-module: buffer %{} has no node", module.buffer(b).name));
    return node[b];
  }

  void appendExpr(TextBuffer &s, const sym::Expr &e) {
    if (auto c = e.constant())
      s.appendInt(*c);
    else
      s += exprNode(e);
  }

  std::string expr(const sym::Expr &e) {
    if (auto c = e.constant())
      return std::to_string(*c);
    return exprNode(e);
  }

  /// `operator.gt(lhs, rhs)` and the like, as a node named after \p stem: a
  /// comparison of sizes, for an assert or a cond's predicate.
  std::string compareNode(std::string_view stem, const sym::Expr &lhs, graph::Compare cmp,
                          const sym::Expr &rhs) {
    std::string l = expr(lhs), r = expr(rhs);
    std::string holds = fresh(stem);
    linef("{} = g.call_function(operator.{}, ({}, {}))", holds, graph::compareOperatorName(cmp),
          l, r);
    return holds;
  }

  /// A cond's predicate on sizes: a comparison node (a SymBool), or several
  /// joined by operator.and_ / operator.or_ nodes.
  std::string predicateNode(const graph::SizePredicate &p) {
    std::string joined;
    for (const graph::SizeComparison &term : p.terms) {
      std::string holds = compareNode("pred", term.lhs, term.cmp, term.rhs);
      if (!joined.empty()) {
        std::string both = fresh("pred");
        linef("{} = g.call_function(operator.{}, ({}, {}))", both, p.any ? "or_" : "and_",
              joined, holds);
        holds = both;
      }
      joined = holds;
    }
    return joined;
  }

  /// A symbolic expression as an FX node built from operator.* calls on the
  /// symbols' nodes; each is built once per graph.
  const std::string &exprNode(const sym::Expr &e) {
    if (auto it = exprMemo.find(e); it != exprMemo.end())
      return it->second;
    std::string result;
    auto ops = e.operands();
    auto call = [&](std::string_view target, const std::vector<std::string> &args) {
      std::string v = fresh("e");
      linef("{} = g.call_function({}, {})", v, target, pyTuple(args));
      return v;
    };
    auto fold = [&](std::string_view target) {
      std::string acc = expr(ops[0]);
      for (size_t i = 1; i < ops.size(); ++i)
        acc = call(target, {acc, expr(ops[i])});
      return acc;
    };
    switch (e.kind()) {
    case sym::ExprKind::Integer:
      result = std::to_string(*e.constant());
      break;
    case sym::ExprKind::Symbol: {
      auto it = symbolNode.find(std::string(e.symbolName()));
      if (it == symbolNode.end())
        throw NotImplementedError(fmt::format(
            "--emit=fx-module: symbol '{}' is not bound in graph '{}'", e.symbolName(),
            function.name));
      result = it->second;
      break;
    }
    case sym::ExprKind::Add:
      result = fold("operator.add");
      break;
    case sym::ExprKind::Mul:
      result = fold("operator.mul");
      break;
    case sym::ExprKind::Pow:
      result = call("operator.pow", {expr(ops[0]), expr(ops[1])});
      break;
    case sym::ExprKind::FloorDiv:
      result = call("operator.floordiv", {expr(ops[0]), expr(ops[1])});
      break;
    case sym::ExprKind::CeilDiv: {
      std::string negated = call("operator.neg", {expr(ops[0])});
      std::string quotient = call("operator.floordiv", {negated, expr(ops[1])});
      result = call("operator.neg", {quotient});
      break;
    }
    case sym::ExprKind::Mod:
      result = call("operator.mod", {expr(ops[0]), expr(ops[1])});
      break;
    case sym::ExprKind::ModularIndexing: {
      std::string quotient = call("operator.floordiv", {expr(ops[0]), expr(ops[1])});
      result = call("operator.mod", {quotient, expr(ops[2])});
      break;
    }
    case sym::ExprKind::Min:
    case sym::ExprKind::Max: {
      std::vector<std::string> args;
      for (const sym::Expr &op : ops)
        args.push_back(expr(op));
      result = call(e.kind() == sym::ExprKind::Min ? "min" : "max", args);
      break;
    }
    }
    return exprMemo.emplace(e, std::move(result)).first->second;
  }

  /// `[a, b]` of the expressions.
  void appendList(TextBuffer &s, std::span<const sym::Expr> list) {
    s += '[';
    for (size_t i = 0; i < list.size(); ++i) {
      if (i)
        s += ", "sv;
      appendExpr(s, list[i]);
    }
    s += ']';
  }

  /// `[size...], [stride...]`: how every call here passes a layout.
  void appendSizeStride(TextBuffer &s, std::span<const sym::Expr> size,
                        std::span<const sym::Expr> stride) {
    appendList(s, size);
    s += ", "sv;
    appendList(s, stride);
  }

  /// `(a, b)` / `(a,)` of the values, `()` for none.
  void appendValues(TextBuffer &s, const std::vector<Value> &list) {
    s += '(';
    for (size_t i = 0; i < list.size(); ++i) {
      if (i)
        s += ", "sv;
      appendValue(s, list[i]);
    }
    s += list.size() == 1 ? ",)" : ")";
  }

  static void appendDevice(TextBuffer &s, const graph::Device &d) {
    if (d.kind == graph::Device::Kind::CPU) {
      s += "torch.device('cpu')"sv;
      return;
    }
    s += "torch.device('cuda', "sv;
    s.appendInt(d.index);
    s += ')';
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
      s += pythonFloat(v.floatValue);
      return;
    case Value::Kind::Complex:
      s += pythonComplex(v.floatValue, v.imagValue(), true);
      return;
    case Value::Kind::String:
      s += pythonStringLiteral(v.text());
      return;
    case Value::Kind::Buffer:
      s += var(v.buffer);
      return;
    case Value::Kind::View: {
      std::string n = fresh("view");
      viewArgs.clear();
      appendSizeStride(viewArgs, v.size(), v.stride());
      viewArgs += ", "sv;
      appendExpr(viewArgs, pools.storageOffset(v.buffer, v.expr));
      out += "    "sv;
      out += n;
      out += " = g.call_function(torch.as_strided, ("sv;
      out += var(v.buffer);
      out += ", "sv;
      out += viewArgs;
      out += "))\n"sv;
      s += n;
      return;
    }
    case Value::Kind::Expr:
      appendExpr(s, v.expr);
      return;
    case Value::Kind::DType:
      s += "torch."sv;
      s += graph::dtypeName(v.dtype);
      return;
    case Value::Kind::Device:
      appendDevice(s, v.device);
      return;
    case Value::Kind::List: {
      s += '[';
      const std::vector<Value> &items = v.items();
      for (size_t i = 0; i < items.size(); ++i) {
        if (i)
          s += ", "sv;
        appendValue(s, items[i]);
      }
      s += ']';
      return;
    }
    case Value::Kind::Tuple:
      appendValues(s, v.items());
      return;
    }
    s += "None"sv;
  }

  /// `{'key': value, ...[, extra]}`.
  void appendKwargs(TextBuffer &s, const std::vector<std::pair<std::string, Value>> &list,
                    std::string_view extra = {}) {
    size_t open = s.size();
    s += '{';
    for (const auto &[key, v] : list) {
      if (s.size() > open + 1)
        s += ", "sv;
      s += pythonStringLiteral(key);
      s += ": "sv;
      appendValue(s, v);
    }
    if (!extra.empty()) {
      if (s.size() > open + 1)
        s += ", "sv;
      s += extra;
    }
    s += '}';
  }

  static std::string_view target(const std::string &op, std::string &storage) {
    // extern_kernels is Inductor's own namespace of extern kernels; aten ops
    // resolve through torch.ops.
    if (!op.starts_with("aten."))
      return op;
    storage = "torch.ops." + op;
    return storage;
  }

  /// `    NAME = g.call_function(torch.as_strided, (BASE, SIZE, STRIDE, OFFSET))`.
  void asStrided(const std::string &name, BufferId base, const graph::Layout &layout) {
    args.clear();
    appendSizeStride(args, layout.size, layout.stride);
    args += ", "sv;
    appendExpr(args, pools.storageOffset(base, layout.offset));
    out += "    "sv;
    out += name;
    out += " = g.call_function(torch.as_strided, ("sv;
    out += var(base);
    out += ", "sv;
    out += args;
    out += "))\n"sv;
  }

  void kernelCall(const KernelCallLine &call);
  void emitLine(const Line &l);
};

void GraphBuilder::kernelCall(const KernelCallLine &call) {
  const graph::Kernel &kernel = module.kernel(call.kernel);
  if (kernel.language != graph::KernelLanguage::Triton)
    throw NotImplementedError(fmt::format(
        "--emit=fx-module supports Triton kernels only; kernel '{}' is {}", kernel.name,
        graph::kernelLanguageName(kernel.language)));
  if (call.grids.size() <= call.config)
    throw InternalError("fx-module: kernel call without folded grids");
  const graph::KernelConfig &config = kernel.configs.at(call.config);
  // A one-element CPU tensor passed for a scalar parameter is read first: the
  // launch takes its value, as Triton's own launcher does.
  std::vector<std::string> scalars;
  for (const CallArg &arg : call.args)
    if (arg.readsScalar) {
      scalars.push_back(fresh("item"));
      linef("{} = g.call_function(torch.ops.aten.item.default, ({},))", scalars.back(),
            var(arg.value.buffer));
    }
  args.clear();
  auto separate = [&] {
    if (!args.empty())
      args += ", "sv;
  };
  size_t nextScalar = 0;
  for (const CallArg &arg : call.args) {
    if (arg.role == graph::ArgRole::Removed)
      continue;
    separate();
    args += '\'';
    args += arg.param;
    args += "': "sv;
    if (arg.readsScalar)
      args += scalars[nextScalar++];
    else
      appendValue(args, arg.value);
  }
  for (const auto &[numel, e] : call.numels) {
    separate();
    args += '\'';
    args += numel;
    args += "': "sv;
    appendExpr(args, e);
  }
  for (const auto &[key, v] : config.kwargs) {
    separate();
    args += '\'';
    args += key;
    args += "': "sv;
    args.appendInt(v);
  }
  const Grid &launch = call.grids[call.config];
  // The grid's nodes are built from the last dimension to the first.
  for (size_t i = launch.size(); i-- > 0;)
    if (!launch[i].isConstant())
      exprNode(launch[i]);
  grid.clear();
  appendExpr(grid, launch[0]);
  grid += ", "sv;
  appendExpr(grid, launch[1]);
  grid += ", "sv;
  appendExpr(grid, launch[2]);
  unsigned index = kernelIndex.at(call.kernel);
  // Launch options travel in the constant-args table, so the kernel runs
  // with its config's warps and stages.
  out += "    g.call_function(triton_kernel_wrapper_mutation, (), {'kernel_idx': KERNELS["sv;
  out.appendInt(index);
  out += "], 'constant_args_idx': kernel_side_table.add_constant_args({'num_warps': "sv;
  out.appendInt(config.numWarps);
  out += ", 'num_stages': "sv;
  out.appendInt(config.numStages);
  out += "}), 'grid': [("sv;
  out += grid;
  out += ")], 'tma_descriptor_metadata': {}, 'kwargs': {"sv;
  out += args;
  out += "}})\n"sv;
}

void GraphBuilder::emitLine(const Line &l) {
  std::visit(
      Overloaded{
          [&](const AllocateLine &a) {
            const BufferInfo &info = module.buffer(a.buffer);
            args.clear();
            appendSizeStride(args, info.layout.size, info.layout.stride);
            out += "    "sv;
            out += info.name;
            out += " = g.call_function(torch.empty_strided, ("sv;
            out += args;
            out += "), {'dtype': torch."sv;
            out += graph::dtypeName(info.layout.dtype);
            out += ", 'device': "sv;
            appendDevice(out, info.layout.device);
            out += "})\n"sv;
            node[a.buffer] = info.name;
          },
          [&](const FreeLine &f) {
            if (module.buffer(f.buffer).kind != BufferKind::Intermediate || handedOn[f.buffer])
              return;
            const std::string &name = var(f.buffer);
            out += "    g.call_function(delete, ("sv;
            out += name;
            out += ",))\n"sv;
          },
          [&](const ReuseLine &r) {
            const BufferInfo &old = module.buffer(r.old);
            const BufferInfo &reused = module.buffer(r.reusedAs);
            pools.reused(r.old, r.reusedAs);
            if (ir::sameView(old.layout, reused.layout)) {
              node[r.reusedAs] = var(r.old);
              return;
            }
            asStrided(reused.name, r.old, reused.layout);
            node[r.reusedAs] = reused.name;
          },
          [&](const CommentLine &c) {
            out += "    # "sv;
            appendCommentText(out, c.text);
            out += '\n';
          },
          [&](const KernelDefinitionLine &) {},
          [&](const KernelCallLine &call) { kernelCall(call); },
          [&](const ExternKernelOutLine &e) {
            args.clear();
            appendValues(args, e.args);
            // `out` is evaluated before the keyword arguments: the order in
            // which their views get nodes.
            TextBuffer outArg;
            outArg += "'out': "sv;
            appendValue(outArg, e.out);
            args += ", "sv;
            appendKwargs(args, e.kwargs, outArg.view());
            std::string storage;
            out += "    g.call_function("sv;
            out += target(e.op, storage);
            out += ", "sv;
            out += args;
            out += ")\n"sv;
          },
          [&](const ExternKernelAllocLine &e) {
            args.clear();
            appendValues(args, e.args);
            args += ", "sv;
            appendKwargs(args, e.kwargs);
            std::string storage;
            out += "    "sv;
            if (e.result != kNoBuffer) {
              out += module.buffer(e.result).name;
              out += " = "sv;
            }
            out += "g.call_function("sv;
            out += target(e.op, storage);
            out += ", "sv;
            out += args;
            out += ")\n"sv;
            if (e.result != kNoBuffer)
              node[e.result] = module.buffer(e.result).name;
          },
          [&](const MultiOutputLine &m) {
            std::string source = var(m.source);
            handedOn[m.source] = handedOn[m.source] || m.indices.empty();
            for (const auto &[container, key] : m.indices) {
              std::string n = fresh("item");
              out += "    "sv;
              out += n;
              out += " = g.call_function(operator.getitem, ("sv;
              out += source;
              out += ", "sv;
              if (container == "dict")
                out += pythonStringLiteral(key);
              else
                out += key;
              out += "))\n"sv;
              source = std::move(n);
            }
            node[m.result] = source;
          },
          [&](const ReinterpretViewLine &r) {
            const BufferInfo &view = module.buffer(r.view);
            asStrided(view.name, r.base, view.layout);
            node[r.view] = view.name;
          },
          [&](const ZeroLine &z) {
            out += "    g.call_function(torch.ops.aten.zero_.default, ("sv;
            out += var(z.buffer);
            out += ",))\n"sv;
          },
          [&](const AssertSizeStrideLine &a) {
            args.clear();
            appendList(args, a.size);
            args += ", 'stride': "sv;
            appendList(args, a.stride);
            out += "    g.call_function(torch.ops.aten._assert_tensor_metadata.default, ("sv;
            out += var(a.buffer);
            out += ",), {'size': "sv;
            out += args;
            out += "})\n"sv;
          },
          [&](const SymbolBindingLine &b) {
            using Source = SymbolBindingLine::Source;
            std::string n;
            switch (b.source) {
            case Source::Input:
              n = var(b.tensor);
              break;
            case Source::Expr:
              n = expr(b.expr);
              break;
            case Source::Size:
            case Source::Stride:
            case Source::StorageOffset:
            case Source::Item: {
              // An unbacked symbol may read a view or tuple items.
              std::string from;
              if (b.view) {
                TextBuffer v;
                appendValue(v, *b.view);
                from = std::string(v.view());
              } else {
                from = var(b.tensor);
              }
              for (uint32_t item : b.index) {
                std::string picked = fresh("item");
                linef("{} = g.call_function(operator.getitem, ({}, {}))", picked, from, item);
                from = picked;
              }
              n = fresh("sym");
              if (b.source == Source::Size || b.source == Source::Stride) {
                linef("{} = g.call_function({}, ({}, {}))", n,
                      b.source == Source::Size ? "torch.ops.aten.sym_size.int"
                                               : "torch.ops.aten.sym_stride.int",
                      from, b.dim);
              } else if (b.source == Source::StorageOffset) {
                linef("{} = g.call_function(torch.ops.aten.sym_storage_offset.default, ({},))", n,
                      from);
              } else if (module.buffer(b.tensor).layout.dtype == graph::DType::Bool) {
                // A bool binds 0 or 1: int() of the item, where --emit=fx
                // prints upstream's aten.where.Scalar, whose scalars and
                // result would be three more tensors on the device.
                std::string item = fresh("item");
                linef("{} = g.call_function(torch.ops.aten.item.default, ({},))", item, from);
                linef("{} = g.call_function(int, ({},))", n, item);
              } else {
                linef("{} = g.call_function(torch.ops.aten.item.default, ({},))", n, from);
              }
              break;
            }
            }
            symbolNode[b.symbol] = n;
          },
          [&](const AssertFiniteLine &a) {
            // As --emit=fx prints it: for isnan, then isinf, any,
            // logical_not, item and _assert_scalar.
            std::string_view name = module.buffer(a.buffer).name;
            auto check = [&](const char *op, const std::string &message) {
              std::string found = fresh(op), any = fresh("any"), none = fresh("logical_not"),
                          item = fresh("item");
              linef("{} = g.call_function(torch.ops.aten.{}.default, ({},))", found, op,
                    var(a.buffer));
              linef("{} = g.call_function(torch.ops.aten.any.default, ({},))", any, found);
              linef("{} = g.call_function(torch.ops.aten.logical_not.default, ({},))", none,
                    any);
              linef("{} = g.call_function(torch.ops.aten.item.default, ({},))", item, none);
              linef("g.call_function(torch.ops.aten._assert_scalar.default, ({}, {}))", item,
                    pythonStringLiteral(message));
            };
            check("isnan", nanAssertMessage(name));
            check("isinf", infAssertMessage(name));
          },
          [&](const AssertScalarLine &a) {
            std::string holds = compareNode("check", a.lhs, a.cmp, a.rhs);
            linef("g.call_function(torch.ops.aten._assert_scalar.default, ({}, {}))", holds,
                  pythonStringLiteral(a.what()));
          },
          [&](const DeviceGuardEnterLine &) {},
          [&](const DeviceGuardExitLine &) {},
          [&](const SubgraphEnterLine &) {},
          [&](const SubgraphExitLine &) {},
          [&](const CondLine &c) {
            std::string t = fresh("branch"), f = fresh("branch");
            linef("{} = g.get_attr('{}')", t, module.functions[c.trueFunction].name);
            linef("{} = g.get_attr('{}')", f, module.functions[c.falseFunction].name);
            TextBuffer operands;
            appendValues(operands, c.operands);
            TextBuffer predicate;
            if (c.compare)
              predicate += predicateNode(*c.compare);
            else
              appendValue(predicate, c.predicate);
            std::string n = fresh("cond");
            linef("{} = g.call_function(torch.ops.higher_order.cond, ({}, {}, {}, {}))", n,
                  predicate.view(), t, f, operands.view());
            if (c.tupleResult != kNoBuffer)
              node[c.tupleResult] = n;
            for (size_t i = 0; i < c.results.size(); ++i) {
              std::string r = fresh("item");
              linef("{} = g.call_function(operator.getitem, ({}, {}))", r, n, i);
              node[c.results[i]] = r;
            }
          },
          [&](const InvokeSubgraphLine &i) {
            std::string g = fresh("subgraph");
            const std::string &graphName = module.functions[i.function].name;
            linef("{} = g.get_attr('{}')", g, graphName);
            TextBuffer operands;
            for (const Value &v : i.operands) {
              operands += ", "sv;
              appendValue(operands, v);
            }
            std::string n = fresh("invoke_subgraph");
            linef("{} = g.call_function(torch.ops.higher_order.invoke_subgraph, ({}, '{}'{}))", n,
                  g, graphName, operands.view());
            node[i.tupleResult] = n;
          },
          [&](const WhileLoopLine &w) {
            std::string c = fresh("cond_fn"), b = fresh("body_fn");
            linef("{} = g.get_attr('{}')", c, module.functions[w.condFunction].name);
            linef("{} = g.get_attr('{}')", b, module.functions[w.bodyFunction].name);
            TextBuffer carried, additional;
            appendValues(carried, w.carried);
            appendValues(additional, w.additional);
            std::string n = fresh("while_loop");
            linef("{} = g.call_function(torch.ops.higher_order.while_loop, ({}, {}, {}, {}))", n,
                  c, b, carried.view(), additional.view());
            node[w.tupleResult] = n;
          },
          [&](const OutputLine &o) {
            args.clear();
            // A while_loop's cond returns its predicate bare, as the
            // operator expects.
            if (function.returnsPredicate && o.outputs.size() == 1)
              appendValue(args, o.outputs[0]);
            else
              appendValues(args, o.outputs);
            out += "    g.output("sv;
            out += args;
            out += ")\n"sv;
          },
          [&](const PoolAllocateLine &p) {
            const PoolInfo &pool = module.pool(p.pool);
            out += "    "sv;
            out += pool.name;
            out += " = g.call_function(torch.empty_strided, (["sv;
            out.appendInt(pool.bytes);
            out += "], [1]), {'dtype': torch.uint8, 'device': "sv;
            appendDevice(out, pool.device);
            out += "})\n"sv;
          },
          [&](const AllocateFromPoolLine &a) {
            const BufferInfo &info = module.buffer(a.buffer);
            // The stride's nodes are built before the size's.
            for (const sym::Expr &e : info.layout.stride)
              if (!e.isConstant())
                exprNode(e);
            args.clear();
            appendSizeStride(args, info.layout.size, info.layout.stride);
            out += "    "sv;
            out += info.name;
            out += " = g.call_function(torch.ops.inductor._alloc_from_pool, ("sv;
            out += module.pool(a.pool).name;
            out += ", "sv;
            out.appendInt(a.offset);
            out += ", torch."sv;
            out += graph::dtypeName(info.layout.dtype);
            out += ", "sv;
            out += args;
            out += "))\n"sv;
            node[a.buffer] = info.name;
            pools.carved(a.buffer, a.offset);
          },
          [&](const PoolFreeLine &p) {
            linef("g.call_function(delete, ({},))", module.pool(p.pool).name);
          },
      },
      l);
}

void GraphBuilder::build(std::string_view fnName) {
  out += "\n\ndef "sv;
  out += fnName;
  out += "(root):\n"sv;
  line("g = torch.fx.Graph()");
  for (BufferId b : function.inputs) {
    const BufferInfo &info = module.buffer(b);
    linef("{} = g.placeholder('{}')", info.name, info.name);
    node[b] = info.name;
  }
  unsigned f = static_cast<unsigned>(&function - module.functions.data());
  forEachConstant(module, f, buffers.ranges[f], [&](BufferId b) {
    const BufferInfo &info = module.buffer(b);
    linef("{} = g.get_attr('{}')", info.name, info.name);
    node[b] = info.name;
  });
  for (size_t i = 0; i < function.lines.size(); ++i) {
    if (populator && i % 4096 == 0)
      populator->report(0, out.view().data(), out.size(), out.room());
    emitLine(function.lines[i]);
  }
  line("return torch.fx.GraphModule(root, g)");
}

/// Room reserved per line for a large module's graph-building code.
constexpr size_t kBytesPerLine = 160;

size_t lineCount(const Module &module) {
  size_t lines = 0;
  for (const Function &function : module.functions)
    lines += function.lines.size();
  return lines;
}

} // namespace

size_t fxModuleTextReserve(const Module &module) {
  size_t estimate = (1 << 16) + kBytesPerLine * lineCount(module);
  for (const graph::Kernel &kernel : module.kernels)
    estimate += kernel.source.size() + kernel.source.size() / 8 + 256;
  return estimate;
}

std::string emitFxModule(const Module &module, const EmitOptions &options) {
  // Written in place into the string returned: a large module is not copied.
  // Storage the driver sized before the passes that add lines is taken if
  // the text will likely fit, as the Python emitter does.
  std::string result;
  takeTextStorage(options, fxModuleTextReserve(module), result);
  TextBuffer out(result);
  out += fmt::format("# Generated by wirc from graph {}: the wrapper as a torch.fx "
                     "GraphModule.\n",
                     pythonStringLiteral(module.name));
  out += R"(import importlib
import operator

import torch
from torch._higher_order_ops.triton_kernel_wrap import (
    kernel_side_table,
    triton_kernel_wrapper_mutation,
)
from torch._inductor.async_compile import AsyncCompile
from torch._inductor.select_algorithm import extern_kernels


def delete(x):
    """Marks the end of a buffer's life; the graph drops its reference after it."""
    return None

)";
  for (const BufferInfo &info : module.buffers)
    if (info.kind == BufferKind::Constant)
      out += fmt::format("{} = None  # set by the loader\n", info.name);
  out += "\nasync_compile = AsyncCompile()\n"sv;
  std::unordered_map<KernelId, unsigned> kernelIndex;
  std::vector<KernelId> order;
  for (const Function &function : module.functions)
    for (const Line &l : function.lines)
      if (const auto *def = std::get_if<KernelDefinitionLine>(&l)) {
        const graph::Kernel &kernel = module.kernel(def->kernel);
        if (kernel.language != graph::KernelLanguage::Triton)
          throw NotImplementedError(fmt::format(
              "--emit=fx-module supports Triton kernels only; kernel '{}' is {}", kernel.name,
              graph::kernelLanguageName(kernel.language)));
        kernelIndex.emplace(def->kernel, static_cast<unsigned>(order.size()));
        order.push_back(def->kernel);
        out += fmt::format("{} = async_compile.triton('{}', '''\n{}''', device_str='cuda')\n",
                           kernel.name, kernel.entryName(),
                           tripleQuotedBody(kernel.source));
      }
  out += "async_compile.wait(globals())\ndel async_compile\n"sv;
  out += "\n# The kernels' JIT functions in the side table of triton_kernel_wrapper_mutation.\n"sv;
  out += "KERNELS = ["sv;
  for (size_t i = 0; i < order.size(); ++i)
    out += fmt::format("{}kernel_side_table.add_kernel({}.fn)", i ? ", " : "",
                       module.kernel(order[i]).name);
  out += "]\n"sv;

  // A large module's text gets its room up front (untouched room costs no
  // memory), unless prepared storage holds about half of it already, and
  // its pages are faulted in on another core as it is written.
  size_t lines = lineCount(module);
  std::optional<PagePopulator> populator;
  if (options.threads > 1 && lines >= kPopulateFromLines) {
    if (out.room() - out.size() < lines * (kBytesPerLine / 2))
      out.reserveMore(lines * kBytesPerLine);
    populator.emplace(size_t(64) << 20);
  }
  PagePopulator *pages = populator ? &*populator : nullptr;
  BufferTables buffers(module);
  for (size_t f = 1; f < module.functions.size(); ++f) {
    GraphBuilder(module, module.functions[f], kernelIndex, buffers, out, pages)
        .build("build_" + module.functions[f].name);
    buffers.reset(buffers.ranges[f]);
  }
  GraphBuilder(module, module.main(), kernelIndex, buffers, out, pages).build("build_graph");

  out += "\n\ndef graph_module():\n"sv;
  out += "    \"\"\"The wrapper as a GraphModule; constants and branches are attributes.\"\"\"\n"sv;
  out += "    root = torch.nn.Module()\n"sv;
  forEachConstant(module, 0, buffers.ranges[0], [&](BufferId b) {
    out += fmt::format("    root.register_buffer('{}', {})\n", module.buffer(b).name,
                       module.buffer(b).name);
  });
  // Each subgraph's module holds its own constants and the subgraphs it
  // calls, which come before it (the IR's function order).
  for (size_t f = 1; f < module.functions.size(); ++f) {
    out += fmt::format("    branch = torch.nn.Module()\n");
    forEachConstant(module, static_cast<unsigned>(f), buffers.ranges[f], [&](BufferId b) {
      out += fmt::format("    branch.register_buffer('{}', {})\n", module.buffer(b).name,
                         module.buffer(b).name);
    });
    std::vector<unsigned> callees;
    for (const Line &l : module.functions[f].lines) {
      if (const auto *c = std::get_if<CondLine>(&l))
        callees.insert(callees.end(), {c->trueFunction, c->falseFunction});
      else if (const auto *w = std::get_if<WhileLoopLine>(&l))
        callees.insert(callees.end(), {w->condFunction, w->bodyFunction});
      else if (const auto *i = std::get_if<InvokeSubgraphLine>(&l))
        callees.push_back(i->function);
    }
    std::sort(callees.begin(), callees.end());
    callees.erase(std::unique(callees.begin(), callees.end()), callees.end());
    for (unsigned callee : callees)
      out += fmt::format("    branch.add_module('{0}', root.get_submodule('{0}'))\n",
                         module.functions[callee].name);
    out += fmt::format("    root.add_module('{}', build_{}(branch))\n", module.functions[f].name,
                       module.functions[f].name);
  }
  out += "    return build_graph(root)\n"sv;

  // The backend hook: like overriding WrapperFxCodegen.compile_graph, a
  // function that receives the GraphModule and returns what to run.
  std::string backend = "None";
  if (!options.fxBackend.empty()) {
    size_t colon = options.fxBackend.find(':');
    backend = fmt::format("({}, {})", pythonStringLiteral(options.fxBackend.substr(0, colon)),
                          pythonStringLiteral(options.fxBackend.substr(colon + 1)));
  }
  out += fmt::format(R"(

BACKEND = {}
_compiled = None


def compile_graph(gm):
    """Returns the callable that runs the graph: the backend's, or the GraphModule."""
    if BACKEND is None:
        return gm
    module_name, function_name = BACKEND
    return getattr(importlib.import_module(module_name), function_name)(gm)


def _boxed(gm):
    """Without a backend the graph takes its inputs as a list that it clears,
    like Inductor's call(args), so inputs are freed as soon as they die."""
    gm.graph.set_codegen(torch.fx.graph._BoxedCodeGen())
    gm.recompile()
    return gm


def call(args):
    """Inductor's calling convention: takes the inputs as a list, which it clears."""
    global _compiled
    if _compiled is None:
        if BACKEND is None and hasattr(torch.fx.graph, "_BoxedCodeGen"):
            gm = _boxed(graph_module())
            _compiled = lambda inputs: gm(inputs)
        else:
            fn = compile_graph(graph_module())
            # A boxed callable (_boxed_call, as torch's make_boxed_func marks
            # one) takes the list and may clear it; any other takes the inputs
            # unpacked, which keeps every input alive until it returns.
            _compiled = fn if getattr(fn, "_boxed_call", False) else lambda inputs: fn(*inputs)
    inputs = list(args)
    args.clear()
    return tuple(_compiled(inputs))
)",
                     backend);
  out.finish();
  return result;
}

} // namespace wirc::emit
