//===- Verifier.cpp -------------------------------------------------------===//
#include "wirc/ir/Verifier.h"

#include <fmt/format.h>

namespace wirc::ir {

namespace {

enum class State : uint8_t { Undefined, Live, Freed };

class Verifier {
public:
  explicit Verifier(const Module &module) : module(module) {}

  std::vector<std::string> run() {
    if (module.functions.empty()) {
      errors.push_back("module has no functions");
      return errors;
    }
    // The tables cover the whole module and are set up once; each function
    // puts back what it changed, so that a module of many subgraphs costs
    // its size, not its size times its functions.
    state.assign(module.buffers.size(), State::Undefined);
    poolOf.assign(module.buffers.size(), kNoPool);
    poolState.assign(module.pools.size(), State::Undefined);
    ranges = functionBufferRanges(module);
    for (unsigned f = 0; f < module.functions.size(); ++f) {
      verifyFunction(f);
      if (f + 1 < module.functions.size())
        reset(f, ranges[f]);
    }
    return errors;
  }

private:
  const Module &module;
  std::vector<std::string> errors;
  std::vector<State> state;
  std::vector<State> poolState;
  std::vector<PoolId> poolOf; ///< by buffer: the pool it was carved from, or kNoPool
  std::vector<std::pair<BufferId, BufferId>> ranges; ///< by function: its buffers' ids
  static constexpr PoolId kNoPool = UINT32_MAX;
  unsigned functionIndex = 0;
  size_t lineIndex = 0;

  void fail(std::string message) {
    if (errors.size() < 50)
      errors.push_back(fmt::format("@{} line {}: {}", module.functions[functionIndex].name,
                                   lineIndex, message));
  }

  bool valid(BufferId id) {
    if (id >= module.buffers.size()) {
      fail(fmt::format("dangling buffer id {}", id));
      return false;
    }
    if (module.buffers[id].function != functionIndex) {
      fail(fmt::format("buffer %{} belongs to another function", module.buffers[id].name));
      return false;
    }
    return true;
  }

  std::string name(BufferId id) const { return "%" + module.buffers[id].name; }

  void use(BufferId id) {
    if (!valid(id))
      return;
    if (module.buffers[id].removed)
      fail(fmt::format("use of removed buffer {}", name(id)));
    else if (state[id] == State::Undefined)
      fail(fmt::format("use of {} before its definition", name(id)));
    else if (state[id] == State::Freed)
      fail(fmt::format("use of {} after it was freed", name(id)));
    BufferId storage = module.buffers[id].kind == BufferKind::View ? module.buffers[id].viewBase : id;
    if (storage < poolOf.size() && poolOf[storage] != kNoPool &&
        poolState[poolOf[storage]] == State::Freed)
      fail(fmt::format("use of {} after its pool @{} was freed", name(id),
                       module.pools[poolOf[storage]].name));
  }

  bool validPool(PoolId id) {
    if (id >= module.pools.size()) {
      fail(fmt::format("dangling pool id {}", id));
      return false;
    }
    if (module.pools[id].function != functionIndex) {
      fail(fmt::format("pool @{} belongs to another function", module.pools[id].name));
      return false;
    }
    return true;
  }

