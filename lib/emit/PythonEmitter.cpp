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
#include "wirc/support/Parallel.h"

#include "PythonText.h"

#include <fmt/format.h>

#include <span>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>

namespace wirc::emit {

// Literals appended as string_views: the length is known here, not counted
// at run time.
using namespace std::string_view_literals;

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
  explicit PythonEmitter(const Module &module, unsigned threads = 1,
                         size_t minLinesPerThread = 1)
      : module(module), threads(threads), minLinesPerThread(minLinesPerThread) {}

  std::string emit(const EmitOptions &options);

private:
  const Module &module;
  unsigned threads;
  size_t minLinesPerThread;
  std::string out;
  unsigned indent = 0;
  std::vector<int> deviceStack;

  void line(std::string_view text) {
    out.append(indent * 4, ' ');
    out += text;
    out += '\n';
  }
  /// line(fmt::format(...)) without the temporary.
  template <typename... Args> void linef(fmt::format_string<Args...> format, Args &&...args) {
    out.append(indent * 4, ' ');
    fmt::format_to(std::back_inserter(out), format, std::forward<Args>(args)...);
    out += '\n';
  }

  const std::string &name(BufferId b) const { return module.buffer(b).name; }

  static std::string expr(const sym::Expr &e) { return sym::printPython(e); }
  /// `lhs cmp rhs` in Python: an assert's condition or a cond's predicate.
  static std::string comparison(const sym::Expr &lhs, graph::Compare cmp, const sym::Expr &rhs) {
    return fmt::format("{} {} {}", expr(lhs), graph::compareSpelling(cmp), expr(rhs));
  }

  /// A cond's predicate on sizes, its comparisons joined by `and` or `or`.
  static std::string sizePredicate(const graph::SizePredicate &p) {
    std::string out;
    for (const graph::SizeComparison &t : p.terms)
      out += (out.empty() ? "" : p.any ? " or " : " and ") + comparison(t.lhs, t.cmp, t.rhs);
    return out;
  }

  static std::vector<std::string> exprs(std::span<const sym::Expr> list) {
    std::vector<std::string> items;
    for (const sym::Expr &e : list)
      items.push_back(expr(e));
    return items;
  }

  // The module is one string: the lines that repeat per node append their
  // tokens to it rather than format temporaries.

  static void appendInt(std::string &s, int64_t v) {
    char buffer[24];
    s.append(buffer, std::to_chars(buffer, buffer + sizeof buffer, v).ptr);
  }

  /// pyTuple() of the expressions, appended.
  static void appendTuple(std::string &s, std::span<const sym::Expr> list) {
    s += '(';
    for (size_t i = 0; i < list.size(); ++i) {
      if (i)
        s += ", "sv;
      sym::printPython(list[i], s);
    }
    s += list.size() == 1 ? ", )" : ")";
  }

  /// `reinterpret_tensor(base, size, stride, offset)`.
  void appendReinterpret(std::string &s, BufferId base, std::span<const sym::Expr> size,
                         std::span<const sym::Expr> stride, const sym::Expr &offset) const {
    s += "reinterpret_tensor("sv;
    s += name(base);
    s += ", "sv;
    appendTuple(s, size);
    s += ", "sv;
    appendTuple(s, stride);
    s += ", "sv;
    sym::printPython(offset, s);
    s += ')';
  }

  void appendValue(std::string &s, const Value &v) const {
    switch (v.kind) {
    case Value::Kind::None:
      s += "None"sv;
      return;
    case Value::Kind::Bool:
      s += v.boolValue ? "True" : "False";
      return;
    case Value::Kind::Int:
      appendInt(s, v.intValue);
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
      s += name(v.buffer);
      return;
    case Value::Kind::View:
      appendReinterpret(s, v.buffer, v.size(), v.stride(), v.expr);
      return;
    case Value::Kind::Expr:
      sym::printPython(v.expr, s);
      return;
    case Value::Kind::DType:
      s += "torch."sv;
      s += graph::dtypeName(v.dtype);
      return;
    case Value::Kind::Device:
      // As torch prints them: the CPU device has no index.
      if (v.device.kind == graph::Device::Kind::CPU) {
        s += "device(type='cpu')"sv;
        return;
      }
      s += "device(type='cuda', index="sv;
      appendInt(s, v.device.index);
      s += ')';
      return;
    case Value::Kind::List:
    case Value::Kind::Tuple: {
      // pyTuple() for tuples, `[a, b]` for lists.
      bool tuple = v.kind == Value::Kind::Tuple;
      s += tuple ? '(' : '[';
      const std::vector<Value> &items = v.items();
      for (size_t i = 0; i < items.size(); ++i) {
        if (i)
          s += ", "sv;
        appendValue(s, items[i]);
      }
      s += !tuple ? "]" : items.size() == 1 ? ", )" : ")";
      return;
    }
    }
    s += "None"sv;
  }

