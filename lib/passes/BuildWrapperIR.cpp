//===- BuildWrapperIR.cpp - Graph to Wrapper IR ---------------------------===//
#include "wirc/passes/Pass.h"

#include "LineParts.h"
#include "wirc/support/Hash.h"
#include "wirc/support/Parallel.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

namespace wirc::passes {

namespace {

using namespace wirc::ir;

/// Makes \p out a view of \p base, taking the graph view's size, stride and
/// offset over (the graph is consumed).
void takeView(Value &out, BufferId base, graph::View &view) {
  out.kind = Value::Kind::View;
  out.buffer = base;
  ValueParts &parts = out.mutableParts();
  parts.size = std::move(view.size);
  parts.stride = std::move(view.stride);
  out.expr = std::move(view.offset);
}

/// True if \p dims (an integer or expression per dimension) spell \p exprs.
bool sameDims(const graph::Value &dims, const sym::ExprList &exprs) {
  if (dims.kind != graph::Value::Kind::List || dims.items.size() != exprs.size())
    return false;
  for (size_t i = 0; i < exprs.size(); ++i) {
    const graph::Value &d = dims.items[i];
    if (d.kind == graph::Value::Kind::Int) {
      if (exprs[i].constant() != d.intValue)
        return false;
    } else if (d.kind != graph::Value::Kind::Expr || !(d.expr == exprs[i])) {
      return false;
    }
  }
  return true;
}

/// aten.empty_strided(size, stride, dtype=, device=) returning a new buffer
/// with exactly that layout is an allocation (the exporter's form for a
/// device copy's target and for an output nothing writes): it becomes one,
/// so that every emitter prints its own and the memory planner may place it.
bool isAllocation(const graph::ExternNode &ext, const graph::Layout &layout) {
  if (ext.op != "aten.empty_strided.default" || !ext.result || ext.out ||
      !ext.mutated.empty() || ext.args.size() != 2 || ext.kwargs.size() != 2 ||
      layout.offset.constant() != 0)
    return false;
  bool dtype = false, device = false;
  for (const auto &[key, v] : ext.kwargs) {
    if (key == "dtype")
      dtype = v.kind == graph::Value::Kind::DType && v.dtype == layout.dtype;
    else if (key == "device")
      device = v.kind == graph::Value::Kind::Device && v.device == layout.device;
  }
  return dtype && device && sameDims(ext.args[0], layout.size) &&
         sameDims(ext.args[1], layout.stride);
}

/// Names to dense ids in one open-addressed array: a std::string key and a
/// hash node per buffer were much of this pass's time and memory. The names
/// stay where they are (\p nameOf), which must not move while the table is
/// in use.
class NameTable {
public:
  void reserve(size_t count) {
    size_t capacity = 16;
    while (capacity < 2 * count)
      capacity *= 2;
    slots.assign(capacity, Slot{0, kEmpty});
  }

  /// Adds \p name for \p id unless the name is already there.
  template <typename NameOf> void insert(std::string_view name, uint32_t id, NameOf &&nameOf) {
    if (2 * (size + 1) > slots.size())
      grow(nameOf);
    uint32_t h = hashOf(name);
    for (size_t i = h & (slots.size() - 1);; i = (i + 1) & (slots.size() - 1)) {
      if (slots[i].id == kEmpty) {
        slots[i] = Slot{h, id};
        ++size;
        return;
      }
      if (slots[i].hash == h && nameOf(slots[i].id) == name)
        return;
    }
  }

  /// The id of \p name, or kEmpty.
  template <typename NameOf> uint32_t find(std::string_view name, NameOf &&nameOf) const {
    if (slots.empty())
      return kEmpty;
    uint32_t h = hashOf(name);
    for (size_t i = h & (slots.size() - 1);; i = (i + 1) & (slots.size() - 1)) {
      if (slots[i].id == kEmpty)
        return kEmpty;
      if (slots[i].hash == h && nameOf(slots[i].id) == name)
        return slots[i].id;
    }
  }

  static constexpr uint32_t kEmpty = UINT32_MAX;

private:
  struct Slot {
    uint32_t hash;
    uint32_t id;
  };
  std::vector<Slot> slots;
  size_t size = 0;

  static uint32_t hashOf(std::string_view name) {
    return static_cast<uint32_t>(hashText(name));
  }

  template <typename NameOf> void grow(NameOf &&nameOf) {
    std::vector<Slot> old = std::move(slots);
    reserve(std::max<size_t>(size + 1, old.size()));
    size = 0;
    for (const Slot &slot : old)
      if (slot.id != kEmpty)
        insert(nameOf(slot.id), slot.id, nameOf);
  }
};

class FunctionBuilder {
public:
  FunctionBuilder(Module &module, unsigned index, const graph::Graph &graph, PassContext &ctx,
                  const std::unordered_map<std::string, unsigned> &subgraphs,
                  const NameTable &kernels, std::vector<bool> &definedKernels)
      : module(module), index(index), graph(graph), ctx(ctx), subgraphs(subgraphs),
        kernels(kernels), definedKernels(definedKernels), function(module.functions[index]) {}

