//===- PythonEmitter.cpp - Wrapper IR as an Inductor output-code module ---===//
//
// Writes a Python module in the shape of Inductor's output code: imports and
// aliases, kernels defined through async_compile, `call(args)` with input
// unpacking, symbol bindings, asserts, device guards, launches through each
// kernel's launcher (`kernel.run(..., stream=stream0)`; the grid is computed
// inside the launcher from the kernel's grid type), extern calls, reuse and
// del lines, the returned tuple, and the benchmark harness.
//
// Everything that comes from the input is either a validated identifier or
// printed as a literal: kernel sources are escaped so that no input can end
// the string, comments are escaped so that no input can start a new line.
//
//===----------------------------------------------------------------------===//
#include "wirc/emit/Emitter.h"

#include "wirc/support/Diagnostics.h"
#include "wirc/support/Names.h"

#include "PythonText.h"

#include <fmt/format.h>

#include <cmath>

namespace wirc::emit {

namespace {

using namespace wirc::ir;

/// Inductor's tuple spelling: `(8, )`, `(2, 4)`, `()`.
std::string pyTuple(const std::vector<std::string> &items) {
  if (items.empty())
    return "()";
  if (items.size() == 1)
    return "(" + items[0] + ", )";
  std::string s = "(";
  for (size_t i = 0; i < items.size(); ++i)
    s += (i ? ", " : "") + items[i];
  return s + ")";
}

class PythonEmitter {
public:
  explicit PythonEmitter(const Module &module) : module(module) {}

  std::string emit();

private:
  const Module &module;
  std::string out;
  unsigned indent = 0;
  std::vector<int> deviceStack;

  void line(std::string_view text) {
    out.append(indent * 4, ' ');
    out += text;
    out += '\n';
  }

  const std::string &name(BufferId b) const { return module.buffer(b).name; }

  static std::string expr(const sym::Expr &e) { return sym::printPython(e); }

  static std::vector<std::string> exprs(const std::vector<sym::Expr> &list) {
    std::vector<std::string> items;
    for (const sym::Expr &e : list)
      items.push_back(expr(e));
    return items;
  }

  std::string value(const Value &v) const {
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
      return name(v.buffer);
    case Value::Kind::View:
      return fmt::format("reinterpret_tensor({}, {}, {}, {})", name(v.buffer),
                         pyTuple(exprs(v.size)), pyTuple(exprs(v.stride)), expr(v.expr));
    case Value::Kind::Expr:
      return expr(v.expr);
    case Value::Kind::DType:
      return fmt::format("torch.{}", graph::dtypeName(v.dtype));
    case Value::Kind::Device:
      return fmt::format("device(type='{}', index={})",
                         v.device.kind == graph::Device::Kind::CPU ? "cpu" : "cuda",
                         v.device.index);
    case Value::Kind::List:
    case Value::Kind::Tuple: {
      std::vector<std::string> items;
      for (const Value &item : v.items)
        items.push_back(value(item));
      if (v.kind == Value::Kind::Tuple)
        return pyTuple(items);
      std::string s = "[";
      for (size_t i = 0; i < items.size(); ++i)
        s += (i ? ", " : "") + items[i];
      return s + "]";
    }
    }
    return "None";
  }

  std::string callArgs(const std::vector<Value> &args,
                       const std::vector<std::pair<std::string, Value>> &kwargs,
                       const std::string &extra = {}) const {
    std::string s;
    for (const Value &v : args)
      s += (s.empty() ? "" : ", ") + value(v);
    for (const auto &[key, v] : kwargs)
      s += (s.empty() ? "" : ", ") + key + "=" + value(v);
    if (!extra.empty())
      s += (s.empty() ? "" : ", ") + extra;
    return s;
  }

  static std::string opCallee(const std::string &op) {
    // extern_kernels.NAME and aten.NAME.OVERLOAD are names the module imports;
    // torch.ops.NS.NAME.OVERLOAD is already a full path.
    return op;
  }

  std::string allocation(const BufferInfo &info) const {
    const graph::Layout &l = info.layout;
    std::string size = pyTuple(exprs(l.size));
    std::string stride = pyTuple(exprs(l.stride));
    std::string dtype = fmt::format("torch.{}", graph::dtypeName(l.dtype));
    if (l.device.kind == graph::Device::Kind::CPU)
      return fmt::format("empty_strided_cpu({}, {}, {})", size, stride, dtype);
    return fmt::format("empty_strided_cuda({}, {}, {})", size, stride, dtype);
  }