  std::string value(const Value &v) const {
    std::string s;
    appendValue(s, v);
    return s;
  }

  /// Positional, then keyword arguments, then `out=` when \p out is given.
  void appendCallArgs(std::string &s, const std::vector<Value> &args,
                      const std::vector<std::pair<std::string, Value>> &kwargs,
                      const Value *out = nullptr) const {
    bool first = true;
    auto separate = [&] {
      if (!first)
        s += ", "sv;
      first = false;
    };
    for (const Value &v : args) {
      separate();
      appendValue(s, v);
    }
    for (const auto &[key, v] : kwargs) {
      separate();
      s += key;
      s += '=';
      appendValue(s, v);
    }
    if (out) {
      separate();
      s += "out="sv;
      appendValue(s, *out);
    }
  }

  void beginLine() { out.append(indent * 4, ' '); }

  static std::string opCallee(const std::string &op) {
    // extern_kernels.NAME and aten.NAME.OVERLOAD are names the module imports;
    // torch.ops.NS.NAME.OVERLOAD is already a full path.
    return op;
  }

  void appendAllocation(const BufferInfo &info) {
    const graph::Layout &l = info.layout;
    out += l.device.kind == graph::Device::Kind::CPU ? "empty_strided_cpu(" : "empty_strided_cuda(";
    appendTuple(out, l.size);
    out += ", "sv;
    appendTuple(out, l.stride);
    out += ", torch."sv;
    out += graph::dtypeName(l.dtype);
    out += ')';
  }

  int currentDevice() const { return deviceStack.empty() ? 0 : deviceStack.back(); }

  void header();
  void kernelDefinitions();
  void function(const Function &function);
  /// body() of every line, on up to `threads` threads.
  void bodies(const std::vector<Line> &lines);
  void body(const Line &line);
  [[gnu::cold]] void cond(const Line &l, const CondLine &c);
  [[gnu::cold]] void invoke(const Line &l, const InvokeSubgraphLine &i);
  [[gnu::cold]] void whileLoop(const WhileLoopLine &w);
  [[gnu::cold]] void unbackedBinding(const SymbolBindingLine &b);
  [[gnu::cold]] void assertScalar(const AssertScalarLine &a);

  /// The lines of the function being printed, and per line whether it is a
  /// free that a subgraph call prints (see markFreedByCalls).
  const std::vector<Line> *current = nullptr;
  const std::vector<bool> *freedByCallAt = nullptr;
  std::vector<bool> freedByCallLines, usedByCall;

