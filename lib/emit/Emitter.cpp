//===- Emitter.cpp - The emit-kind table ----------------------------------===//
#include "wirc/emit/Emitter.h"

#include "wirc/support/Diagnostics.h"

#include <array>

#include <fmt/format.h>

namespace wirc::emit {

namespace {
constexpr std::array<EmitKindInfo, 4> kEmitKinds = {{
    {EmitKind::Fx, "fx", ".txt", true, "the wrapper as a printed torch.fx graph"},
    {EmitKind::FxModule, "fx-module", ".py", true,
     "a Python module that rebuilds the FX graph as a runnable GraphModule"},
    {EmitKind::Python, "python", ".py", true, "an Inductor-style Python output-code module"},
    {EmitKind::Cpp, "cpp", ".cpp", true, "a standalone C++ wrapper over the CUDA driver API"},
}};
} // namespace

std::span<const EmitKindInfo> emitKinds() { return kEmitKinds; }

const EmitKindInfo *findEmitKind(std::string_view name) {
  for (const EmitKindInfo &info : kEmitKinds)
    if (info.name == name)
      return &info;
  return nullptr;
}

std::string emitModule(EmitKind kind, const ir::Module &module, const EmitOptions &options) {
  switch (kind) {
  case EmitKind::Fx:
    return emitFx(module, options);
  case EmitKind::FxModule:
    return emitFxModule(module, options);
  case EmitKind::Python:
    return emitPython(module);
  case EmitKind::Cpp:
    return emitCpp(module);
  }
  const EmitKindInfo &info = kEmitKinds[static_cast<size_t>(kind)];
  throw NotImplementedError(
      fmt::format("--emit={} is not implemented yet in this version of wirc", info.name));
}

} // namespace wirc::emit
