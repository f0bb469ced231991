//===- Printer.cpp - The textual form of Wrapper IR -----------------------===//
//
// One line of text per IR line, so that pass-level golden tests can check
// the IR line for line. The form is stable: changing it is a breaking change
// for users' tests, like changing an emitter's output.
//
//===----------------------------------------------------------------------===//
#include "wirc/ir/WrapperIR.h"
#include "wirc/support/Names.h"

#include <fmt/format.h>

#include <span>

namespace wirc::ir {

namespace {

class Printer {
public:
  explicit Printer(const Module &module) : module(module) {}

  std::string print();

private:
  const Module &module;
  std::string out;

  std::string name(BufferId id) const { return "%" + module.buffer(id).name; }

  static std::string exprs(std::span<const sym::Expr> list) { return sym::toString(list); }

  static std::string layout(const graph::Layout &l) {
    std::string s = fmt::format("{}{} stride {}", graph::dtypeName(l.dtype), exprs(l.size),
                                exprs(l.stride));
    if (l.offset != sym::Expr(0))
      s += " offset " + sym::toString(l.offset);
    return s + " " + graph::deviceName(l.device);
  }

  std::string value(const Value &v) const {
    switch (v.kind) {
    case Value::Kind::None:
      return "none";
    case Value::Kind::Bool:
      return v.boolValue ? "true" : "false";
    case Value::Kind::Int:
      return std::to_string(v.intValue);
    case Value::Kind::Float:
      return fmt::format("{}", v.floatValue);
    case Value::Kind::Complex:
      return fmt::format("complex({}, {})", v.floatValue, v.imagValue());
    case Value::Kind::String:
      return pythonStringLiteral(v.text());
    case Value::Kind::Buffer:
      return name(v.buffer);
    case Value::Kind::View:
      return fmt::format("view({}, {}, {}, {})", name(v.buffer), exprs(v.size()), exprs(v.stride()),
                         sym::toString(v.expr));
    case Value::Kind::Expr:
      return sym::toString(v.expr);
    case Value::Kind::DType:
      return std::string(graph::dtypeName(v.dtype));
    case Value::Kind::Device:
      return graph::deviceName(v.device);
    case Value::Kind::List:
    case Value::Kind::Tuple: {
      std::string s = v.kind == Value::Kind::List ? "[" : "(";
      for (size_t i = 0; i < v.items().size(); ++i)
        s += (i ? ", " : "") + value(v.items()[i]);
      if (v.kind == Value::Kind::Tuple && v.items().size() == 1)
        s += ",";
      return s + (v.kind == Value::Kind::List ? "]" : ")");
    }
    }
    return "?";
  }

  std::string values(const std::vector<Value> &list) const {
    std::string s;
    for (size_t i = 0; i < list.size(); ++i)
      s += (i ? ", " : "") + value(list[i]);
    return s;
  }

  std::string kwargs(const std::vector<std::pair<std::string, Value>> &list) const {
    std::string s;
    for (const auto &[key, v] : list)
      s += fmt::format(", {}={}", key, value(v));
    return s;
  }

  std::string grid(const Grid &g) const {
    return fmt::format("({}, {}, {})", sym::toString(g[0]), sym::toString(g[1]),
                       sym::toString(g[2]));
  }