  /// Marks the frees of operands right after a subgraph call
  /// (invoke_subgraph, cond), with only frees between. Those are printed
  /// before the call, once the operands are in its argument list, as
  /// Inductor does: the subgraph, which clears the list, then frees each
  /// input at its own last use. Linear in the lines and the calls' uses.
  void markFreedByCalls(const std::vector<Line> &lines) {
    freedByCallLines.clear();
    freedByCallAt = nullptr;
    if (module.functions.size() == 1) // no subgraph to call
      return;
    std::vector<bool> &usedBy = usedByCall; // per buffer: used by the call at hand
    for (size_t i = 0; i < lines.size(); ++i) {
      if (!std::holds_alternative<InvokeSubgraphLine>(lines[i]) &&
          !std::holds_alternative<CondLine>(lines[i]))
        continue;
      if (usedBy.empty()) // once per module: each call puts its entries back
        usedBy.assign(module.buffers.size(), false);
      if (freedByCallLines.empty())
        freedByCallLines.assign(lines.size(), false);
      forEachUse(lines[i], [&](BufferId b) { usedBy[b] = true; });
      forEachFreeAfter(lines, i, [&](size_t j, const FreeLine &free) {
        freedByCallLines[j] = usedBy[free.buffer];
      });
      forEachUse(lines[i], [&](BufferId b) { usedBy[b] = false; });
    }
    freedByCallAt = freedByCallLines.empty() ? nullptr : &freedByCallLines;
  }
  bool freedByCall(const Line &l) const {
    return freedByCallAt && (*freedByCallAt)[static_cast<size_t>(&l - current->data())];
  }
  /// Prints the frees freedByCall() holds back for the call \p call.
  void freesBeforeCall(const Line &call) {
    forEachFreeAfter(*current, static_cast<size_t>(&call - current->data()),
                     [&](size_t j, const FreeLine &free) {
                       if (freedByCall((*current)[j]))
                         linef("del {}", name(free.buffer));
                     });
  }
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
)";
  // A graph that runs on the CPU alone imports neither Triton nor CUDA's
  // stream getter (a CPU build of PyTorch has neither), as Inductor's CPU
  // wrapper does not.
  bool gpu = std::any_of(module.kernels.begin(), module.kernels.end(),
                         [](const graph::Kernel &k) {
                           return k.language != graph::KernelLanguage::Cpp;
                         }) ||
             std::any_of(module.buffers.begin(), module.buffers.end(), [](const BufferInfo &b) {
               return b.layout.device.kind != graph::Device::Kind::CPU;
             });
  if (gpu)
    out += R"(import triton
import triton.language as tl
from torch._inductor.runtime.triton_heuristics import start_graph, end_graph
from torch._C import _cuda_getCurrentRawStream as get_raw_stream
)";
  out += R"(
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
      if (kernel.language == graph::KernelLanguage::Cpp) {
        // Compiled and bound at import, as Inductor's CPU wrapper does; the
        // binding passes each tensor's data pointer.
        out += "\n\n"sv;
        out += kernel.name;
        out += " = async_compile.cpp_pybinding(["sv;
        for (size_t i = 0; i < kernel.signature.size(); ++i) {
          if (i)
            out += ", "sv;
          out += pythonStringLiteral(kernel.signature[i].type);
        }
        out += "], '''\n"sv;
        out += tripleQuotedBody(kernel.source);
        out += "''')\n"sv;
        continue;
      }
      if (kernel.language != graph::KernelLanguage::Triton)
        throw NotImplementedError(fmt::format(
            "--emit=python supports Triton and cpp kernels only; kernel '{}' is {}",
            kernel.name, graph::kernelLanguageName(kernel.language)));
      // The first argument names the function the source defines (a user
      // kernel's own name); the variable is the kernel's name in the graph.
      out += fmt::format("\n\n{} = async_compile.triton('{}', '''\n{}''', device_str='cuda')\n",
                         kernel.name, kernel.entryName(),
                         tripleQuotedBody(kernel.source));
    }
  out += "\n\nasync_compile.wait(globals())\ndel async_compile\n"sv;
}

/// An unbacked symbol, bound where the graph binds it: it reads the tensor
/// (through a view, or items of a tuple).
void PythonEmitter::unbackedBinding(const SymbolBindingLine &b) {
  using Source = SymbolBindingLine::Source;
  std::string from;
  if (b.view)
    appendValue(from, *b.view);
  else
    from = name(b.tensor);
  for (uint32_t item : b.index)
    from += fmt::format("[{}]", item);
  switch (b.source) {
  case Source::Size:
    linef("{} = {}.size({})", b.symbol, from, b.dim);
    break;
  case Source::Stride:
    linef("{} = {}.stride({})", b.symbol, from, b.dim);
    break;
  case Source::StorageOffset:
    linef("{} = {}.storage_offset()", b.symbol, from);
    break;
  case Source::Item:
    // A bool binds 0 or 1, as sizes are integers.
    if (module.buffer(b.tensor).layout.dtype == graph::DType::Bool)
      linef("{} = 1 if {}.item() else 0", b.symbol, from);
    else
      linef("{} = {}.item()", b.symbol, from);
    break;
  default:
    break;
  }
}