  void checkPoolLine(const Line &line) {
    if (const auto *p = std::get_if<PoolAllocateLine>(&line)) {
      if (!validPool(p->pool))
        return;
      if (poolState[p->pool] != State::Undefined)
        fail(fmt::format("pool @{} is allocated twice", module.pools[p->pool].name));
      poolState[p->pool] = State::Live;
    } else if (const auto *f = std::get_if<PoolFreeLine>(&line)) {
      if (!validPool(f->pool))
        return;
      if (poolState[f->pool] != State::Live)
        fail(fmt::format("pool @{} is freed while not allocated", module.pools[f->pool].name));
      poolState[f->pool] = State::Freed;
    } else if (const auto *a = std::get_if<AllocateFromPoolLine>(&line)) {
      if (!validPool(a->pool) || !valid(a->buffer))
        return;
      const PoolInfo &pool = module.pools[a->pool];
      const BufferInfo &info = module.buffers[a->buffer];
      if (poolState[a->pool] != State::Live)
        fail(fmt::format("{} is carved from pool @{} which is not allocated", name(a->buffer),
                         pool.name));
      if (info.kind != BufferKind::Intermediate || info.isTuple)
        fail(fmt::format("{} is carved from a pool but is not an intermediate tensor",
                         name(a->buffer)));
      if (!(info.layout.device == pool.device))
        fail(fmt::format("{} is on {} but pool @{} is on {}", name(a->buffer),
                         graph::deviceName(info.layout.device), pool.name,
                         graph::deviceName(pool.device)));
      int64_t itemsize = graph::dtypeSize(info.layout.dtype);
      if (a->offset < 0 || a->offset % itemsize != 0)
        fail(fmt::format("{} is at offset {} of pool @{}, not a multiple of its item size {}",
                         name(a->buffer), a->offset, pool.name, itemsize));
      if (std::optional<int64_t> bytes = staticStorageBytes(info.layout);
          bytes && a->offset >= 0 && *bytes > pool.bytes - std::min(a->offset, pool.bytes))
        fail(fmt::format("{} ({} bytes at offset {}) does not fit in pool @{} of {} bytes",
                         name(a->buffer), *bytes, a->offset, pool.name, pool.bytes));
      if (module.buffers[a->buffer].function == functionIndex)
        poolOf[a->buffer] = a->pool;
    }
  }

  void def(BufferId id) {
    if (!valid(id))
      return;
    if (module.buffers[id].removed)
      fail(fmt::format("definition of removed buffer {}", name(id)));
    else if (state[id] != State::Undefined)
      fail(fmt::format("{} is defined twice", name(id)));
    state[id] = State::Live;
  }

  /// Subgraph functions come after main and each after those it calls, so
  /// an emitter defines a callee before its callers.
  void checkCallee(unsigned target, std::string_view op) {
    if (target >= module.functions.size() || !module.functions[target].isSubgraph)
      fail(fmt::format("{} refers to function {} which is not a subgraph", op, target));
    else if (functionIndex != 0 && target >= functionIndex)
      fail(fmt::format("{} in function {} calls function {}, which does not come before it", op,
                       module.functions[functionIndex].name, module.functions[target].name));
  }

  /// Puts back the table entries function \p f changed: those of its
  /// buffers (\p range; the tables are written for a function's own buffers
  /// only) and of its pools.
  void reset(unsigned f, std::pair<BufferId, BufferId> range) {
    std::fill(state.begin() + range.first, state.begin() + range.second, State::Undefined);
    std::fill(poolOf.begin() + range.first, poolOf.begin() + range.second, kNoPool);
    for (PoolId p = 0; p < module.pools.size(); ++p)
      if (module.pools[p].function == f)
        poolState[p] = State::Undefined;
  }

