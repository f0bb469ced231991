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

#include "PoolOffsets.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

namespace wirc::emit {

namespace {

using namespace wirc::ir;

struct FxNode {
  std::string name;
  std::string op; ///< placeholder, get_attr, call_function
  std::string target;
  std::string args;
  std::string kwargs;
  std::vector<unsigned> refs; ///< nodes this one uses (deduplicated)
};

/// Module-wide state: kernel side-table indices are shared by all graphs.
struct SideTables {
  std::unordered_map<KernelId, unsigned> kernelIndex;
  unsigned nextKernelIndex = 0;
  unsigned nextConstantArgsIndex = 0;
  /// Precomputed symbols (ks0 = s0*s1) have no FX node of their own; their
  /// expressions are printed in their place.
  std::map<std::string, sym::Expr, std::less<>> precomputed;
};

class FxGraphPrinter {
public:
  FxGraphPrinter(const Module &module, const Function &function, SideTables &tables,
                 const EmitOptions &options)
      : module(module), function(function), tables(tables), options(options) {}

  std::string print();

private:
  const Module &module;
  const Function &function;
  SideTables &tables;
  const EmitOptions &options;
  std::vector<FxNode> nodes;
  std::unordered_map<BufferId, unsigned> bufferNode;
  std::unordered_map<PoolId, unsigned> poolNode;
  std::unordered_set<std::string> usedNames;
  std::unordered_map<std::string, unsigned> nextSuffix;
  std::unordered_map<BufferId, unsigned> viewCount;
  std::vector<unsigned> *currentRefs = nullptr;
  std::string outputText;
  std::vector<unsigned> outputRefs;

  /// FX's namespace rule: a taken name gets `_1`, `_2`, ... appended. The
  /// next suffix to try is remembered per name, so n launches of one kernel
  /// cost O(n), not O(n^2).
  std::string uniqueName(const std::string &candidate) {
    if (usedNames.insert(candidate).second)
      return candidate;
    unsigned &next = nextSuffix[candidate];
    for (;;) {
      std::string name = fmt::format("{}_{}", candidate, ++next);
      if (usedNames.insert(name).second)
        return name;
    }
  }

  unsigned addNode(FxNode node) {
    std::sort(node.refs.begin(), node.refs.end());
    node.refs.erase(std::unique(node.refs.begin(), node.refs.end()), node.refs.end());
    nodes.push_back(std::move(node));
    return static_cast<unsigned>(nodes.size() - 1);
  }

  std::string ref(unsigned node) {
    if (currentRefs)
      currentRefs->push_back(node);
    return "%" + nodes[node].name;
  }

  PoolOffsets pools{module};

  std::string refBuffer(BufferId b) {
    auto it = bufferNode.find(b);
    if (it == bufferNode.end())
      throw InternalError(fmt::format("FX: buffer %{} has no node", module.buffer(b).name));
    return ref(it->second);
  }

  std::string expr(const sym::Expr &e) const {
    if (tables.precomputed.empty())
      return sym::printFx(e);
    return sym::printFx(sym::substitute(e, tables.precomputed));
  }

  static std::string tupleOf(const std::vector<std::string> &items) {
    if (items.size() == 1)
      return "(" + items[0] + ",)";
    std::string s = "(";
    for (size_t i = 0; i < items.size(); ++i)
      s += (i ? ", " : "") + items[i];
    return s + ")";
  }

  static std::string listOf(const std::vector<std::string> &items) {
    std::string s = "[";
    for (size_t i = 0; i < items.size(); ++i)
      s += (i ? ", " : "") + items[i];
    return s + "]";
  }

  std::vector<std::string> exprs(const std::vector<sym::Expr> &list) const {
    std::vector<std::string> out;
    for (const sym::Expr &e : list)
      out.push_back(expr(e));
    return out;
  }

  /// (size, stride) as FX prints them for Inductor: tuples, or lists when a
  /// stride is symbolic.
  std::pair<std::string, std::string> sizeStride(const std::vector<sym::Expr> &size,
                                                 const std::vector<sym::Expr> &stride) const {
    bool symbolicStride = std::any_of(stride.begin(), stride.end(),
                                      [](const sym::Expr &e) { return !e.isConstant(); });
    if (symbolicStride)
      return {listOf(exprs(size)), listOf(exprs(stride))};
    return {tupleOf(exprs(size)), tupleOf(exprs(stride))};
  }

