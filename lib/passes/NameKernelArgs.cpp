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
// A kernel whose source spells its name and parameters with placeholders
// (KERNEL_NAME, PARAM_0, ...) gets the names assigned here written into the
// source, so every emitter embeds a source that agrees with its calls.
//
//===----------------------------------------------------------------------===//
#include "wirc/passes/Pass.h"
#include "wirc/support/Names.h"

#include "LineParts.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>

namespace wirc::passes {

namespace {

using namespace wirc::ir;

/// Mirrors the counters of Inductor's KernelArgs for one kernel. Arguments
/// arrive in creation order, removals at the point they happened.
struct ArgCounters {
  // Every argument of every call is named: spelled without fmt.
  static std::string numbered(std::string_view prefix, unsigned n) {
    char text[32];
    std::copy(prefix.begin(), prefix.end(), text);
    char *end = std::to_chars(text + prefix.size(), text + sizeof text, n).ptr;
    return std::string(text, end);
  }

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
      return numbered("in_ptr", inputs++);
    case graph::ArgRole::Output:
      return numbered("out_ptr", outputs++);
    case graph::ArgRole::InOut:
      return numbered("in_out_ptr", liveInPlace++ + removedInPlaceNames);
    case graph::ArgRole::Size:
      return numbered("ks", sizes++);
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

/// The token a source uses for its kernel name (Inductor's own placeholder).
constexpr std::string_view kKernelNameToken = "KERNEL_NAME";
/// The prefix of a parameter placeholder: PARAM_0, PARAM_1, ...
constexpr std::string_view kParamPrefix = "PARAM_";

bool isWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// The index of a parameter placeholder, or nullopt when \p token is not
/// PARAM_ followed by a decimal number without leading zeros.
std::optional<size_t> placeholderIndex(std::string_view token) {
  return parseCanonicalIndex(token.substr(kParamPrefix.size()));
}

/// Fills the placeholders of the kernels that use them with the names the
/// first call of each kernel got; later calls must agree with that call.
class PlaceholderFiller {
public:
  PlaceholderFiller(Module &module, PassContext &ctx) : module(module), ctx(ctx) {}

  /// Handles one named call of a kernel with placeholders.
  bool visit(const KernelCallLine &call, std::string_view origin) {
    std::vector<std::string> names;
    for (const CallArg &arg : call.args)
      if (arg.role != graph::ArgRole::Removed)
        names.push_back(arg.param);
    auto [it, first] = filled.try_emplace(call.kernel, Filled{names, std::string(origin)});
    if (!first) {
      if (it->second.names == names)
        return true;
      ctx.diag.error(origin,
                     fmt::format("kernel '{}' uses placeholders and is called here with ({}) but "
                                 "at {} with ({}); all its calls must name their parameters alike",
                                 module.kernel(call.kernel).name, join(names), it->second.origin,
                                 join(it->second.names)));
      return false;
    }
    return fill(module.kernels.at(call.kernel), call, names, origin);
  }

private:
  struct Filled {
    std::vector<std::string> names;
    std::string origin;
  };
  Module &module;
  PassContext &ctx;
  std::map<KernelId, Filled> filled;

  static std::string join(const std::vector<std::string> &names) {
    std::string s;
    for (const std::string &n : names)
      s += (s.empty() ? "" : ", ") + n;
    return s;
  }

