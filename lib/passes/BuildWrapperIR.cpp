//===- BuildWrapperIR.cpp - Graph to Wrapper IR ---------------------------===//
#include "wirc/passes/Pass.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace wirc::passes {

namespace {

using namespace wirc::ir;

class FunctionBuilder {
public:
  FunctionBuilder(Module &module, unsigned index, const graph::Graph &graph, PassContext &ctx,
                  const std::unordered_map<std::string, unsigned> &subgraphs,
                  std::unordered_map<std::string, KernelId> &kernels,
                  std::unordered_set<KernelId> &definedKernels)
      : module(module), index(index), graph(graph), ctx(ctx), subgraphs(subgraphs),
        kernels(kernels), definedKernels(definedKernels), function(module.functions[index]) {}

  /// Builds the function. With \p consumed, the graph's own (non-const)
  /// copy, each node is freed once its lines are built.
  bool build(graph::Graph *consumed = nullptr);

private:
  Module &module;
  unsigned index;
  const graph::Graph &graph;
  PassContext &ctx;
  const std::unordered_map<std::string, unsigned> &subgraphs;
  std::unordered_map<std::string, KernelId> &kernels;
  std::unordered_set<KernelId> &definedKernels;
  Function &function;
  std::unordered_map<std::string, BufferId> names;
  std::vector<bool> defined; ///< by BufferId - firstBuffer
  BufferId firstBuffer = 0;

  BufferId addBuffer(BufferInfo info) {
    BufferId id = static_cast<BufferId>(module.buffers.size());
    names.emplace(info.name, id);
    info.function = index;
    module.buffers.push_back(std::move(info));
    return id;
  }

  BufferId id(const std::string &name) const {
    auto it = names.find(name);
    if (it == names.end())
      throw InternalError(fmt::format("unresolved name '{}' after validation", name));
    return it->second;
  }

  bool isDefined(BufferId b) const { return defined[b - firstBuffer]; }
  void markDefined(BufferId b) { defined[b - firstBuffer] = true; }

  void emit(Line line) { function.lines.push_back(std::move(line)); }

  /// Makes \p b usable: allocates an owned buffer the first time it is
  /// written, or defines a named view (allocating its base first).
  void ensureDefined(BufferId b) {
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

  Value convert(const graph::Value &v) {
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
    case graph::Value::Kind::String:
      out.kind = Value::Kind::String;
      out.text = v.text;
      break;
    case graph::Value::Kind::Buffer:
      out = Value::ofBuffer(id(v.text));
      ensureDefined(out.buffer);
      break;
    case graph::Value::Kind::View:
      out.kind = Value::Kind::View;
      out.buffer = id(v.view->base);
      ensureDefined(out.buffer);
      out.size = v.view->size;
      out.stride = v.view->stride;
      out.expr = v.view->offset;
      break;
    case graph::Value::Kind::Expr:
      out = Value::ofExpr(v.expr);
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
      for (const graph::Value &item : v.items)
        out.items.push_back(convert(item));
      break;
    }
    return out;
  }

  std::vector<Value> convertAll(const std::vector<graph::Value> &list) {
    std::vector<Value> out;
    out.reserve(list.size());
    for (const graph::Value &v : list)
      out.push_back(convert(v));
    return out;
  }

  std::vector<std::pair<std::string, Value>>
  convertKwargs(const std::vector<std::pair<std::string, graph::Value>> &list) {
    std::vector<std::pair<std::string, Value>> out;
    for (const auto &[key, v] : list)
      out.emplace_back(key, convert(v));
    return out;
  }

