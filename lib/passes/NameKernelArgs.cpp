//===- NameKernelArgs.cpp - in_ptrN / out_ptrN / in_out_ptrN / ksN --------===//
//
// Inductor names a kernel's parameters by role, with one counter per role
// that counts every entry ever made, including arguments later removed by
// fusion. Removed outputs therefore leave gaps (out_ptr1 without out_ptr0).
// An in_out_ptr index is the number of live in-place groups plus the number
// of in-place names already removed, so it never repeats a live name (PyTorch
// issue 146975, PR 147199). Arguments are listed in the order KernelArgs
// created them, and a `removed` entry sits where the removal happened.
//
//===----------------------------------------------------------------------===//
#include "wirc/passes/Pass.h"

#include <fmt/format.h>

namespace wirc::passes {

namespace {

using namespace wirc::ir;

/// Mirrors the counters of Inductor's KernelArgs for one kernel. Arguments
/// arrive in creation order, removals at the point they happened.
struct ArgCounters {
  unsigned inputs = 0;
  unsigned outputs = 0;
  unsigned sizes = 0;
  unsigned liveInPlace = 0;
  unsigned removedInPlaceNames = 0;

  std::string name(const CallArg &arg) {
    graph::ArgRole role = arg.role;
    if (role == graph::ArgRole::Removed && !arg.removalEvent)
      role = arg.removedRole; // created here, removed later: named like the rest
    switch (role) {
    case graph::ArgRole::Input:
      return fmt::format("in_ptr{}", inputs++);
    case graph::ArgRole::Output:
      return fmt::format("out_ptr{}", outputs++);
    case graph::ArgRole::InOut:
      return fmt::format("in_out_ptr{}", liveInPlace++ + removedInPlaceNames);
    case graph::ArgRole::Size:
      return fmt::format("ks{}", sizes++);
    case graph::ArgRole::Removed:
      // A removal keeps its slot. An in-place group's removal turns its two
      // names (input and output) into removed entries, which later in_out
      // names count, so they never repeat a live name (PR 147199).
      if (arg.removedRole == graph::ArgRole::InOut) {
        if (arg.removesEarlier && liveInPlace > 0)
          --liveInPlace;
        removedInPlaceNames += 2;
      } else if (!arg.removesEarlier) {
        if (arg.removedRole == graph::ArgRole::Output)
          ++outputs;
        else
          ++inputs;
      }
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
        if (arg.param.empty() && !(arg.role == graph::ArgRole::Removed && arg.removalEvent))
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