  static std::string floatRepr(double v) {
    if (std::isnan(v))
      return "nan";
    if (std::isinf(v))
      return v > 0 ? "inf" : "-inf";
    std::string s = fmt::format("{}", v);
    if (s.find_first_of(".e") == std::string::npos)
      s += ".0";
    return s;
  }

  std::string value(const Value &v) {
    switch (v.kind) {
    case Value::Kind::None:
      return "None";
    case Value::Kind::Bool:
      return v.boolValue ? "True" : "False";
    case Value::Kind::Int:
      return std::to_string(v.intValue);
    case Value::Kind::Float:
      return floatRepr(v.floatValue);
    case Value::Kind::String:
      return pythonStringLiteral(v.text);
    case Value::Kind::Buffer:
      return refBuffer(v.buffer);
    case Value::Kind::View:
      return ref(viewNode(v));
    case Value::Kind::Expr:
      return expr(v.expr);
    case Value::Kind::DType:
      return fmt::format("torch.{}", graph::dtypeName(v.dtype));
    case Value::Kind::Device:
      return graph::deviceName(v.device);
    case Value::Kind::List:
    case Value::Kind::Tuple: {
      std::vector<std::string> items;
      for (const Value &item : v.items)
        items.push_back(value(item));
      return v.kind == Value::Kind::List ? listOf(items) : tupleOf(items);
    }
    }
    return "None";
  }

  /// An anonymous reinterpret view becomes a torch.as_strided node named
  /// `<base>_view_<base>_<k>`, k counting the views of that base.
  unsigned viewNode(const Value &v) {
    const std::string &base = module.buffer(v.buffer).name;
    unsigned k = viewCount[v.buffer]++;
    FxNode node;
    node.name = uniqueName(fmt::format("{}_view_{}_{}", base, base, k));
    node.op = "call_function";
    node.target = "torch.as_strided";
    auto [size, stride] = sizeStride(v.size, v.stride);
    std::vector<unsigned> *saved = currentRefs;
    currentRefs = &node.refs;
    node.args = fmt::format("({}, {}, {}, {})", refBuffer(v.buffer), size, stride,
                            expr(pools.storageOffset(v.buffer, v.expr)));
    currentRefs = saved;
    node.kwargs = "{}";
    return addNode(std::move(node));
  }

  /// Builds a call_function node; \p build fills args and kwargs while refs
  /// are recorded.
  template <typename Fn>
  unsigned callNode(const std::string &name, std::string target, Fn &&build) {
    FxNode node;
    node.name = uniqueName(name);
    node.op = "call_function";
    node.target = std::move(target);
    std::vector<unsigned> refs;
    currentRefs = &refs;
    auto [args, kwargs] = build();
    currentRefs = nullptr;
    node.args = std::move(args);
    node.kwargs = std::move(kwargs);
    node.refs = std::move(refs);
    return addNode(std::move(node));
  }

  static std::string opTarget(const std::string &op) {
    if (op.starts_with("extern_kernels."))
      return "torch." + op.substr(15);
    if (op.starts_with("aten."))
      return "torch.ops." + op;
    return op;
  }

  static std::string opShortName(const std::string &op) {
    // extern_kernels.NAME, aten.NAME[.OVERLOAD], torch.ops.NS.NAME[.OVERLOAD]
    std::vector<std::string_view> parts;
    std::string_view rest = op;
    while (true) {
      size_t dot = rest.find('.');
      parts.push_back(rest.substr(0, dot));
      if (dot == std::string_view::npos)
        break;
      rest = rest.substr(dot + 1);
    }
    size_t nameIndex = parts[0] == "torch" ? 3 : 1;
    return std::string(parts[std::min(nameIndex, parts.size() - 1)]);
  }

  std::string kwargsOf(const std::vector<std::pair<std::string, Value>> &kwargs,
                       const std::string &extra = {}) {
    std::string s = "{";
    bool first = true;
    for (const auto &[key, v] : kwargs) {
      s += fmt::format("{}{}: {}", first ? "" : ", ", key, value(v));
      first = false;
    }
    if (!extra.empty())
      s += (first ? "" : ", ") + extra;
    return s + "}";
  }

  std::string argsOf(const std::vector<Value> &args) {
    std::vector<std::string> items;
    for (const Value &v : args)
      items.push_back(value(v));
    return tupleOf(items);
  }