/// Inductor's check of a torch._check on data-dependent sizes.
void PythonEmitter::assertScalar(const AssertScalarLine &a) {
  std::string condition = comparison(a.lhs, a.cmp, a.rhs);
  linef("if not ({}):", condition);
  ++indent;
  linef("raise RuntimeError({})", pythonStringLiteral(a.message.empty() ? condition : a.message));
  --indent;
}

void PythonEmitter::body(const Line &l) {
  std::visit(
      Overloaded{
          [&](const AllocateLine &a) {
            beginLine();
            out += name(a.buffer);
            out += " = "sv;
            appendAllocation(module.buffer(a.buffer));
            out += '\n';
          },
          [&](const FreeLine &f) {
            if (freedByCall(l))
              return;
            beginLine();
            out += "del "sv;
            out += name(f.buffer);
            out += '\n';
          },
          [&](const ReuseLine &r) {
            const BufferInfo &old = module.buffer(r.old);
            const BufferInfo &reused = module.buffer(r.reusedAs);
            beginLine();
            out += reused.name;
            out += " = "sv;
            if (ir::sameView(old.layout, reused.layout))
              out += old.name;
            else
              appendReinterpret(out, r.old, reused.layout.size, reused.layout.stride,
                                reused.layout.offset);
            if (r.deleteOld) {
              out += "; del "sv;
              out += old.name;
            } else {
              out += ';';
            }
            out += "  # reuse\n"sv;
          },
          [&](const CommentLine &c) {
            beginLine();
            out += "# "sv;
            appendCommentText(out, c.text);
            out += '\n';
          },
          [&](const KernelDefinitionLine &) {},
          [&](const KernelCallLine &call) {
            const graph::Kernel &kernel = module.kernel(call.kernel);
            if (kernel.language == graph::KernelLanguage::Cpp) {
              beginLine();
              out += kernel.name;
              out += '(';
              bool first = true;
              for (const CallArg &arg : call.args) {
                if (!first)
                  out += ", "sv;
                first = false;
                appendValue(out, arg.value);
              }
              out += ")\n"sv;
              return;
            }
            int device = currentDevice();
            beginLine();
            out += "stream"sv;
            appendInt(out, device);
            out += " = get_raw_stream("sv;
            appendInt(out, device);
            out += ")\n"sv;
            beginLine();
            out += kernel.name;
            out += ".run("sv;
            for (const CallArg &arg : call.args)
              if (arg.role != graph::ArgRole::Removed) {
                appendValue(out, arg.value);
                out += ", "sv;
              }
            for (const auto &[numel, e] : call.numels) {
              sym::printPython(e, out);
              out += ", "sv;
            }
            // A FixedGrid launcher takes the grid as trailing arguments.
            if (call.fixedGrid)
              for (const sym::Expr &dim : *call.fixedGrid) {
                sym::printPython(dim, out);
                out += ", "sv;
              }
            out += "stream=stream"sv;
            appendInt(out, device);
            out += ")\n"sv;
          },
          [&](const ExternKernelOutLine &e) {
            beginLine();
            out += opCallee(e.op);
            out += '(';
            appendCallArgs(out, e.args, e.kwargs, &*e.out);
            out += ")\n"sv;
          },
          [&](const ExternKernelAllocLine &e) {
            beginLine();
            if (e.result != kNoBuffer) {
              out += name(e.result);
              out += " = "sv;
            }
            out += opCallee(e.op);
            out += '(';
            appendCallArgs(out, e.args, e.kwargs);
            out += ")\n"sv;
          },
          [&](const MultiOutputLine &m) {
            std::string access = name(m.source);
            for (const auto &[container, key] : m.indices) {
              access += '[';
              access += container == "dict" ? pythonStringLiteral(key) : key;
              access += ']';
            }
            linef("{} = {}", name(m.result), access);
          },
          [&](const ReinterpretViewLine &r) {
            const BufferInfo &view = module.buffer(r.view);
            beginLine();
            out += view.name;
            out += " = "sv;
            appendReinterpret(out, r.base, view.layout.size, view.layout.stride,
                              view.layout.offset);
            out += "  # alias\n"sv;
          },
          [&](const ZeroLine &z) {
            beginLine();
            out += name(z.buffer);
            out += ".zero_()\n"sv;
          },
          [&](const AssertFiniteLine &a) {
            // Inductor's nan_asserts, line for line.
            const std::string &tensor = name(a.buffer);
            linef("assert not {}.isnan().any().item()", tensor);
            linef("assert not {}.isinf().any().item()", tensor);
          },
          [&](const AssertSizeStrideLine &a) {
            beginLine();
            out += "assert_size_stride("sv;
            out += name(a.buffer);
            out += ", "sv;
            appendTuple(out, a.size);
            out += ", "sv;
            appendTuple(out, a.stride);
            if (!a.what.empty()) {
              out += ", "sv;
              out += pythonStringLiteral(a.what);
            }
            out += ")\n"sv;
          },
          [&](const SymbolBindingLine &b) {
            using Source = SymbolBindingLine::Source;
            if (b.source == Source::Input) {
              // An input named after its symbol (a subgraph's) is bound already.
              if (name(b.tensor) != b.symbol)
                linef("{} = {}", b.symbol, name(b.tensor));
              return;
            }
            if (b.source == Source::Expr) {
              linef("{} = {}", b.symbol, expr(b.expr));
              return;
            }
            unbackedBinding(b);
          },
          [&](const AssertScalarLine &a) { assertScalar(a); },
          [&](const DeviceGuardEnterLine &d) {
            linef("with torch.cuda._DeviceGuard({}):", d.device);
            ++indent;
            linef("torch.cuda.set_device({})", d.device);
            deviceStack.push_back(d.device);
          },
          [&](const DeviceGuardExitLine &) {
            --indent;
            deviceStack.pop_back();
          },
          [&](const SubgraphEnterLine &) {},
          [&](const SubgraphExitLine &) {},
          [&](const CondLine &c) { cond(l, c); },
          [&](const InvokeSubgraphLine &i) { invoke(l, i); },
          [&](const WhileLoopLine &w) { whileLoop(w); },
          [&](const OutputLine &o) {
            std::vector<std::string> items;
            for (const Value &v : o.outputs)
              items.push_back(value(v));
            line("return " + pyTuple(items));
          },
          [&](const PoolAllocateLine &p) {
            // A pool is a flat byte tensor, as Inductor's pool planner makes it.
            const PoolInfo &pool = module.pool(p.pool);
            linef("{} = empty_strided_{}(({}, ), (1, ), torch.uint8)", pool.name,
                  pool.device.kind == graph::Device::Kind::CPU ? "cpu" : "cuda", pool.bytes);
          },
          [&](const AllocateFromPoolLine &a) {
            const BufferInfo &info = module.buffer(a.buffer);
            linef("{} = alloc_from_pool({}, {}, torch.{}, {}, {})", info.name,
                  module.pool(a.pool).name, a.offset, graph::dtypeName(info.layout.dtype),
                  pyTuple(exprs(info.layout.size)), pyTuple(exprs(info.layout.stride)));
          },
          [&](const PoolFreeLine &p) { linef("del {}", module.pool(p.pool).name); },
      },
      l);
}