  int currentDevice() const { return deviceStack.empty() ? 0 : deviceStack.back(); }

  void header();
  void kernelDefinitions();
  void function(const Function &function);
  void body(const Line &line);
  void harness();
};

void PythonEmitter::header() {
  out += "# Generated by wirc from graph '" + commentText(module.name) + "'.\n";
  out += R"(from ctypes import c_void_p, c_long, c_int
import torch
import math
import random
import os
import tempfile
from math import inf, nan
from cmath import nanj
from torch._inductor.hooks import run_intermediate_hooks
from torch._inductor.utils import maybe_profile
from torch._inductor.codegen.memory_planning import _align as align
from torch import device, empty_strided
from torch._inductor.async_compile import AsyncCompile
from torch._inductor.select_algorithm import extern_kernels
import triton
import triton.language as tl
from torch._inductor.runtime.triton_heuristics import start_graph, end_graph
from torch._C import _cuda_getCurrentRawStream as get_raw_stream

aten = torch.ops.aten
inductor_ops = torch.ops.inductor
_quantized = torch.ops._quantized
assert_size_stride = torch._C._dynamo.guards.assert_size_stride
assert_alignment = torch._C._dynamo.guards.assert_alignment
empty_strided_cpu = torch._C._dynamo.guards._empty_strided_cpu
empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda
reinterpret_tensor = torch._C._dynamo.guards._reinterpret_tensor
alloc_from_pool = torch.ops.inductor._alloc_from_pool
async_compile = AsyncCompile()
)";
  // Constants are module globals that the loader sets, as in Inductor.
  for (const BufferInfo &info : module.buffers)
    if (info.kind == BufferKind::Constant)
      out += fmt::format("{} = None  # set by the loader\n", info.name);
}

void PythonEmitter::kernelDefinitions() {
  for (const Function &function : module.functions)
    for (const Line &l : function.lines) {
      const auto *def = std::get_if<KernelDefinitionLine>(&l);
      if (!def)
        continue;
      const graph::Kernel &kernel = module.kernel(def->kernel);
      if (kernel.language != graph::KernelLanguage::Triton)
        throw NotImplementedError(fmt::format(
            "--emit=python supports Triton kernels only; kernel '{}' is {}", kernel.name,
            graph::kernelLanguageName(kernel.language)));
      // The first argument names the function the source defines (a user
      // kernel's own name); the variable is the kernel's name in the graph.
      out += fmt::format("\n\n{} = async_compile.triton('{}', '''\n{}''', device_str='cuda')\n",
                         kernel.name, kernel.entryName(),
                         tripleQuotedBody(kernel.source));
    }
  out += "\n\nasync_compile.wait(globals())\ndel async_compile\n";
}

