//===- NameKernelArgs.cpp - in_ptrN / out_ptrN / in_out_ptrN / ksN --------===//
//
// Inductor names a kernel's parameters by role, with one counter per role
// that counts every entry ever made, including arguments later removed by
// fusion. Removed outputs therefore leave gaps (out_ptr1 without out_ptr0).
// An in_out_ptr index is the number of live in-place groups plus the number
// of in-place names already removed (PyTorch issue 146975, PR 147199). With
// arguments listed in creation order and removals at the end of the kernel,
// as Inductor's Triton codegen does, that is the group's creation index: a
// removed group held one slot while it was live. Producers that saw removals
// in the middle of a kernel give the argument's "name" explicitly.
//
//===----------------------------------------------------------------------===//
#include "wirc/passes/Pass.h"

#include <fmt/format.h>

namespace wirc::passes {

namespace {

using namespace wirc::ir;

/// Mirrors the counters of Inductor's KernelArgs for one kernel.
struct ArgCounters {
  unsigned inputs = 0;
  unsigned outputs = 0;
  unsigned sizes = 0;
  unsigned inPlaceGroups = 0;

  std::string name(const CallArg &arg) {
    switch (arg.role) {
    case graph::ArgRole::Input:
      return fmt::format("in_ptr{}", inputs++);
    case graph::ArgRole::Output:
      return fmt::format("out_ptr{}", outputs++);
    case graph::ArgRole::InOut:
      return fmt::format("in_out_ptr{}", inPlaceGroups++);
    case graph::ArgRole::Size:
      return fmt::format("ks{}", sizes++);
    case graph::ArgRole::Removed:
      // A removed argument is never passed but keeps its slot.
      if (arg.removedRole == graph::ArgRole::Output)
        ++outputs;
      else if (arg.removedRole == graph::ArgRole::Input)
        ++inputs;
      else
        ++inPlaceGroups;
      return {};
    case graph::ArgRole::Scalar:
      return {};
    }
    return {};
  }
};

} // namespace

bool nameKernelArgs(Module &module, PassContext &ctx) {
  bool ok = true;
  for (Function &function : module.functions) {
    for (Line &line : function.lines) {
      auto *call = std::get_if<KernelCallLine>(&line);
      if (!call)
        continue;
      const graph::Kernel &kernel = module.kernel(call->kernel);
      ArgCounters counters;
      for (size_t i = 0; i < call->args.size(); ++i) {
        CallArg &arg = call->args[i];
        std::string inductorName = counters.name(arg);
        if (arg.param.empty())
          arg.param = inductorName;
        if (arg.param.empty() && arg.role == graph::ArgRole::Scalar) {
          ctx.diag.error(fmt::format("{}/args/{}", call->origin, i),
                         "a scalar argument needs a \"name\": its parameter name in the kernel");
          ok = false;
        }
      }
      if (kernel.signature.empty())
        continue;
      // The call passes every signature parameter the config does not
      // supply (block sizes), in order: the named arguments, then the numels.
      std::vector<std::string> passed;
      for (const CallArg &arg : call->args)
        if (arg.role != graph::ArgRole::Removed)
          passed.push_back(arg.param);
      for (const auto &[numel, expr] : call->numels)
        passed.push_back(numel);
      std::vector<std::string> expected;
      const graph::KernelConfig *config =
          call->config < kernel.configs.size() ? &kernel.configs[call->config] : nullptr;
      for (const graph::KernelParam &param : kernel.signature)
        if (!config || !config->kwarg(param.name))
          expected.push_back(param.name);
      auto list = [](const std::vector<std::string> &names) {
        std::string s;
        for (const std::string &n : names)
          s += (s.empty() ? "" : ", ") + n;
        return s.empty() ? std::string("nothing") : s;
      };
      if (passed != expected) {
        ctx.diag.error(call->origin,
                       fmt::format("call of kernel '{}' passes ({}) but its signature takes ({})",
                                   kernel.name, list(passed), list(expected)));
        ok = false;
      }
    }
  }
  return ok;
}

} // namespace wirc::passes