// Subgraph calls are rare: printed out of line, so that the visitor of the
// common lines stays small.
void PythonEmitter::cond(const Line &l, const CondLine &c) {
  std::string pred = c.compare ? sizePredicate(*c.compare)
                     : c.predicate->kind == Value::Kind::Buffer ? value(c.predicate) + ".item()"
                                                                : value(c.predicate);
  std::vector<std::string> results;
  for (BufferId b : c.results)
    results.push_back(name(b));
  std::string operands = "[";
  for (size_t i = 0; i < c.operands.size(); ++i)
    operands += (i ? ", " : "") + value(c.operands[i]);
  operands += "]"sv;
  std::string target = c.tupleResult != kNoBuffer ? name(c.tupleResult) + " = "
                       : results.empty()            ? std::string("")
                                                    : pyTuple(results) + " = ";
  linef("if {}:", pred);
  for (unsigned branch : {c.trueFunction, c.falseFunction}) {
    if (branch != c.trueFunction)
      line("else:");
    ++indent;
    linef("args = {}", operands);
    freesBeforeCall(l);
    linef("{}{}(args)", target, module.functions[branch].name);
    --indent;
  }
}

void PythonEmitter::invoke(const Line &l, const InvokeSubgraphLine &i) {
  std::string operands = "[";
  for (size_t k = 0; k < i.operands.size(); ++k)
    operands += (k ? ", " : "") + value(i.operands[k]);
  linef("args = {}]", operands);
  freesBeforeCall(l);
  linef("{} = {}(args)", name(i.tupleResult), module.functions[i.function].name);
}