  void verifyFunction(unsigned f) {
    functionIndex = f;
    const Function &function = module.functions[f];
    forEachConstant(module, f, ranges[f], [&](BufferId id) { state[id] = State::Live; });
    for (BufferId id : function.inputs)
      if (valid(id))
        state[id] = State::Live;

    int guards = 0;
    bool returned = false;
    const size_t n = function.lines.size();
    for (lineIndex = 0; lineIndex < n; ++lineIndex) {
      const Line &line = function.lines[lineIndex];
      if (returned && !std::holds_alternative<SubgraphExitLine>(line))
        fail(fmt::format("{} after the output line", lineKindName(line)));
      if (const auto *call = std::get_if<KernelCallLine>(&line))
        checkCall(*call);
      if (const auto *def = std::get_if<KernelDefinitionLine>(&line))
        if (def->kernel >= module.kernels.size())
          fail(fmt::format("dangling kernel id {}", def->kernel));
      if (const auto *cond = std::get_if<CondLine>(&line))
        for (unsigned target : {cond->trueFunction, cond->falseFunction})
          checkCallee(target, "cond");
      if (const auto *invoke = std::get_if<InvokeSubgraphLine>(&line))
        checkCallee(invoke->function, "invoke");
      if (const auto *loop = std::get_if<WhileLoopLine>(&line)) {
        checkCallee(loop->condFunction, "while_loop");
        checkCallee(loop->bodyFunction, "while_loop");
        if (loop->condFunction < module.functions.size() &&
            !module.functions[loop->condFunction].returnsPredicate)
          fail(fmt::format("while_loop cond function {} does not return a predicate",
                           module.functions[loop->condFunction].name));
      }
      forEachUse(line, [&](BufferId id) { use(id); });
      checkPoolLine(line);
      if (const auto *free = std::get_if<FreeLine>(&line)) {
        if (free->buffer < state.size() && state[free->buffer] == State::Live)
          state[free->buffer] = State::Freed;
      }
      if (const auto *reuse = std::get_if<ReuseLine>(&line)) {
        if (reuse->deleteOld && reuse->old < state.size() &&
            module.buffers[reuse->old].function == functionIndex)
          state[reuse->old] = State::Freed;
      }
      forEachDef(line, [&](BufferId id) { def(id); });
      std::visit(Overloaded{
                     [&](const DeviceGuardEnterLine &) { ++guards; },
                     [&](const DeviceGuardExitLine &) {
                       if (--guards < 0) {
                         fail("device guard exit without enter");
                         guards = 0;
                       }
                     },
                     [&](const SubgraphEnterLine &s) {
                       if (!function.isSubgraph || lineIndex != 0)
                         fail("subgraph.enter is only allowed as a subgraph's first line");
                       else if (s.name != function.name)
                         fail(fmt::format("subgraph.enter names @{}", s.name));
                     },
                     [&](const SubgraphExitLine &) {
                       if (!function.isSubgraph || lineIndex + 1 != n)
                         fail("subgraph.exit is only allowed as a subgraph's last line");
                     },
                     [&](const OutputLine &) {
                       if (returned)
                         fail("more than one output line");
                       returned = true;
                       if (guards != 0)
                         fail("output inside a device guard");
                     },
                     [](const auto &) {},
                 },
                 line);
    }
    if (function.isSubgraph &&
        (n < 2 || !std::holds_alternative<SubgraphEnterLine>(function.lines.front()) ||
         !std::holds_alternative<SubgraphExitLine>(function.lines.back())))
      fail("a subgraph must start with subgraph.enter and end with subgraph.exit");
    if (!returned)
      fail("function has no output line");
    for (PoolId p = 0; p < module.pools.size(); ++p)
      if (module.pools[p].function == f && poolState[p] != State::Freed)
        fail(fmt::format("pool @{} is {}", module.pools[p].name,
                         poolState[p] == State::Live ? "never freed" : "never allocated"));
    if (guards != 0)
      fail("unbalanced device guard");
  }

  void checkCall(const KernelCallLine &call) {
    if (call.kernel >= module.kernels.size()) {
      fail(fmt::format("dangling kernel id {}", call.kernel));
      return;
    }
    const graph::Kernel &kernel = module.kernels[call.kernel];
    if (!call.grids.empty() && call.grids.size() != kernel.configs.size())
      fail(fmt::format("call of @{} has {} grids for {} configs", kernel.name, call.grids.size(),
                       kernel.configs.size()));
    if (!kernel.configs.empty() && call.config >= kernel.configs.size())
      fail(fmt::format("call of @{} selects config {} of {}", kernel.name, call.config,
                       kernel.configs.size()));
  }
};

} // namespace

std::vector<std::string> verifyModule(const Module &module) { return Verifier(module).run(); }

} // namespace wirc::ir