  std::string gridText(const Grid &grid, const KernelCallLine &call) {
    bool isStatic = std::all_of(grid.begin(), grid.end(),
                                [](const sym::Expr &e) { return e.isConstant(); });
    if (!isStatic)
      return listOf({expr(grid[0]), expr(grid[1]), expr(grid[2])});
    if (options.fxLegacyGrid) {
      std::vector<std::string> numels;
      for (const auto &[name, value] : call.numels)
        if (name == "xnumel" || name == "ynumel" || name == "znumel")
          numels.push_back(expr(value));
      if (!numels.empty())
        return tupleOf(numels);
    }
    size_t n = 3;
    while (n > 1 && grid[n - 1] == sym::Expr(1))
      --n;
    std::vector<std::string> dims;
    for (size_t i = 0; i < n; ++i)
      dims.push_back(expr(grid[i]));
    return tupleOf(dims);
  }

  void line(const Line &l);
  void kernelCall(const KernelCallLine &call);
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
  // Views used as arguments become nodes before the launch.
  // `key: value, ...`, built in place.
  std::string inner;
  auto separate = [&] {
    if (!inner.empty())
      inner += ", ";
  };
  std::vector<unsigned> refs;
  for (const CallArg &arg : call.args) {
    if (arg.role == graph::ArgRole::Removed)
      continue;
    currentRefs = &refs;
    std::string v = value(arg.value);
    currentRefs = nullptr;
    separate();
    inner += arg.param;
    inner += ": ";
    inner += v;
  }
  for (const auto &[numel, e] : call.numels) {
    separate();
    inner += numel;
    inner += ": ";
    inner += expr(e);
  }
  for (const auto &[key, v] : config.kwargs) {
    separate();
    inner += key;
    inner += ": ";
    inner += std::to_string(v);
  }
  FxNode node;
  node.name = uniqueName("triton_kernel_wrapper_mutation");
  node.op = "call_function";
  node.target = "torch.ops.higher_order.triton_kernel_wrapper_mutation";
  node.args = "()";
  node.kwargs = fmt::format("{{kernel_idx: {}, constant_args_idx: {}, grid: [{}], "
                            "tma_descriptor_metadata: {{}}, kwargs: {{{}}}}}",
                            kernelIdx, constantArgsIdx, gridText(call.grids[call.config], call), inner);
  node.refs = std::move(refs);
  addNode(std::move(node));
}

void FxGraphPrinter::line(const Line &l) {
  std::visit(
      Overloaded{
          [&](const AllocateLine &a) {
            const BufferInfo &info = module.buffer(a.buffer);
            unsigned n = callNode(info.name, "torch.empty_strided", [&] {
              auto [size, stride] = sizeStride(info.layout.size, info.layout.stride);
              return std::pair{fmt::format("({}, {})", size, stride),
                               fmt::format("{{dtype: torch.{}, device: {}}}",
                                           graph::dtypeName(info.layout.dtype),
                                           graph::deviceName(info.layout.device))};
            });
            bufferNode[a.buffer] = n;
          },
          [&](const FreeLine &f) {
            if (module.buffer(f.buffer).kind != BufferKind::Intermediate)
              return; // inputs and views: the reference just goes away
            callNode("delete", "torch._inductor.codegen.wrapper_fxir.delete", [&] {
              return std::pair{tupleOf({refBuffer(f.buffer)}), std::string("{}")};
            });
          },
          [&](const ReuseLine &r) {
            const BufferInfo &old = module.buffer(r.old);
            const BufferInfo &reused = module.buffer(r.reusedAs);
            pools.reused(r.old, r.reusedAs);
            if (ir::sameView(old.layout, reused.layout)) {
              bufferNode[r.reusedAs] = bufferNode.at(r.old);
              return;
            }
            unsigned n = callNode(reused.name, "torch.as_strided", [&] {
              auto [size, stride] = sizeStride(reused.layout.size, reused.layout.stride);
              return std::pair{fmt::format("({}, {}, {}, {})", refBuffer(r.old), size, stride,
                                           expr(pools.storageOffset(r.old, reused.layout.offset))),
                               std::string("{}")};
            });
            bufferNode[r.reusedAs] = n;
          },
          [&](const CommentLine &) {},
          [&](const KernelDefinitionLine &) {},
          [&](const KernelCallLine &call) { kernelCall(call); },
          [&](const ExternKernelOutLine &e) {
            callNode(opShortName(e.op), opTarget(e.op), [&] {
              std::string args = argsOf(e.args);
              std::string out = "out: " + value(e.out);
              return std::pair{args, kwargsOf(e.kwargs, out)};
            });
          },
          [&](const ExternKernelAllocLine &e) {
            std::string name = e.result == kNoBuffer ? opShortName(e.op)
                                                     : module.buffer(e.result).name;
            unsigned n = callNode(name, opTarget(e.op), [&] {
              std::string args = argsOf(e.args);
              return std::pair{args, kwargsOf(e.kwargs)};
            });
            if (e.result != kNoBuffer)
              bufferNode[e.result] = n;
          },
          [&](const MultiOutputLine &m) {
            unsigned source = bufferNode.at(m.source);
            for (size_t i = 0; i < m.indices.size(); ++i) {
              const auto &[container, key] = m.indices[i];
              bool last = i + 1 == m.indices.size();
              std::string index = container == "dict" ? pythonStringLiteral(key) : key;
              source = callNode(last ? module.buffer(m.result).name : std::string("getitem"),
                                "operator.getitem", [&] {
                                  return std::pair{fmt::format("({}, {})", ref(source), index),
                                                   std::string("{}")};
                                });
            }
            bufferNode[m.result] = source;
          },
          [&](const ReinterpretViewLine &r) {
            const BufferInfo &view = module.buffer(r.view);
            unsigned n = callNode(view.name, "torch.as_strided", [&] {
              auto [size, stride] = sizeStride(view.layout.size, view.layout.stride);
              return std::pair{fmt::format("({}, {}, {}, {})", refBuffer(r.base), size, stride,
                                           expr(pools.storageOffset(r.base, view.layout.offset))),
                               std::string("{}")};
            });
            bufferNode[r.view] = n;
          },
          [&](const AssertSizeStrideLine &a) {
            callNode("_assert_tensor_metadata",
                     "torch.ops.aten._assert_tensor_metadata.default", [&] {
                       auto [size, stride] = sizeStride(a.size, a.stride);
                       return std::pair{tupleOf({refBuffer(a.buffer)}),
                                        fmt::format("{{size: {}, stride: {}}}", size, stride)};
                     });
          },
          [&](const SymbolBindingLine &b) {
            using Source = SymbolBindingLine::Source;
            if (b.source != Source::Size && b.source != Source::Stride)
              return; // symbol inputs are placeholders; expressions print inline
            unsigned n = callNode(
                b.symbol,
                b.source == Source::Size ? "torch.ops.aten.sym_size.int"
                                         : "torch.ops.aten.sym_stride.int",
                [&] {
                  return std::pair{fmt::format("({}, {})", refBuffer(b.tensor), b.dim),
                                   std::string("{}")};
                });
            (void)n;
          },
          [&](const DeviceGuardEnterLine &) {},
          [&](const DeviceGuardExitLine &) {},
          [&](const SubgraphEnterLine &) {},
          [&](const SubgraphExitLine &) {},
          [&](const CondLine &c) {
            FxNode trueAttr{uniqueName(module.functions[c.trueFunction].name), "get_attr",
                            module.functions[c.trueFunction].name, "", "", {}};
            unsigned t = addNode(std::move(trueAttr));
            FxNode falseAttr{uniqueName(module.functions[c.falseFunction].name), "get_attr",
                             module.functions[c.falseFunction].name, "", "", {}};
            unsigned f = addNode(std::move(falseAttr));
            std::string condName =
                c.tupleResult != kNoBuffer ? module.buffer(c.tupleResult).name : "cond";
            unsigned cond = callNode(condName, "torch.ops.higher_order.cond", [&] {
              std::vector<std::string> operands;
              for (const Value &v : c.operands)
                operands.push_back(value(v));
              return std::pair{fmt::format("({}, {}, {}, {})", value(c.predicate), ref(t), ref(f),
                                           tupleOf(operands)),
                               std::string("{}")};
            });
            if (c.tupleResult != kNoBuffer)
              bufferNode[c.tupleResult] = cond;
            for (size_t i = 0; i < c.results.size(); ++i) {
              unsigned n = callNode(module.buffer(c.results[i]).name, "operator.getitem", [&] {
                return std::pair{fmt::format("({}, {})", ref(cond), i), std::string("{}")};
              });
              bufferNode[c.results[i]] = n;
            }
          },
          [&](const OutputLine &o) {
            std::vector<std::string> items;
            currentRefs = &outputRefs;
            for (const Value &v : o.outputs) {
              std::string text = value(v);
              if (text.starts_with("%"))
                text = text.substr(1);
              items.push_back(text);
            }
            currentRefs = nullptr;
            outputText = tupleOf(items);
            if (items.empty())
              outputText = "()";
          },
          [&](const PoolAllocateLine &p) {
            const PoolInfo &pool = module.pool(p.pool);
            unsigned n = callNode(pool.name, "torch.empty_strided", [&] {
              return std::pair{fmt::format("(({},), (1,))", pool.bytes),
                               fmt::format("{{dtype: torch.uint8, device: {}}}",
                                           graph::deviceName(pool.device))};
            });
            poolNode[p.pool] = n;
          },
          [&](const AllocateFromPoolLine &a) {
            const BufferInfo &info = module.buffer(a.buffer);
            unsigned n = callNode(info.name, "torch.ops.inductor._alloc_from_pool", [&] {
              auto [size, stride] = sizeStride(info.layout.size, info.layout.stride);
              return std::pair{fmt::format("({}, {}, torch.{}, {}, {})", ref(poolNode.at(a.pool)),
                                           a.offset, graph::dtypeName(info.layout.dtype), size,
                                           stride),
                               std::string("{}")};
            });
            bufferNode[a.buffer] = n;
            pools.carved(a.buffer, a.offset);
          },
          [&](const PoolFreeLine &p) {
            callNode("delete", "torch._inductor.codegen.wrapper_fxir.delete", [&] {
              return std::pair{tupleOf({ref(poolNode.at(p.pool))}), std::string("{}")};
            });
          },
      },
      l);
}

std::string FxGraphPrinter::print() {
  for (BufferId b : function.inputs) {
    const BufferInfo &info = module.buffer(b);
    bufferNode[b] = addNode({uniqueName(info.name), "placeholder", info.name, "", "", {}});
  }
  for (BufferId b = 0; b < module.buffers.size(); ++b) {
    const BufferInfo &info = module.buffer(b);
    if (info.function == static_cast<unsigned>(&function - module.functions.data()) &&
        info.kind == BufferKind::Constant)
      bufferNode[b] = addNode({uniqueName(info.name), "get_attr", info.name, "", "", {}});
  }
  for (const Line &l : function.lines)
    line(l);

  std::vector<unsigned> users(nodes.size(), 0);
  for (const FxNode &node : nodes)
    for (unsigned r : node.refs)
      ++users[r];
  std::sort(outputRefs.begin(), outputRefs.end());
  outputRefs.erase(std::unique(outputRefs.begin(), outputRefs.end()), outputRefs.end());
  for (unsigned r : outputRefs)
    ++users[r];

  std::string out = "graph():\n";
  for (size_t i = 0; i < nodes.size(); ++i) {
    const FxNode &node = nodes[i];
    out += "    %";
    out += node.name;
    out += " : [num_users=";
    out += std::to_string(users[i]);
    out += "] = ";
    if (node.op == "call_function") {
      out += "call_function[target=";
      out += node.target;
      out += "](args = ";
      out += node.args;
      out += ", kwargs = ";
      out += node.kwargs;
      out += ")\n";
    } else {
      out += node.op;
      out += "[target=";
      out += node.target;
      out += "]\n";
    }
  }
  out += fmt::format("    return {}\n", outputText);
  return out;
}

} // namespace

std::string emitFx(const Module &module, const EmitOptions &options) {
  SideTables tables;
  for (const graph::Symbol &symbol : module.symbols)
    if (symbol.expr)
      tables.precomputed.emplace(symbol.name, sym::substitute(*symbol.expr, tables.precomputed));
  std::string out = FxGraphPrinter(module, module.main(), tables, options).print();
  for (size_t f = 1; f < module.functions.size(); ++f)
    out += fmt::format("\n# subgraph {}\n{}", module.functions[f].name,
                       FxGraphPrinter(module, module.functions[f], tables, options).print());
  return out;
}

} // namespace wirc::emit