  /// Builds the function. With \p consumed, the graph's own (non-const)
  /// copy, the IR takes the graph's strings and expressions over rather
  /// than copying them, and each node is freed once its lines are built.
  bool build(graph::Graph *consumed = nullptr);

private:
  bool checkUnbackedUses(size_t first, std::string_view pointer);
  std::unordered_set<std::string> unbacked;      ///< the module's unbacked symbols
  std::unordered_set<std::string> boundUnbacked; ///< those bound so far
  /// Subgraphs: the module's symbols this function has no value for (not
  /// an input, not a bare size or stride of a tensor input); any use is an
  /// error.
  std::unordered_set<std::string> unbound;
  Module &module;
  unsigned index;
  const graph::Graph &graph;
  PassContext &ctx;
  const std::unordered_map<std::string, unsigned> &subgraphs;
  const NameTable &kernels;
  std::vector<bool> &definedKernels; ///< by KernelId
  Function &function;
  /// Over module.buffers, which do not move while building; built the
  /// first time a name is looked up (the reader resolves references, so
  /// that is rare).
  mutable NameTable names;
  mutable bool namesBuilt = false;
  std::vector<bool> defined; ///< by BufferId - firstBuffer
  BufferId firstBuffer = 0;
  uint32_t tensorCount = 0; ///< the graph's inputs, constants and buffers

  /// What a part of the nodes built on a thread of its own does to the
  /// function's state, in order and at the line it came before: replayed
  /// on one thread, it makes the allocations, views and kernel definitions
  /// a run on one thread would have made at the same places.
  struct Event {
    enum Kind : uint8_t { Ensure, Mark, Kernel };
    size_t line; ///< the part's lines before it
    uint32_t id; ///< BufferId or KernelId
    Kind kind;
  };
  /// Where lines and origins go: the function's own, or a part's.
  std::vector<Line> *lines = &function.lines;
  std::vector<std::string> *origins = &function.origins;
  /// A part's record of what it did to shared state; null on the
  /// function's own builder, which changes that state itself.
  std::vector<Event> *events = nullptr;

  auto bufferName() const {
    return [this](BufferId b) -> std::string_view { return module.buffers[b].name; };
  }

  /// A new buffer of this function, filled in place by the caller, who
  /// then names it (nameBuffer).
  BufferInfo &addBuffer(BufferKind kind) {
    BufferInfo &info = module.buffers.emplace_back();
    info.kind = kind;
    info.function = index;
    return info;
  }
  BufferId nameBuffer() { return static_cast<BufferId>(module.buffers.size() - 1); }

  BufferId id(std::string_view name) const {
    if (!namesBuilt) {
      names.reserve(tensorCount);
      for (BufferId b = firstBuffer; b < firstBuffer + tensorCount; ++b)
        names.insert(module.buffers[b].name, b, bufferName());
      namesBuilt = true;
    }
    BufferId b = names.find(name, bufferName());
    if (b == NameTable::kEmpty)
      throw InternalError(fmt::format("unresolved name '{}' after validation", name));
    return b;
  }
  /// As above, for a reference the reader may have resolved to \p tensor
  /// (Graph.h's kNoTensor), which needs no lookup.
  BufferId id(std::string_view name, uint32_t tensor) const {
    if (tensor < tensorCount)
      return firstBuffer + tensor;
    return id(name);
  }

  bool isDefined(BufferId b) const { return defined[b - firstBuffer]; }
  void markDefined(BufferId b) {
    if (events)
      events->push_back(Event{lines->size(), b, Event::Mark});
    else
      defined[b - firstBuffer] = true;
  }

  template <typename T> void emit(T &&line) { lines->emplace_back(std::forward<T>(line)); }

  /// Defines kernel \p k before its first call.
  void defineKernel(KernelId k) {
    if (events) {
      events->push_back(Event{lines->size(), k, Event::Kernel});
    } else if (!definedKernels[k]) {
      definedKernels[k] = true;
      emit(KernelDefinitionLine{k});
    }
  }

  /// Makes \p b usable: allocates an owned buffer the first time it is
  /// written, or defines a named view (allocating its base first).
  void ensureDefined(BufferId b) {
    if (events) {
      events->push_back(Event{lines->size(), b, Event::Ensure});
      return;
    }
    if (isDefined(b))
      return;
    const BufferInfo &info = module.buffers[b];
    if (info.kind == BufferKind::View) {
      ensureDefined(info.viewBase);
      emit(ReinterpretViewLine{b, info.viewBase});
    } else if (info.kind == BufferKind::Intermediate) {
      emit(AllocateLine{b});
    }
    markDefined(b);
  }

  /// Converts \p v, taking its strings and expressions over.
  Value convert(graph::Value &v) {
    Value out;
    switch (v.kind) {
    case graph::Value::Kind::None:
      out.kind = Value::Kind::None;
      break;
    case graph::Value::Kind::Bool:
      out.kind = Value::Kind::Bool;
      out.boolValue = v.boolValue;
      break;
    case graph::Value::Kind::Int:
      out.kind = Value::Kind::Int;
      out.intValue = v.intValue;
      break;
    case graph::Value::Kind::Float:
      out.kind = Value::Kind::Float;
      out.floatValue = v.floatValue;
      break;
    case graph::Value::Kind::Complex:
      out.kind = Value::Kind::Complex;
      out.floatValue = v.floatValue;
      out.intValue = v.intValue;
      break;
    case graph::Value::Kind::String:
      out.kind = Value::Kind::String;
      out.mutableParts().text = std::move(v.text);
      break;
    case graph::Value::Kind::Buffer:
      out.kind = Value::Kind::Buffer;
      out.buffer = id(v.text, v.tensor);
      ensureDefined(out.buffer);
      break;
    case graph::Value::Kind::View: {
      BufferId base = id(v.view->base, v.view->baseId);
      ensureDefined(base);
      takeView(out, base, *v.view);
      break;
    }
    case graph::Value::Kind::Expr:
      out.kind = Value::Kind::Expr;
      out.expr = std::move(v.expr);
      break;
    case graph::Value::Kind::DType:
      out.kind = Value::Kind::DType;
      out.dtype = v.dtype;
      break;
    case graph::Value::Kind::Device:
      out.kind = Value::Kind::Device;
      out.device = v.device;
      break;
    case graph::Value::Kind::List:
    case graph::Value::Kind::Tuple:
      out.kind = v.kind == graph::Value::Kind::List ? Value::Kind::List : Value::Kind::Tuple;
      if (!v.items.empty()) {
        std::vector<Value> &items = out.mutableParts().items;
        items.reserve(v.items.size());
        for (graph::Value &item : v.items)
          items.push_back(convert(item));
      }
      break;
    }
    return out;
  }