  /// Rewrites the source (and the signature's placeholder names) token by
  /// token: only whole words are placeholders, so PARAM_1 never matches
  /// inside PARAM_10 or MY_PARAM_1.
  bool fill(graph::Kernel &kernel, const KernelCallLine &call,
            const std::vector<std::string> &names, std::string_view origin) {
    std::string pointer = fmt::format("/kernels/{}", call.kernel);
    const std::string &source = kernel.source;
    std::string out;
    out.reserve(source.size());
    std::vector<bool> used(names.size(), false);
    bool ok = true;
    size_t line = 1, lineStart = 0;
    for (size_t i = 0; i < source.size();) {
      if (!isWordChar(source[i])) {
        if (source[i] == '\n') {
          ++line;
          lineStart = i + 1;
        }
        out += source[i++];
        continue;
      }
      size_t end = i;
      while (end < source.size() && isWordChar(source[end]))
        ++end;
      std::string_view token(source.data() + i, end - i);
      if (token == kKernelNameToken) {
        out += kernel.entryName();
      } else if (token.starts_with(kParamPrefix)) {
        std::optional<size_t> index = placeholderIndex(token);
        if (index && *index < names.size()) {
          out += names[*index];
          used[*index] = true;
        } else {
          ctx.diag.error(pointer + "/source",
                         fmt::format("unknown placeholder '{}' at line {}, column {} of the source "
                                     "of kernel '{}'; its call at {} passes {} parameters{}",
                                     token, line, i - lineStart + 1, kernel.name, origin,
                                     names.size(),
                                     names.empty() ? std::string()
                                                   : fmt::format(" (PARAM_0 to PARAM_{})",
                                                                 names.size() - 1)));
          ok = false;
        }
      } else {
        out += token;
      }
      i = end;
    }
    for (size_t k = 0; k < names.size(); ++k) {
      if (used[k])
        continue;
      ctx.diag.error(pointer + "/source",
                     fmt::format("the source of kernel '{}' has no placeholder PARAM_{} for its "
                                 "parameter '{}' (argument {} of the call at {})",
                                 kernel.name, k, names[k], k, origin));
      ok = false;
    }
    if (!ok)
      return false;
    kernel.source = std::move(out);
    for (graph::KernelParam &param : kernel.signature) {
      if (!param.name.starts_with(kParamPrefix))
        continue;
      std::optional<size_t> index = placeholderIndex(param.name);
      if (index && *index < names.size())
        param.name = names[*index];
    }
    return true;
  }
};

/// True if every size of \p layout is the literal 1 (a 0-d tensor included).
bool isOneElement(const graph::Layout &layout) {
  for (const sym::Expr &e : layout.size)
    if (!e.isConstant() || e.constant() != 1)
      return false;
  return true;
}

/// Checks each argument against its parameter's type in the signature: a
/// pointer takes a tensor, and a scalar parameter takes a number or size,
/// or a one-element CPU tensor, which the launch reads as its value (Inductor
/// passes a 0-d CPU tensor input of a CUDA graph this way).
/// \p types: the types of the parameters the call passes, in order.
bool checkArgKinds(const Module &module, const graph::Kernel &kernel,
                   const std::vector<std::string_view> &types, KernelCallLine &call,
                   const Function &function, PassContext &ctx) {
  size_t p = 0;
  bool ok = true;
  for (size_t i = 0; i < call.args.size(); ++i) {
    CallArg &arg = call.args[i];
    if (arg.role == graph::ArgRole::Removed)
      continue;
    std::string_view type = types[p++];
    bool tensor = arg.value.kind == Value::Kind::Buffer || arg.value.kind == Value::Kind::View;
    auto fail = [&](const std::string &what) {
      ctx.diag.error(fmt::format("{}/args/{}", function.originOf(call), i),
                     fmt::format("kernel '{}' parameter '{}' ({}): {}", kernel.name, arg.param,
                                 type, what));
      ok = false;
    };
    if (type.starts_with('*')) {
      if (!tensor)
        fail("a pointer parameter takes a tensor, not a number");
      else if (const BufferInfo &info = module.buffer(arg.value.buffer);
               info.layout.device.kind == graph::Device::Kind::CPU)
        fail(fmt::format("a pointer parameter takes a tensor on a CUDA device; '{}' is on the "
                         "CPU",
                         info.name));
    } else if (tensor && graph::isTritonScalarType(type)) {
      const BufferInfo &info = module.buffer(arg.value.buffer);
      std::string why;
      if (arg.role != graph::ArgRole::Input)
        why = "written by the call";
      else if (arg.value.kind == Value::Kind::View)
        why = "passed as a view";
      else if (info.layout.device.kind != graph::Device::Kind::CPU)
        why = "on " + graph::deviceName(info.layout.device);
      else if (!isOneElement(info.layout))
        why = "not of one element";
      if (!why.empty())
        fail(fmt::format("a scalar parameter takes a number, or a one-element CPU tensor "
                         "read as its value; '{}' is {}",
                         info.name, why));
      arg.readsScalar = why.empty();
    }
  }
  return ok;
}

/// The parameters a kernel takes from its calls under each config (the last
/// slot: no config), derived once per kernel and config. A kernel with
/// placeholders has them filled in by then: its first call fills them
/// before its signature is checked.
struct Expected {
  bool known = false;
  std::vector<std::string_view> names;
  std::vector<std::string_view> types;
};
using ExpectedTable = std::vector<std::vector<Expected>>; ///< by kernel, then config

/// Names the arguments of the calls in lines [begin, end) of \p function.
bool nameRange(Module &module, Function &function, size_t begin, size_t end,
               PlaceholderFiller &placeholders, ExpectedTable &expectedOf, PassContext &ctx) {
  bool ok = true;
  // The parameters each call passes, reused from call to call.
  std::vector<std::string_view> passed;
  for (size_t l = begin; l < end; ++l) {
    auto *call = std::get_if<KernelCallLine>(&function.lines[l]);
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
        ctx.diag.error(fmt::format("{}/args/{}", function.originOf(*call), i),
                       "a scalar argument needs a \"name\": its parameter name in the kernel");
        ok = false;
      }
    }
    if (kernel.placeholders && !placeholders.visit(*call, function.originOf(*call))) {
      ok = false;
      continue;
    }
    if (kernel.signature.empty())
      continue;
    // The call passes every signature parameter the config does not
    // supply (block sizes), in order: the named arguments, then the numels.
    passed.clear();
    for (const CallArg &arg : call->args)
      if (arg.role != graph::ArgRole::Removed)
        passed.push_back(arg.param);
    for (const auto &[numel, expr] : call->numels)
      passed.push_back(numel);
    std::vector<Expected> &slots = expectedOf[call->kernel];
    if (slots.empty())
      slots.resize(kernel.configs.size() + 1);
    Expected &expected = slots[std::min<size_t>(call->config, kernel.configs.size())];
    if (!expected.known) {
      expected.known = true;
      const graph::KernelConfig *config =
          call->config < kernel.configs.size() ? &kernel.configs[call->config] : nullptr;
      for (const graph::KernelParam &param : kernel.signature)
        if (!config || !config->kwarg(param.name)) {
          expected.names.push_back(param.name);
          expected.types.push_back(param.type);
        }
    }
    auto list = [](const std::vector<std::string_view> &names) {
      std::string s;
      for (std::string_view n : names) {
        if (!s.empty())
          s += ", ";
        s += n;
      }
      return s.empty() ? std::string("nothing") : s;
    };
    if (passed != expected.names) {
      ctx.diag.error(function.originOf(*call),
                     fmt::format("call of kernel '{}' passes ({}) but its signature takes ({})",
                                 kernel.name, list(passed), list(expected.names)));
      ok = false;
      continue;
    }
    ok &= checkArgKinds(module, kernel, expected.types, *call, function, ctx);
  }
  return ok;
}

} // namespace

bool nameKernelArgs(Module &module, PassContext &ctx) {
  PlaceholderFiller placeholders(module, ctx);
  // A kernel with placeholders has them filled in by its first call, in the
  // module: such a module is named on one thread.
  bool parallel = std::none_of(module.kernels.begin(), module.kernels.end(),
                               [](const graph::Kernel &kernel) { return kernel.placeholders; });
  // A table for each thread, made by the thread that uses it: it is only a
  // memo.
  std::vector<ExpectedTable> expected(lineParts(ctx));
  return forEachLineRange(
      module, ctx, parallel,
      [&](Function &function, size_t begin, size_t end, PassContext &rangeCtx, size_t part) {
        if (expected[part].empty())
          expected[part].resize(module.kernels.size());
        return nameRange(module, function, begin, end, placeholders, expected[part], rangeCtx);
      });
}

} // namespace wirc::passes