void PythonEmitter::whileLoop(const WhileLoopLine &w) {
  // Inductor's host loop: the carried values live in the result's
  // list; when the body never runs they are copied, so the result
  // never aliases an operand.
  const std::string &state = name(w.tupleResult);
  std::vector<std::string> initial, carried, copies;
  for (size_t i = 0; i < w.carried.size(); ++i) {
    initial.push_back(value(w.carried[i]));
    carried.push_back(fmt::format("{}[{}]", state, i));
    copies.push_back(initial.back() + ".clone()");
  }
  std::string operands = "[";
  for (size_t i = 0; i < carried.size(); ++i)
    operands += (i ? ", " : "") + carried[i];
  for (size_t i = 0; i < w.additional.size(); ++i)
    operands += (carried.empty() && i == 0 ? "" : ", ") + value(w.additional[i]);
  operands += "]"sv;
  const std::string &cond = module.functions[w.condFunction].name;
  auto list = [](const std::vector<std::string> &items) {
    std::string s = "[";
    for (size_t i = 0; i < items.size(); ++i)
      s += (i ? ", " : "") + items[i];
    return s + "]";
  };
  linef("{} = {}", state, list(initial));
  linef("(should_loop, ) = {}({})", cond, operands);
  line("if not should_loop:");
  ++indent;
  linef("{} = {}", state, list(copies));
  --indent;
  line("while should_loop:");
  ++indent;
  linef("{} = {}({})", pyTuple(carried), module.functions[w.bodyFunction].name,
        operands);
  linef("(should_loop, ) = {}({})", cond, operands);
  --indent;
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
  bodies(fn.lines);
  indent = 0;
}

void PythonEmitter::bodies(const std::vector<Line> &lines) {
  // A line's text depends on the module, the line and the device guards
  // open before it: a large function is printed in parts, one per thread,
  // each from the guards open at its first line, and the parts are joined.
  const size_t parts = std::min<size_t>(threads, lines.size() / minLinesPerThread);
  current = &lines;
  markFreedByCalls(lines);
  if (parts < 2) {
    for (const Line &l : lines)
      body(l);
    return;
  }
  std::vector<size_t> starts(parts + 1);
  for (size_t p = 0; p <= parts; ++p)
    starts[p] = lines.size() * p / parts;
  // Parts after the first print into emitters of their own.
  std::vector<PythonEmitter> emitters;
  emitters.reserve(parts - 1);
  unsigned openIndent = indent;
  std::vector<int> openDevices = deviceStack;
  for (size_t p = 1, i = 0; p < parts; ++p) {
    for (; i < starts[p]; ++i) {
      if (const auto *enter = std::get_if<DeviceGuardEnterLine>(&lines[i])) {
        openDevices.push_back(enter->device);
        ++openIndent;
      } else if (std::holds_alternative<DeviceGuardExitLine>(lines[i])) {
        openDevices.pop_back();
        --openIndent;
      }
    }
    PythonEmitter &e = emitters.emplace_back(module);
    e.current = &lines;
    e.freedByCallAt = freedByCallAt;
    e.indent = openIndent;
    e.deviceStack = openDevices;
    e.out.reserve(128 * (starts[p + 1] - starts[p]));
  }
  // What a line throws (a construct the target cannot express) is thrown
  // as without threads: the first part's to fail holds the first failing
  // line.
  runParts(parts, [&](size_t p) {
    PythonEmitter &e = p == 0 ? *this : emitters[p - 1];
    for (size_t i = starts[p]; i < starts[p + 1]; ++i)
      e.body(lines[i]);
  });
  for (PythonEmitter &e : emitters) {
    out += e.out;
    e.out = std::string();
  }
  indent = emitters.back().indent;
  deviceStack = emitters.back().deviceStack;
}