void PythonEmitter::body(const Line &l) {
  std::visit(
      Overloaded{
          [&](const AllocateLine &a) {
            line(fmt::format("{} = {}", name(a.buffer), allocation(module.buffer(a.buffer))));
          },
          [&](const FreeLine &f) { line(fmt::format("del {}", name(f.buffer))); },
          [&](const ReuseLine &r) {
            const BufferInfo &old = module.buffer(r.old);
            const BufferInfo &reused = module.buffer(r.reusedAs);
            std::string source =
                ir::sameView(old.layout, reused.layout)
                    ? old.name
                    : fmt::format("reinterpret_tensor({}, {}, {}, {})", old.name,
                                  pyTuple(exprs(reused.layout.size)),
                                  pyTuple(exprs(reused.layout.stride)),
                                  expr(reused.layout.offset));
            line(fmt::format("{} = {}{}  # reuse", reused.name, source,
                             r.deleteOld ? "; del " + old.name : std::string(";")));
          },
          [&](const CommentLine &c) { line("# " + commentText(c.text)); },
          [&](const KernelDefinitionLine &) {},
          [&](const KernelCallLine &call) {
            const graph::Kernel &kernel = module.kernel(call.kernel);
            std::string args;
            for (const CallArg &arg : call.args)
              if (arg.role != graph::ArgRole::Removed)
                args += value(arg.value) + ", ";
            for (const auto &[numel, e] : call.numels)
              args += expr(e) + ", ";
            // A FixedGrid launcher takes the grid as trailing arguments.
            if (call.fixedGrid)
              for (const sym::Expr &dim : *call.fixedGrid)
                args += expr(dim) + ", ";
            int device = currentDevice();
            line(fmt::format("stream{} = get_raw_stream({})", device, device));
            line(fmt::format("{}.run({}stream=stream{})", kernel.name, args, device));
          },
          [&](const ExternKernelOutLine &e) {
            line(fmt::format("{}({})", opCallee(e.op),
                             callArgs(e.args, e.kwargs, "out=" + value(e.out))));
          },
          [&](const ExternKernelAllocLine &e) {
            std::string call = fmt::format("{}({})", opCallee(e.op), callArgs(e.args, e.kwargs));
            if (e.result == kNoBuffer)
              line(call);
            else
              line(fmt::format("{} = {}", name(e.result), call));
          },
          [&](const MultiOutputLine &m) {
            std::string access = name(m.source);
            for (const auto &[container, key] : m.indices)
              access += container == "dict" ? "[" + pythonStringLiteral(key) + "]" : "[" + key + "]";
            line(fmt::format("{} = {}", name(m.result), access));
          },
          [&](const ReinterpretViewLine &r) {
            const BufferInfo &view = module.buffer(r.view);
            line(fmt::format("{} = reinterpret_tensor({}, {}, {}, {})  # alias", view.name,
                             name(r.base), pyTuple(exprs(view.layout.size)),
                             pyTuple(exprs(view.layout.stride)), expr(view.layout.offset)));
          },
          [&](const AssertSizeStrideLine &a) {
            std::string what = a.what.empty() ? "" : ", " + pythonStringLiteral(a.what);
            line(fmt::format("assert_size_stride({}, {}, {}{})", name(a.buffer),
                             pyTuple(exprs(a.size)), pyTuple(exprs(a.stride)), what));
          },
          [&](const SymbolBindingLine &b) {
            switch (b.source) {
            case SymbolBindingLine::Source::Input:
              line(fmt::format("{} = {}", b.symbol, name(b.tensor)));
              break;
            case SymbolBindingLine::Source::Size:
              line(fmt::format("{} = {}.size({})", b.symbol, name(b.tensor), b.dim));
              break;
            case SymbolBindingLine::Source::Stride:
              line(fmt::format("{} = {}.stride({})", b.symbol, name(b.tensor), b.dim));
              break;
            case SymbolBindingLine::Source::Expr:
              line(fmt::format("{} = {}", b.symbol, expr(b.expr)));
              break;
            }
          },
          [&](const DeviceGuardEnterLine &d) {
            line(fmt::format("with torch.cuda._DeviceGuard({}):", d.device));
            ++indent;
            line(fmt::format("torch.cuda.set_device({})", d.device));
            deviceStack.push_back(d.device);
          },
          [&](const DeviceGuardExitLine &) {
            --indent;
            deviceStack.pop_back();
          },
          [&](const SubgraphEnterLine &) {},
          [&](const SubgraphExitLine &) {},
          [&](const CondLine &c) {
            std::string pred = c.predicate.kind == Value::Kind::Buffer
                                   ? value(c.predicate) + ".item()"
                                   : value(c.predicate);
            std::vector<std::string> results;
            for (BufferId b : c.results)
              results.push_back(name(b));
            std::string operands = "[";
            for (size_t i = 0; i < c.operands.size(); ++i)
              operands += (i ? ", " : "") + value(c.operands[i]);
            operands += "]";
            std::string target = c.tupleResult != kNoBuffer ? name(c.tupleResult) + " = "
                                 : results.empty()            ? std::string("")
                                                              : pyTuple(results) + " = ";
            line(fmt::format("if {}:", pred));
            ++indent;
            line(fmt::format("{}{}({})", target, module.functions[c.trueFunction].name, operands));
            --indent;
            line("else:");
            ++indent;
            line(fmt::format("{}{}({})", target, module.functions[c.falseFunction].name,
                             operands));
            --indent;
          },
          [&](const OutputLine &o) {
            std::vector<std::string> items;
            for (const Value &v : o.outputs)
              items.push_back(value(v));
            line("return " + pyTuple(items));
          },
          [&](const PoolAllocateLine &p) {
            // A pool is a flat byte tensor, as Inductor's pool planner makes it.
            const PoolInfo &pool = module.pool(p.pool);
            line(fmt::format("{} = empty_strided_{}(({}, ), (1, ), torch.uint8)", pool.name,
                             pool.device.kind == graph::Device::Kind::CPU ? "cpu" : "cuda",
                             pool.bytes));
          },
          [&](const AllocateFromPoolLine &a) {
            const BufferInfo &info = module.buffer(a.buffer);
            line(fmt::format("{} = alloc_from_pool({}, {}, torch.{}, {}, {})", info.name,
                             module.pool(a.pool).name, a.offset,
                             graph::dtypeName(info.layout.dtype), pyTuple(exprs(info.layout.size)),
                             pyTuple(exprs(info.layout.stride))));
          },
          [&](const PoolFreeLine &p) { line(fmt::format("del {}", module.pool(p.pool).name)); },
      },
      l);
}

