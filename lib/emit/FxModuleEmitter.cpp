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

#include "PoolOffsets.h"
#include "PythonText.h"

#include <fmt/format.h>

#include <cmath>
#include <iterator>
#include <map>
#include <unordered_map>

namespace wirc::emit {

namespace {

using namespace wirc::ir;

std::string pyList(const std::vector<std::string> &items) {
  std::string s = "[";
  for (size_t i = 0; i < items.size(); ++i)
    s += (i ? ", " : "") + items[i];
  return s + "]";
}

std::string pyTuple(const std::vector<std::string> &items) {
  if (items.size() == 1)
    return "(" + items[0] + ",)";
  std::string s = "(";
  for (size_t i = 0; i < items.size(); ++i)
    s += (i ? ", " : "") + items[i];
  return s + ")";
}

/// Writes the body of one graph-building function.
class GraphBuilder {
public:
  GraphBuilder(const Module &module, const Function &function,
               std::unordered_map<KernelId, unsigned> &kernelIndex)
      : module(module), function(function), kernelIndex(kernelIndex) {}

  std::string build(const std::string &fnName);

private:
  const Module &module;
  const Function &function;
  std::unordered_map<KernelId, unsigned> &kernelIndex;
  std::string out;
  std::unordered_map<BufferId, std::string> node;      ///< buffer -> Python variable
  std::map<std::string, std::string> symbolNode;      ///< symbol -> Python variable
  std::unordered_map<std::string, std::string> exprMemo;
  unsigned temps = 0;

  void line(std::string_view text) {
    out += "    ";
    out += text;
    out += '\n';
  }
  /// line(fmt::format(...)) without the temporary.
  template <typename... Args> void linef(fmt::format_string<Args...> format, Args &&...args) {
    out += "    ";
    fmt::format_to(std::back_inserter(out), format, std::forward<Args>(args)...);
    out += '\n';
  }

  std::string fresh(std::string_view stem) { return fmt::format("_{}{}", stem, temps++); }

  PoolOffsets pools{module};

  std::string var(BufferId b) const {
    auto it = node.find(b);
    if (it == node.end())
      throw InternalError(fmt::format("fx-module: buffer %{} has no node", module.buffer(b).name));
    return it->second;
  }

  /// An integer expression as an int literal or an FX node built from
  /// operator.* calls on the symbols' nodes.
  std::string expr(const sym::Expr &e) {
    if (auto c = e.constant())
      return std::to_string(*c);
    std::string key = sym::toString(e);
    if (auto it = exprMemo.find(key); it != exprMemo.end())
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
    exprMemo.emplace(key, result);
    return result;
  }

  std::vector<std::string> exprs(const std::vector<sym::Expr> &list) {
    std::vector<std::string> items;
    for (const sym::Expr &e : list)
      items.push_back(expr(e));
    return items;
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
      return pythonFloat(v.floatValue);
    case Value::Kind::String:
      return pythonStringLiteral(v.text);
    case Value::Kind::Buffer:
      return var(v.buffer);
    case Value::Kind::View: {
      std::string n = fresh("view");
      std::string size = pyList(exprs(v.size));
      std::string stride = pyList(exprs(v.stride));
      std::string offset = expr(pools.storageOffset(v.buffer, v.expr));
      linef("{} = g.call_function(torch.as_strided, ({}, {}, {}, {}))", n, var(v.buffer), size,
            stride, offset);
      return n;
    }
    case Value::Kind::Expr:
      return expr(v.expr);
    case Value::Kind::DType:
      return fmt::format("torch.{}", graph::dtypeName(v.dtype));
    case Value::Kind::Device:
      return v.device.kind == graph::Device::Kind::CPU
                 ? std::string("torch.device('cpu')")
                 : fmt::format("torch.device('cuda', {})", v.device.index);
    case Value::Kind::List:
    case Value::Kind::Tuple: {
      std::vector<std::string> items;
      for (const Value &item : v.items)
        items.push_back(value(item));
      return v.kind == Value::Kind::List ? pyList(items) : pyTuple(items);
    }
    }
    return "None";
  }