void PythonEmitter::harness() {
  const sym::SymbolValues hints = module.hints();
  // Appended in place: graphs with hundreds of parameters spend most of the
  // harness on these lines.
  auto appendAtHints = [&](std::string &text, std::span<const sym::Expr> list) {
    text += '(';
    for (size_t i = 0; i < list.size(); ++i) {
      std::string error;
      auto v = sym::evaluate(list[i], hints, error);
      if (!v)
        throw InternalError("size hint evaluation failed after validation: " + error);
      if (i)
        text += ", "sv;
      char digits[24];
      text.append(digits, std::to_chars(digits, digits + sizeof digits, *v).ptr);
    }
    text += list.size() == 1 ? ", )" : ")";
  };
  auto appendRandStrided = [&](std::string &text, const BufferInfo &info) {
    text += "rand_strided("sv;
    appendAtHints(text, info.layout.size);
    text += ", "sv;
    appendAtHints(text, info.layout.stride);
    text += ", device='"sv;
    if (info.layout.device.kind == graph::Device::Kind::CPU)
      text += "cpu"sv;
    else
      appendInt(text.append("cuda:"sv), info.layout.device.index);
    text += "', dtype=torch."sv;
    text += graph::dtypeName(info.layout.dtype);
    text += ')';
  };
  auto randStrided = [&](const BufferInfo &info) {
    std::string text;
    appendRandStrided(text, info);
    return text;
  };
  out += "\n\ndef benchmark_compiled_module(times=10, repeat=10):\n"sv;
  out += "    from torch._dynamo.testing import rand_strided\n"sv;
  out += "    from torch._inductor.utils import print_performance\n"sv;
  for (const BufferInfo &info : module.buffers)
    if (info.kind == BufferKind::Constant && info.function == 0) {
      out += fmt::format("    global {}\n", info.name);
      out += fmt::format("    {} = {}\n", info.name, randStrided(info));
    }
  std::string callArgs;
  for (BufferId b : module.main().inputs) {
    const BufferInfo &info = module.buffer(b);
    out += "    "sv;
    out += info.name;
    out += " = "sv;
    if (info.kind == BufferKind::Input) {
      appendRandStrided(out, info);
    } else if (info.kind == BufferKind::SymbolInput) {
      out += std::to_string(hints.at(info.name));
    } else {
      out += info.layout.dtype == graph::DType::Bool      ? "False"
             : info.layout.dtype == graph::DType::Float64 ? "1.0"
                                                          : "1";
    }
    out += '\n';
    if (!callArgs.empty())
      callArgs += ", "sv;
    callArgs += info.name;
  }
  out += fmt::format("    fn = lambda: call([{}])\n", callArgs);
  out += "    return print_performance(fn, times=times, repeat=repeat)\n"sv;
  out += "\n\nif __name__ == \"__main__\":\n"sv;
  out += "    from torch._inductor.wrapper_benchmark import compiled_module_main\n"sv;
  out += fmt::format("    compiled_module_main({}, benchmark_compiled_module)\n",
                     pythonStringLiteral(module.name));
}

std::string PythonEmitter::emit(const EmitOptions &options) {
  // Room for the whole module up front: growing by doubling copies the text
  // and holds both copies for a moment. Untouched room costs no memory.
  // Storage sized before the passes that add lines is taken if the text
  // will likely fit (the estimate allows 128 bytes a line, about twice what
  // lines take).
  size_t estimate = pythonTextReserve(module);
  if (!takeTextStorage(options, estimate, out))
    out.reserve(estimate);
  header();
  kernelDefinitions();
  for (size_t f = 1; f < module.functions.size(); ++f)
    function(module.functions[f]);
  function(module.main());
  harness();
  return std::move(out);
}

} // namespace

size_t pythonTextReserve(const Module &module) {
  size_t estimate = 1 << 16;
  for (const Function &function : module.functions)
    estimate += 128 * function.lines.size();
  for (const graph::Kernel &kernel : module.kernels)
    estimate += kernel.source.size() + kernel.source.size() / 8 + 256;
  return estimate;
}

std::string emitPython(const Module &module, const EmitOptions &options) {
  return PythonEmitter(module, std::max(1u, options.threads),
                       std::max<size_t>(1, options.minLinesPerThread))
      .emit(options);
}

} // namespace wirc::emit
