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
    for (unsigned f = 0; f < module.functions.size(); ++f)
      verifyFunction(f);
    return errors;
  }

private:
  const Module &module;
  std::vector<std::string> errors;
  std::vector<State> state;
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

  void verifyFunction(unsigned f) {
    functionIndex = f;
    const Function &function = module.functions[f];
    state.assign(module.buffers.size(), State::Undefined);
    for (BufferId id = 0; id < module.buffers.size(); ++id)
      if (module.buffers[id].function == f && module.buffers[id].kind == BufferKind::Constant)
        state[id] = State::Live;
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
          if (target >= module.functions.size() || !module.functions[target].isSubgraph)
            fail(fmt::format("cond refers to function {} which is not a subgraph", target));
      forEachUse(line, [&](BufferId id) { use(id); });
      if (const auto *free = std::get_if<FreeLine>(&line)) {
        if (free->buffer < state.size() && state[free->buffer] == State::Live)
          state[free->buffer] = State::Freed;
      }
      if (const auto *reuse = std::get_if<ReuseLine>(&line)) {
        if (reuse->deleteOld && reuse->old < state.size())
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