  std::vector<Value> convertAll(std::vector<graph::Value> &list) {
    std::vector<Value> out;
    out.reserve(list.size());
    for (graph::Value &v : list)
      out.push_back(convert(v));
    return out;
  }

  std::vector<std::pair<std::string, Value>>
  convertKwargs(std::vector<std::pair<std::string, graph::Value>> &list) {
    std::vector<std::pair<std::string, Value>> out;
    out.reserve(list.size());
    for (auto &[key, v] : list) {
      std::string name = std::move(key);
      out.emplace_back(std::move(name), convert(v));
    }
    return out;
  }

  void createBuffers(graph::Graph *consumed);
  bool bindSymbols();
  void buildNode(graph::Node &node);
  void buildBindSymbol(graph::BindSymbolNode &b);
  void buildKernelCall(graph::KernelCallNode &call, std::string &pointer);
  void buildNodesInParts(graph::Graph &consumed, size_t count);
};

void FunctionBuilder::createBuffers(graph::Graph *consumed) {
  firstBuffer = static_cast<BufferId>(module.buffers.size());
  size_t count = graph.inputs.size() + graph.constants.size() + graph.buffers.size();
  tensorCount = static_cast<uint32_t>(count);
  // Geometric, as push_back grows: one function after another must not
  // reallocate every time. The name table refers to the names in place, so
  // nothing may reallocate while this function is built.
  if (module.buffers.capacity() < module.buffers.size() + count)
    module.buffers.reserve(std::max(module.buffers.size() + count, 2 * module.buffers.capacity()));
  function.inputs.reserve(graph.inputs.size());
  for (const graph::Input &input : graph.inputs) {
    BufferInfo &info = addBuffer(input.kind == graph::InputKind::Tensor   ? BufferKind::Input
                                 : input.kind == graph::InputKind::Symbol ? BufferKind::SymbolInput
                                                                          : BufferKind::ScalarInput);
    info.name = input.name;
    info.layout = input.layout;
    if (input.kind == graph::InputKind::Scalar)
      info.layout.dtype = input.dtype;
    info.mutatedInput = input.mutated;
    function.inputs.push_back(nameBuffer());
  }
  // Nothing reads the names and layouts of a consumed graph's constants and
  // buffers after this: they move rather than copy.
  for (size_t i = 0; i < graph.constants.size(); ++i) {
    BufferInfo &info = addBuffer(BufferKind::Constant);
    if (consumed) {
      info.name = std::move(consumed->constants[i].name);
      info.layout = std::move(consumed->constants[i].layout);
    } else {
      info.name = graph.constants[i].name;
      info.layout = graph.constants[i].layout;
    }
    nameBuffer();
  }
  const BufferId firstIntermediate = static_cast<BufferId>(module.buffers.size());
  auto fill = [&](BufferInfo &info, size_t i) {
    const graph::Buffer &buffer = graph.buffers[i];
    info.kind = buffer.viewOf ? BufferKind::View : BufferKind::Intermediate;
    info.function = index;
    if (consumed) {
      info.name = std::move(consumed->buffers[i].name);
      info.layout = std::move(consumed->buffers[i].layout);
    } else {
      info.name = buffer.name;
      info.layout = buffer.layout;
    }
    info.removed = buffer.removed;
    info.isTuple = buffer.isTuple;
    info.aliasesInput = buffer.aliasesInput;
  };
  const size_t intermediates = graph.buffers.size();
  // A large graph's buffer table is filled in parts, each writing its own
  // rows: on one thread it took 60 of this pass's 380 ms at a million nodes.
  const size_t parts = consumed ? partsFor(ctx, intermediates) : 1;
  if (parts > 1) {
    module.buffers.resize(module.buffers.size() + intermediates);
    runParts(parts, [&](size_t p) {
      for (size_t i = intermediates * p / parts, end = intermediates * (p + 1) / parts; i < end; ++i)
        fill(module.buffers[firstIntermediate + i], i);
    });
  } else {
    for (size_t i = 0; i < intermediates; ++i)
      fill(module.buffers.emplace_back(), i);
  }
  // Views refer to bases by id once every name is known.
  for (size_t i = 0; i < graph.buffers.size(); ++i)
    if (graph.buffers[i].viewOf)
      module.buffers[firstIntermediate + i].viewBase =
          id(*graph.buffers[i].viewOf, graph.buffers[i].viewOfId);
  defined.assign(module.buffers.size() - firstBuffer, false);
  for (BufferId b = firstBuffer; b < module.buffers.size(); ++b) {
    BufferKind kind = module.buffers[b].kind;
    if (kind == BufferKind::Input || kind == BufferKind::SymbolInput ||
        kind == BufferKind::ScalarInput || kind == BufferKind::Constant)
      markDefined(b);
  }
}

/// Binds every size symbol before the first line that may use it: symbol
/// inputs first, then bare symbols found as a tensor input's size or stride,
/// then precomputed symbols in declaration order. The top level must bind
/// every symbol; a subgraph binds those its inputs give it and notes the
/// rest in \c unbound, whose uses checkUnbackedUses reports.
bool FunctionBuilder::bindSymbols() {
  bool ok = true;
  std::unordered_set<std::string> bound;
  // Inputs are the function's first buffers, and their names are unique.
  for (size_t i = 0; i < graph.inputs.size(); ++i)
    if (const graph::Input &input = graph.inputs[i]; input.kind == graph::InputKind::Symbol) {
      emit(SymbolBindingLine{input.name, SymbolBindingLine::Source::Input,
                             firstBuffer + static_cast<BufferId>(i), 0, {}, {}, {}});
      bound.insert(input.name);
    }
  for (const graph::Symbol &symbol : module.symbols) {
    if (bound.count(symbol.name) || symbol.expr || symbol.unbacked)
      continue;
    bool found = false;
    for (size_t i = 0; i < graph.inputs.size(); ++i) {
      const graph::Input &input = graph.inputs[i];
      if (input.kind != graph::InputKind::Tensor)
        continue;
      for (int pass = 0; pass < 2 && !found; ++pass) {
        const auto &dims = pass == 0 ? input.layout.size : input.layout.stride;
        for (unsigned d = 0; d < dims.size() && !found; ++d) {
          if (dims[d].isSymbol() && dims[d].symbolName() == symbol.name) {
            emit(SymbolBindingLine{symbol.name,
                                   pass == 0 ? SymbolBindingLine::Source::Size
                                             : SymbolBindingLine::Source::Stride,
                                   firstBuffer + static_cast<BufferId>(i), d, {}, {}, {}});
            found = true;
          }
        }
      }
      if (found)
        break;
    }
    if (found) {
      bound.insert(symbol.name);
      continue;
    }
    if (function.isSubgraph) {
      unbound.insert(symbol.name);
      continue;
    }
    ctx.diag.error(fmt::format("/symbols/{}", &symbol - module.symbols.data()),
                   fmt::format("symbol '{}' is not bound: no graph input is the symbol and no "
                               "tensor input has it as a size or stride; give it an \"expr\" or "
                               "add a symbol input",
                               symbol.name));
    ok = false;
  }
  for (const graph::Symbol &symbol : module.symbols) {
    if (!symbol.expr)
      continue;
    if (function.isSubgraph) {
      // Computed here only from what the subgraph binds.
      bool computable = true;
      for (const std::string &used : sym::symbols(*symbol.expr))
        computable &= bound.count(used) != 0;
      if (!computable) {
        unbound.insert(symbol.name);
        continue;
      }
    }
    for (const std::string &used : sym::symbols(*symbol.expr))
      if (!bound.count(used)) {
        ctx.diag.error(fmt::format("/symbols/{}/expr", &symbol - module.symbols.data()),
                       fmt::format("symbol '{}' is computed from '{}', which is not bound before "
                                   "it; declare symbols before the symbols computed from them",
                                   symbol.name, used));
        ok = false;
      }
    emit(SymbolBindingLine{symbol.name, SymbolBindingLine::Source::Expr, kNoBuffer, 0,
                           *symbol.expr, {}, {}});
    bound.insert(symbol.name);
  }
  return ok;
}

void FunctionBuilder::buildKernelCall(graph::KernelCallNode &call, std::string &pointer) {
  KernelId kernel = kernels.find(call.kernel, [&](KernelId k) -> std::string_view {
    return module.kernels[k].name;
  });
  if (kernel == NameTable::kEmpty)
    throw InternalError(fmt::format("unresolved kernel '{}' after validation", call.kernel));
  defineKernel(kernel);
  KernelCallLine line;
  line.kernel = kernel;
  line.config = call.config;
  line.numels = std::move(call.numels);
  line.origin = static_cast<uint32_t>(origins->size());
  origins->push_back(std::move(pointer));
  if (call.grid)
    line.fixedGrid = Grid{(*call.grid)[0], (*call.grid)[1], (*call.grid)[2]};
  bool anyRemoved = std::any_of(call.args.begin(), call.args.end(), [](const auto &arg) {
    return arg.role == graph::ArgRole::Removed;
  });
  // An argument that a later `removed` entry names was created and then
  // removed by fusion: it is never passed, allocated or reused.
  auto removedLater = [&](size_t i) {
    const graph::KernelArg &arg = call.args[i];
    for (size_t j = i + 1; j < call.args.size(); ++j) {
      const graph::KernelArg &later = call.args[j];
      if (later.role == graph::ArgRole::Removed &&
          (later.buffer == arg.buffer || (!arg.result.empty() && later.buffer == arg.result)))
        return true;
    }
    return false;
  };
  // Built in place: a call's arguments are most of the IR.
  line.args.reserve(call.args.size());
  for (size_t i = 0; i < call.args.size(); ++i) {
    graph::KernelArg &arg = call.args[i];
    CallArg &out = line.args.emplace_back();
    out.param = std::move(arg.name);
    out.role = arg.role;
    out.removedRole = arg.removedRole;
    bool isTensorRole = arg.role == graph::ArgRole::Input || arg.role == graph::ArgRole::Output ||
                        arg.role == graph::ArgRole::InOut;
    if (anyRemoved && isTensorRole && removedLater(i)) {
      out.role = graph::ArgRole::Removed;
      out.removedRole = arg.role;
      out.removalEvent = false;
      out.value.kind = Value::Kind::Buffer;
      out.value.buffer = id(arg.buffer, arg.bufferId);
      continue;
    }
    if (arg.role == graph::ArgRole::Removed)
      for (size_t j = 0; j < i; ++j)
        out.removesEarlier |= call.args[j].role != graph::ArgRole::Removed &&
                              (call.args[j].buffer == arg.buffer ||
                               call.args[j].result == arg.buffer);
    switch (arg.role) {
    case graph::ArgRole::Input:
    case graph::ArgRole::Output:
    case graph::ArgRole::InOut: {
      BufferId b = id(arg.buffer, arg.bufferId);
      ensureDefined(b);
      if (arg.role == graph::ArgRole::InOut && !arg.result.empty()) {
        BufferId result = id(arg.result, arg.resultId);
        emit(ReuseLine{b, result, /*deleteOld=*/true, /*inPlace=*/true});
        markDefined(result);
        b = result;
      }
      if (arg.view) {
        takeView(out.value, b, *arg.view);
      } else {
        out.value.kind = Value::Kind::Buffer;
        out.value.buffer = b;
      }
      break;
    }
    case graph::ArgRole::Removed:
      out.value.kind = Value::Kind::Buffer;
      out.value.buffer = id(arg.buffer, arg.bufferId);
      break;
    case graph::ArgRole::Size:
    case graph::ArgRole::Scalar:
      if (arg.value) // the reader requires one
        out.value = convert(*arg.value);
      break;
    }
  }
  emit(std::move(line));
}

/// Out of line: most graphs bind no unbacked symbol, and the builder's hot
/// paths keep their inlining.
[[gnu::cold]] void FunctionBuilder::buildBindSymbol(graph::BindSymbolNode &b) {
  using Read = graph::BindSymbolNode::Read;
  using Source = SymbolBindingLine::Source;
  SymbolBindingLine line;
  line.symbol = std::move(b.symbol);
  if (b.read == Read::Expr) {
    line.source = Source::Expr;
    line.expr = std::move(b.expr);
    emit(std::move(line));
    return;
  }
  line.source = b.read == Read::Size     ? Source::Size
                : b.read == Read::Stride ? Source::Stride
                : b.read == Read::Item   ? Source::Item
                                         : Source::StorageOffset;
  line.dim = b.dim;
  Value tensor = convert(b.tensor);
  line.tensor = tensor.buffer;
  if (tensor.kind == Value::Kind::View)
    line.view = std::move(tensor);
  line.index = std::move(b.index);
  emit(std::move(line));
}

void FunctionBuilder::buildNode(graph::Node &node) {
  std::visit(
      Overloaded{
          [&](graph::KernelCallNode &call) { buildKernelCall(call, node.pointer); },
          [&](Boxed<graph::ExternNode> &boxed) {
            graph::ExternNode &ext = *boxed;
            if (ext.out) {
              ExternKernelOutLine line;
              line.op = std::move(ext.op);
              line.fallback = ext.fallback;
              if (!ext.schema.empty())
                line.schema = std::move(ext.schema);
              line.args = convertAll(ext.args);
              line.kwargs = convertKwargs(ext.kwargs);
              line.out = convert(*ext.out);
              emit(std::move(line));
              return;
            }
            if (ext.result) {
              BufferId result = id(*ext.result, ext.resultId);
              const BufferInfo &info = module.buffers[result];
              if (info.kind == BufferKind::Intermediate && !info.isTuple &&
                  isAllocation(ext, info.layout)) {
                ensureDefined(result);
                return;
              }
            }
            ExternKernelAllocLine line;
            line.op = std::move(ext.op);
            line.fallback = ext.fallback;
            if (!ext.schema.empty())
              line.schema = std::move(ext.schema);
            line.args = convertAll(ext.args);
            line.kwargs = convertKwargs(ext.kwargs);
            if (!ext.mutated.empty())
              line.mutated = std::vector<BufferId>();
            for (size_t i = 0; i < ext.mutated.size(); ++i)
              line.mutated->push_back(
                  id(ext.mutated[i],
                     i < ext.mutatedIds.size() ? ext.mutatedIds[i] : graph::kNoTensor));
            if (ext.result) {
              line.result = id(*ext.result, ext.resultId);
              markDefined(line.result);
            }
            emit(std::move(line));
          },
          [&](graph::MultiOutputNode &mo) {
            BufferId result = id(mo.result, mo.resultId);
            markDefined(result);
            emit(MultiOutputLine{result, id(mo.source, mo.sourceId), std::move(mo.indices)});
          },
          [&](Boxed<graph::AssertSizeStrideNode> &boxed) {
            graph::AssertSizeStrideNode &as = *boxed;
            if (ctx.options.sizeAsserts) {
              BufferId b = id(as.buffer, as.bufferId);
              ensureDefined(b);
              emit(AssertSizeStrideLine{b, std::move(as.size), std::move(as.stride),
                                        std::move(as.what)});
            }
          },
          [&](graph::ZeroNode &z) {
            BufferId b = id(z.buffer, z.bufferId);
            ensureDefined(b);
            emit(ZeroLine{b});
          },
          [&](graph::AssertFiniteNode &a) {
            BufferId b = id(a.buffer, a.bufferId);
            ensureDefined(b);
            emit(AssertFiniteLine{b});
          },
          [&](graph::DeviceGuardEnterNode &g) { emit(DeviceGuardEnterLine{g.index}); },
          [&](graph::DeviceGuardExitNode &) { emit(DeviceGuardExitLine{}); },
          [&](graph::CommentNode &c) {
            // One IR comment per source line, so no emitter ever has to
            // guard a comment against line breaks.
            // (find_first_of calls memchr once per byte of the comment;
            // one memchr per character looked for is a vector scan each.)
            auto lineBreak = [](std::string_view text) {
              const void *lf = std::memchr(text.data(), '\n', text.size());
              size_t end = lf ? static_cast<size_t>(static_cast<const char *>(lf) - text.data())
                              : text.size();
              const void *cr = std::memchr(text.data(), '\r', end);
              if (cr)
                return static_cast<size_t>(static_cast<const char *>(cr) - text.data());
              return lf ? end : std::string_view::npos;
            };
            if (lineBreak(c.text) == std::string_view::npos) {
              emit(CommentLine{std::move(c.text)});
              return;
            }
            std::string_view text = c.text;
            while (true) {
              size_t nl = lineBreak(text);
              emit(CommentLine{std::string(text.substr(0, nl))});
              if (nl == std::string_view::npos)
                break;
              text = text.substr(nl + 1);
            }
          },
          [&](Boxed<graph::CondNode> &boxed) {
            graph::CondNode &c = *boxed;
            CondLine line;
            line.predicate = convert(c.predicate);
            line.compare = std::move(c.compare);
            line.trueFunction = subgraphs.at(c.trueGraph);
            line.falseFunction = subgraphs.at(c.falseGraph);
            line.operands = convertAll(c.operands);
            for (const std::string &name : c.results) {
              BufferId b = id(name);
              markDefined(b);
              line.results.push_back(b);
            }
            if (!c.result.empty()) {
              line.tupleResult = id(c.result);
              markDefined(line.tupleResult);
            }
            emit(std::move(line));
          },
          [&](Boxed<graph::WhileLoopNode> &boxed) {
            graph::WhileLoopNode &w = *boxed;
            WhileLoopLine line;
            line.condFunction = subgraphs.at(w.condGraph);
            line.bodyFunction = subgraphs.at(w.bodyGraph);
            line.carried = convertAll(w.carried);
            line.additional = convertAll(w.additional);
            line.tupleResult = id(w.result);
            markDefined(line.tupleResult);
            emit(std::move(line));
          },
          [&](Boxed<graph::InvokeSubgraphNode> &boxed) {
            graph::InvokeSubgraphNode &i = *boxed;
            InvokeSubgraphLine line;
            line.function = subgraphs.at(i.graph);
            line.operands = convertAll(i.operands);
            line.tupleResult = id(i.result);
            markDefined(line.tupleResult);
            emit(std::move(line));
          },
          [&](Boxed<graph::BindSymbolNode> &boxed) { buildBindSymbol(*boxed); },
          [&](Boxed<graph::AssertScalarNode> &boxed) {
            graph::AssertScalarNode &a = *boxed;
            emit(AssertScalarLine{std::move(a.condition.lhs), std::move(a.condition.rhs),
                                  a.condition.cmp,
                                  std::move(a.message)});
          },
      },
      node.body);
}

/// Unbacked symbols are bound mid-function: every line must come after the
/// bindings of the unbacked symbols it uses, in its expressions or in the
/// layout it allocates; and a subgraph's lines use only the symbols it binds.
/// Checked over the lines a node built (from \p first), so that a
/// diagnostic names the node.
[[gnu::cold]] bool FunctionBuilder::checkUnbackedUses(size_t first, std::string_view pointer) {
  bool ok = true;
  auto check = [&](const sym::Expr &e, std::string_view what) {
    if (e.isConstant())
      return;
    for (const std::string &name : sym::symbols(e)) {
      if (unbound.count(name)) {
        ctx.diag.error(std::string(pointer),
                       fmt::format("{} uses symbol '{}', which subgraph '{}' has no value for: "
                                   "pass it as a symbol input, or give the subgraph a tensor "
                                   "input with it as a size or stride",
                                   what, name, graph.name));
        unbound.erase(name); // once per symbol
        ok = false;
        continue;
      }
      if (!unbacked.count(name) || boundUnbacked.count(name))
        continue;
      ctx.diag.error(std::string(pointer),
                     fmt::format("{} uses unbacked symbol '{}' before a bind_symbol node binds "
                                 "it{}",
                                 what, name,
                                 function.isSubgraph ? " in this graph" : ""));
      boundUnbacked.insert(name); // once per symbol
      ok = false;
    }
  };
  auto checkValue = [&](const Value &v, std::string_view what) {
    forEachExpr(v, [&](const sym::Expr &e) { check(e, what); });
  };
  auto checkValues = [&](const std::vector<Value> &values, std::string_view what) {
    for (const Value &v : values)
      checkValue(v, what);
  };
  auto checkLayout = [&](BufferId b) {
    const graph::Layout &layout = module.buffers[b].layout;
    std::string what = fmt::format("buffer '{}'", module.buffers[b].name);
    for (const sym::Expr &e : layout.size)
      check(e, what);
    for (const sym::Expr &e : layout.stride)
      check(e, what);
    check(layout.offset, what);
  };
  for (size_t i = first; i < function.lines.size(); ++i) {
    std::visit(Overloaded{
                   [&](const AllocateLine &l) { checkLayout(l.buffer); },
                   [&](const ReinterpretViewLine &l) { checkLayout(l.view); },
                   [&](const KernelCallLine &l) {
                     for (const CallArg &arg : l.args)
                       checkValue(arg.value, "the kernel call");
                     for (const auto &numel : l.numels)
                       check(numel.second, "the kernel call");
                     if (l.fixedGrid)
                       for (const sym::Expr &e : *l.fixedGrid)
                         check(e, "the kernel call's grid");
                   },
                   [&](const ExternKernelOutLine &l) {
                     checkValues(l.args, "the call");
                     for (const auto &kv : l.kwargs)
                       checkValue(kv.second, "the call");
                     checkValue(*l.out, "the call");
                   },
                   [&](const ExternKernelAllocLine &l) {
                     checkValues(l.args, "the call");
                     for (const auto &kv : l.kwargs)
                       checkValue(kv.second, "the call");
                   },
                   [&](const AssertSizeStrideLine &l) {
                     for (const sym::Expr &e : l.size)
                       check(e, "the size assert");
                     for (const sym::Expr &e : l.stride)
                       check(e, "the size assert");
                   },
                   [&](const AssertScalarLine &l) {
                     check(l.lhs, "the assert");
                     check(l.rhs, "the assert");
                   },
                   [&](const SymbolBindingLine &l) {
                     if (l.view)
                       checkValue(*l.view, "the binding");
                     if (l.source == SymbolBindingLine::Source::Expr)
                       check(l.expr, fmt::format("symbol '{}'", l.symbol));
                     if (unbacked.count(l.symbol))
                       boundUnbacked.insert(l.symbol);
                   },
                   [&](const CondLine &l) {
                     checkValue(*l.predicate, "the cond");
                     if (l.compare)
                       for (const graph::SizeComparison &t : l.compare->terms) {
                         check(t.lhs, "the cond");
                         check(t.rhs, "the cond");
                       }
                     checkValues(l.operands, "the cond");
                   },
                   [&](const WhileLoopLine &l) {
                     checkValues(l.carried, "the while_loop");
                     checkValues(l.additional, "the while_loop");
                   },
                   [&](const InvokeSubgraphLine &l) {
                     checkValues(l.operands, "the invoke_subgraph");
                   },
                   [&](const OutputLine &l) { checkValues(l.outputs, "an output"); },
                   [](const auto &) {},
               },
               function.lines[i]);
  }
  return ok;
}

/// Builds a large graph's nodes in \p count parts on threads of their own,
/// each into lines of its own, recording what it does to the function's
/// state (Event); then appends the parts' lines in order, replaying the
/// events between them. Lines come out as on one thread: a node's lines
/// depend on that state only through the events. Nothing here reports a
/// diagnostic (the checks that do run on one thread), and an internal error
/// is rethrown from the first part that threw.
void FunctionBuilder::buildNodesInParts(graph::Graph &consumed, size_t count) {
  struct Part {
    std::vector<Line> lines;
    std::vector<std::string> origins;
    std::vector<Event> events;
  };
  std::vector<Part> parts(count);
  const size_t n = consumed.nodes.size();
  runParts(count, [&](size_t p) {
    Part &part = parts[p];
    FunctionBuilder builder(*this);
    builder.lines = &part.lines;
    builder.origins = &part.origins;
    builder.events = &part.events;
    const size_t begin = n * p / count, end = n * (p + 1) / count;
    part.lines.reserve(2 * (end - begin) + 16);
    part.events.reserve(2 * (end - begin) + 16);
    for (size_t i = begin; i < end; ++i) {
      graph::Node &node = consumed.nodes[i];
      builder.buildNode(node);
      node.body.emplace<graph::DeviceGuardExitNode>();
      std::string().swap(node.pointer);
    }
  });
  for (Part &part : parts) {
    const auto originBase = static_cast<uint32_t>(function.origins.size());
    for (std::string &origin : part.origins)
      function.origins.push_back(std::move(origin));
    size_t next = 0;
    auto take = [&](size_t upto) {
      for (; next < upto; ++next) {
        Line &line = part.lines[next];
        if (auto *call = std::get_if<KernelCallLine>(&line))
          call->origin += originBase;
        function.lines.push_back(std::move(line));
      }
    };
    for (const Event &event : part.events) {
      take(event.line);
      switch (event.kind) {
      case Event::Ensure:
        ensureDefined(event.id);
        break;
      case Event::Mark:
        markDefined(event.id);
        break;
      case Event::Kernel:
        defineKernel(event.id);
        break;
      }
    }
    take(part.lines.size());
    part = Part{};
  }
}

bool FunctionBuilder::build(graph::Graph *consumed) {
  function.name = graph.name;
  function.isSubgraph = index != 0;
  createBuffers(consumed);
  // Room up front for every line (an input's size assert, two per node, an
  // allocation per buffer): growing by doubling would move each line
  // several times. Untouched room costs no memory.
  function.lines.reserve(function.lines.size() + 2 * graph.nodes.size() + graph.buffers.size() +
                         2 * graph.inputs.size() + 16);
  if (function.isSubgraph)
    emit(SubgraphEnterLine{graph.name});
  bool ok = bindSymbols();
  for (const graph::Symbol &symbol : module.symbols)
    if (symbol.unbacked)
      unbacked.insert(symbol.name);
  // A subgraph's symbol inputs bind unbacked symbols too (the caller's).
  for (const graph::Input &input : graph.inputs)
    if (input.kind == graph::InputKind::Symbol && unbacked.count(input.name))
      boundUnbacked.insert(input.name);
  const bool checkUses = !unbacked.empty() || !unbound.empty();
  size_t checked = function.lines.size();
  if (ctx.options.sizeAsserts)
    for (BufferId b : function.inputs)
      if (module.buffers[b].kind == BufferKind::Input)
        emit(AssertSizeStrideLine{b, module.buffers[b].layout.size,
                                  module.buffers[b].layout.stride, ""});
  if (checkUses) {
    ok &= checkUnbackedUses(checked, graph.pointer + "/inputs");
    checked = function.lines.size();
  }
  const size_t parts = consumed && !checkUses ? partsFor(ctx, graph.nodes.size()) : 1;
  if (parts > 1)
    buildNodesInParts(*consumed, parts);
  for (size_t i = 0; parts < 2 && i < graph.nodes.size(); ++i) {
    // A node's pointer, kept for the check of its lines (building may take
    // it over).
    std::string pointer = checkUses ? graph.nodes[i].pointer : std::string();
    if (consumed) {
      // The IR takes the node's parts over, and the rest is freed now: the
      // graph and its IR would otherwise both be alive at the end of this
      // pass, the peak of a large compilation.
      graph::Node &built = consumed->nodes[i];
      buildNode(built);
      // Freed in place (an empty alternative, no pointer): cheaper than
      // assigning a new node, which dispatches on both nodes' kinds.
      built.body.emplace<graph::DeviceGuardExitNode>();
      std::string().swap(built.pointer);
    } else {
      graph::Node node = graph.nodes[i];
      buildNode(node);
    }
    if (checkUses) {
      ok &= checkUnbackedUses(checked, pointer);
      checked = function.lines.size();
    }
  }
  OutputLine output;
  if (consumed) {
    output.outputs = convertAll(consumed->outputs);
  } else {
    std::vector<graph::Value> outputs = graph.outputs;
    output.outputs = convertAll(outputs);
  }
  emit(std::move(output));
  if (checkUses)
    ok &= checkUnbackedUses(checked, graph.pointer + "/outputs");
  if (function.isSubgraph)
    emit(SubgraphExitLine{});
  return ok;
}

} // namespace

bool buildWrapperIR(ir::Module &module, PassContext &ctx) {
  if (!ctx.document)
    throw InternalError("build-wrapper-ir needs the graph document, which was already freed");
  const graph::Document &doc = *ctx.document;
  // Only the document the context owns (and is compiling) may give its
  // parts up.
  graph::Document *owned =
      ctx.ownedDocument.get() == ctx.document ? ctx.ownedDocument.get() : nullptr;
  module = ir::Module{};
  module.name = doc.main.name;
  // Kernel sources are most of a document: an owned document gives them up
  // rather than have them copied.
  if (owned)
    module.kernels = std::move(owned->kernels);
  else
    module.kernels = doc.kernels;
  NameTable kernels;
  kernels.reserve(module.kernels.size());
  auto kernelName = [&](KernelId k) -> std::string_view { return module.kernels[k].name; };
  for (KernelId k = 0; k < module.kernels.size(); ++k)
    kernels.insert(module.kernels[k].name, k, kernelName);
  module.symbols = doc.main.symbols;
  // Main first, then the subgraphs, each after those it calls (the
  // reader's order): emitters define a callee before its callers.
  module.functions.resize(1 + doc.subgraphs.size());
  std::vector<size_t> order = doc.subgraphOrder;
  if (order.size() != doc.subgraphs.size()) { // a document not from the reader
    order.resize(doc.subgraphs.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
  }
  std::unordered_map<std::string, unsigned> subgraphs;
  for (unsigned f = 0; f < order.size(); ++f)
    subgraphs.emplace(doc.subgraphs[order[f]].name, f + 1);
  auto markPredicates = [&](const graph::Graph &graph) {
    for (const graph::Node &node : graph.nodes)
      if (const auto *loop = std::get_if<Boxed<graph::WhileLoopNode>>(&node.body))
        module.functions[subgraphs.at((*loop)->condGraph)].returnsPredicate = true;
  };
  markPredicates(doc.main);
  for (const graph::Graph &graph : doc.subgraphs)
    markPredicates(graph);
  std::vector<bool> definedKernels(module.kernels.size(), false);
  bool ok = FunctionBuilder(module, 0, doc.main, ctx, subgraphs, kernels, definedKernels)
                .build(owned ? &owned->main : nullptr);
  for (unsigned f = 0; f < order.size(); ++f)
    ok &= FunctionBuilder(module, f + 1, doc.subgraphs[order[f]], ctx, subgraphs, kernels,
                          definedKernels)
              .build(owned ? &owned->subgraphs[order[f]] : nullptr);
  // The IR holds everything later passes need.
  if (ctx.ownedDocument) {
    ctx.document = nullptr;
    ctx.ownedDocument.reset();
  }
  return ok;
}

} // namespace wirc::passes