  std::string args(const std::vector<Value> &list) {
    std::vector<std::string> items;
    for (const Value &v : list)
      items.push_back(value(v));
    return items.empty() ? "()" : pyTuple(items);
  }

  std::string kwargs(const std::vector<std::pair<std::string, Value>> &list,
                     const std::string &extra = {}) {
    std::string s = "{";
    for (const auto &[key, v] : list)
      s += fmt::format("{}{}: {}", s.size() > 1 ? ", " : "", pythonStringLiteral(key), value(v));
    if (!extra.empty())
      s += (s.size() > 1 ? ", " : "") + extra;
    return s + "}";
  }

  static std::string target(const std::string &op) {
    // extern_kernels is Inductor's own namespace of extern kernels; aten ops
    // resolve through torch.ops.
    if (op.starts_with("aten."))
      return "torch.ops." + op;
    return op;
  }

  std::string device(const graph::Device &d) const {
    return d.kind == graph::Device::Kind::CPU ? "torch.device('cpu')"
                                              : fmt::format("torch.device('cuda', {})", d.index);
  }

  void emitLine(const Line &l);
};

void GraphBuilder::emitLine(const Line &l) {
  std::visit(
      Overloaded{
          [&](const AllocateLine &a) {
            const BufferInfo &info = module.buffer(a.buffer);
            std::string size = pyList(exprs(info.layout.size));
            std::string stride = pyList(exprs(info.layout.stride));
            linef("{} = g.call_function(torch.empty_strided, ({}, {}), "
                  "{{'dtype': torch.{}, 'device': {}}})",
                  info.name, size, stride, graph::dtypeName(info.layout.dtype),
                  device(info.layout.device));
            node[a.buffer] = info.name;
          },
          [&](const FreeLine &f) {
            if (module.buffer(f.buffer).kind == BufferKind::Intermediate)
              linef("g.call_function(delete, ({},))", var(f.buffer));
          },
          [&](const ReuseLine &r) {
            const BufferInfo &old = module.buffer(r.old);
            const BufferInfo &reused = module.buffer(r.reusedAs);
            pools.reused(r.old, r.reusedAs);
            if (ir::sameView(old.layout, reused.layout)) {
              node[r.reusedAs] = var(r.old);
              return;
            }
            std::string size = pyList(exprs(reused.layout.size));
            std::string stride = pyList(exprs(reused.layout.stride));
            std::string offset = expr(pools.storageOffset(r.old, reused.layout.offset));
            linef("{} = g.call_function(torch.as_strided, ({}, {}, {}, {}))", reused.name,
                  var(r.old), size, stride, offset);
            node[r.reusedAs] = reused.name;
          },
          [&](const CommentLine &c) {
            line("# " + commentText(c.text));
          },
          [&](const KernelDefinitionLine &) {},
          [&](const KernelCallLine &call) {
            const graph::Kernel &kernel = module.kernel(call.kernel);
            if (kernel.language != graph::KernelLanguage::Triton)
              throw NotImplementedError(fmt::format(
                  "--emit=fx-module supports Triton kernels only; kernel '{}' is {}", kernel.name,
                  graph::kernelLanguageName(kernel.language)));
            if (call.grids.size() <= call.config)
              throw InternalError("fx-module: kernel call without folded grids");
            const graph::KernelConfig &config = kernel.configs.at(call.config);
            std::vector<std::string> items;
            for (const CallArg &arg : call.args)
              if (arg.role != graph::ArgRole::Removed)
                items.push_back(fmt::format("'{}': {}", arg.param, value(arg.value)));
            for (const auto &[numel, e] : call.numels)
              items.push_back(fmt::format("'{}': {}", numel, expr(e)));
            for (const auto &[key, v] : config.kwargs)
              items.push_back(fmt::format("'{}': {}", key, v));
            std::string kw = "{";
            for (size_t i = 0; i < items.size(); ++i)
              kw += (i ? ", " : "") + items[i];
            kw += "}";
            const Grid &grid = call.grids[call.config];
            std::string gridText =
                fmt::format("[({}, {}, {})]", expr(grid[0]), expr(grid[1]), expr(grid[2]));
            // Launch options travel in the constant-args table, so the kernel
            // runs with its config's warps and stages.
            linef("g.call_function(triton_kernel_wrapper_mutation, (), {{"
                  "'kernel_idx': KERNELS[{}], 'constant_args_idx': "
                  "kernel_side_table.add_constant_args({{'num_warps': {}, "
                  "'num_stages': {}}}), 'grid': {}, 'tma_descriptor_metadata': {{}}, "
                  "'kwargs': {}}})",
                  kernelIndex.at(call.kernel), config.numWarps, config.numStages, gridText, kw);
          },
          [&](const ExternKernelOutLine &e) {
            std::string a = args(e.args);
            std::string k = kwargs(e.kwargs, "'out': " + value(e.out));
            linef("g.call_function({}, {}, {})", target(e.op), a, k);
          },
          [&](const ExternKernelAllocLine &e) {
            std::string a = args(e.args);
            std::string k = kwargs(e.kwargs);
            std::string call = fmt::format("g.call_function({}, {}, {})", target(e.op), a, k);
            if (e.result == kNoBuffer) {
              line(call);
              return;
            }
            linef("{} = {}", module.buffer(e.result).name, call);
            node[e.result] = module.buffer(e.result).name;
          },
          [&](const MultiOutputLine &m) {
            std::string source = var(m.source);
            for (const auto &[container, key] : m.indices) {
              std::string index = container == "dict" ? pythonStringLiteral(key) : key;
              std::string n = fresh("item");
              linef("{} = g.call_function(operator.getitem, ({}, {}))", n, source, index);
              source = n;
            }
            node[m.result] = source;
          },
          [&](const ReinterpretViewLine &r) {
            const BufferInfo &view = module.buffer(r.view);
            std::string size = pyList(exprs(view.layout.size));
            std::string stride = pyList(exprs(view.layout.stride));
            std::string offset = expr(pools.storageOffset(r.base, view.layout.offset));
            linef("{} = g.call_function(torch.as_strided, ({}, {}, {}, {}))", view.name,
                  var(r.base), size, stride, offset);
            node[r.view] = view.name;
          },
          [&](const AssertSizeStrideLine &a) {
            std::string size = pyList(exprs(a.size));
            std::string stride = pyList(exprs(a.stride));
            linef("g.call_function(torch.ops.aten._assert_tensor_metadata.default, "
                  "({},), {{'size': {}, 'stride': {}}})",
                  var(a.buffer), size, stride);
          },
          [&](const SymbolBindingLine &b) {
            using Source = SymbolBindingLine::Source;
            std::string n;
            switch (b.source) {
            case Source::Input:
              n = var(b.tensor);
              break;
            case Source::Size:
            case Source::Stride:
              n = fresh("sym");
              linef("{} = g.call_function({}, ({}, {}))", n,
                    b.source == Source::Size ? "torch.ops.aten.sym_size.int"
                                             : "torch.ops.aten.sym_stride.int",
                    var(b.tensor), b.dim);
              break;
            case Source::Expr:
              n = expr(b.expr);
              break;
            }
            symbolNode[b.symbol] = n;
          },
          [&](const DeviceGuardEnterLine &) {},
          [&](const DeviceGuardExitLine &) {},
          [&](const SubgraphEnterLine &) {},
          [&](const SubgraphExitLine &) {},
          [&](const CondLine &c) {
            std::string t = fresh("branch"), f = fresh("branch");
            linef("{} = g.get_attr('{}')", t, module.functions[c.trueFunction].name);
            linef("{} = g.get_attr('{}')", f, module.functions[c.falseFunction].name);
            std::vector<std::string> operands;
            for (const Value &v : c.operands)
              operands.push_back(value(v));
            std::string n = fresh("cond");
            linef("{} = g.call_function(torch.ops.higher_order.cond, ({}, {}, {}, {}))", n,
                  value(c.predicate), t, f, pyTuple(operands));
            if (c.tupleResult != kNoBuffer)
              node[c.tupleResult] = n;
            for (size_t i = 0; i < c.results.size(); ++i) {
              std::string r = fresh("item");
              linef("{} = g.call_function(operator.getitem, ({}, {}))", r, n, i);
              node[c.results[i]] = r;
            }
          },
          [&](const OutputLine &o) {
            std::vector<std::string> items;
            for (const Value &v : o.outputs)
              items.push_back(value(v));
            linef("g.output({})", items.empty() ? "()" : pyTuple(items));
          },
          [&](const PoolAllocateLine &p) {
            const PoolInfo &pool = module.pool(p.pool);
            linef("{} = g.call_function(torch.empty_strided, ([{}], [1]), "
                  "{{'dtype': torch.uint8, 'device': {}}})",
                  pool.name, pool.bytes, device(pool.device));
          },
          [&](const AllocateFromPoolLine &a) {
            const BufferInfo &info = module.buffer(a.buffer);
            linef("{} = g.call_function(torch.ops.inductor._alloc_from_pool, ({}, {}, "
                  "torch.{}, {}, {}))",
                  info.name, module.pool(a.pool).name, a.offset,
                  graph::dtypeName(info.layout.dtype), pyList(exprs(info.layout.size)),
                  pyList(exprs(info.layout.stride)));
            node[a.buffer] = info.name;
            pools.carved(a.buffer, a.offset);
          },
          [&](const PoolFreeLine &p) {
            linef("g.call_function(delete, ({},))", module.pool(p.pool).name);
          },
      },
      l);
}

std::string GraphBuilder::build(const std::string &fnName) {
  out += fmt::format("\n\ndef {}(root):\n", fnName);
  line("g = torch.fx.Graph()");
  for (BufferId b : function.inputs) {
    const BufferInfo &info = module.buffer(b);
    linef("{} = g.placeholder('{}')", info.name, info.name);
    node[b] = info.name;
  }
  unsigned f = static_cast<unsigned>(&function - module.functions.data());
  for (BufferId b = 0; b < module.buffers.size(); ++b) {
    const BufferInfo &info = module.buffer(b);
    if (info.function == f && info.kind == BufferKind::Constant) {
      linef("{} = g.get_attr('{}')", info.name, info.name);
      node[b] = info.name;
    }
  }
  for (const Line &l : function.lines)
    emitLine(l);
  line("return torch.fx.GraphModule(root, g)");
  return out;
}

} // namespace