void PythonEmitter::function(const Function &fn) {
  out += fmt::format("\n\ndef {}(args):\n", fn.isSubgraph ? fn.name : std::string("call"));
  indent = 1;
  if (!fn.inputs.empty()) {
    std::string unpack;
    for (BufferId b : fn.inputs)
      unpack += name(b) + ", ";
    if (fn.inputs.size() > 1)
      unpack.resize(unpack.size() - 2);
    else
      unpack.resize(unpack.size() - 1);
    line(unpack + " = args");
    // The caller hands over its list (boxed calling convention); clearing it
    // lets inputs be freed as soon as the wrapper drops them.
    line("args.clear()");
  }
  for (const Line &l : fn.lines)
    body(l);
  indent = 0;
}

void PythonEmitter::harness() {
  const sym::SymbolValues hints = module.hints();
  auto atHints = [&](const std::vector<sym::Expr> &list) {
    std::vector<std::string> items;
    for (const sym::Expr &e : list) {
      std::string error;
      auto v = sym::evaluate(e, hints, error);
      if (!v)
        throw InternalError("size hint evaluation failed after validation: " + error);
      items.push_back(std::to_string(*v));
    }
    return pyTuple(items);
  };
  auto randStrided = [&](const BufferInfo &info) {
    return fmt::format("rand_strided({}, {}, device='{}', dtype=torch.{})",
                       atHints(info.layout.size), atHints(info.layout.stride),
                       graph::deviceName(info.layout.device), graph::dtypeName(info.layout.dtype));
  };
  out += "\n\ndef benchmark_compiled_module(times=10, repeat=10):\n";
  out += "    from torch._dynamo.testing import rand_strided\n";
  out += "    from torch._inductor.utils import print_performance\n";
  for (const BufferInfo &info : module.buffers)
    if (info.kind == BufferKind::Constant && info.function == 0) {
      out += fmt::format("    global {}\n", info.name);
      out += fmt::format("    {} = {}\n", info.name, randStrided(info));
    }
  std::string callArgs;
  for (BufferId b : module.main().inputs) {
    const BufferInfo &info = module.buffer(b);
    std::string init;
    if (info.kind == BufferKind::Input) {
      init = randStrided(info);
    } else if (info.kind == BufferKind::SymbolInput) {
      init = std::to_string(hints.at(info.name));
    } else {
      init = info.layout.dtype == graph::DType::Bool      ? "False"
             : info.layout.dtype == graph::DType::Float64 ? "1.0"
                                                          : "1";
    }
    out += fmt::format("    {} = {}\n", info.name, init);
    callArgs += (callArgs.empty() ? "" : ", ") + info.name;
  }
  out += fmt::format("    fn = lambda: call([{}])\n", callArgs);
  out += "    return print_performance(fn, times=times, repeat=repeat)\n";
  out += "\n\nif __name__ == \"__main__\":\n";
  out += "    from torch._inductor.wrapper_benchmark import compiled_module_main\n";
  out += fmt::format("    compiled_module_main({}, benchmark_compiled_module)\n",
                     pythonStringLiteral(module.name));
}

std::string PythonEmitter::emit() {
  header();
  kernelDefinitions();
  for (size_t f = 1; f < module.functions.size(); ++f)
    function(module.functions[f]);
  function(module.main());
  harness();
  return out;
}

} // namespace

std::string emitPython(const Module &module) { return PythonEmitter(module).emit(); }

} // namespace wirc::emit