  void createBuffers(graph::Graph *consumed);
  bool bindSymbols();
  void buildNode(const graph::Node &node);
  void buildKernelCall(const graph::KernelCallNode &call, const std::string &pointer);
};

void FunctionBuilder::createBuffers(graph::Graph *consumed) {
  firstBuffer = static_cast<BufferId>(module.buffers.size());
  size_t count = graph.inputs.size() + graph.constants.size() + graph.buffers.size();
  // Geometric, as push_back grows: one function after another must not
  // reallocate every time.
  if (module.buffers.capacity() < module.buffers.size() + count)
    module.buffers.reserve(std::max(module.buffers.size() + count, 2 * module.buffers.capacity()));
  names.reserve(count);
  for (const graph::Input &input : graph.inputs) {
    BufferInfo info;
    info.name = input.name;
    info.kind = input.kind == graph::InputKind::Tensor   ? BufferKind::Input
                : input.kind == graph::InputKind::Symbol ? BufferKind::SymbolInput
                                                         : BufferKind::ScalarInput;
    info.layout = input.layout;
    if (input.kind == graph::InputKind::Scalar)
      info.layout.dtype = input.dtype;
    info.mutatedInput = input.mutated;
    function.inputs.push_back(addBuffer(std::move(info)));
  }
  // Nothing reads the layouts of a consumed graph's constants and buffers
  // after this: they move rather than copy.
  for (size_t i = 0; i < graph.constants.size(); ++i) {
    const graph::Constant &constant = graph.constants[i];
    BufferInfo info;
    info.name = constant.name;
    info.kind = BufferKind::Constant;
    if (consumed)
      info.layout = std::move(consumed->constants[i].layout);
    else
      info.layout = constant.layout;
    addBuffer(std::move(info));
  }
  for (size_t i = 0; i < graph.buffers.size(); ++i) {
    const graph::Buffer &buffer = graph.buffers[i];
    BufferInfo info;
    info.name = buffer.name;
    info.kind = buffer.viewOf ? BufferKind::View : BufferKind::Intermediate;
    if (consumed)
      info.layout = std::move(consumed->buffers[i].layout);
    else
      info.layout = buffer.layout;
    info.removed = buffer.removed;
    info.isTuple = buffer.isTuple;
    addBuffer(std::move(info));
  }
  // Views refer to bases by id once every name is known.
  for (const graph::Buffer &buffer : graph.buffers)
    if (buffer.viewOf)
      module.buffers[id(buffer.name)].viewBase = id(*buffer.viewOf);
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
/// then precomputed symbols in declaration order.
bool FunctionBuilder::bindSymbols() {
  bool ok = true;
  std::unordered_set<std::string> bound;
  for (const graph::Input &input : graph.inputs)
    if (input.kind == graph::InputKind::Symbol) {
      emit(SymbolBindingLine{input.name, SymbolBindingLine::Source::Input, id(input.name), 0, {}});
      bound.insert(input.name);
    }
  for (const graph::Symbol &symbol : module.symbols) {
    if (bound.count(symbol.name) || symbol.expr)
      continue;
    bool found = false;
    for (const graph::Input &input : graph.inputs) {
      if (input.kind != graph::InputKind::Tensor)
        continue;
      for (int pass = 0; pass < 2 && !found; ++pass) {
        const auto &dims = pass == 0 ? input.layout.size : input.layout.stride;
        for (unsigned d = 0; d < dims.size() && !found; ++d) {
          if (dims[d].isSymbol() && dims[d].symbolName() == symbol.name) {
            emit(SymbolBindingLine{symbol.name,
                                   pass == 0 ? SymbolBindingLine::Source::Size
                                             : SymbolBindingLine::Source::Stride,
                                   id(input.name), d, {}});
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
    for (const std::string &used : sym::symbols(*symbol.expr))
      if (!bound.count(used)) {
        ctx.diag.error(fmt::format("/symbols/{}/expr", &symbol - module.symbols.data()),
                       fmt::format("symbol '{}' is computed from '{}', which is not bound before "
                                   "it; declare symbols before the symbols computed from them",
                                   symbol.name, used));
        ok = false;
      }
    emit(SymbolBindingLine{symbol.name, SymbolBindingLine::Source::Expr, kNoBuffer, 0,
                           *symbol.expr});
    bound.insert(symbol.name);
  }
  return ok;
}

void FunctionBuilder::buildKernelCall(const graph::KernelCallNode &call,
                                      const std::string &pointer) {
  KernelId kernel = kernels.at(call.kernel);
  if (definedKernels.insert(kernel).second)
    emit(KernelDefinitionLine{kernel});
  KernelCallLine line;
  line.kernel = kernel;
  line.config = call.config;
  line.numels = call.numels;
  line.origin = pointer;
  if (call.grid)
    line.fixedGrid = Grid{(*call.grid)[0], (*call.grid)[1], (*call.grid)[2]};
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
    const graph::KernelArg &arg = call.args[i];
    CallArg &out = line.args.emplace_back();
    out.param = arg.name;
    out.role = arg.role;
    out.removedRole = arg.removedRole;
    bool isTensorRole = arg.role == graph::ArgRole::Input || arg.role == graph::ArgRole::Output ||
                        arg.role == graph::ArgRole::InOut;
    if (isTensorRole && removedLater(i)) {
      out.role = graph::ArgRole::Removed;
      out.removedRole = arg.role;
      out.removalEvent = false;
      out.value.kind = Value::Kind::Buffer;
      out.value.buffer = id(arg.buffer);
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
      BufferId b = id(arg.buffer);
      ensureDefined(b);
      if (arg.role == graph::ArgRole::InOut && !arg.result.empty()) {
        BufferId result = id(arg.result);
        emit(ReuseLine{b, result, /*deleteOld=*/true, /*inPlace=*/true});
        markDefined(result);
        b = result;
      }
      if (arg.view) {
        out.value.kind = Value::Kind::View;
        out.value.buffer = b;
        out.value.size = arg.view->size;
        out.value.stride = arg.view->stride;
        out.value.expr = arg.view->offset;
      } else {
        out.value.kind = Value::Kind::Buffer;
        out.value.buffer = b;
      }
      break;
    }
    case graph::ArgRole::Removed:
      out.value.kind = Value::Kind::Buffer;
      out.value.buffer = id(arg.buffer);
      break;
    case graph::ArgRole::Size:
    case graph::ArgRole::Scalar:
      out.value = convert(arg.value);
      break;
    }
  }
  emit(std::move(line));
}

void FunctionBuilder::buildNode(const graph::Node &node) {
  std::visit(
      Overloaded{
          [&](const graph::KernelCallNode &call) { buildKernelCall(call, node.pointer); },
          [&](const graph::ExternNode &ext) {
            if (ext.out) {
              ExternKernelOutLine line;
              line.op = ext.op;
              line.fallback = ext.fallback;
              line.schema = ext.schema;
              line.args = convertAll(ext.args);
              line.kwargs = convertKwargs(ext.kwargs);
              line.out = convert(*ext.out);
              emit(std::move(line));
              return;
            }
            ExternKernelAllocLine line;
            line.op = ext.op;
            line.fallback = ext.fallback;
            line.schema = ext.schema;
            line.args = convertAll(ext.args);
            line.kwargs = convertKwargs(ext.kwargs);
            for (const std::string &name : ext.mutated)
              line.mutated.push_back(id(name));
            if (ext.result) {
              line.result = id(*ext.result);
              markDefined(line.result);
            }
            emit(std::move(line));
          },
          [&](const graph::MultiOutputNode &mo) {
            BufferId result = id(mo.result);
            markDefined(result);
            emit(MultiOutputLine{result, id(mo.source), mo.indices});
          },
          [&](const graph::AssertSizeStrideNode &as) {
            if (ctx.options.sizeAsserts) {
              BufferId b = id(as.buffer);
              ensureDefined(b);
              emit(AssertSizeStrideLine{b, as.size, as.stride, as.what});
            }
          },
          [&](const graph::DeviceGuardEnterNode &g) { emit(DeviceGuardEnterLine{g.index}); },
          [&](const graph::DeviceGuardExitNode &) { emit(DeviceGuardExitLine{}); },
          [&](const graph::CommentNode &c) {
            // One IR comment per source line, so no emitter ever has to
            // guard a comment against line breaks.
            std::string_view text = c.text;
            while (true) {
              // (find_first_of calls memchr once per byte of the comment.)
              auto end = std::find_if(text.begin(), text.end(),
                                      [](char ch) { return ch == '\r' || ch == '\n'; });
              size_t nl = end == text.end() ? std::string_view::npos
                                            : static_cast<size_t>(end - text.begin());
              emit(CommentLine{std::string(text.substr(0, nl))});
              if (nl == std::string_view::npos)
                break;
              text = text.substr(nl + 1);
            }
          },
          [&](const graph::CondNode &c) {
            CondLine line;
            line.predicate = convert(c.predicate);
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
      },
      node.body);
}

bool FunctionBuilder::build(graph::Graph *consumed) {
  function.name = graph.name;
  function.isSubgraph = index != 0;
  createBuffers(consumed);
  if (function.isSubgraph)
    emit(SubgraphEnterLine{graph.name});
  bool ok = function.isSubgraph || bindSymbols();
  if (ctx.options.sizeAsserts)
    for (BufferId b : function.inputs)
      if (module.buffers[b].kind == BufferKind::Input)
        emit(AssertSizeStrideLine{b, module.buffers[b].layout.size,
                                  module.buffers[b].layout.stride, ""});
  // The lines a node becomes are usually its largest part, so the function's
  // lines get room for two per node up front; untouched room costs no memory.
  function.lines.reserve(function.lines.size() + 2 * graph.nodes.size() + graph.buffers.size() +
                         2 * graph.inputs.size() + 16);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    buildNode(graph.nodes[i]);
    // The graph and its IR would otherwise both be alive at the end of this
    // pass, the peak of a large compilation.
    if (consumed)
      consumed->nodes[i] = graph::Node{};
  }
  OutputLine output;
  output.outputs = convertAll(graph.outputs);
  emit(std::move(output));
  if (function.isSubgraph)
    emit(SubgraphExitLine{});
  return ok;
}

} // namespace

bool buildWrapperIR(ir::Module &module, PassContext &ctx) {
  if (!ctx.document)
    throw InternalError("build-wrapper-ir needs the graph document, which was already freed");
  const graph::Document &doc = *ctx.document;
  module = ir::Module{};
  module.name = doc.main.name;
  std::unordered_map<std::string, KernelId> kernels;
  for (KernelId k = 0; k < doc.kernels.size(); ++k)
    kernels.emplace(doc.kernels[k].name, k);
  // Kernel sources are most of a document: an owned document gives them up
  // rather than have them copied.
  if (ctx.ownedDocument)
    module.kernels = std::move(ctx.ownedDocument->kernels);
  else
    module.kernels = doc.kernels;
  module.symbols = doc.main.symbols;
  module.functions.resize(1 + doc.subgraphs.size());
  std::unordered_map<std::string, unsigned> subgraphs;
  for (unsigned i = 0; i < doc.subgraphs.size(); ++i)
    subgraphs.emplace(doc.subgraphs[i].name, i + 1);
  std::unordered_set<KernelId> definedKernels;
  graph::Document *owned = ctx.ownedDocument.get();
  bool ok = FunctionBuilder(module, 0, doc.main, ctx, subgraphs, kernels, definedKernels)
                .build(owned ? &owned->main : nullptr);
  for (unsigned i = 0; i < doc.subgraphs.size(); ++i)
    ok &= FunctionBuilder(module, i + 1, doc.subgraphs[i], ctx, subgraphs, kernels,
                          definedKernels)
              .build(owned ? &owned->subgraphs[i] : nullptr);
  // The IR holds everything later passes need.
  if (ctx.ownedDocument) {
    ctx.document = nullptr;
    ctx.ownedDocument.reset();
  }
  return ok;
}

} // namespace wirc::passes