std::string emitFxModule(const Module &module, const EmitOptions &options) {
  std::string out = fmt::format("# Generated by wirc from graph {}: the wrapper as a torch.fx "
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
  out += "\nasync_compile = AsyncCompile()\n";
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
  out += "async_compile.wait(globals())\ndel async_compile\n";
  out += "\n# The kernels' JIT functions in the side table of triton_kernel_wrapper_mutation.\n";
  out += "KERNELS = [";
  for (size_t i = 0; i < order.size(); ++i)
    out += fmt::format("{}kernel_side_table.add_kernel({}.fn)", i ? ", " : "",
                       module.kernel(order[i]).name);
  out += "]\n";

  for (size_t f = 1; f < module.functions.size(); ++f)
    out += GraphBuilder(module, module.functions[f], kernelIndex)
               .build("build_" + module.functions[f].name);
  out += GraphBuilder(module, module.main(), kernelIndex).build("build_graph");

  out += "\n\ndef graph_module():\n";
  out += "    \"\"\"The wrapper as a GraphModule; constants and branches are attributes.\"\"\"\n";
  out += "    root = torch.nn.Module()\n";
  for (const BufferInfo &info : module.buffers)
    if (info.kind == BufferKind::Constant && info.function == 0)
      out += fmt::format("    root.register_buffer('{}', {})\n", info.name, info.name);
  for (size_t f = 1; f < module.functions.size(); ++f) {
    out += fmt::format("    branch = torch.nn.Module()\n");
    for (const BufferInfo &info : module.buffers)
      if (info.kind == BufferKind::Constant && info.function == f)
        out += fmt::format("    branch.register_buffer('{}', {})\n", info.name, info.name);
    out += fmt::format("    root.add_module('{}', build_{}(branch))\n", module.functions[f].name,
                       module.functions[f].name);
  }
  out += "    return build_graph(root)\n";

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
            _compiled = lambda inputs: fn(*inputs)
    inputs = list(args)
    args.clear()
    return tuple(_compiled(inputs))
)",
                     backend);
  return out;
}

} // namespace wirc::emit