  std::string line(const Line &l) const;
};

std::string Printer::line(const Line &l) const {
  return std::visit(
      Overloaded{
          [&](const AllocateLine &a) {
            return fmt::format("alloc {} : {}", name(a.buffer),
                               layout(module.buffer(a.buffer).layout));
          },
          [&](const FreeLine &f) { return fmt::format("free {}", name(f.buffer)); },
          [&](const ReuseLine &r) {
            return fmt::format("reuse {} = {}{}{}", name(r.reusedAs), name(r.old),
                               r.inPlace ? " in_place" : "", r.deleteOld ? "" : " keep_old");
          },
          [&](const CommentLine &c) { return "comment " + pythonStringLiteral(c.text); },
          [&](const KernelDefinitionLine &k) {
            const graph::Kernel &kernel = module.kernel(k.kernel);
            // A CPU kernel is a function: no grid, no configs.
            if (kernel.language == graph::KernelLanguage::Cpp)
              return fmt::format("kernel.def @{} cpp", kernel.name);
            return fmt::format("kernel.def @{} {} {} configs={}", kernel.name,
                               graph::kernelLanguageName(kernel.language),
                               graph::gridTypeName(kernel.gridType), kernel.configs.size());
          },
          [&](const KernelCallLine &c) {
            std::string s = fmt::format("kernel.call @{}[{}](", module.kernel(c.kernel).name,
                                        c.config);
            bool first = true;
            for (const CallArg &arg : c.args) {
              s += first ? "" : ", ";
              first = false;
              if (arg.role == graph::ArgRole::Removed)
                s += fmt::format("removed {}", name(arg.value.buffer));
              else
                s += fmt::format("{}{}={}", arg.param.empty() ? "?" : arg.param,
                                 arg.role == graph::ArgRole::Input    ? ""
                                 : arg.role == graph::ArgRole::Output ? ":out"
                                 : arg.role == graph::ArgRole::InOut  ? ":inout"
                                                                      : "",
                                 value(arg.value));
            }
            for (const auto &[numel, expr] : c.numels) {
              s += fmt::format("{}{}={}", first ? "" : ", ", numel, sym::toString(expr));
              first = false;
            }
            s += ")";
            if (c.fixedGrid)
              s += " fixed_grid " + grid(*c.fixedGrid);
            if (!c.grids.empty())
              s += " grid " + grid(c.grids.at(c.config));
            return s;
          },
          [&](const ExternKernelOutLine &e) {
            return fmt::format("extern.out {}({}{}) -> {}", e.op, values(e.args), kwargs(e.kwargs),
                               value(e.out));
          },
          [&](const ExternKernelAllocLine &e) {
            std::string s = e.result == kNoBuffer ? std::string("extern.alloc ")
                                                  : fmt::format("{} = extern.alloc ",
                                                                name(e.result));
            s += fmt::format("{}({}{})", e.op, values(e.args), kwargs(e.kwargs));
            if (e.mutated && !e.mutated->empty()) {
              s += " mutates";
              for (BufferId id : *e.mutated) {
                s += ' ';
                s += name(id);
              }
            }
            return s;
          },
          [&](const MultiOutputLine &m) {
            std::string s = fmt::format("{} = multi_output {}", name(m.result), name(m.source));
            for (const auto &[container, key] : m.indices)
              s += fmt::format("[{} {}]", container, key);
            return s;
          },
          [&](const ReinterpretViewLine &r) {
            return fmt::format("{} = reinterpret {} : {}", name(r.view), name(r.base),
                               layout(module.buffer(r.view).layout));
          },
          [&](const AssertSizeStrideLine &a) {
            return fmt::format("assert_size_stride {} {} {}{}", name(a.buffer), exprs(a.size),
                               exprs(a.stride),
                               a.what.empty() ? "" : " " + pythonStringLiteral(a.what));
          },
          [&](const SymbolBindingLine &b) {
            // What an unbacked binding reads: a view, or items of a tuple.
            std::string from;
            if (b.source != SymbolBindingLine::Source::Expr)
              from = b.view ? value(*b.view) : name(b.tensor);
            for (uint32_t item : b.index)
              from += fmt::format("[{}]", item);
            switch (b.source) {
            case SymbolBindingLine::Source::Input:
              return fmt::format("bind {} = {}", b.symbol, name(b.tensor));
            case SymbolBindingLine::Source::Size:
              return fmt::format("bind {} = size({}, {})", b.symbol, from, b.dim);
            case SymbolBindingLine::Source::Stride:
              return fmt::format("bind {} = stride({}, {})", b.symbol, from, b.dim);
            case SymbolBindingLine::Source::Expr:
              return fmt::format("bind {} = {}", b.symbol, sym::toString(b.expr));
            case SymbolBindingLine::Source::StorageOffset:
              return fmt::format("bind {} = storage_offset({})", b.symbol, from);
            case SymbolBindingLine::Source::Item:
              return fmt::format("bind {} = item({})", b.symbol, from);
            }
            return std::string();
          },
          [&](const AssertScalarLine &a) {
            return fmt::format("assert_scalar {} {} {} {}", sym::toString(a.lhs),
                               graph::compareSpelling(a.cmp), sym::toString(a.rhs),
                               pythonStringLiteral(a.message));
          },
          [&](const ZeroLine &z) { return fmt::format("zero {}", name(z.buffer)); },
          [&](const AssertFiniteLine &a) {
            return fmt::format("assert_finite {}", name(a.buffer));
          },
          [&](const DeviceGuardEnterLine &d) {
            return fmt::format("device_guard.enter {}", d.device);
          },
          [&](const DeviceGuardExitLine &) { return std::string("device_guard.exit"); },
          [&](const SubgraphEnterLine &s) { return fmt::format("subgraph.enter @{}", s.name); },
          [&](const SubgraphExitLine &) { return std::string("subgraph.exit"); },
          [&](const CondLine &c) {
            std::string results;
            for (size_t i = 0; i < c.results.size(); ++i)
              results += (i ? ", " : "") + name(c.results[i]);
            if (c.tupleResult != kNoBuffer)
              results = name(c.tupleResult);
            std::string predicate;
            if (c.compare) {
              for (const graph::SizeComparison &t : c.compare->terms)
                predicate += fmt::format("{}({} {} {})",
                                         predicate.empty() ? "" : c.compare->any ? " or " : " and ",
                                         sym::toString(t.lhs), graph::compareSpelling(t.cmp),
                                         sym::toString(t.rhs));
            } else {
              predicate = value(c.predicate);
            }
            return fmt::format("({}) = cond {} then @{} else @{} ({})", results, predicate,
                               module.functions[c.trueFunction].name,
                               module.functions[c.falseFunction].name, values(c.operands));
          },
          [&](const WhileLoopLine &w) {
            return fmt::format("({}) = while @{} do @{} ({}) ({})", name(w.tupleResult),
                               module.functions[w.condFunction].name,
                               module.functions[w.bodyFunction].name, values(w.carried),
                               values(w.additional));
          },
          [&](const InvokeSubgraphLine &i) {
            return fmt::format("({}) = invoke @{} ({})", name(i.tupleResult),
                               module.functions[i.function].name, values(i.operands));
          },
          [&](const OutputLine &o) { return fmt::format("output ({})", values(o.outputs)); },
          [&](const PoolAllocateLine &p) {
            const PoolInfo &pool = module.pool(p.pool);
            return fmt::format("pool.alloc @{} : {} bytes {}", pool.name, pool.bytes,
                               graph::deviceName(pool.device));
          },
          [&](const AllocateFromPoolLine &a) {
            return fmt::format("alloc {} : {} from @{} + {}", name(a.buffer),
                               layout(module.buffer(a.buffer).layout), module.pool(a.pool).name,
                               a.offset);
          },
          [&](const PoolFreeLine &p) {
            return fmt::format("pool.free @{}", module.pool(p.pool).name);
          },
      },
      l);
}

std::string Printer::print() {
  out = fmt::format("wirc.module @{}\n", module.name);
  for (const graph::Symbol &symbol : module.symbols) {
    // A float symbol has no size hint: it is never a size.
    out += symbol.isFloat ? fmt::format("symbol {} float64", symbol.name)
                          : fmt::format("symbol {} hint {}", symbol.name, symbol.hint);
    if (symbol.expr)
      out += " = " + sym::toString(*symbol.expr);
    out += "\n";
  }
  for (const Function &function : module.functions) {
    out += fmt::format("\n{} @{}(", function.isSubgraph ? "subgraph" : "graph", function.name);
    for (size_t i = 0; i < function.inputs.size(); ++i) {
      const BufferInfo &info = module.buffer(function.inputs[i]);
      out += (i ? ", " : "") + name(function.inputs[i]) + ": ";
      if (info.kind == BufferKind::SymbolInput)
        out += "symbol";
      else if (info.kind == BufferKind::ScalarInput)
        out += std::string(graph::dtypeName(info.layout.dtype));
      else
        out += layout(info.layout) + (info.mutatedInput ? " mutated" : "");
    }
    out += ") {\n";
    for (const Line &l : function.lines)
      out += "  " + line(l) + "\n";
    out += "}\n";
  }
  return out;
}

} // namespace

std::string printModule(const Module &module) { return Printer(module).print(); }

} // namespace wirc::ir
